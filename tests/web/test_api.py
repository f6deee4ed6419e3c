"""Every API endpoint, with good input and with malformed and hostile input (a 4xx and a sentence)."""

from __future__ import annotations

import json

import pytest

PIN = "2468"
HUGE = "x" * (70 * 1024)


def game_of(session):
    """What must not change after a refused request: the state and the log's length."""
    game = session.snapshot().get("game_id")
    return session._state, (len(session.store.events(game)) if game else 0), len(session.store.history())


def test_state_without_a_game_says_what_to_do(client):
    """The idle table."""
    data = client.get("/api/state").get_json()
    assert data["phase"] == "idle"
    assert data["message"] == "No game yet: open Setup to start one."


def test_start_then_state_shows_the_table(started):
    """A started game: seats, display, the race open."""
    data = started.get("/api/state").get_json()
    assert [s["name"] for s in data["seats"]] == ["Ana", "Ben", "Cy"]
    assert data["phase"] == "open" and len(data["display"]) == 2
    assert data["display"][0]["symbols"]["dice"]  # the requirement as dice to draw


@pytest.mark.parametrize("body, status, error", [
    ("not json", 400, 'The body is not valid JSON; send an object like {"seat": 0}.'),
    ("[" * 30000, 400, 'The body is not valid JSON; send an object like {"seat": 0}.'),
    (b"\xff\xfe{}", 400, 'The body is not valid JSON; send an object like {"seat": 0}.'),
    ('{"pin": "2468", "players": ["Ana", "Ben"], "leader": NaN}', 400, "'leader' should be a whole number, not NaN."),
    ("[1, 2]", 400, 'The body must be a JSON object like {"seat": 0}, not a list.'),
    ('{"players": ["A", "B"]}', 401, "This needs the table PIN (shown on the host screen); enter it and try again."),
    ('{"pin": "0000", "players": ["A", "B"]}', 403, "That is not the table PIN; the host screen shows the right one."),
    ('{"pin": 2468, "players": ["A", "B"]}', 403, "That is not the table PIN; the host screen shows the right one."),
    ('{"pin": "2468"}', 400, "'players' is missing; it should be a list."),
    ('{"pin": "2468", "players": "Ana,Ben"}', 400, "'players' should be a list, not \"Ana,Ben\"."),
    ('{"pin": "2468", "players": ["Ana"]}', 400, "Rescue Animals is for 2 to 5 players, not 1; add or remove a name."),
    ('{"pin": "2468", "players": ["A", "B", "C", "D", "E", "F"]}', 400,
     "Rescue Animals is for 2 to 5 players, not 6; add or remove a name."),
    ('{"pin": "2468", "players": ["Ana", null]}', 400, "Player 2 needs a name (text), not None."),
    ('{"pin": "2468", "players": ["Ana", {"x": 1}]}', 400, "Player 2 needs a name (text), not {'x': 1}."),
    ('{"pin": "2468", "players": ["Ana", "<img src=x onerror=alert(1)>"]}', 400,
     "Player 2's name may not contain '<' '>'; use letters, digits and spaces."),
    ('{"pin": "2468", "players": ["Ana", "Ana"]}', 400,
     "Two players have the same name in ['Ana', 'Ana']; give each a different one."),
    ('{"pin": "2468", "players": ["Ana", "Ben"], "leader": true}', 400, "'leader' should be a whole number, not true."),
    ('{"pin": "2468", "players": ["Ana", "Ben"], "leader": 2}', 400, "The Leader is one of seats 1 to 2 (index 0 to 1), not index 2."),
    ('{"pin": "2468", "players": ["Ana", "Ben"], "leader": "0"}', 400, "'leader' should be a whole number, not \"0\"."),
    ('{"pin": "2468", "players": ["Ana", "Ben"], "demo": "yes"}', 400, "'demo' should be true or false, not \"yes\"."),
    ('{"pin": "2468", "players": ["Ana", "Ben"], "game": "chess"}', 400,
     "The companion plays rescue_animals for now, not 'chess'."),
    ('{"pin": "2468", "players": ["Ana", "Ben"], "seed": 1.5}', 400, "'seed' should be a whole number, not 1.5."),
])
def test_start_refuses_bad_input_with_a_sentence(started, session, body, status, error):
    """Each bad start gets its own sentence; the game being played is unchanged."""
    before = game_of(session)
    response = started.post("/api/start", data=body, content_type="application/json")
    assert (response.status_code, response.get_json()) == (status, {"error": error})
    assert game_of(session) == before


def test_wrong_pins_are_slowed_down(client):
    """Five wrong PINs a minute, then even the right one must wait."""
    for _ in range(5):
        assert client.post("/api/undo", json={"pin": "1111"}).status_code == 403
    response = client.post("/api/undo", json={"pin": PIN})
    assert response.status_code == 429
    assert response.get_json() == {"error": "Too many wrong PINs from this phone; wait a minute and try again."}


def test_the_pin_can_come_in_a_header(client):
    """X-Table-Pin is the same as a "pin" field."""
    assert client.post("/api/pin", headers={"X-Table-Pin": PIN}).get_json() == {"ok": True}
    assert client.post("/api/pin", headers={"X-Table-Pin": "9"}).status_code == 403


@pytest.mark.parametrize("body, status, error", [
    ("{}", 400, "'kind' is missing; it should be text."),
    ('{"kind": 3}', 400, "'kind' should be text, not 3."),
    ('{"kind": "fly"}', 400, "Unknown kind 'fly'; use one of choose, correct, press, reveal, roll, roll_random."),
    ('{"kind": "press"}', 400, "'seat' is missing; it should be a whole number."),
    ('{"kind": "press", "seat": "0"}', 400, "'seat' should be a whole number, not \"0\"."),
    ('{"kind": "press", "seat": true}', 400, "'seat' should be a whole number, not true."),
    ('{"kind": "press", "seat": 1.0}', 400, "'seat' should be a whole number, not 1.0."),
    ('{"kind": "press", "seat": 3}', 400, "There is no seat index 3 at this table; the seats are 1 to 3 (index 0 to 2)."),
    ('{"kind": "press", "seat": -1}', 400, "There is no seat index -1 at this table; the seats are 1 to 3 (index 0 to 2)."),
    ('{"kind": "press", "seat": 99999999999999999999999}', 400,
     "There is no seat index 99999999999999999999999 at this table; the seats are 1 to 3 (index 0 to 2)."),
    ('{"kind": "roll", "seat": 0}', 400, "'dice' is missing; it should be a list."),
    ('{"kind": "roll", "seat": 0, "dice": "W3 W3"}', 400, "'dice' should be a list, not \"W3 W3\"."),
    ('{"kind": "roll", "seat": 0, "dice": []}', 400, "A seat has 1 to 6 dice, not 0."),
    ('{"kind": "roll", "seat": 0, "dice": [1, 2, 3, 4, 5, 6, 1]}', 400, "A seat has 1 to 6 dice, not 7."),
    ('{"kind": "roll", "seat": 0, "dice": [3]}', 400, 'A die is {"colour": ..., "value": ...}, not 3.'),
    ('{"kind": "roll", "seat": 0, "dice": [{"colour": "red", "value": 3}]}', 400,
     "A die's colour is white, black or gray, not 'red'."),
    ('{"kind": "roll", "seat": 0, "dice": [{"colour": "white", "value": 7}]}', 400, "A die shows 1 to 6, not 7."),
    ('{"kind": "roll", "seat": 0, "dice": [{"colour": "white", "value": "3"}]}', 400, "A die shows 1 to 6, not '3'."),
    ('{"kind": "roll", "seat": 0, "dice": [{"colour": "white", "value": 3}]}', 409,
     "Seat 1 (Ana) rolls 4 white and 1 black dice; got 1 white (W3)"),
    ('{"kind": "roll", "seat": 0, "dice": [{"colour": "white", "value": 1}, {"colour": "white", "value": 1}, '
     '{"colour": "white", "value": 1}, {"colour": "white", "value": 1}, {"colour": "black", "value": 1}, '
     '{"colour": "gray", "value": 1}]}', 409,
     "Seat 1 (Ana) has a gray die among its dice, but the gray die is still beside the deck"),
    ('{"kind": "roll_random", "seat": "me"}', 400, "'seat' should be a whole number, not \"me\"."),
    ('{"kind": "choose", "seat": 0}', 400, "'card' is missing; it should be text."),
    ('{"kind": "choose", "seat": 0, "card": ["x"]}', 400, "'card' should be text, not [\"x\"]."),
    ('{"kind": "choose", "seat": 0, "card": "giant-panda"}', 409, "Seat 1 (Ana)'s dice have not been read yet."),
    ('{"kind": "reveal", "cards": ["giant-panda", "fin-whale"]}', 401,
     "This needs the table PIN (shown on the host screen); enter it and try again."),
    ('{"kind": "reveal", "pin": "2468", "cards": "giant-panda"}', 400,
     "'cards' should be a list, not \"giant-panda\"."),
    ('{"kind": "reveal", "pin": "2468", "cards": [1, 2]}', 400,
     "'cards' should be a list of 1 to 6 card ids (text) from the catalogue."),
    ('{"kind": "reveal", "pin": "2468", "cards": ["giant-panda", "fin-whale"]}', 409,
     "Cards are revealed at the start of a round; now the phase is 'open'"),
])
def test_act_refuses_bad_input_with_a_sentence(started, session, body, status, error):
    """Each bad action gets its own sentence and changes nothing."""
    before = game_of(session)
    response = started.post("/api/act", data=body, content_type="application/json")
    data = response.get_json()
    assert response.status_code == status
    assert set(data) == {"error"} and data["error"].endswith(".")
    if error is not None:
        assert data["error"].startswith(error)
    assert game_of(session) == before


def test_acting_without_a_game_says_to_start_one(client):
    """No game yet: a press is refused with what to do."""
    response = client.post("/api/act", json={"kind": "press", "seat": 0})
    assert (response.status_code, response.get_json()) == (
        409, {"error": "No game is being played: start one on the setup page."})


def test_a_press_is_taken_or_refused_with_the_reason(started, session, manual):
    """A seat without dice is refused (409 + reason); the refusal is in that seat's snapshot."""
    response = started.post("/api/act", json={"kind": "press", "seat": 1})
    assert response.status_code == 409
    assert response.get_json() == {"error": "Ben's dice have not been read yet."}
    assert session.snapshot()["seats"][1]["refusal"]["reason"] == "Ben's dice have not been read yet"


def test_roll_random_then_roll_by_taps_then_a_winning_press(started, session, manual):
    """The demo's roll-for-me, tapped dice, and a press that wins the race."""
    assert started.post("/api/act", json={"kind": "roll_random", "seat": 2}).status_code == 200
    assert len(session.snapshot()["seats"][2]["dice"]) == 5
    card = session.snapshot()["display"][0]
    dice = _dice_meeting(session, card["id"])
    assert started.post("/api/act", json={"kind": "roll", "seat": 0, "dice": dice}).status_code == 200
    response = started.post("/api/act", json={"kind": "press", "seat": 0})
    assert response.get_json() == {"seat": 0, "accepted": True, "reason": None}
    manual.advance(31)
    assert card["id"] in session.snapshot()["seats"][0]["rescued"]


def _dice_meeting(session, card_id):
    """Tapped dice (as JSON) for seat 0 that meet `card_id` and only it."""
    import itertools

    from companion.games import rescue_animals as rules

    state = session._state
    for whites in itertools.product(range(1, 7), repeat=4):
        for black in range(1, 7):
            dice = tuple(rules.Die("white", v) for v in whites) + (rules.Die("black", black),)
            if rules.satisfied_cards(state, 0, dice) == (card_id,):
                return [d.to_dict() for d in dice]
    raise AssertionError(card_id)


def test_undo_needs_the_pin_and_undoes(started, session, manual):
    """Undo a roll: the dice go back; without the PIN nothing happens."""
    started.post("/api/act", json={"kind": "roll_random", "seat": 1})
    before = game_of(session)
    response = started.post("/api/undo", json={})
    assert response.status_code == 401
    assert game_of(session) == before
    response = started.post("/api/undo", json={"pin": PIN})
    assert response.status_code == 200 and response.get_json()["seats"][1]["dice"] == []


def test_undo_with_nothing_to_undo_says_so(client, started):
    """Right after the deal: nothing a person did."""
    response = client.post("/api/undo", headers={"X-Table-Pin": PIN})
    assert response.status_code == 400
    assert response.get_json() == {"error": "There is nothing to undo: no one has done anything in this game yet."}


@pytest.mark.parametrize("method, path", [
    ("post", "/api/start"), ("post", "/api/act"), ("post", "/api/undo"), ("post", "/api/pin"),
    ("post", "/api/catalogue/cards"), ("put", "/api/catalogue/cards/giant-panda"),
    ("delete", "/api/catalogue/cards/giant-panda"),
])
def test_a_huge_body_is_refused_before_it_is_read(started, session, method, path):
    """70 KB: 413 with a sentence, never a 500; nothing changes."""
    before = game_of(session)
    response = getattr(started, method)(path, data=json.dumps({"pin": PIN, "x": HUGE}), content_type="application/json")
    assert response.status_code == 413
    assert response.get_json() == {"error": "That request is far too big; the table only takes short messages."}
    assert game_of(session) == before


def test_unknown_addresses_and_wrong_methods_answer_with_a_sentence(client):
    """404 and 405 as JSON under /api/, as a page elsewhere."""
    response = client.get("/api/nothing")
    assert (response.status_code, response.get_json()) == (404, {"error": "There is no such page here; go back to the start page."})
    response = client.get("/api/start")
    assert (response.status_code, response.get_json()) == (405, {"error": "That address does not take this kind of request."})
    response = client.get("/no-such-page")
    assert response.status_code == 404 and b"There is no such page here" in response.data


def test_an_unexpected_error_is_a_sentence_not_a_traceback(app, client, session, monkeypatch):
    """A bug inside: 500 with a sentence (the registered handler), and no traceback to the phone."""
    def broken():
        """Fail like a bug would."""
        raise RuntimeError("secret internals")

    monkeypatch.setattr(session, "snapshot", broken)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    response = client.get("/api/state")
    assert response.status_code == 500
    assert response.get_json() == {"error": "Something went wrong inside the companion; the game is safe. Try again."}
    assert b"secret" not in response.data


def test_history_and_exports(started, session):
    """The history lists the game; JSON and CSV exports download; a wrong number is a 404 sentence."""
    started.post("/api/act", json={"kind": "roll_random", "seat": 0})
    games = started.get("/api/history").get_json()["games"]
    assert [(g["status"], g["setup"]["players"]) for g in games] == [("playing", ["Ana", "Ben", "Cy"])]
    game = games[0]["id"]
    data = started.get(f"/api/games/{game}/export.json").get_json()
    assert [e["action"]["kind"] for e in data["events"]] == ["reveal", "go", "roll"]
    response = started.get(f"/api/games/{game}/export.csv")
    assert response.mimetype == "text/csv" and response.data.decode().count("\n") == 4
    response = started.get("/api/games/99999999999999999999999/export.csv")
    assert (response.status_code, response.get_json()) == (404, {
        "error": "There is no game number 99999999999999999999999; the history lists the games there are."})
    response = started.get("/api/games/999/export.json")
    assert (response.status_code, response.get_json()) == (
        404, {"error": "There is no game number 999; the history lists the games there are."})
    assert started.get("/api/games/abc/export.csv").status_code == 404


def test_the_catalogue_reads_and_edits_with_the_pin(client, tmp_path):
    """Read the sample; add a card (saved to the data folder); edit it; remove it."""
    data = client.get("/api/catalogue").get_json()
    assert data["sample"] is True and data["total"] == 54
    card = {"id": "kea", "name": "Kea", "latin": "Nestor notabilis", "area": "New Zealand",
            "copies": 2, "protection": 4, "bonus": 2, "requirement": "B1 W1 W*"}
    assert client.post("/api/catalogue/cards", json={"card": card}).status_code == 401
    response = client.post("/api/catalogue/cards", json={"pin": PIN, "card": card})
    assert response.status_code == 201 and response.get_json()["total"] == 56
    assert (tmp_path / "rescue-animals.toml").exists()
    response = client.put("/api/catalogue/cards/kea", json={"pin": PIN, "card": {"protection": 5}})
    assert [c["protection"] for c in response.get_json()["card"] if c["id"] == "kea"] == [5]
    response = client.delete("/api/catalogue/cards/kea", headers={"X-Table-Pin": PIN})
    assert response.status_code == 200 and response.get_json()["total"] == 54


@pytest.mark.parametrize("method, path, body, status, error", [
    ("post", "/api/catalogue/cards", {"pin": PIN, "card": "kea"}, 400,
     "'card' should be an object with id, name, latin, area, copies, protection, bonus, requirement."),
    ("post", "/api/catalogue/cards", {"pin": PIN, "card": {"id": "Kakapo!"}}, 400,
     "rescue-animals.toml: card 'Kakapo!': field 'name' is missing"),
    ("post", "/api/catalogue/cards", {"pin": PIN, "card": {
        "id": "kea", "name": "<b>Kakapo</b>", "latin": "S", "area": "NZ", "copies": 1, "protection": 1,
        "bonus": 0, "requirement": "B7"}}, 400, "rescue-animals.toml: card 'kea': field 'requirement' is wrong"),
    ("post", "/api/catalogue/cards", {"pin": PIN, "card": {
        "id": "giant-panda", "name": "P", "latin": "S", "area": "NZ", "copies": 1, "protection": 1,
        "bonus": 0, "requirement": "PANDA"}}, 400, "rescue-animals.toml: card 'giant-panda': field 'id' is already used"),
    ("put", "/api/catalogue/cards/no-such-card", {"pin": PIN, "card": {"bonus": 1}}, 400,
     "rescue-animals.toml: there is no card 'no-such-card'"),
    ("put", "/api/catalogue/cards/giant-panda", {"pin": PIN, "card": {"copies": "many"}}, 400,
     "rescue-animals.toml: card 'giant-panda': field 'copies' must be a whole number 1-9, not 'many'"),
    ("delete", "/api/catalogue/cards/giant-panda", {}, 401,
     "This needs the table PIN (shown on the host screen); enter it and try again."),
])
def test_catalogue_edits_refuse_bad_input(client, method, path, body, status, error):
    """A wrong card gets the catalogue's sentence naming the card and the field; nothing is saved."""
    response = getattr(client, method)(path, json=body)
    assert response.status_code == status
    assert response.get_json()["error"].startswith(error)
    assert client.get("/api/catalogue").get_json()["total"] == 54


def test_every_page_is_served_with_a_strict_content_policy(client):
    """The pages load only our own scripts (no inline script, no CDN)."""
    for path in ("/", "/join", "/setup", "/table", "/scoreboard", "/history", "/catalogue", "/host"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert "script-src 'self'" in response.headers["Content-Security-Policy"]
        assert b"<script>" not in response.data and b"http://" not in response.data.replace(b"http://localhost", b"")


def test_the_qr_code_is_an_svg_of_the_table_address(app, client):
    """The join page's QR code is generated here, as SVG."""
    app.config["TABLE_URL"] = "http://192.168.1.20:8000/"
    response = client.get("/qr.svg")
    assert response.mimetype == "image/svg+xml" and b"<svg" in response.data
    assert b"192.168.1.20:8000" in client.get("/join").data


def test_the_host_screen_shows_the_pin_only_on_the_companion_itself(client):
    """Opened from the companion (localhost) the PIN shows; from a phone it does not."""
    assert PIN.encode() in client.get("/host", environ_base={"REMOTE_ADDR": "127.0.0.1"}).data
    assert PIN.encode() not in client.get("/host", environ_base={"REMOTE_ADDR": "192.168.1.33"}).data


def test_a_hostile_name_never_reaches_a_page_as_markup(started):
    """Names with markup are refused; the history page escapes whatever it shows."""
    response = started.post("/api/start", json={"pin": PIN, "players": ["Ana", "<script>x</script>"]})
    assert response.status_code == 400
    assert b"<script>x" not in started.get("/history").data


def test_a_whole_game_over_the_api_ends_in_the_history_and_scoreboard(started, session, manual):
    """Roll-for-me and presses over HTTP until the deck is empty; the history page shows the result."""
    for _ in range(5000):
        snap = started.get("/api/state").get_json()
        if snap["phase"] == "over":
            break
        if snap["phase"] == "choosing":
            started.post("/api/act", json={"kind": "choose", "seat": snap["choosing"]["seat"],
                                           "card": snap["choosing"]["cards"][0]})
        elif snap["phase"] == "open":
            for seat in snap["seats"]:
                if seat["can_claim"]:
                    started.post("/api/act", json={"kind": "press", "seat": seat["seat"]})
            manual.advance(31)
            for seat in range(3):
                started.post("/api/act", json={"kind": "roll_random", "seat": seat})
        else:
            manual.advance(3001)
    snap = started.get("/api/state").get_json()
    assert snap["phase"] == "over" and snap["scores"]["final"] is True
    winner = snap["seats"][snap["scores"]["winner"]]["name"]
    page = started.get("/history").get_data(as_text=True)
    assert f"finished, winner: <b>{winner}</b>" in page
    for seat in snap["scores"]["seats"]:
        assert f"{seat['name']} {seat['total']}" in page
    exported = started.get(f"/api/games/{snap['game_id']}/export.json").get_json()
    assert exported["status"] == "finished" and exported["scores"] == snap["scores"]
    response = started.post("/api/act", json={"kind": "roll_random", "seat": 0})
    assert (response.status_code, response.get_json()) == (409, {"error": "The game is over; no more roll actions."})


def test_a_phone_press_goes_through_the_press_hook_when_one_is_set(app, started, session):
    """The composition root can route phone presses through the seat's button: one path for both."""
    calls = []

    def through_button(seat):
        """Record the press, then hand it to the session as the button would."""
        calls.append(seat)
        return session.press(seat, source="button")

    app.extensions["table"].press = through_button
    response = started.post("/api/act", json={"kind": "press", "seat": 2})
    assert calls == [2]
    assert response.get_json() == {"error": "Cy's dice have not been read yet."}

"""Rescue Animals on `companion serve`'s simulated table, decided by what the camera reads.

The simulator renders the printed mat with each seat's dice; the live loop reads the frames with the
real dice reader, settles them per seat zone and feeds the session; the phones (Flask test client) only
start the game and press "Rescuing!" (through the seats' mock pins). No die reaches the game any other way.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from companion import catalogue as catalogues


def play_rescue(client, sim, helpers, seat: int, card: str, seed: int) -> None:
    """Seat `seat` throws dice meeting `card` only; once the camera read them it presses and rescues the card."""
    state = client.get("/api/state").json
    display = state["display"]
    gray = state["gray_holder"] == seat
    values = helpers.throw_meeting(display, [c["id"] for c in display].index(card), seed=seed, gray=gray)
    sim.roll(seat, values=values)
    state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["seats"][seat]["satisfied"] == [card]
                             and helpers.seat_dice(s, seat) == helpers.as_dice(values) and s,
                             what=f"seat {seat + 1}'s dice to be read")
    assert state["seats"][seat]["can_claim"]
    assert client.post("/api/act", json={"kind": "press", "seat": seat}).json["accepted"]
    helpers.wait_for(lambda: card in client.get("/api/state").json["seats"][seat]["rescued"], what="the rescue")
    helpers.wait_for(lambda: client.get("/api/state").json["phase"] in ("open", "reveal", "over"), what="the next race")


def start(client, helpers) -> dict:
    """A 3-player demo game, once the camera has sent every seat's dice."""
    answer = client.post("/api/start", json={"pin": helpers.PIN, "players": ["Ana", "Ben", "Cy"], "leader": 0, "seed": 5})
    assert answer.status_code == 200
    return helpers.wait_for(lambda: (s := client.get("/api/state").json)["phase"] == "open"
                            and all(seat["dice"] for seat in s["seats"]) and s, what="the camera's first readings")


def test_a_round_where_the_camera_decides_the_claims(open_sim_table, helpers) -> None:
    """Two seats throw dice meeting one display card each; the camera reads them; their presses rescue those cards;
    the seat that rescued nothing takes the gray die, and the camera then sees it in that seat's zone."""
    table = open_sim_table()
    assert table.camera is not None and table.camera.sim_table is not None and table.board is not None
    client = table.app.test_client()
    state = start(client, helpers)
    display = [c["id"] for c in state["display"]]
    for seat, card in ((1, display[0]), (2, display[1])):
        play_rescue(client, table.camera.sim_table, helpers, seat, card, seed=seat)
    session = table.session
    game = session.store.current_game().id
    events = session.store.events(game)
    rescues = [e for e in events if e.kind == "rescue"]
    assert [(e.action["seat"], e.source) for e in rescues] == [(1, "phone"), (2, "phone")]
    for rescue in rescues:  # the claim was judged on the dice the camera read for that seat
        read = [e for e in events if e.seq < rescue.seq and e.kind == "roll" and e.action["seat"] == rescue.action["seat"]]
        assert read[-1].source == "camera"
        assert Counter(map(str, rescue.action["dice"])) == Counter(map(str, read[-1].action["dice"]))
    assert {e.source for e in events if e.kind == "roll"} == {"camera"}
    state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["round"] == 2 and s, what="round 2")
    assert state["gray_holder"] == 0
    state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["seats"][0]["dice"]
                             and any(d["colour"] == "gray" for d in s["seats"][0]["dice"]) and s,
                             what="the camera to see the gray die at seat 1")
    assert len(state["seats"][0]["dice"]) == 6
    helpers.wait_for(lambda: {e.seq for e in rescues} <= set(session.store.stills(game)), what="a still of each claim")


def small_deck(data) -> None:
    """A catalogue of 14 cards from the sample: 3 players return 10, so the game is two rounds of two."""
    sample = catalogues.load_sample()
    cards, total = [], 0
    for card in sample.cards:
        copies = min(card.copies, 14 - total)
        cards.append(dataclasses.replace(card, copies=copies))
        total += copies
        if total == 14:
            break
    catalogues.save_catalogue(dataclasses.replace(sample, cards=tuple(cards)), data / "rescue-animals.toml")


def test_a_whole_game_played_with_dice_read_from_frames_only(open_sim_table, helpers) -> None:
    """A whole (short) game: every die the game knows was read from rendered frames, the gray die's holder
    rescues with it in round 2, the game ends with the scores."""
    table = open_sim_table(before=small_deck)
    client = table.app.test_client()
    state = start(client, helpers)
    sim = table.camera.sim_table
    display = [c["id"] for c in state["display"]]
    play_rescue(client, sim, helpers, 1, display[0], seed=1)
    play_rescue(client, sim, helpers, 2, display[1], seed=2)
    state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["round"] == 2 and s["phase"] == "open"
                             and any(d["colour"] == "gray" for d in s["seats"][0]["dice"]) and s,
                             what="round 2 with the gray die at seat 1")
    display = [c["id"] for c in state["display"]]
    play_rescue(client, sim, helpers, 0, display[0], seed=3)  # the gray die's holder, six dice
    play_rescue(client, sim, helpers, 2, display[1], seed=4)
    state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["phase"] == "over" and s, what="the end")
    session = table.session
    record = session.store.history()[0]
    assert record.status == "finished" and record.scores == state["scores"]
    events = session.store.events(record.id)
    assert {e.source for e in events if e.kind == "roll"} == {"camera"}
    assert [e.action["seat"] for e in events if e.kind == "rescue"] == [1, 2, 0, 2]
    gray_rescue = [e for e in events if e.kind == "rescue"][2]
    assert any(d["colour"] == "gray" for d in gray_rescue.action["dice"])
    totals = [seat["total"] for seat in state["scores"]["seats"]]
    assert totals[state["scores"]["winner"]] == max(totals) and sum(totals) > 0

"""A whole 3-player game with the full sample deck on the simulated table: every die from rendered frames."""

from __future__ import annotations

from .test_camera_round import start

THROWS_PER_RESCUE = 4  # a player whose dice the camera keeps misreading throws again, as at a real table


def rescue(client, sim, helpers, seat: int, card: str, seed: int) -> int:
    """Seat `seat` throws dice meeting `card` only until the camera reads them right, then presses; returns throws."""
    for throw in range(1, THROWS_PER_RESCUE + 1):
        state = client.get("/api/state").json
        display = [c["id"] for c in state["display"]]
        values = helpers.throw_meeting(state["display"], display.index(card), seed=seed + 1000 * throw,
                                       gray=state["gray_holder"] == seat)
        sim.roll(seat, values=values)
        try:
            helpers.wait_for(lambda: (s := client.get("/api/state").json)["seats"][seat]["satisfied"] == [card]
                             and helpers.seat_dice(s, seat) == helpers.as_dice(values), timeout=8.0,
                             what=f"seat {seat + 1}'s dice to be read")
        except AssertionError:
            continue
        assert client.post("/api/act", json={"kind": "press", "seat": seat}).json["accepted"]
        helpers.wait_for(lambda: card in client.get("/api/state").json["seats"][seat]["rescued"], what="the rescue")
        return throw
    raise AssertionError(f"the camera misread seat {seat + 1}'s dice {THROWS_PER_RESCUE} throws in a row")


def test_a_whole_sample_deck_game_is_played_through_the_camera(open_sim_table, helpers) -> None:
    """22 rounds of two rescues each (3 players return 10 of 54 cards); the game ends with the scores."""
    table = open_sim_table()
    client = table.app.test_client()
    state = start(client, helpers)
    sim = table.camera.sim_table
    assert state["rounds_total"] == 22
    throws = 0
    for number in range(1, 23):
        state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["round"] == number
                                 and s["phase"] == "open" and s, what=f"round {number}")
        for turn, card in enumerate([c["id"] for c in state["display"]]):
            throws += rescue(client, sim, helpers, (number + turn) % 3, card, seed=100 * number + turn)
    state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["phase"] == "over" and s, what="the end")
    events = table.session.store.events(table.session.store.history()[0].id)
    assert {e.source for e in events if e.kind == "roll"} == {"camera"}
    assert sum(e.kind == "rescue" for e in events) == 44
    assert sum(seat["animals"] for seat in state["scores"]["seats"]) == 44
    assert throws <= 50, f"{throws} throws for 44 rescues: the camera misread too often"

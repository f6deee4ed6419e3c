"""A whole 3-player game with the full sample deck on the simulated table: every die from rendered frames."""

from __future__ import annotations

from .test_camera_round import play_rescue, start


def test_a_whole_sample_deck_game_is_played_through_the_camera(open_sim_table, helpers) -> None:
    """22 rounds of two rescues each (3 players return 10 of 54 cards); the game ends with the scores."""
    table = open_sim_table()
    client = table.app.test_client()
    state = start(client, helpers)
    sim = table.camera.sim_table
    rounds = state["rounds_total"]
    assert rounds == 22
    for number in range(1, rounds + 1):
        state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["round"] == number
                                 and s["phase"] == "open" and s, what=f"round {number}")
        display = [c["id"] for c in state["display"]]
        for turn, card in enumerate(display):
            play_rescue(client, sim, helpers, (number + turn) % 3, card, seed=100 * number + turn)
    state = helpers.wait_for(lambda: (s := client.get("/api/state").json)["phase"] == "over" and s, what="the end")
    events = table.session.store.events(table.session.store.history()[0].id)
    assert {e.source for e in events if e.kind == "roll"} == {"camera"}
    assert sum(e.kind == "rescue" for e in events) == 44
    assert sum(seat["animals"] for seat in state["scores"]["seats"]) == 44

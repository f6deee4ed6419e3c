"""A companion killed with SIGKILL mid-game and started again resumes the same game in the same state."""

from __future__ import annotations

import signal

PIN = "2468"
VOLATILE = ("version", "server_time", "countdown")


def comparable(state: dict) -> dict:
    """The state without what is allowed to differ across a restart (clock values)."""
    return {k: v for k, v in state.items() if k not in VOLATILE}


def test_sigkill_then_restart_resumes_the_same_game(start_server, meeting):
    """Play over HTTP, kill -9, start again on the same data folder: the same state, the race works."""
    server = start_server()
    status, _ = server.post("/api/start", {"pin": PIN, "players": ["Ana", "Ben", "Cy"], "leader": 1, "seed": 21})
    assert status == 200
    state = server.wait_for(lambda s: s["phase"] == "open")
    card = state["display"][0]["id"]
    assert server.post("/api/act", {"kind": "roll", "seat": 0, "dice": meeting(state, 0, card)})[0] == 200
    assert server.post("/api/act", {"kind": "press", "seat": 0})[0] == 200
    server.wait_for(lambda s: card in s["seats"][0]["rescued"])
    assert server.post("/api/act", {"kind": "roll_random", "seat": 2})[0] == 200
    before = server.wait_for(lambda s: s["phase"] == "open")

    server.kill(signal.SIGKILL)
    again = start_server(server.data_dir)
    after = again.get("/api/state")
    assert comparable(after) == comparable(before)
    assert after["seats"][0]["rescued"] == [card]
    assert after["last_race"]["winner"] == 0

    # The resumed game plays on: the other card goes to Ben, and round 2 is dealt.
    other = after["display"][0]["id"]
    assert again.post("/api/act", {"kind": "roll", "seat": 1, "dice": meeting(after, 1, other)})[0] == 200
    assert again.post("/api/act", {"kind": "press", "seat": 1})[0] == 200
    state = again.wait_for(lambda s: s["round"] == 2)
    assert state["gray_holder"] == 2  # Cy could not rescue in round 1


def test_sigkill_during_the_countdown_restarts_it(start_server, meeting):
    """Killed while "Ready, Set, Go!" runs: after the restart the countdown runs again, then the race opens."""
    server = start_server()
    server.post("/api/start", {"pin": PIN, "players": ["Ana", "Ben"], "leader": 0, "seed": 4})
    assert server.get("/api/state")["phase"] == "ready"
    server.kill(signal.SIGKILL)
    again = start_server(server.data_dir)
    state = again.get("/api/state")
    assert state["phase"] == "ready" and state["countdown"]["ends_in_ms"] > 0
    status, answer = again.post("/api/act", {"kind": "press", "seat": 0})
    assert (status, answer) == (409, {"error": "The race is not open yet: wait for Go!"})
    again.wait_for(lambda s: s["phase"] == "open")
    assert [g["status"] for g in again.get("/api/history")["games"]] == ["playing"]

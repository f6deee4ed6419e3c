"""A round of Rescue Animals on `companion serve`'s simulated table, decided by what the camera reads.

The simulator renders the printed mat with each seat's dice; the live loop reads the frames with the
real dice reader, settles them per seat zone and feeds the session; the phones (Flask test client) only
start the game and press "Rescuing!" (through the seats' mock pins). No die reaches the game any other way.
"""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from companion.commands import serve
from companion.dice_requirements import Die, match
from companion.settings import CameraSettings, RaceSettings, SeatPins, ServerSettings, Settings

PIN = "2468"


def wait_for(check, timeout: float = 30.0, what: str = "the table"):
    """Poll `check()` until it gives something true; return that."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def throw_meeting(display: list[dict], card_index: int, seed: int) -> list[int]:
    """Values for four white dice and a black one that meet display card `card_index` and no other."""
    rng = random.Random(seed)
    for _ in range(200_000):
        values = [rng.randint(1, 6) for _ in range(5)]
        dice = [Die("white", v) for v in values[:4]] + [Die("black", values[4])]
        met = [i for i, card in enumerate(display) if match(card["requirement"], dice)]
        if met == [card_index]:
            return values
    raise AssertionError("no such throw")


def as_dice(values: list[int]) -> Counter:
    """A throw as (colour, value) counts."""
    return Counter([("white", v) for v in values[:4]] + [("black", values[4])])


def seat_dice(state: dict, seat: int) -> Counter:
    """A seat's dice in a snapshot, as (colour, value) counts."""
    return Counter((d["colour"], d["value"]) for d in state["seats"][seat]["dice"])


@pytest.fixture
def table(tmp_path):
    """`companion serve`'s table on the simulated 3-seat mat (camera, live loop, mock pins); closed after."""
    settings = Settings(data_dir=str(tmp_path / "data"), race=RaceSettings(countdown_ms=300.0, tie_window_ms=30.0),
                        server=ServerSettings(pin=PIN), camera=CameraSettings(source="sim?seats=3&seed=11"),
                        pins=SeatPins(pin_factory="mock"))
    opened = serve.open_table(settings)
    yield opened
    opened.close()


def test_a_round_where_the_camera_decides_the_claims(table) -> None:
    """Two seats throw dice meeting one display card each; the camera reads them; their presses rescue those cards;
    the seat that rescued nothing takes the gray die, and the camera then sees it in that seat's zone."""
    assert table.camera is not None and table.camera.sim_table is not None and table.board is not None
    client = table.app.test_client()
    sim = table.camera.sim_table
    assert client.post("/api/start", json={"pin": PIN, "players": ["Ana", "Ben", "Cy"], "leader": 0, "seed": 5}).status_code == 200
    state = wait_for(lambda: (s := client.get("/api/state").json)["phase"] == "open"
                     and all(seat["dice"] for seat in s["seats"]) and s, what="the camera's first readings")
    display = state["display"]
    first_round = state["round"]
    for seat, card_index in ((1, 0), (2, 1)):
        card = display[card_index]["id"]
        current = [c["id"] for c in client.get("/api/state").json["display"]]
        values = throw_meeting(client.get("/api/state").json["display"], current.index(card), seed=seat)
        sim.roll(seat, values=values)
        state = wait_for(lambda: (s := client.get("/api/state").json)["seats"][seat]["satisfied"] == [card]
                         and seat_dice(s, seat) == as_dice(values) and s, what=f"seat {seat + 1}'s dice to be read")
        assert state["seats"][seat]["can_claim"]
        assert client.post("/api/act", json={"kind": "press", "seat": seat}).json["accepted"]
        wait_for(lambda: card in client.get("/api/state").json["seats"][seat]["rescued"], what="the rescue")
        wait_for(lambda: client.get("/api/state").json["phase"] in ("open", "reveal"), what="the next race")
    session = table.session
    events = session.store.events(session.store.current_game().id)
    rescues = [e for e in events if e.kind == "rescue"]
    assert [(e.action["seat"], e.source) for e in rescues] == [(1, "phone"), (2, "phone")]
    for rescue in rescues:  # the claim was judged on the dice the camera read for that seat
        read = [e for e in events if e.seq < rescue.seq and e.kind == "roll" and e.action["seat"] == rescue.action["seat"]]
        assert read[-1].source == "camera"
        assert Counter(map(str, rescue.action["dice"])) == Counter(map(str, read[-1].action["dice"]))
    assert {e.source for e in events if e.kind == "roll"} == {"camera"}
    state = wait_for(lambda: (s := client.get("/api/state").json)["round"] == first_round + 1 and s, what="round 2")
    assert state["gray_holder"] == 0
    state = wait_for(lambda: (s := client.get("/api/state").json)["seats"][0]["dice"]
                     and any(d["colour"] == "gray" for d in s["seats"][0]["dice"]) and s,
                     what="the camera to see the gray die at seat 1")
    assert len(state["seats"][0]["dice"]) == 6
    game = session.store.current_game().id
    wait_for(lambda: {e.seq for e in rescues} <= set(session.store.stills(game)), what="a still of each claim")

"""Whole games on mock pins through the real Session: every claim is a button press."""

from __future__ import annotations

import random
import time

import pytest

from companion.session import Session
from companion.settings import Settings
from companion.store import EventStore
from hardware import attach

from .conftest import wait_until
from .table import ManualTimers, Table

SETTINGS = Settings()  # tie window 30 ms, as shipped


@pytest.fixture
def table(tmp_path, factory):
    """A three-player demo game (Leader: seat 0) in a real session, the board on mock pins."""
    store = EventStore(tmp_path / "events.sqlite")
    timers = ManualTimers()
    session = Session(store, SETTINGS, schedule=timers.schedule, seed=1)
    board = attach(session, SETTINGS, pin_factory=factory)
    session.start(["Ada", "Bo", "Cy"], leader=0, demo=True, seed=3)
    yield Table(session, board, factory, timers)
    board.close()
    session.close()
    store.close()


def two_claimers(table: Table, seats: tuple[int, int], rng: random.Random) -> None:
    """Open the race with both `seats` able to claim the first display card, the third seat not."""
    table.go()
    card = table.snap["display"][0]["id"]
    for seat in range(3):
        if seat in seats:
            table.roll_to_meet(seat, card, rng)
        else:
            table.roll_to_miss(seat, rng)
    assert [s["can_claim"] for s in table.snap["seats"]] == [s in seats for s in range(3)]


def test_a_whole_game_is_played_with_the_buttons(table):
    races = table.play_to_the_end()
    snap = table.snap
    assert snap["phase"] == "over" and snap["deck_count"] == 0
    rescued = sum(len(seat["rescued"]) for seat in snap["seats"])
    assert rescued == races > 0  # every rescue came from a button race
    sources = {event.source for event in table.session.store.events(snap["game_id"]) if event.kind in ("rescue", "claim")}
    assert sources <= {"button", "phone"} and "button" in sources
    winner = snap["scores"]["winner"]
    assert wait_until(lambda: 0.0 < table.board.seats[winner].led.value < 1.0 or table.board.seats[winner].led.value == 1.0)
    others = [seat.led.value for i, seat in enumerate(table.board.seats[:3]) if i != winner]
    assert others == [pytest.approx(0.15)] * 2


def test_leds_show_who_may_claim_during_the_race(table):
    two_claimers(table, (0, 2), random.Random(5))
    assert [seat.led.value for seat in table.board.seats] == [1.0, 0.0, 1.0, 0.0, 0.0]


def test_a_tie_goes_clockwise_from_the_leader_and_the_phones_see_the_gap(table):
    two_claimers(table, (0, 2), random.Random(5))
    snap = table.race({2: 0.0, 0: 12.0})  # seat 2 first, seat 0 12 ms later: inside the 30 ms window
    race = snap["last_race"]
    assert race["winner"] == 0
    assert sorted(race["tied"]) == [0, 2]
    assert race["gap_ms"] == pytest.approx(12.0, abs=0.5)  # clock reads under load; the window is 30 ms
    assert race["decided_by"] == "tie: clockwise from the Conservation Leader"
    assert "Ada" in [seat["name"] for seat in snap["seats"] if seat["rescued"]]


def test_presses_outside_the_window_are_won_by_the_first(table):
    two_claimers(table, (0, 2), random.Random(5))
    race = table.race({2: 0.0, 0: 45.0})["last_race"]
    assert (race["winner"], race["tied"], race["decided_by"]) == (2, [], "first press")
    assert race["gap_ms"] == pytest.approx(45.0, abs=0.5)


def test_the_gray_die_wins_a_tie(table):
    rng = random.Random(11)
    # Round 1: two of the three seats rescue; the one who could not takes the gray die.
    for seat in (0, 1):
        _rescue_alone(table, seat, rng)
    table.go()
    holder = table.snap["gray_holder"]
    assert holder == 2
    # The Leader passed to seat 1, so without the gray die seat 1 would win the tie.
    other = 1
    assert table.snap["leader"] == 1
    card = table.snap["display"][0]["id"]
    table.roll_to_meet(holder, card, rng)
    table.roll_to_meet(other, card, rng)
    table.roll_to_miss(0, rng)
    race = table.race({other: 0.0, holder: 20.0})["last_race"]
    assert (race["winner"], race["decided_by"]) == (holder, "tie: gray die")
    assert race["gap_ms"] == pytest.approx(20.0, abs=0.5)


def _rescue_alone(table: Table, seat: int, rng: random.Random) -> None:
    """`seat` meets the first display card, presses alone and rescues it."""
    table.go()
    card = table.snap["display"][0]["id"]
    table.roll_to_meet(seat, card, rng)
    if table.race({seat: 0.0})["phase"] == "choosing":
        table.session.choose(seat, card)
    assert card in table.snap["seats"][seat]["rescued"]


def test_a_seat_that_cannot_claim_is_refused_and_blinks_no(table, caplog):
    two_claimers(table, (0, 2), random.Random(5))
    led = table.factory.pin(SETTINGS.pins.leds[1])
    led.clear_states()
    with caplog.at_level("INFO"):
        snap = table.race({1: 0.0, 2: 40.0})
    assert snap["last_race"]["winner"] == 2  # the refused press did not open the window
    assert "Press of seat 2 (index 1, from button) refused: Bo's dice" in caplog.text
    # The LED was off (seat 1 cannot claim): it flashes twice and goes dark again.
    assert wait_until(lambda: len(led.states) >= 5)
    assert [s.state for s in led.states][1:5] == [1.0, 0.0, 1.0, 0.0]


def test_presses_before_go_are_refused(table):
    snap = table.race({0: 0.0}, settle=False)
    assert snap["phase"] == "ready"
    assert snap["seats"][0]["refusal"]["reason"] == "the race is not open yet: wait for Go!"


def test_a_bouncing_button_makes_one_claim_in_the_real_session(table):
    two_claimers(table, (0, 2), random.Random(5))
    pin, t = table.factory.pin(SETTINGS.pins.buttons[0]), time.monotonic() - 0.1
    for i in range(4):
        pin.drive_low(ticks=t + i * 0.002)
        pin.drive_high(ticks=t + i * 0.002 + 0.001)
    table.timers.run()
    race = table.snap["last_race"]
    assert race["winner"] == 0 and len(race["presses"]) == 1


def test_a_mashing_seat_is_locked_out_when_the_setting_is_on(tmp_path):
    from companion.settings import RaceSettings
    from hardware.mockpins import demo_pin_factory

    settings = Settings(race=RaceSettings(mash_lockout_ms=500.0))
    store, timers, factory = EventStore(tmp_path / "events.sqlite"), ManualTimers(), demo_pin_factory()
    session = Session(store, settings, schedule=timers.schedule, seed=1)
    with attach(session, settings, pin_factory=factory) as board:
        session.start(["Ada", "Bo", "Cy"], leader=0, demo=True, seed=3)
        table = Table(session, board, factory, timers)
        rng = random.Random(5)
        table.go()
        table.roll_to_miss(1, rng)
        table.race({1: 0.0}, settle=False)  # refused: Bo's dice meet nothing
        table.roll_to_meet(1, table.snap["display"][0]["id"], rng)
        snap = table.race({1: 0.0}, settle=False)  # 50 ms later: still inside the lockout
        assert snap["seats"][1]["refusal"]["reason"].startswith("too many presses")
        assert table.session.settle_race() is None  # nothing entered the race
    session.close()
    store.close()

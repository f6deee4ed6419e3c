"""The board on mock pins: press times, debounce, LED states on the pins, buzzer, host button."""

from __future__ import annotations

import time

import pytest

from companion.settings import SeatPins
from hardware.board import TableBoard
from hardware.link import connect, press_from_phone

from .conftest import FakeSession, Outcome, button_pin, open_snapshot, wait_until


@pytest.fixture
def session(board):
    """A fake session connected to the board."""
    session = FakeSession()
    connect(board, session)
    return session


def test_a_press_is_forwarded_with_its_edge_time(factory, board, session):
    pressed_at = time.monotonic() - 0.200  # the edge happened 200 ms before Python saw it
    button_pin(factory, 2).drive_low(ticks=pressed_at)
    assert session.presses == [(2, pytest.approx(pressed_at * 1000.0, abs=0.5), "button")]


def test_presses_keep_their_order_and_gap_across_seats(factory, board, session):
    base = time.monotonic() - 1.0
    # Python handles seat 3 first, but seat 1 pressed 7 ms earlier: the times say so.
    button_pin(factory, 3).drive_low(ticks=base + 0.007)
    button_pin(factory, 1).drive_low(ticks=base)
    times = {seat: t for seat, t, _ in session.presses}
    assert times[3] - times[1] == pytest.approx(7.0, abs=0.05)


def test_a_bouncing_contact_makes_one_press(factory, board, session):
    pin, t = button_pin(factory, 0), time.monotonic() - 0.5
    for i in range(5):  # the contact chatters for 4 ms on the way down...
        pin.drive_low(ticks=t + i * 0.001)
        pin.drive_high(ticks=t + i * 0.001 + 0.0005)
    pin.drive_low(ticks=t + 0.005)
    pin.drive_high(ticks=t + 0.150)  # ...and on the way up
    pin.drive_low(ticks=t + 0.152)
    pin.drive_high(ticks=t + 0.153)
    # The edge's time is read against two clocks a few microseconds apart: compare within 0.05 ms
    # (rounding both to 0.1 ms failed now and then, when they fell either side of a rounding edge).
    assert [s for s, _, _ in session.presses] == [0]
    assert session.presses[0][1] == pytest.approx(t * 1000, abs=0.05)


def test_two_real_presses_make_two_claims(factory, board, session):
    pin, t = button_pin(factory, 0), time.monotonic() - 0.5
    pin.drive_low(ticks=t)
    pin.drive_high(ticks=t + 0.080)
    pin.drive_low(ticks=t + 0.200)
    assert len(session.presses) == 2


def test_the_phones_button_drives_the_same_mock_pin(factory, board, session):
    t_ms = time.monotonic_ns() / 1e6 - 3.0
    assert board.press_from_screen(4, t_ms=t_ms) == Outcome(4, True)
    assert session.presses == [(4, pytest.approx(t_ms, abs=0.01), "phone")]
    assert button_pin(factory, 4).state  # released again
    assert board.press_from_screen(7) is None


def test_phone_presses_are_never_taken_for_bounce(board, session):
    for _ in range(3):
        board.press_from_screen(0)
    assert [seat for seat, _, _ in session.presses] == [0, 0, 0]


def test_press_from_phone_uses_the_pin_or_else_the_session(board, session):
    session.refusing[1] = "the race is not open yet: wait for Go!"
    session.current = open_snapshot()
    assert press_from_phone(board, session, 1) == Outcome(1, False, "the race is not open yet: wait for Go!")
    assert press_from_phone(None, session, 2) == Outcome(2, True)
    assert [(seat, source) for seat, _, source in session.presses] == [(1, "phone"), (2, "phone")]
    assert board.seats[1].presses == 1 and board.seats[2].presses == 0


def test_leds_follow_the_snapshot(factory, board, session):
    session.publish(open_snapshot(0, 2))
    assert [seat.led.value for seat in board.seats] == [1.0, 0.0, 1.0, 0.0, 0.0]
    assert factory.pin(SeatPins().leds[2]).state == 1.0
    session.publish(open_snapshot(1))
    assert [seat.led.is_lit for seat in board.seats] == [False, True, False, False, False]


def test_the_race_winner_blinks_fast(factory, board, session):
    session.publish({**open_snapshot(), "phase": "choosing", "last_race": {"winner": 1, "refused": []}})
    pin = factory.pin(SeatPins().leds[1])
    assert wait_until(lambda: len(pin.states) >= 5)
    on_times = [b.timestamp for a, b in zip(pin.states, pin.states[1:]) if a.state == 1.0]
    assert on_times and all(0.05 < t < 0.3 for t in on_times[1:3])


def test_a_refused_press_blinks_no_then_shows_the_pattern_again(factory, board, session):
    session.publish(open_snapshot(0))
    session.refusing[0] = "already rescued this round"
    pin = factory.pin(SeatPins().leds[0])
    pin.clear_states()
    button_pin(factory, 0).drive_low()
    assert wait_until(lambda: board.seats[0].led.value == 1.0 and len(pin.states) >= 7)
    assert [s.state for s in pin.states] == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert all(0.05 < s.timestamp < 0.3 for s in pin.states[2:])  # each step lasts 80-120 ms


def test_the_game_end_pulses_the_winner(factory, board, session):
    session.publish({"phase": "over", "seats": [{}, {}], "scores": {"winner": 0}})
    assert wait_until(lambda: 0.0 < board.seats[0].led.value < 1.0)
    assert board.seats[1].led.value == pytest.approx(0.15)
    assert board.seats[2].led.value == 0.0


def test_countdown_beeps_three_short_and_one_long(factory, board, session):
    board.countdown_ms = 300.0
    session.publish({**open_snapshot(), "phase": "ready", "countdown": {"ends_in_ms": 300.0, "total_ms": 300.0}})
    session.publish({**open_snapshot(), "phase": "ready", "countdown": {"ends_in_ms": 290.0, "total_ms": 300.0}})
    buzzer = factory.pin(SeatPins().buzzer)
    assert wait_until(lambda: len(board._beeper.played) == 4 and not buzzer.state, timeout=3.0)
    lengths = [b.timestamp for a, b in zip(buzzer.states, buzzer.states[1:]) if a.state]
    assert len(lengths) == 4 and max(lengths[:3]) < 0.2 < lengths[3]


def test_muted_board_stays_silent_until_the_host_unmutes(factory):
    with TableBoard(SeatPins(muted=True), pin_factory=factory) as board:
        buzzer = factory.pin(SeatPins().buzzer)
        board.show({"phase": "ready", "countdown": {"ends_in_ms": 50.0, "total_ms": 100.0}})
        time.sleep(0.3)
        assert not any(state.state for state in buzzer.states)
        board.muted = False
        board.show({"phase": "open"})
        board.show({"phase": "ready", "countdown": {"ends_in_ms": 50.0, "total_ms": 100.0}})
        assert wait_until(lambda: any(state.state for state in buzzer.states))


def test_host_button_short_press_starts_long_press_undoes(factory):
    session = FakeSession()
    pins = SeatPins(host_hold_ms=100.0)
    with TableBoard(pins, pin_factory=factory) as board:
        connect(board, session)
        host = factory.pin(pins.host_button)
        host.drive_low()
        time.sleep(0.3)
        host.drive_high()
        assert session.calls == ["undo"]
        session.publish({"phase": "over", "seats": [{"name": "Ada"}, {"name": "Bo"}]})
        host.drive_low()
        host.drive_high()
        assert session.calls == ["undo", "start Ada,Bo"]


def test_closing_twice_is_fine_and_unsubscribes(factory):
    session = FakeSession()
    board = TableBoard(SeatPins(), pin_factory=factory)
    connect(board, session)
    board.close()
    board.close()
    assert session.subscribers == [] and board.closed

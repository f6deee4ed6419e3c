"""The snapshot -> LED pattern and countdown mapping (pure functions)."""

from __future__ import annotations

import pytest

from hardware.patterns import (FAST_BLINK, GLOW, OFF, PULSE, STEADY, Beep, countdown_beeps,
                               countdown_end, new_refusals, seat_patterns)

from .conftest import open_snapshot


def test_open_race_lights_the_seats_that_may_claim():
    assert seat_patterns(open_snapshot(0, 2), 5) == (STEADY, OFF, STEADY, OFF, OFF)


def test_a_seat_that_may_claim_but_satisfies_nothing_is_dark():
    snapshot = open_snapshot(1)
    snapshot["seats"][1]["satisfied"] = []
    assert seat_patterns(snapshot, 3) == (OFF, OFF, OFF)


@pytest.mark.parametrize("phase", ["ready", "choosing"])
def test_race_winner_blinks_fast_during_the_countdown_and_the_choice(phase):
    snapshot = {**open_snapshot(0, 1, 2), "phase": phase, "last_race": {"winner": 1, "tied": [1, 2]}}
    assert seat_patterns(snapshot, 4) == (OFF, FAST_BLINK, OFF, OFF)


def test_end_of_game_pulses_the_winner_and_glows_the_others():
    snapshot = {"phase": "over", "seats": [{}, {}, {}], "scores": {"winner": 2}}
    assert seat_patterns(snapshot, 5) == (GLOW, GLOW, PULSE, OFF, OFF)
    assert PULSE.brightness > GLOW.brightness


@pytest.mark.parametrize("snapshot", [None, {}, {"phase": "idle", "seats": []}])
def test_no_game_leaves_every_led_off(snapshot):
    assert seat_patterns(snapshot, 3) == (OFF, OFF, OFF)


def test_countdown_is_three_short_beeps_and_a_long_one_at_go():
    beeps = countdown_beeps(10_000.0, 3000.0)
    assert [b.start_ms for b in beeps] == [7000.0, 8000.0, 9000.0, 10_000.0]
    assert beeps[0].length_ms < beeps[-1].length_ms
    assert beeps[-1] == Beep(10_000.0, beeps[-1].length_ms)


def test_countdown_end_comes_from_the_time_left_in_the_snapshot():
    snapshot = {"phase": "ready", "countdown": {"ends_in_ms": 2500.0, "total_ms": 3000.0}}
    assert countdown_end(snapshot, now_ms=100.0) == (2600.0, 3000.0)
    assert countdown_end({**snapshot, "phase": "open"}, now_ms=100.0) is None
    assert countdown_end({"phase": "ready", "countdown": {"ends_at_ms": 900.0, "total_ms": 2000}}, 0.0) == (900.0, 2000.0)


def test_each_new_refusal_blinks_once():
    before = open_snapshot(0)
    refused = {**before, "seats": [dict(s) for s in before["seats"]]}
    refused["seats"][1]["refusal"] = {"reason": "Bo's dice satisfy none of the cards", "at": 1.0}
    assert new_refusals(before, refused) == (1,)
    assert new_refusals(refused, {**refused, "version": 9}) == ()  # the same refusal shown again
    again = {**refused, "seats": [dict(s) for s in refused["seats"]]}
    again["seats"][1]["refusal"] = {"reason": "Bo's dice satisfy none of the cards", "at": 2.0}
    assert new_refusals(refused, again) == (1,)
    assert new_refusals(None, None) == ()

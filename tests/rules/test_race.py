"""The race arbiter: first valid press, ties within the window, refused presses, the mash lockout."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.dice_requirements import dice_from_text as D
from companion.games.rescue_animals import RaceRecord, Reveal, Roll, action_for_winner, apply
from companion.race import Press, lockout_filter, settle
from companion.settings import RaceSettings

PANDA = "B4 W5 W5 W5 W1"
EASY = "B2 W3 W6 W1 W1"  # meets amur-leopard only
NOTHING = "B1 W1 W2 W4 W6"
WINDOW = RaceSettings(tie_window_ms=30.0)


@pytest.fixture
def race_state(start, open_round):
    """Five players, Leader seat 3, display leopard/panda/leopard/vaquita; seats 0-3 can claim, 4 cannot."""
    state = start(5, leader=3)
    display = ("amur-leopard", "giant-panda", "amur-leopard", "vaquita")
    return open_round(state, display, {0: EASY, 1: EASY, 2: PANDA, 3: EASY, 4: NOTHING})


def test_first_press_wins(race_state) -> None:
    """A lone press, or a lead bigger than the window, wins outright; gap_ms is first to second."""
    result = settle([Press(1, 1000.0, "gpio"), Press(0, 1045.5, "phone")], race_state, WINDOW)
    assert (result.winner, result.tied, result.gap_ms, result.decided_by) == (1, (), 45.5, "first press")
    assert result.window_end_ms == 1030.0


def test_tie_goes_clockwise_from_the_leader(race_state) -> None:
    """Within the window, no gray die: the first tied seat counting clockwise from the Leader (3)."""
    result = settle([Press(1, 1000.0), Press(0, 1010.0)], race_state, WINDOW)
    assert result.tied == (1, 0) and result.winner == 0 and result.decided_by == "tie: clockwise from the Conservation Leader"
    result = settle([Press(1, 1000.0), Press(3, 1029.9)], race_state, WINDOW)
    assert result.winner == 3  # the Leader itself counts first


def test_tie_goes_to_the_gray_die_user(race_state) -> None:
    """A tied seat using the gray die wins the tie, wherever it sits."""
    state = replace(race_state, gray_holder=1)
    state = apply(state, Roll(1, D(EASY + " G3")))
    result = settle([Press(3, 1000.0), Press(1, 1020.0)], state, WINDOW)
    assert result.winner == 1 and result.decided_by == "tie: gray die"


def test_press_just_outside_the_window_is_not_a_tie(race_state) -> None:
    """30.1 ms later is later: the first press wins."""
    result = settle([Press(1, 1000.0), Press(0, 1030.1)], race_state, WINDOW)
    assert result.winner == 1 and result.tied == ()


def test_refused_presses_never_win_nor_open_the_window(race_state) -> None:
    """Seat 4's dice meet nothing: its earlier press is refused, and the window opens at seat 1's press."""
    result = settle([Press(4, 990.0), Press(1, 1000.0), Press(0, 1025.0)], race_state, WINDOW)
    assert result.refused == ((4, "E's dice (B1 W1 W2 W4 W6) satisfy none of the cards on display"),)
    assert result.tied == (1, 0) and result.winner == 0 and result.window_end_ms == 1030.0


def test_press_with_dice_at_that_moment(race_state) -> None:
    """A press may carry the dice as settled at the press; the rules check those, not the state's."""
    result = settle([Press(4, 1000.0, "gpio", D(PANDA))], race_state, WINDOW)
    assert result.winner == 4 and result.winner_dice == D(PANDA)
    action = action_for_winner(race_state, 4, result.winner_dice, result.record())
    assert action.kind == "rescue" and action.card == "giant-panda" and action.race.presses == ((4, 1000.0, "gpio"),)


def test_presses_before_go_are_all_refused(start, open_round) -> None:
    """During the countdown every press is refused with the reason; nobody wins."""
    state = apply(apply(start(3), Reveal(("kakapo", "kakapo"))), Roll(0, D(EASY)))
    result = settle([Press(0, 5.0)], state, WINDOW)
    assert result.winner is None and result.decided_by == "no valid press"
    assert result.refused == ((0, "the race is not open yet: wait for Go!"),)


def test_a_seats_repeated_presses_count_once(race_state) -> None:
    """Mashing the button does not make a seat its own rival: gap_ms is to the next seat's press."""
    result = settle([Press(1, 1000.0), Press(1, 1005.0), Press(1, 1010.0), Press(2, 1100.0)], race_state, WINDOW)
    assert result.winner == 1 and result.tied == () and result.gap_ms == 100.0


def test_record_round_trips(race_state) -> None:
    """The RaceRecord kept in the Rescue action survives to_dict/from_dict."""
    record = settle([Press(4, 990.0), Press(1, 1000.0), Press(0, 1025.0)], race_state, WINDOW).record()
    assert RaceRecord.from_dict(record.to_dict()) == record


def test_lockout_filter() -> None:
    """Presses within the lockout after the seat's refused press are dropped; 0 ms is off."""
    presses = [Press(0, 1000.0), Press(1, 1000.0), Press(0, 1300.0)]
    assert lockout_filter(presses, {0: 900.0}, 0) == tuple(presses)
    assert lockout_filter(presses, {0: 900.0}, 250.0) == (Press(1, 1000.0), Press(0, 1300.0))

"""Scoring: Protection Points, Bonus Points per pair of identical animals, the gray die, tie-breaks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.games.rescue_animals import Card, Setup, new_game, scores

CARDS = (
    Card("lynx", "Iberian Lynx", "Lynx pardinus", "Europe", 4, 3, 2, "B2 W3 W*"),
    Card("tiger", "Sumatran Tiger", "Panthera tigris sondaica", "Asia", 4, 5, 1, "B6 W5 W4 W3"),
    Card("crane", "Whooping Crane", "Grus americana", "North America", 9, 2, 0, "B4 W4 W*"),
)


def finished(rescued: tuple[tuple[str, ...], ...], gray: int | None, leader: int = 0, over: bool = True):
    """A game state with the given rescued cards, gray die holder and Leader."""
    names = tuple("ABCDE"[: len(rescued)])
    state = new_game(Setup(names, leader), CARDS)
    return replace(state, rescued=rescued, gray_holder=gray, leader=leader, phase="over" if over else "ready")


@pytest.mark.parametrize(
    "cards, protection, bonus",
    [
        (("lynx",), 3, 0),
        (("lynx", "lynx"), 6, 2),  # two copies: one pair
        (("lynx", "lynx", "lynx"), 9, 2),  # three copies: still one pair
        (("lynx", "lynx", "lynx", "lynx"), 12, 4),  # four copies: two pairs
        (("lynx", "tiger", "lynx", "tiger"), 16, 3),  # a pair of each, each with its own bonus
        (("crane", "crane"), 4, 0),  # a card whose bonus is 0
    ],
)
def test_protection_and_pair_bonus(cards, protection, bonus) -> None:
    """Each card's Protection Points, plus its Bonus Points for every pair of identical animals."""
    board = scores(finished((cards, ()), gray=None))
    seat = board.seats[0]
    assert (seat.protection, seat.pair_bonus, seat.total, seat.animals) == (protection, bonus, protection + bonus, len(cards))


def test_gray_die_scores_two_at_the_end_only() -> None:
    """Whoever has the gray die at the end scores 2 more; not while the game is running."""
    assert scores(finished((("crane",), ("crane",)), gray=1)).seats[1].gray_bonus == 2
    assert scores(finished((("crane",), ("crane",)), gray=1, over=False)).seats[1].gray_bonus == 0


def test_clear_winner() -> None:
    """Most points wins."""
    board = scores(finished((("tiger",), ("crane",)), gray=None))
    assert board.winner == 0 and board.decided_by == "most points" and board.ranking == (0, 1) and board.final


def test_tie_broken_by_most_animals() -> None:
    """Tied on points (5 = 5): the seat with more animals wins."""
    board = scores(finished((("tiger",), ("lynx", "crane"), ("crane",)), gray=None))
    assert board.seats[0].total == board.seats[1].total == 5
    assert board.winner == 1
    assert board.decided_by == "tie on 5 points (A, B): B rescued the most animals (2)"


def test_tie_broken_by_the_gray_die() -> None:
    """Tied on points and animals: the gray die holder wins (its 2 points are in the total)."""
    board = scores(finished((("tiger",), ("lynx",), ("crane", "crane")), gray=1))
    # A: 5 with 1 animal. B: 3 + 2 for the gray die = 5 with 1 animal. C: 4.
    assert [s.total for s in board.seats] == [5, 5, 4]
    assert board.winner == 1 and board.ranking == (1, 0, 2)
    assert board.decided_by == "tie on 5 points and 1 animal (A, B): B has the gray die"


def test_tie_broken_clockwise_from_the_leader() -> None:
    """Tied on points and animals, no gray die among them: first clockwise from the current Leader."""
    board = scores(finished((("crane",), ("crane",), ("crane",)), gray=None, leader=2))
    assert board.winner == 2 and board.ranking == (2, 0, 1)
    assert board.decided_by == "tie on 2 points and 1 animal (A, B, C): C is first clockwise from the Conservation Leader (C)"
    board = scores(finished((("crane",), ("crane",), ()), gray=2, leader=2))
    # C has only the gray die's 2 points and no animal: it loses on animals to A and B, then clockwise from C: A
    assert board.winner == 0


def test_no_points_yet_has_no_winner() -> None:
    """Before anyone rescues anything there is no leader of the standings."""
    board = scores(finished(((), ()), gray=None, over=False))
    assert board.winner is None and board.decided_by == "no points scored yet"


def test_scoreboard_to_dict_is_plain() -> None:
    """The scoreboard's dict view is JSON-able."""
    import json

    board = scores(finished((("lynx", "lynx"), ("crane",)), gray=1))
    assert json.loads(json.dumps(board.to_dict()))["seats"][0]["pairs"] == [["lynx", 1]]

"""The rulebook's dice requirement examples, the five special cards, and the text form's errors."""

from __future__ import annotations

import pytest

from companion.dice_requirements import (
    BadDice,
    Die,
    closeness,
    dice_from_text,
    match,
    parse_requirement,
    requirement_words,
)
from companion.errors import IllegalAction, RequirementError

D = dice_from_text


# --- "Most cards": exact black, exact white, any white; each die meets one symbol ----------------


@pytest.mark.parametrize(
    "requirement, dice, ok",
    [
        ("B2", "B2 W1 W1 W1 W1", True),  # "Your black die must be a 2"
        ("B2", "B3 W2 W2 W2 W2", False),  # a white 2 cannot stand for the black 2
        ("B5", "B5 W1 W1 W1 W1", True),  # "Your black die must be a 5"
        ("W3", "B3 W1 W1 W1 W1", False),  # only white dice meet white symbols
        ("W3", "B1 W1 W3 W1 W1", True),  # "One of your white dice must be a 3"
        ("W6", "B6 W1 W1 W1 W1", False),
        ("W*", "B1 W4 W1 W1 W1", True),  # "One of your white dice, any number"
        ("B2 W3 W6 W*", "B2 W3 W6 W1 W1", True),
        ("B2 W3 W6 W*", "B2 W3 W6 W6 W6", True),
        ("B2 W3 W3 W*", "B2 W3 W6 W1 W1", False),  # each die meets one symbol: a single 3 is not two
        ("B2 W3 W3", "B2 W3 W3 W1 W1", True),
        ("B2 W* W* W* W*", "B2 W1 W1 W1 W1", True),
        ("B2 W* W* W* W* W*", "B2 W1 W1 W1 W1", False),  # five whites need the gray die
        ("B2 W* W* W* W* W*", "B2 W1 W1 W1 W1 G4", True),  # the gray die counts as white
        ("W4", "B1 W1 W1 W1 W1 G4", True),
    ],
)
def test_plain_requirements(requirement: str, dice: str, ok: bool) -> None:
    """Exact black, exact white and any white, as the rulebook's examples say."""
    assert (match(requirement, D(dice)) is not None) is ok


def test_match_says_which_die_meets_which_symbol() -> None:
    """The match names a distinct die for every symbol, and that die fits the symbol."""
    dice = D("W6 W3 B2 W1 W5")
    found = match("B2 W3 W6 W*", dice)
    assert found is not None
    uses = dict((label, index) for label, index in found.uses if label != "W*")
    assert uses == {"B2": 2, "W3": 1, "W6": 0}
    assert len(set(found.dice)) == 4
    assert dice[dict(found.uses)["W*"]].colour == "white"


# --- the five special cards, worded as the rulebook words them ------------------------------------


@pytest.mark.parametrize(
    "dice, ok",
    [
        ("B4 W2 W2 W2 W5", True),  # three whites of the same number
        ("B2 W2 W2 W5 W5", False),  # the black die does not count
        ("B1 W6 W6 W1 W2 G6", True),  # the gray die (held) counts as white
        ("B1 W6 W6 W1 W2", False),
    ],
)
def test_giant_panda(dice: str, ok: bool) -> None:
    """Giant Panda: three of your white dice must all be of the same number."""
    assert (match("PANDA", D(dice)) is not None) is ok


@pytest.mark.parametrize(
    "dice, ok",
    [
        ("B1 W2 W3 W5 W6", True),  # 2+3+5
        ("B1 W1 W3 W6 W6", True),  # 1+3+6
        ("B5 W1 W4 W6 W6", False),  # 4+6 is 10 with two dice, but it takes three
        ("B4 W6 W6 W6 W6", False),
        ("B6 W1 W1 W1 W1", False),
        ("B3 W3 W4 W6 W6", False),  # black 3 + white 3 + white 4 = 10, but the black die is not white
    ],
)
def test_fin_whale(dice: str, ok: bool) -> None:
    """Fin Whale: the numbers on three of your white dice must add up to exactly 10."""
    assert (match("FINWHALE", D(dice)) is not None) is ok


@pytest.mark.parametrize(
    "dice, ok",
    [
        ("B3 W3 W2 W6 W1", True),  # black 3, white 3, 2+6 = 8
        ("B3 W3 W4 W4 W1", True),
        ("B3 W3 W5 W1 W1", False),  # the white 3 and 5 make 8, but that 3 already meets the W3
        ("B3 W3 W3 W5 W1", True),  # another white 3 with the 5 makes 8
        ("B3 W3 W1 W1 W1", False),
        ("B2 W3 W2 W6 W1", False),  # the black die must be a 3
        ("B3 W2 W2 W6 W4", False),  # no white 3
    ],
)
def test_bawean_deer(dice: str, ok: bool) -> None:
    """Bawean Deer: one black 3 and one white 3, and two (other) white dice adding up to exactly 8."""
    assert (match("BAWEAN", D(dice)) is not None) is ok


def test_bawean_deer_white_three_is_not_reused() -> None:
    """The white 3 meets its own symbol, so it cannot also be half of the 8."""
    assert match("BAWEAN", D("B3 W3 W5 W2 W2")) is None
    assert match("BAWEAN", D("B3 W3 W5 W3 W2")) is not None


@pytest.mark.parametrize(
    "dice, ok",
    [
        ("B1 W4 W5 W3 W6", True),  # the rulebook's example: 4+5 = 9 and 3+6 = 9
        ("B1 W2 W2 W2 W2", True),
        ("B1 W1 W2 W3 W4", True),  # 1+4 = 2+3
        ("B1 W1 W1 W2 W6", False),
        ("B6 W6 W1 W1 W5", False),  # 6+1 = 7 would need the black 6
        ("B1 W1 W1 W2 W6 G2", True),  # with the gray: 1+2 = 1+2
    ],
)
def test_golden_lion_tamarin(dice: str, ok: bool) -> None:
    """Golden Lion Tamarin: the sum of two white dice equals the sum of two different white dice."""
    assert (match("TAMARIN", D(dice)) is not None) is ok


@pytest.mark.parametrize(
    "dice, ok",
    [
        ("B5 W5 W2 W2 W1", True),
        ("B5 W5 W5 W5 W1", True),  # the second pair may be 5s too
        ("B5 W5 W5 W1 W2", False),  # two whites equal besides the white 5: only one 5 left
        ("B5 W5 W1 W2 W3", False),
        ("B4 W5 W2 W2 W1", False),  # the black die must be a 5
    ],
)
def test_red_wolf(dice: str, ok: bool) -> None:
    """Red Wolf: one black 5 and one white 5, and two (other) white dice of the same number."""
    assert (match("REDWOLF", D(dice)) is not None) is ok


# --- the set-aside hint ---------------------------------------------------------------------------


def test_hint_keeps_the_dice_that_fit_and_counts_the_rest() -> None:
    """B2 W3 W6 W*: with B2 and a W3 already showing, keep those and roll for a 6 (the W* is any white)."""
    dice = D("B2 W3 W1 W1 W1")
    hint = closeness("B2 W3 W6 W*", dice)
    assert hint.missing == 1
    assert hint.open == ("W6",)
    assert set(hint.keep) == {0, 1, 2} or set(hint.keep) == {0, 1, 3} or set(hint.keep) == {0, 1, 4}


def test_hint_for_a_satisfied_requirement_is_zero() -> None:
    """Dice that already meet the card need nothing more."""
    assert closeness("B5 W5 W*", D("B5 W5 W1 W1 W1")).missing == 0


def test_hint_panda_keeps_the_pair() -> None:
    """Two equal whites: keep them, one die missing."""
    hint = closeness("PANDA", D("B1 W4 W4 W2 W6"))
    assert hint.missing == 1 and sorted(hint.keep) == [1, 2]


def test_hint_fin_whale_only_keeps_what_can_still_reach_ten() -> None:
    """6 and 6 cannot be part of a 10 with a third die; 6 + 3 can (+1)."""
    hint = closeness("FINWHALE", D("B1 W6 W6 W3 W6"))
    assert hint.missing == 1
    kept = sorted(D("B1 W6 W6 W3 W6")[i].value for i in hint.keep)
    assert kept == [3, 6]


def test_hint_impossible_without_enough_dice() -> None:
    """Five white symbols cannot be met by four white dice however they are rolled."""
    hint = closeness("W* W* W* W* W*", D("B1 W1 W1 W1 W1"))
    assert hint.missing is None and hint.keep == ()


# --- text form ------------------------------------------------------------------------------------


def test_text_form_is_case_insensitive_and_canonical() -> None:
    """Tokens in any order and case parse to one canonical text (black first, exact before any)."""
    assert parse_requirement("w* w6 b2 W3").text == "B2 W3 W6 W*"
    assert parse_requirement("panda").special == "PANDA"


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "not ''"),
        ("B7", "'B7' is not a die symbol"),
        ("X3", "'X3' is not a die symbol"),
        ("G3", "'G3' is not a die symbol"),
        ("PANDA W3", "PANDA is a whole requirement on its own"),
        ("W* W* W* W* W* W* W*", "asks for 7 dice"),
    ],
)
def test_bad_text_is_named(text: str, words: str) -> None:
    """A wrong requirement raises RequirementError naming the token."""
    with pytest.raises(RequirementError, match=words):
        parse_requirement(text)


def test_requirement_in_words() -> None:
    """The phone shows the requirement in words as well as pictures."""
    assert requirement_words("B2 W3 W*") == "a black 2, a white 3, any white die"
    assert "adding up to exactly 8" in requirement_words("BAWEAN")


@pytest.mark.parametrize("colour, value", [("red", 3), ("white", 0), ("white", 7), ("black", "3"), ("gray", True)])
def test_bad_die_is_refused(colour: str, value: object) -> None:
    """A die must be white, black or gray and show 1-6; the error says which value is wrong."""
    with pytest.raises(BadDice, match=repr(value) if colour != "red" else "'red'"):
        Die(colour, value)  # type: ignore[arg-type]
    assert issubclass(BadDice, IllegalAction)


def test_dice_text_form_errors() -> None:
    """The short dice form names a bad token."""
    with pytest.raises(BadDice, match="'Q4'"):
        dice_from_text("W1 Q4")

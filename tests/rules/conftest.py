"""Shared helpers for the Rescue Animals rules tests: a small catalogue and short dice notation."""

from __future__ import annotations

import pytest

from companion.catalogue import Catalogue, load_sample
from companion.dice_requirements import dice_from_text
from companion.games.rescue_animals import Card, Go, Reveal, Roll, Setup, apply, new_game

D = dice_from_text

SMALL_CARDS = (
    Card("amur-leopard", "Amur Leopard", "Panthera pardus orientalis", "Asia", 3, 3, 2, "B2 W3 W6"),
    Card("giant-panda", "Giant Panda", "Ailuropoda melanoleuca", "Asia", 2, 6, 4, "PANDA"),
    Card("kakapo", "Kakapo", "Strigops habroptilus", "Oceania", 9, 1, 1, "W*"),
    Card("vaquita", "Vaquita", "Phocoena sinus", "North America", 9, 5, 3, "B6 W1 W1 W3"),
)


@pytest.fixture(scope="session")
def sample() -> Catalogue:
    """The shipped sample deck."""
    return load_sample()


@pytest.fixture
def cards() -> tuple[Card, ...]:
    """A small catalogue: a plain card, a special, an easy card, a hard card."""
    return SMALL_CARDS


@pytest.fixture
def start():
    """A function that starts a game: start(players, leader=0, deck=None, cards=SMALL_CARDS)."""
    return _start


@pytest.fixture
def open_round():
    """A function that reveals a display, rolls dice per seat and says Go."""
    return _open_round


def _start(players: int, leader: int = 0, deck: tuple[str, ...] | None = None, cards=SMALL_CARDS):
    """A new game with players named A, B, C..."""
    names = tuple("ABCDE"[:players])
    return new_game(Setup(names, leader, deck), cards)


def _open_round(state, display: tuple[str, ...], rolls: dict[int, str]):
    """Reveal `display`, roll the given dice per seat, and say Go."""
    state = apply(state, Reveal(display))
    for seat, text in rolls.items():
        state = apply(state, Roll(seat, D(text)))
    return apply(state, Go())

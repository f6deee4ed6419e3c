"""Fixtures for the session and store tests: a hand-driven clock and timer, a store on disk."""

from __future__ import annotations

import random

import pytest

from companion.dice_requirements import Die, match
from companion.session import Session
from tests.support import ManualTime, close_session, open_session


@pytest.fixture
def manual() -> ManualTime:
    """A hand-driven clock and timer."""
    return ManualTime()


@pytest.fixture
def store_path(tmp_path):
    """Where the test's event store lives."""
    return tmp_path / "companion.sqlite3"


@pytest.fixture
def make_session(store_path, manual):
    """Open a session over the test's store file (call again to 'restart' the companion)."""
    opened: list[Session] = []

    def make(path=None) -> Session:
        """A session over a fresh connection to the store."""
        session = open_session(store_path.parent, manual, seed=7, store_path=path or store_path)
        opened.append(session)
        return session

    yield make
    for session in opened:
        close_session(session)


@pytest.fixture
def session(make_session):
    """A session with a 3-player demo game started (Leader: seat 0) and the race open."""
    session = make_session()
    session.start(["Ana", "Ben", "Cy"], leader=0, demo=True, seed=5)
    return session


def open_race(session: Session, manual: ManualTime) -> None:
    """Let the Ready-Set-Go countdown run out."""
    manual.advance(session.settings.race.countdown_ms + 1)
    assert session.snapshot()["phase"] == "open"


def dice_for(session: Session, seat: int, cards: list[str], exclusive: bool = True, seed: int = 0) -> list[dict]:
    """Dice for `seat` that meet the first of `cards` (and, if exclusive, none of the other display cards)."""
    state = session._state
    rng = random.Random(seed)
    gray = state.gray_holder == seat
    target = state.card(cards[0]).requirement
    others = [state.card(c).requirement for c in state.display if c != cards[0]]
    for _ in range(200_000):
        dice = [Die("white", rng.randint(1, 6)) for _ in range(4)] + [Die("black", rng.randint(1, 6))]
        if gray:
            dice.append(Die("gray", rng.randint(1, 6)))
        if match(target, dice) and not (exclusive and any(match(o, dice) for o in others)):
            return [d.to_dict() for d in dice]
    raise AssertionError(f"no dice found for {cards[0]}")


def dice_meeting_none(session: Session, seat: int, seed: int = 1) -> list[dict]:
    """Dice for `seat` that meet no display card."""
    state = session._state
    rng = random.Random(seed)
    for _ in range(100_000):
        dice = [Die("white", rng.randint(1, 6)) for _ in range(4)] + [Die("black", rng.randint(1, 6))]
        if state.gray_holder == seat:
            dice.append(Die("gray", rng.randint(1, 6)))
        if not any(match(state.card(c).requirement, dice) for c in state.display):
            return [d.to_dict() for d in dice]
    raise AssertionError("every throw meets a card")


@pytest.fixture
def helpers():
    """The helper functions above, for the test modules (importlib mode cannot import conftest)."""

    class Helpers:
        """Namespace of helpers."""

        open_race = staticmethod(open_race)
        dice_for = staticmethod(dice_for)
        dice_meeting_none = staticmethod(dice_meeting_none)

    return Helpers

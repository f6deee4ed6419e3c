"""Fixtures for the session and store tests: a hand-driven clock and timer, a store on disk."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

import pytest

from companion.dice_requirements import Die, match
from companion.session import Session
from companion.settings import RaceSettings, Settings
from companion.store import EventStore


@dataclass
class Job:
    """One scheduled call."""

    due_ms: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        """Call it off."""
        self.cancelled = True


@dataclass
class ManualTime:
    """A clock and a scheduler that only move when the test says so."""

    now_ms: float = 1000.0
    jobs: list[Job] = field(default_factory=list)

    def clock(self) -> float:
        """The current time in ms."""
        return self.now_ms

    def schedule(self, delay_s: float, callback: Callable[[], None]) -> Job:
        """Remember `callback` for `delay_s` from now."""
        job = Job(self.now_ms + delay_s * 1000, callback)
        self.jobs.append(job)
        return job

    def advance(self, ms: float) -> None:
        """Move the clock on and run every job that fell due (in time order)."""
        target = self.now_ms + ms
        while True:
            due = sorted((j for j in self.jobs if not j.cancelled and j.due_ms <= target), key=lambda j: j.due_ms)
            if not due:
                break
            job = due[0]
            self.jobs.remove(job)
            self.now_ms = max(self.now_ms, job.due_ms)
            job.callback()
        self.now_ms = target

    @property
    def pending(self) -> list[Job]:
        """The jobs still waiting."""
        return [j for j in self.jobs if not j.cancelled]


SETTINGS = Settings(race=RaceSettings(tie_window_ms=30.0, countdown_ms=3000.0))


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
    opened: list[tuple[Session, EventStore]] = []

    def make(path=None) -> Session:
        """A session over a fresh connection to the store."""
        store = EventStore(path or store_path)
        session = Session(store, SETTINGS, catalogue_path=store_path.parent / "rescue-animals.toml",
                          schedule=manual.schedule, clock=manual.clock, seed=7)
        opened.append((session, store))
        return session

    yield make
    for session, store in opened:
        session.close()
        store.close()


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

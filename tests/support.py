"""Helpers shared by the test folders' conftests: a hand-driven clock, a session over a store on disk,
polling, a free port, the settings of a demo table, a labelled dice photo. Imported as `tests.support` (pyproject's pytest
`pythonpath = ["."]` puts the checkout on the path; `--import-mode=importlib` cannot import a conftest).
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import cv2
import numpy as np
import pytest

from companion.session import Session
from companion.settings import CameraSettings, RaceSettings, SeatPins, ServerSettings, Settings
from companion.store import EventStore

PIN = "2468"  # the table PIN of every test table
RACE = RaceSettings(tie_window_ms=30.0, countdown_ms=3000.0)  # the race of the hand-driven tests


@dataclass
class Job:
    """One call scheduled on the session's timer."""

    due_ms: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        """Call it off."""
        self.cancelled = True


@dataclass
class ManualTime:
    """A clock and a scheduler that move only when the test says so (the race window, the countdown)."""

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
        """Move the clock on by `ms`, running every job that falls due, in time order."""
        self.advance_to(self.now_ms + ms)

    def advance_to(self, target_ms: float) -> None:
        """Move the clock on to `target_ms` (never back), running every job that falls due, in time order."""
        while True:
            due = sorted((j for j in self.jobs if not j.cancelled and j.due_ms <= target_ms), key=lambda j: j.due_ms)
            if not due:
                break
            self.jobs.remove(due[0])
            self.now_ms = max(self.now_ms, due[0].due_ms)
            due[0].callback()
        self.now_ms = max(self.now_ms, target_ms)

    @property
    def pending(self) -> list[Job]:
        """The jobs still waiting."""
        return [j for j in self.jobs if not j.cancelled]


def open_session(folder: Path, manual: ManualTime, seed: int, store_path: Path | None = None) -> Session:
    """A session on the manual clock over an event store in `folder` (or at `store_path`); close_session() ends it."""
    store = EventStore(store_path or folder / "companion.sqlite3")
    return Session(store, Settings(race=RACE), catalogue_path=folder / "rescue-animals.toml",
                   schedule=manual.schedule, clock=manual.clock, seed=seed)


def close_session(session: Session) -> None:
    """Stop the session's timers and close its store."""
    session.close()
    session.store.close()


def wait_for(check: Callable[[], Any], timeout: float = 30.0, what: str = "the table", every_s: float = 0.02) -> Any:
    """Poll `check()` until it gives something true; return that."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every_s)
    raise AssertionError(f"timed out waiting for {what}")


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def demo_settings(data_dir: Path, source: str = "none", countdown_ms: float = 100.0,
                  pin_factory: str = "mock") -> Settings:
    """Settings of a demo table in `data_dir`: a short countdown, the test PIN, mock pins, the given camera."""
    return Settings(data_dir=str(data_dir), race=RaceSettings(countdown_ms=countdown_ms, tie_window_ms=30.0),
                    server=ServerSettings(pin=PIN), camera=CameraSettings(source=source),
                    pins=SeatPins(pin_factory=pin_factory))


class OpenedTables:
    """`companion serve`'s tables opened by a test (serve.open_table), each closed at the end."""

    def __init__(self) -> None:
        """None open yet."""
        self.tables: list[Any] = []

    def open(self, settings: Settings) -> Any:
        """Open the table of `settings` and remember it for close()."""
        from companion.commands import serve

        table = serve.open_table(settings)
        self.tables.append(table)
        return table

    def close(self) -> None:
        """Close every table opened."""
        for table in self.tables:
            table.close()


def draw_card(index: int, dice: Sequence[tuple[str, int]] = (("B", 2), ("W", 3), ("W", 6)),
              seed: int | None = None) -> np.ndarray:
    """A made-up card (300x420): coloured frame, "Animal <index>", a random drawing (seeded by `seed`, else by
    500 + index), the dice symbols of its requirement."""
    rng = np.random.default_rng(500 + index if seed is None else seed)
    card = np.full((420, 300, 3), (235, 240, 242), np.uint8)
    cv2.rectangle(card, (0, 0), (299, 419), tuple(int(v) for v in rng.integers(20, 200, 3)), 18)
    cv2.putText(card, f"Animal {index}", (24, 50), cv2.FONT_HERSHEY_DUPLEX, 0.8, (20, 20, 20), 2, cv2.LINE_AA)
    art = card[70:300, 20:280]
    art[:] = rng.integers(150, 230, 3)
    for _ in range(40):
        centre = (int(rng.integers(0, 260)), int(rng.integers(0, 230)))
        cv2.circle(art, centre, int(rng.integers(4, 28)), tuple(int(v) for v in rng.integers(20, 220, 3)), -1)
    for k, (letter, value) in enumerate(dice):
        x0 = 30 + 66 * k
        body, pip = ((30, 30, 30), (240, 240, 240)) if letter == "B" else ((245, 245, 245), (20, 20, 20))
        cv2.rectangle(card, (x0, 320), (x0 + 56, 376), body, cv2.FILLED)
        cv2.rectangle(card, (x0, 320), (x0 + 56, 376), (0, 0, 0), 2)
        for p in range(value):
            cv2.circle(card, (x0 + 10 + 9 * p, 348), 4, pip, cv2.FILLED)
    return card


DICE_PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "data" / "dice"


def labelled_photo(name: str, image: str) -> tuple[np.ndarray, dict]:
    """One photo of a labelled set in ../shared/data/dice and its labels (the test is skipped where
    the set is absent)."""
    folder = DICE_PHOTOS / name
    if not (folder / "truth.json").exists():
        pytest.skip(f"{folder} is absent: the real dice photos live in ../shared/data/dice next to the repo")
    entry = next(e for e in json.loads((folder / "truth.json").read_text()) if e["image"] == image)
    return cv2.imread(str(folder / "images" / image)), entry

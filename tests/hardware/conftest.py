"""Fixtures for the hardware tests: mock pins, a board on them, and a session stand-in."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

from companion.settings import SeatPins
from hardware.board import TableBoard
from hardware.mockpins import demo_pin_factory


@dataclass
class Outcome:
    """What the fake session answers to a press (the real one returns session.PressOutcome)."""

    seat: int
    accepted: bool
    reason: str | None = None


@dataclass
class FakeSession:
    """Records presses; refuses the seats in `refusing`; lets a test publish snapshots."""

    refusing: dict[int, str] = field(default_factory=dict)
    presses: list[tuple[int, float, str]] = field(default_factory=list)
    subscribers: list[Callable[[dict], None]] = field(default_factory=list)
    current: dict[str, Any] = field(default_factory=lambda: {"phase": "idle", "seats": []})
    calls: list[str] = field(default_factory=list)

    def press(self, seat: int, t_ms: float | None = None, source: str = "phone") -> Outcome:
        """Record the press; refuse it if the seat is in `refusing` (marked in the snapshot, as the session does)."""
        self.presses.append((seat, t_ms, source))
        reason = self.refusing.get(seat)
        if reason is not None:
            seats = [dict(info) for info in self.current.get("seats", [])]
            seats[seat]["refusal"] = {"reason": reason, "at": len(self.presses)}
            self.publish({**self.current, "seats": seats})
        return Outcome(seat, reason is None, reason)

    def subscribe(self, callback: Callable[[dict], None]) -> Callable[[], None]:
        """Remember `callback`; return its unsubscribe."""
        self.subscribers.append(callback)
        return lambda: self.subscribers.remove(callback)

    def snapshot(self) -> dict[str, Any]:
        """The snapshot published last."""
        return self.current

    def publish(self, snapshot: dict[str, Any]) -> None:
        """Tell every subscriber about `snapshot`."""
        self.current = snapshot
        for callback in list(self.subscribers):
            callback(snapshot)

    def undo(self, source: str = "host") -> None:
        """Record an undo."""
        self.calls.append("undo")

    def start(self, players, leader=None, demo=True, seed=None) -> None:
        """Record a start."""
        self.calls.append(f"start {','.join(players)}")


@pytest.fixture
def factory():
    """A fresh mock pin factory whose edges can be stamped."""
    factory = demo_pin_factory()
    yield factory
    factory.reset()


@pytest.fixture
def board(factory):
    """A five-seat board with buzzer and host button on the default pins."""
    with TableBoard(SeatPins(), pin_factory=factory) as board:
        yield board


def button_pin(factory, seat: int, pins: SeatPins = SeatPins()):
    """The mock pin of seat `seat`'s button."""
    return factory.pin(pins.buttons[seat])


def wait_until(condition: Callable[[], bool], timeout: float = 2.0) -> bool:
    """Poll `condition` until it holds or `timeout` seconds pass; return whether it held."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def open_snapshot(*claimable: int, seats: int = 3) -> dict[str, Any]:
    """A snapshot in the open race where only the seats in `claimable` may claim."""
    return {
        "phase": "open",
        "seats": [{"seat": s, "can_claim": s in claimable, "satisfied": ["c1"] if s in claimable else []}
                  for s in range(seats)],
        "last_race": None,
    }

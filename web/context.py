"""What the web layer holds for one table: the session, the SSE broker and the PIN guard."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, Callable

from flask import current_app

from companion.session import Session
from web.broker import Broker

# Wrong PINs allowed from one address per minute before it must wait (a 4-digit PIN is short).
PIN_TRIES_PER_MINUTE = 5


@dataclass
class PinGuard:
    """Checks the table PIN and slows down an address that keeps guessing."""

    pin: str
    _misses: dict[str, deque[float]] = field(default_factory=lambda: defaultdict(deque))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, given: Any, address: str) -> str | None:
        """None when `given` is the PIN; otherwise why not, in words (and the HTTP status)."""
        now = time.monotonic()
        with self._lock:
            misses = self._misses[address]
            while misses and now - misses[0] > 60:
                misses.popleft()
            if len(misses) >= PIN_TRIES_PER_MINUTE:
                return "too many wrong PINs from this phone; wait a minute and try again."
            if given is None or given == "":
                return "this needs the table PIN (shown on the host screen); enter it and try again."
            if not isinstance(given, str) or given != self.pin:
                misses.append(now)
                return "that is not the table PIN; the host screen shows the right one."
            return None


@dataclass
class Table:
    """The objects the blueprints share, kept in app.extensions["table"]."""

    session: Session
    broker: Broker
    pins: PinGuard
    unsubscribe: Any = None
    # How a phone's "Rescuing!" reaches the session: session.press by default; the composition
    # root may route it through the seat's (mock) button instead, so both take one path.
    press: Callable[[int], Any] | None = None
    # The seats' board (buttons, LEDs, buzzer) when one is attached: anything with a `muted` attribute.
    board: Any = None
    # The camera (web/camera.py's TableCamera) when one is attached; None: the phones enter the dice.
    camera: Any = None

    def press_from_phone(self, seat: int) -> Any:
        """Press `seat`'s button from a phone; returns the session's PressOutcome."""
        if self.press is not None:
            return self.press(seat)
        return self.session.press(seat, source="phone")


def table() -> Table:
    """The table of the app handling this request."""
    return current_app.extensions["table"]

"""Press times: turn a pin factory's edge timestamp ("ticks") into the session's millisecond clock."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

# An edge older than this (or in the future) cannot be from the press we are handling now, so the
# clock it was read against is the wrong one.
MAX_EDGE_AGE_S = 5.0


@dataclass(frozen=True)
class EdgeTime:
    """When an edge happened on the session's clock, and which clock its ticks were matched to."""

    t_ms: float
    clock: str  # "factory", "realtime", "monotonic", or "callback" (no usable timestamp)


def session_now_ms() -> float:
    """The session's clock: monotonic milliseconds, the same clock every press source uses."""
    return time.monotonic_ns() / 1e6


def edge_time(ticks: Any, factory: Any, now_ms: float | None = None) -> EdgeTime:
    """Place edge `ticks` on the session clock, or fall back to now when it gives no usable time.

    gpiozero only promises that ticks compare with `factory.ticks_diff(factory.ticks(), ticks)`,
    but lgpio hands over the kernel's edge timestamp, which is not always on the factory's clock
    (it may be CLOCK_REALTIME while `ticks()` is monotonic). So the age of the edge is measured
    against each candidate clock, and the first one that gives a believable age is used.
    """
    if ticks is None:
        return EdgeTime(session_now_ms() if now_ms is None else now_ms, "callback")
    for clock, age in _edge_ages(ticks, factory):
        now, age_s = _read_with_session_clock(age) if now_ms is None else (now_ms, _safely(age))
        if age_s is not None and -0.001 <= age_s <= MAX_EDGE_AGE_S:
            return EdgeTime(now - max(age_s, 0.0) * 1000.0, clock)
    return EdgeTime(session_now_ms() if now_ms is None else now_ms, "callback")


def _read_with_session_clock(age: Callable[[], Any]) -> tuple[float, float | None]:
    """The session clock at the moment `age` read its clock, and what it read (_safely): the session
    clock is read just before and just after, and the read is made again while a thread switch
    between them (under load) leaves them more than PAIRED_MS apart; the closest pair's midpoint counts."""
    best: tuple[float, float, float | None] | None = None
    for _ in range(PAIR_TRIES):
        before = session_now_ms()
        age_s = _safely(age)
        after = session_now_ms()
        if best is None or after - before < best[0]:
            best = (after - before, (before + after) / 2.0, age_s)
        if after - before <= PAIRED_MS:
            break
    return best[1], best[2]


# The two session-clock reads around a candidate clock's read are this close (ms) when no thread
# switch came between them; a wider pair is read again, at most PAIR_TRIES times in all.
PAIRED_MS, PAIR_TRIES = 0.02, 5


def _edge_ages(ticks: Any, factory: Any) -> Iterator[tuple[str, Callable[[], Any]]]:
    """Yield (clock name, a read of the seconds since the edge) for each clock the ticks might be on."""
    if factory is not None:
        yield "factory", lambda: factory.ticks_diff(factory.ticks(), ticks)
    yield "realtime", lambda: time.time() - ticks
    yield "monotonic", lambda: time.monotonic() - ticks


def _safely(compute: Callable[[], Any]) -> float | None:
    """Return compute() as a float, or None when the ticks do not fit that clock at all."""
    try:
        return float(compute())
    except (TypeError, ValueError, ArithmeticError, NotImplementedError):
        return None

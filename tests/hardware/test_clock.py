"""Press times: edge ticks from any clock land on the session's millisecond clock."""

from __future__ import annotations

import time

import pytest

from hardware.clock import edge_time, session_now_ms
from hardware.mockpins import demo_pin_factory


class WrappingFactory:
    """A factory whose ticks are pigpio-like 32-bit microseconds that wrap."""

    def __init__(self, now_us: int):
        """Ticks read `now_us` now."""
        self.now_us = now_us

    def ticks(self) -> int:
        """The current tick count."""
        return self.now_us

    def ticks_diff(self, later: int, earlier: int) -> float:
        """Seconds between ticks, across a wrap."""
        return ((later - earlier) % 2**32) / 1e6


def test_factory_ticks_are_placed_by_their_age():
    factory = demo_pin_factory()
    now = session_now_ms()
    at = edge_time(time.monotonic() - 0.040, factory, now_ms=now)
    assert at.clock == "factory"
    assert at.t_ms == pytest.approx(now - 40.0, abs=1.0)


def test_realtime_kernel_timestamps_are_recognised():
    # lgpio reports the kernel's edge time; it need not be on the factory's (monotonic) clock.
    factory = demo_pin_factory()
    now = session_now_ms()
    at = edge_time(time.time() - 0.025, factory, now_ms=now)
    assert at.clock == "realtime"
    assert at.t_ms == pytest.approx(now - 25.0, abs=2.0)


def test_wrapped_ticks_use_the_factorys_ticks_diff():
    factory = WrappingFactory(now_us=500)
    at = edge_time(2**32 - 1500, factory, now_ms=1000.0)  # 2000 us ago, across the wrap
    assert at.clock == "factory"
    assert at.t_ms == pytest.approx(998.0)


# A day ahead: still "in the future" however long after collection the test runs (60 s was not).
@pytest.mark.parametrize("ticks", [None, "soon", time.monotonic() + 86400.0, -1e12])
def test_no_usable_timestamp_falls_back_to_the_callbacks_clock(ticks):
    at = edge_time(ticks, demo_pin_factory(), now_ms=1234.5)
    assert (at.t_ms, at.clock) == (1234.5, "callback")


class PreemptedFactory:
    """A factory on the monotonic clock whose first tick read is followed by a 5 ms thread switch."""

    def __init__(self) -> None:
        """No read yet."""
        self.reads = 0

    def ticks(self) -> float:
        """The monotonic clock, in seconds (the first read is then held up)."""
        now = time.monotonic()
        self.reads += 1
        if self.reads == 1:
            time.sleep(0.005)
        return now

    def ticks_diff(self, later: float, earlier: float) -> float:
        """Seconds between ticks."""
        return later - earlier


def test_a_thread_switch_between_the_clock_reads_does_not_shift_the_edge():
    factory = PreemptedFactory()
    ticks = time.monotonic() - 0.100
    at = edge_time(ticks, factory)
    # Once, the session clock was read after the switch: the edge came out 5 ms late.
    assert at.clock == "factory" and factory.reads >= 2
    assert at.t_ms == pytest.approx(ticks * 1000.0, abs=0.5)


def test_session_clock_is_monotonic_ms():
    assert session_now_ms() == pytest.approx(time.monotonic() * 1000.0, abs=5.0)

"""CameraThread: reads a frame source in the background and keeps the newest frame for whoever asks.

A source that fails, is unplugged, or stops giving frames is reported in words ("camera lost:
<reason>; retrying every 2 s"), through `status`, the `when_status` callback and `status_changed`,
and is reopened with a growing pause; it never stops the program. Readers never wait for the camera:
`latest()` returns at once.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:
    from vision.sources import FrameSource

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Frame:
    """One camera frame: the BGR image, when it arrived (monotonic ms) and its running number."""

    image: np.ndarray
    t_ms: float
    index: int


def now_ms() -> float:
    """Monotonic time in milliseconds (the session's clock)."""
    return time.monotonic_ns() / 1e6


class CameraThread:
    """Keeps the newest frame of a source; reports and reopens a source that fails."""

    def __init__(
        self,
        source: FrameSource | str,
        *,
        timeout_s: float = 5.0,
        retry_s: float = 2.0,
        max_retry_s: float = 10.0,
        when_status: Callable[[str], None] | None = None,
        start: bool = True,
    ):
        """Read `source` (a FrameSource or a spec string) in a background thread."""
        if isinstance(source, str):
            from vision.sources import open_source

            source = open_source(source)
        self.source = source
        self.timeout_s = timeout_s
        self.retry_s = retry_s
        self.max_retry_s = max_retry_s
        # Called with the new status string whenever it changes (from the camera's thread).
        self.when_status = when_status
        # Set on every status change; a UI may wait on it and clear it.
        self.status_changed = threading.Event()
        self._status = f"starting: {source.name}"
        self._ok = False
        self._latest: Frame | None = None
        self._count = 0
        self._generation = 0
        self._count_at_start = 0
        self._last_arrival = time.monotonic()
        self._new_frame = threading.Condition()
        self._stop = threading.Event()
        self._reader_done = threading.Event()
        self._reader_error: str | None = None
        self._supervisor = threading.Thread(target=self._supervise, name=f"camera {source.name}", daemon=True)
        self._closed = False
        if start:
            self._supervisor.start()

    # ------------------------------------------------------------ what readers use

    def latest(self) -> Frame | None:
        """The newest frame (None before the first one); never waits for the camera."""
        return self._latest

    def wait_for_frame(self, after: int = -1, timeout: float | None = None) -> Frame | None:
        """Wait until a frame newer than index `after` exists and return it (None on timeout)."""
        with self._new_frame:
            self._new_frame.wait_for(lambda: self._latest is not None and self._latest.index > after or self._stop.is_set(), timeout)
            frame = self._latest
        return frame if frame is not None and frame.index > after else None

    @property
    def status(self) -> str:
        """What the camera is doing, in words: "running: sim", "camera lost: ...; retrying every 2 s"."""
        return self._status

    @property
    def is_ok(self) -> bool:
        """True while frames are coming."""
        return self._ok

    def start(self) -> None:
        """Start reading (only needed when made with start=False)."""
        if not self._supervisor.is_alive() and not self._closed:
            self._supervisor.start()

    def close(self) -> None:
        """Stop reading and release the source; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self.source.close()
        with self._new_frame:
            self._new_frame.notify_all()
        if self._supervisor.is_alive() and self._supervisor is not threading.current_thread():
            self._supervisor.join(timeout=max(2.0, self.timeout_s))
        self._set_status(f"closed: {self.source.name}", ok=False)

    def __enter__(self) -> CameraThread:
        """Use as a context manager: closed on leaving."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close on leaving the with-block."""
        self.close()

    # ------------------------------------------------------------ the camera's side

    def _set_status(self, status: str, ok: bool) -> None:
        """Record a new status and tell whoever listens (only when it changed)."""
        self._ok = ok
        if status == self._status:
            return
        self._status = status
        log.info("camera: %s", status)
        self.status_changed.set()
        if self.when_status is not None:
            try:
                self.when_status(status)
            except Exception:  # a broken listener must not stop the camera
                log.exception("the camera status listener failed")

    def _supervise(self) -> None:
        """Run readers one after another: start, watch for failure or silence, report, retry."""
        delay = self.retry_s
        while not self._stop.is_set():
            outcome = self._run_reader()
            if self._stop.is_set():
                return
            if outcome == "ended":
                self._set_status(f"ended: {self.source.name} has no more frames", ok=False)
                return
            self.source.close()
            if self._count > self._count_at_start:
                delay = self.retry_s  # it worked for a while: start the back-off afresh
            self._set_status(f"camera lost: {outcome}; retrying every {delay:g} s", ok=False)
            if self._stop.wait(delay):
                return
            delay = min(self.max_retry_s, delay * 1.5)

    def _run_reader(self) -> str:
        """Start one reader thread and wait until it fails, ends or goes silent; say which."""
        self._generation += 1
        generation = self._generation
        self._count_at_start = self._count
        self._reader_done.clear()
        self._reader_error = None
        self._last_arrival = time.monotonic()
        reader = threading.Thread(target=self._read, args=(generation,), name=f"camera reader {generation}", daemon=True)
        reader.start()
        while not self._stop.is_set():
            if self._reader_done.wait(0.05):
                return self._reader_error or "ended"
            silent = time.monotonic() - self._last_arrival
            if silent > self.timeout_s:
                # The reader is stuck in a read; abandon it (its frames are ignored from now on).
                self._generation += 1
                return f"no frame for {silent:.0f} s from {self.source.name}"
        return "closed"

    def _read(self, generation: int) -> None:
        """The reader thread: pull frames from the source and publish them while current."""
        try:
            for image in self.source.frames():
                if generation != self._generation or self._stop.is_set():
                    return
                if image is None or not isinstance(image, np.ndarray) or image.size == 0:
                    raise ValueError("the source gave an empty frame")
                self._publish(image)
            if generation == self._generation and self.source.live:
                self._reader_error = f"{self.source.name} stopped giving frames"
        except Exception as error:  # any failure of any source is reported, never raised
            if generation == self._generation:
                self._reader_error = str(error) or type(error).__name__
        finally:
            if generation == self._generation:
                self._reader_done.set()

    def _publish(self, image: np.ndarray) -> None:
        """Make `image` the newest frame and wake whoever waits for one."""
        frame = Frame(image=image, t_ms=now_ms(), index=self._count)
        self._count += 1
        self._last_arrival = time.monotonic()
        with self._new_frame:
            self._latest = frame
            self._new_frame.notify_all()
        if not self._ok:
            self._set_status(f"running: {self.source.name}", ok=True)

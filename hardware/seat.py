"""A seat at the table: its arcade button (with edge timestamps and debounce) and its LED."""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from gpiozero import Button, PWMLED

from hardware.clock import edge_time
from hardware.patterns import FAST_BLINK_TIMES, NO_BLINK, OFF, PULSE_TIMES, LedPattern

log = logging.getLogger(__name__)

# Called with (seat index, press time in session ms, source) for every debounced press.
PressHandler = Callable[[int, float, str], None]


class TimedButton(Button):
    """A gpiozero Button (wired to ground, internal pull-up) that keeps the ticks of its last edge.

    gpiozero hands each edge's ticks to `_fire_events` just before it calls `when_pressed` /
    `when_released` in the same thread, so those callbacks can read `edge_ticks` safely.
    Debouncing is ours (see Seat), so gpiozero's bounce_time stays off: it would drop the first
    edge's timestamp on some pin factories and is not implemented on mock pins.
    """

    def __init__(self, pin, *, pin_factory=None):
        """Open the button on `pin` through `pin_factory`."""
        self._edge_ticks = None
        super().__init__(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)

    @property
    def edge_ticks(self):
        """The pin factory's ticks of the last edge (None before the first)."""
        return self._edge_ticks

    def _fire_events(self, ticks, new_active):
        """Remember the edge's ticks, then let gpiozero fire when_pressed / when_released."""
        self._edge_ticks = ticks
        super()._fire_events(ticks, new_active)


class Seat:
    """One seat: `button` (a TimedButton) and `led` (a PWMLED); forwards each press, shows a pattern."""

    def __init__(self, index: int, button_pin: int, led_pin: int, *, bounce_ms: float = 20.0,
                 pin_factory=None, on_press: PressHandler | None = None):
        """Open the seat's button and LED through `pin_factory`; `on_press` gets every press."""
        self.index = index
        self.bounce_ms = bounce_ms
        self.on_press = on_press
        self.pattern = OFF
        self.presses = 0
        self._last_edge_ms: float | None = None
        self._source = "button"
        self._answers: list[Any] | None = None  # collects the session's answer to an on-screen press
        # _lock guards the seat's own fields only and is never held while calling out (the session
        # may call show() from its own thread); _drive_lock serialises on-screen presses.
        self._lock = threading.RLock()
        self._drive_lock = threading.Lock()
        self._no_cancel: threading.Event | None = None
        self.button = TimedButton(button_pin, pin_factory=pin_factory)
        try:
            self.led = PWMLED(led_pin, pin_factory=pin_factory)
        except Exception:
            self.button.close()
            raise
        self.button.when_pressed = self._pressed
        self.button.when_released = self._released

    def _pressed(self) -> None:
        """A press edge: forward it unless it is contact bounce of the previous edge."""
        at = edge_time(self.button.edge_ticks, self.button.pin_factory)
        with self._lock:
            source = self._source
            # Only a contact bounces; a phone's on-screen press is always one press.
            bounce = (source == "button" and self._last_edge_ms is not None
                      and at.t_ms - self._last_edge_ms < self.bounce_ms)
            self._last_edge_ms = at.t_ms
            answers = self._answers
        if bounce:
            return
        self.presses += 1
        answer = self.on_press(self.index, at.t_ms, source) if self.on_press is not None else None
        if answers is not None:
            answers.append(answer)

    def _released(self) -> None:
        """A release edge: remember when, so that release bounce is not taken for a new press."""
        at = edge_time(self.button.edge_ticks, self.button.pin_factory)
        with self._lock:
            self._last_edge_ms = at.t_ms

    def press_from_screen(self, t_ms: float | None = None, source: str = "phone") -> Any:
        """Press this seat's mock button (the phone's on-screen button) and return the press's answer.

        None when the button is on a real pin (only mock pins can be driven) or nobody answered.
        """
        pin = self.button.pin
        if not hasattr(pin, "drive_low"):
            return None
        stamped = t_ms is not None and _takes_ticks(pin)
        with self._drive_lock:
            with self._lock:
                self._source, self._answers = source, []
            try:
                pin.drive_low(ticks=t_ms / 1000.0) if stamped else pin.drive_low()
                pin.drive_high()
            finally:
                with self._lock:
                    answers, self._source, self._answers = self._answers, "button", None
        return answers[0] if answers else None

    def show(self, pattern: LedPattern, *, force: bool = False) -> None:
        """Make the LED show `pattern` (nothing to do when it already does)."""
        with self._lock:
            if pattern == self.pattern and not force:
                return
            self.pattern = pattern
            if self._no_cancel is not None:
                return  # the "no" blink is running; it shows the new pattern when it is done
            _light(self.led, pattern)

    def blink_no(self) -> None:
        """Blink "no": dark, two short flashes, dark, then back to the seat's pattern."""
        with self._lock:
            if self._no_cancel is not None:
                self._no_cancel.set()
            cancel = self._no_cancel = threading.Event()
            self.led.off()
        thread = threading.Thread(target=self._run_no, args=(cancel,), name=f"seat-{self.index + 1}-no", daemon=True)
        thread.start()

    def _run_no(self, cancel: threading.Event) -> None:
        """Play the "no" steps on the LED unless cancelled, then restore the pattern."""
        for value, seconds in NO_BLINK:
            with self._lock:
                if cancel.is_set() or self.led.closed:
                    return
                self.led.value = value
            if cancel.wait(seconds):
                return
        with self._lock:
            if self._no_cancel is cancel and not self.led.closed:
                self._no_cancel = None
                _light(self.led, self.pattern)

    def close(self) -> None:
        """Release the seat's pins (safe to call twice)."""
        with self._lock:
            if self._no_cancel is not None:
                self._no_cancel.set()
                self._no_cancel = None
        self.button.close()
        self.led.close()


def _light(led: PWMLED, pattern: LedPattern) -> None:
    """Drive `led` to show `pattern`."""
    if pattern.kind == "fast_blink":
        led.blink(on_time=FAST_BLINK_TIMES[0], off_time=FAST_BLINK_TIMES[1], background=True)
    elif pattern.kind == "pulse":
        led.pulse(fade_in_time=PULSE_TIMES[0], fade_out_time=PULSE_TIMES[1], background=True)
    else:
        led.value = pattern.brightness


def _takes_ticks(pin) -> bool:
    """Whether this mock pin accepts a chosen edge time (the demo's StampedMockPin does)."""
    from hardware.mockpins import StampedMockPin

    return isinstance(pin, StampedMockPin)

"""The table's board: every seat's button and LED, the buzzer and the host button, as one device."""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Mapping

from gpiozero import Button, Buzzer

from companion.settings import SeatPins
from hardware.clock import session_now_ms
from hardware.patterns import Beep, countdown_beeps, countdown_end, new_refusals, seat_patterns
from hardware.seat import PressHandler, Seat
from hardware.wiring import check_pins

log = logging.getLogger(__name__)

# Snapshots of one countdown give its end to within a few ms; a new countdown ends much later.
SAME_COUNTDOWN_MS = 250.0
# Called with "start" (a short press of the host button) or "undo" (a long press).
HostHandler = Callable[[str], None]


class TableBoard:
    """All the table's devices from the [pins] settings; shows snapshots, reports presses.

    Set `when_seat_pressed(seat, t_ms, source)` and `when_host(kind)` to receive events; the board
    itself decides nothing about the game.
    """

    def __init__(self, pins: SeatPins, *, pin_factory=None, countdown_ms: float = 3000.0):
        """Open every device named in `pins` through `pin_factory` (after checking the pins)."""
        check_pins(pins)
        self.pins = pins
        self.countdown_ms = countdown_ms
        self.muted = pins.muted
        self.when_seat_pressed: PressHandler | None = None
        self.when_host: HostHandler | None = None
        self.seats: tuple[Seat, ...] = ()
        self.buzzer: Buzzer | None = None
        self.host_button: Button | None = None
        self._closers: list[Callable[[], Any]] = []
        self._countdown_shown: float | None = None
        self._shown: Mapping[str, Any] | None = None
        self._beeper: _Beeper | None = None
        self._host_held = False
        self._closed = False
        try:
            self._open(pins, pin_factory)
        except Exception:
            self.close()
            raise

    def _open(self, pins: SeatPins, pin_factory) -> None:
        """Open the seats, then the optional buzzer and host button."""
        seats = []
        for index, (button_pin, led_pin) in enumerate(zip(pins.buttons, pins.leds)):
            seats.append(Seat(index, button_pin, led_pin, bounce_ms=pins.bounce_ms,
                              pin_factory=pin_factory, on_press=self._seat_pressed))
            self.seats = tuple(seats)
        if pins.buzzer is not None:
            self.buzzer = Buzzer(pins.buzzer, pin_factory=pin_factory)
            self._beeper = _Beeper(self.buzzer)
        if pins.host_button is not None:
            self.host_button = Button(pins.host_button, hold_time=pins.host_hold_ms / 1000.0,
                                      pin_factory=pin_factory)
            self.host_button.when_held = self._host_held_down
            self.host_button.when_released = self._host_released

    def _seat_pressed(self, seat: int, t_ms: float, source: str) -> Any:
        """Hand a debounced press on to whoever listens; return its answer."""
        if self.when_seat_pressed is not None:
            return self.when_seat_pressed(seat, t_ms, source)
        return None

    def _host_held_down(self) -> None:
        """The host button was held: undo."""
        self._host_held = True
        if self.when_host is not None:
            self.when_host("undo")

    def _host_released(self) -> None:
        """The host button was let go: a short press (not a hold) means "start"."""
        held, self._host_held = self._host_held, False
        if not held and self.when_host is not None:
            self.when_host("start")

    def show(self, snapshot: Mapping[str, Any] | None) -> None:
        """Make the LEDs and the buzzer show `snapshot` (the session's subscriber callback)."""
        if self._closed:
            return
        for seat, pattern in zip(self.seats, seat_patterns(snapshot, len(self.seats))):
            seat.show(pattern)
        if self._shown is not None:  # the first snapshot (e.g. after a restart) blinks nothing
            for seat in new_refusals(self._shown, snapshot):
                self.blink_no(seat)
        self._shown = snapshot
        countdown = countdown_end(snapshot, session_now_ms())
        if countdown is None:
            self._countdown_shown = None
        elif not self._same_countdown(countdown[0]):
            self._countdown_shown = countdown[0]
            self.play_countdown(*countdown)

    def _same_countdown(self, end_ms: float) -> bool:
        """Whether a countdown ending at `end_ms` is the one already playing (snapshots repeat it)."""
        return self._countdown_shown is not None and abs(end_ms - self._countdown_shown) < SAME_COUNTDOWN_MS

    def play_countdown(self, end_ms: float, countdown_ms: float | None = None) -> None:
        """Beep "Ready, Set, Go!" so that the long beep starts at `end_ms` (unless muted)."""
        if self._beeper is not None and not self.muted:
            self._beeper.play(countdown_beeps(end_ms, countdown_ms or self.countdown_ms))

    def blink_no(self, seat: int) -> None:
        """Blink seat `seat`'s LED "no" (its press was refused)."""
        if 0 <= seat < len(self.seats) and not self._closed:
            self.seats[seat].blink_no()

    def press_from_screen(self, seat: int, t_ms: float | None = None, source: str = "phone") -> Any:
        """Press seat `seat`'s mock button, as the phone's on-screen button does in the demo.

        Returns the session's answer (its PressOutcome), or None when that seat has a real button
        or none at all: then the caller presses the session directly.
        """
        if not isinstance(seat, int) or not 0 <= seat < len(self.seats) or self._closed:
            return None
        return self.seats[seat].press_from_screen(t_ms, source)

    def on_close(self, closer: Callable[[], Any]) -> None:
        """Call `closer` when the board closes (e.g. to unsubscribe from the session)."""
        self._closers.append(closer)

    @property
    def closed(self) -> bool:
        """Whether the board has been closed."""
        return self._closed

    def close(self) -> None:
        """Close every device and stop beeping (safe to call twice)."""
        if self._closed:
            return
        self._closed = True
        for closer in self._closers:
            closer()
        if self._beeper is not None:
            self._beeper.stop()
        for device in (*self.seats, self.buzzer, self.host_button):
            if device is not None:
                device.close()

    def __enter__(self) -> TableBoard:
        """Use the board in a with block."""
        return self

    def __exit__(self, *exc_info) -> None:
        """Close the board at the end of the with block."""
        self.close()


class _Beeper:
    """Plays a list of beeps on the buzzer from one background thread; a new list replaces the old."""

    def __init__(self, buzzer: Buzzer):
        """Play on `buzzer`."""
        self.buzzer = buzzer
        self.played: list[Beep] = []
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    def play(self, beeps: tuple[Beep, ...]) -> None:
        """Start playing `beeps` (skipping any already in the past), replacing what was playing."""
        self.stop()
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(beeps, self._cancel),
                                        name="countdown-beeps", daemon=True)
        self._thread.start()

    def _run(self, beeps: tuple[Beep, ...], cancel: threading.Event) -> None:
        """Wait for each beep's start, sound it, stop early when cancelled."""
        for beep in beeps:
            if cancel.wait(max(0.0, beep.start_ms - session_now_ms()) / 1000.0):
                return
            if session_now_ms() > beep.start_ms + beep.length_ms:
                continue  # long past (a snapshot arrived late): do not beep out of time
            self.buzzer.on()
            self.played.append(beep)
            cancelled = cancel.wait(beep.length_ms / 1000.0)
            self.buzzer.off()
            if cancelled:
                return

    def stop(self) -> None:
        """Stop playing and silence the buzzer."""
        self._cancel.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        self._thread = None
        if not self.buzzer.closed:
            self.buzzer.off()

"""The demo's pins: gpiozero mock pins whose edges can carry a chosen timestamp."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory, MockPWMPin


class StampedMockPin(MockPWMPin):
    """A mock pin (PWM-capable, so LEDs fade) whose drive_low/drive_high can be stamped with ticks.

    gpiozero's MockPin stamps each edge with `time.monotonic()` (the MockFactory's ticks); tests
    that press "at chosen times" pass `ticks=` to say when the edge happened on that clock.
    """

    def __init__(self, factory, info):
        """Make the pin; no stamp is pending."""
        super().__init__(factory, info)
        self._stamp: float | None = None

    def drive_low(self, ticks: float | None = None) -> None:
        """Pull the input low (a button press), optionally stamped at `ticks`."""
        self._drive(super().drive_low, ticks)

    def drive_high(self, ticks: float | None = None) -> None:
        """Let the input go high (a release), optionally stamped at `ticks`."""
        self._drive(super().drive_high, ticks)

    def _drive(self, drive, ticks: float | None) -> None:
        """Run a drive with `ticks` as the edge time of the change it makes."""
        self._stamp = ticks
        try:
            drive()
        finally:
            self._stamp = None

    def _change_state(self, value):
        """Change state as MockPin does, then use the stamp (if any) as the edge's time."""
        changed = super()._change_state(value)
        if changed and self._stamp is not None:
            self._last_change = self._stamp
        return changed


def demo_pin_factory() -> MockFactory:
    """A fresh MockFactory whose pins are StampedMockPins (used by the demo and the tests)."""
    return MockFactory(pin_class=StampedMockPin)

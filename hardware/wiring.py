"""Which GPIO pin is what: checking the [pins] settings, and the wiring table for the README."""

from __future__ import annotations

from dataclasses import dataclass

from gpiozero import pi_info

from companion.errors import SettingsError
from companion.settings import SeatPins

# BCM 0 and 1 are the HAT ID EEPROM's pins and 28+ are not on the 40-pin header.
FIRST_PIN, LAST_PIN = 2, 27
# Any 40-pin Pi has the same header; the Pi 5's board info supplies its physical pin numbers.
HEADER_MODEL = "d04170"


@dataclass(frozen=True)
class Wire:
    """One device's connection: what it is, its BCM GPIO number, its header pin and a ground pin."""

    what: str
    gpio: int
    header_pin: int
    ground_pin: int


def pin_roles(pins: SeatPins) -> list[tuple[str, int]]:
    """Name every configured pin: ("seat 1 button", 5), ("seat 1 LED", 12), ..., buzzer, host."""
    roles = [(f"seat {i + 1} button", pin) for i, pin in enumerate(pins.buttons)]
    roles += [(f"seat {i + 1} LED", pin) for i, pin in enumerate(pins.leds)]
    if pins.buzzer is not None:
        roles.append(("buzzer", pins.buzzer))
    if pins.host_button is not None:
        roles.append(("host button", pins.host_button))
    return roles


def check_pins(pins: SeatPins, seats: int | None = None) -> None:
    """Raise SettingsError naming the pin when [pins] cannot wire `seats` seats (default: all)."""
    seats = len(pins.buttons) if seats is None else seats
    if len(pins.buttons) != len(pins.leds):
        raise SettingsError(
            f"[pins] lists {len(pins.buttons)} buttons but {len(pins.leds)} LEDs; "
            "give every seat one button pin and one LED pin, in seat order."
        )
    if seats > len(pins.buttons):
        raise SettingsError(
            f"[pins] wires {len(pins.buttons)} seats but the table has {seats}; add button and LED "
            f"pins for seats {len(pins.buttons) + 1}-{seats} (or play those seats with the phone button)."
        )
    _check_each_pin(pin_roles(pins))
    if pins.bounce_ms < 0 or pins.host_hold_ms <= 0:
        raise SettingsError(
            f"[pins] bounce_ms must be 0 or more and host_hold_ms more than 0, "
            f"not {pins.bounce_ms} and {pins.host_hold_ms}."
        )


def _check_each_pin(roles: list[tuple[str, int]]) -> None:
    """Raise SettingsError for a pin outside the header's GPIOs or a pin given two jobs."""
    used: dict[int, str] = {}
    for what, pin in roles:
        if not isinstance(pin, int) or isinstance(pin, bool) or not FIRST_PIN <= pin <= LAST_PIN:
            raise SettingsError(
                f"[pins] {what} is on GPIO {pin!r}; use a BCM GPIO number from {FIRST_PIN} to {LAST_PIN}."
            )
        if pin in used:
            raise SettingsError(
                f"[pins] GPIO {pin} is given to both the {used[pin]} and the {what}; give each its own pin."
            )
        used[pin] = what


def wiring(pins: SeatPins) -> list[Wire]:
    """The wiring table for `pins`: each device with its GPIO, header pin and nearest ground."""
    header = pi_info(HEADER_MODEL).headers["J8"].pins
    by_gpio = {info.name: number for number, info in header.items()}
    grounds = [number for number, info in header.items() if info.name == "GND"]
    wires = []
    for what, gpio in pin_roles(pins):
        number = by_gpio[f"GPIO{gpio}"]
        ground = min(grounds, key=lambda g: (abs(g - number), g))
        wires.append(Wire(what, gpio, number, ground))
    return wires


def wiring_markdown(pins: SeatPins) -> str:
    """The wiring table as Markdown, for the README and `companion doctor`."""
    lines = ["| part | GPIO (BCM) | header pin | other leg to |", "|---|---|---|---|"]
    for wire in wiring(pins):
        other = _other_leg(wire)
        lines.append(f"| {wire.what} | GPIO{wire.gpio} | {wire.header_pin} | {other} |")
    return "\n".join(lines)


def _other_leg(wire: Wire) -> str:
    """Where the device's second wire goes (LEDs and buzzers through their resistor/transistor)."""
    if "LED" in wire.what:
        return f"GND (pin {wire.ground_pin}) from the short leg; a 330 Ω resistor in series"
    if wire.what == "buzzer":
        return f"GND (pin {wire.ground_pin}); an active 3.3 V buzzer (over 15 mA: through a transistor)"
    return f"GND (pin {wire.ground_pin}); no resistor, the Pi's pull-up is used"

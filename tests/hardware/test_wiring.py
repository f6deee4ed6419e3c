"""The [pins] settings are checked, naming the pin at fault; the wiring table matches the header."""

from __future__ import annotations

import pytest

from companion.errors import SettingsError
from companion.settings import SeatPins, load_settings
from hardware.wiring import check_pins, wiring, wiring_markdown


def test_default_pins_wire_five_seats():
    check_pins(SeatPins(), seats=5)


@pytest.mark.parametrize(
    "pins, seats, message",
    [
        (SeatPins(leds=(12, 5, 20, 21, 18)), None,
         "[pins] GPIO 5 is given to both the seat 1 button and the seat 2 LED; give each its own pin."),
        (SeatPins(buzzer=24), None,
         "[pins] GPIO 24 is given to both the buzzer and the host button; give each its own pin."),
        (SeatPins(buttons=(5, 6, 13), leds=(12, 16, 20)), 4,
         "[pins] wires 3 seats but the table has 4; add button and LED pins for seats 4-4 "
         "(or play those seats with the phone button)."),
        (SeatPins(buttons=(5, 6), leds=(12,)), None,
         "[pins] lists 2 buttons but 1 LEDs; give every seat one button pin and one LED pin, in seat order."),
        (SeatPins(leds=(12, 16, 28, 21, 18)), None,
         "[pins] seat 3 LED is on GPIO 28; use a BCM GPIO number from 2 to 27."),
        (SeatPins(host_button=1), None,
         "[pins] host button is on GPIO 1; use a BCM GPIO number from 2 to 27."),
        (SeatPins(bounce_ms=-1.0), None,
         "[pins] bounce_ms must be 0 or more and host_hold_ms more than 0, not -1.0 and 1500.0."),
    ],
)
def test_bad_pins_are_named_in_the_error(pins, seats, message):
    with pytest.raises(SettingsError) as caught:
        check_pins(pins, seats)
    assert str(caught.value) == message


def test_pins_come_from_the_settings_file(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text("[pins]\nbuttons = [17, 27]\nleds = [22, 10]\nbuzzer = 4\nmuted = true\npin_factory = \"mock\"\n")
    pins = load_settings(path).pins
    assert (pins.buttons, pins.leds, pins.buzzer, pins.muted, pins.pin_factory) == ((17, 27), (22, 10), 4, True, "mock")
    check_pins(pins)


def test_wiring_table_gives_header_pins_and_grounds():
    wires = {wire.what: wire for wire in wiring(SeatPins())}
    assert (wires["seat 1 button"].header_pin, wires["seat 1 button"].ground_pin) == (29, 30)
    assert wires["seat 5 LED"].header_pin == 12  # GPIO18 is physical pin 12 on every 40-pin Pi
    assert wires["host button"].header_pin == 18
    table = wiring_markdown(SeatPins())
    assert "| seat 1 LED | GPIO12 | 32 | GND (pin 30) from the short leg; a 330 Ω resistor in series |" in table
    assert len(table.splitlines()) == 2 + 12

"""Pin factories: one that fails to load says what to do, and the companion carries on with mock pins."""

from __future__ import annotations

import logging

import pytest
from gpiozero.pins.mock import MockFactory

from companion.errors import GpioUnavailable
from companion.settings import SeatPins, Settings
from hardware import attach
from hardware.factory import choose_pin_factory, is_mock, load_pin_factory

from .conftest import FakeSession


def test_a_factory_that_fails_to_load_says_what_to_do():
    with pytest.raises(GpioUnavailable) as caught:
        load_pin_factory("lgpio")
    message = str(caught.value)
    assert message.startswith("No GPIO pins could be opened (lgpio: No module named 'lgpio').")
    for advice in ("on-screen buttons still work", "gpio group", "companion doctor", "deploy/install-pi.sh"):
        assert advice in message


def test_the_environment_variable_chooses_like_gpiozero(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    with pytest.raises(GpioUnavailable, match=r"\(lgpio: No module named 'lgpio'\)"):
        load_pin_factory("auto")
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert is_mock(load_pin_factory("auto"))


def test_an_unknown_factory_name_lists_the_known_ones():
    with pytest.raises(GpioUnavailable, match=r"no pin factory called 'gpio5' \(known: .*lgpio.*mock"):
        load_pin_factory("gpio5")


def test_no_gpio_here_falls_back_to_the_demos_mock_pins(monkeypatch, caplog):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    with caplog.at_level(logging.WARNING):
        factory = choose_pin_factory("auto")
    assert is_mock(factory)
    assert "Using the demo's mock pins instead." in caplog.text
    assert "lgpio: No module named 'lgpio'" in caplog.text


def test_attach_with_a_broken_factory_still_gives_the_phones_a_board(caplog):
    session = FakeSession()
    with caplog.at_level(logging.WARNING):
        board = attach(session, Settings(pins=SeatPins(pin_factory="lgpio")))
    try:
        assert board is not None and is_mock(board.seats[0].button.pin_factory)
        assert board.press_from_screen(1)
        assert [(seat, source) for seat, _, source in session.presses] == [(1, "phone")]
    finally:
        board.close()


def test_attach_with_bad_pins_logs_and_returns_none(caplog):
    session = FakeSession()
    settings = Settings(pins=SeatPins(leds=(12, 16, 20, 21, 5), pin_factory="mock"))
    with caplog.at_level(logging.ERROR):
        assert attach(session, settings) is None
    assert "GPIO 5 is given to both the seat 1 button and the seat 5 LED" in caplog.text
    assert "companion doctor" in caplog.text
    assert session.subscribers == []


def test_attach_can_be_turned_off():
    assert attach(FakeSession(), Settings(pins=SeatPins(pin_factory="none"))) is None


def test_attach_uses_the_factory_it_is_given(factory):
    session = FakeSession()
    with attach(session, Settings(), pin_factory=factory) as board:
        assert board.seats[0].button.pin_factory is factory
        factory.pin(5).drive_low()
        assert [seat for seat, _, _ in session.presses] == [0]


class BusyFactory:
    """A real-looking (not mock) pin factory whose pins are all taken by another program."""

    def __init__(self):
        """Borrow everything but the pins from a mock factory."""
        self._inner = MockFactory()

    def __getattr__(self, name):
        """Delegate reservations, ticks and the rest."""
        return getattr(self._inner, name)

    def pin(self, name, **kwargs):
        """Every pin is busy, as lgpio says when another program holds it."""
        raise OSError("GPIO busy")


def test_pins_that_cannot_be_opened_fall_back_to_mock_pins(caplog):
    session = FakeSession()
    with caplog.at_level(logging.WARNING):
        board = attach(session, Settings(), pin_factory=BusyFactory())
    try:
        assert "Could not open the seat buttons and LEDs (OSError: GPIO busy)" in caplog.text
        assert "gpio group" in caplog.text and "Using the demo's mock pins instead." in caplog.text
        assert is_mock(board.seats[0].button.pin_factory) and not isinstance(board.seats[0].button.pin_factory, BusyFactory)
        assert board.press_from_screen(0) is not None
    finally:
        board.close()

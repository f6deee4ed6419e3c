"""Choosing the gpiozero pin factory: the Pi's GPIO when there is one, else the demo's mock pins."""

from __future__ import annotations

import logging
import os
import warnings
from importlib.metadata import entry_points

from gpiozero import Factory

from companion.errors import GpioUnavailable
from hardware.mockpins import demo_pin_factory

log = logging.getLogger(__name__)

# The order gpiozero itself tries when nothing is chosen (lgpio first: it works on every Pi).
PREFERRED = ("lgpio", "rpigpio", "pigpio", "native")

WHAT_TO_DO = (
    "The phones' on-screen buttons still work. On a Raspberry Pi: run deploy/install-pi.sh "
    "(it installs python3-lgpio), make sure your user is in the gpio group "
    "(sudo adduser $USER gpio, then log in again), and run `companion doctor`."
)


def load_pin_factory(name: str | None = None) -> Factory:
    """Load gpiozero pin factory `name` ("auto"/None: $GPIOZERO_PIN_FACTORY or the usual order).

    Raises GpioUnavailable, saying why each one failed and what to do.
    """
    if name in (None, "", "auto"):
        name = os.environ.get("GPIOZERO_PIN_FACTORY") or None
    if name == "mock":
        return demo_pin_factory()
    failures = []
    for candidate in (name,) if name else PREFERRED:
        try:
            return _load_one(candidate)
        except Exception as error:  # a factory's import or chip open may fail in any way
            failures.append(f"{candidate}: {error}")
    error = GpioUnavailable(f"No GPIO pins could be opened ({'; '.join(failures)}). {WHAT_TO_DO}")
    error.reasons = tuple(failures)  # each factory tried, with why it failed (for `companion doctor`)
    raise error


def choose_pin_factory(name: str = "auto") -> Factory | None:
    """The factory for setting `name`, falling back to the demo's mock pins; None for "none"."""
    if name == "none":
        return None
    try:
        return load_pin_factory(name)
    except GpioUnavailable as error:
        log.warning("%s Using the demo's mock pins instead.", error)
        return demo_pin_factory()


def is_mock(factory: Factory | None) -> bool:
    """Whether `factory` gives mock pins (the demo), not a real GPIO chip."""
    from gpiozero.pins.mock import MockFactory

    return isinstance(factory, MockFactory)


def _load_one(name: str) -> Factory:
    """Load one named pin factory through gpiozero's entry points."""
    with warnings.catch_warnings():
        # gpiozero warns when it falls back; our own message says it better.
        warnings.simplefilter("ignore")
        found = [ep for ep in entry_points(group="gpiozero_pin_factories") if ep.name in (name, name.lower())]
        if not found:
            known = ", ".join(sorted({ep.name for ep in entry_points(group="gpiozero_pin_factories")}))
            raise ValueError(f"no pin factory called {name!r} (known: {known})")
        return found[0].load()()

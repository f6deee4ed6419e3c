"""The settings file: one TOML file of known sections and fields, validated when it is loaded."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.errors import SettingsError


@dataclass(frozen=True)
class RaceSettings:
    """How "Rescuing!" races are settled."""

    # Presses closer than this are "at the same time" (see README, "The tie window").
    tie_window_ms: float = 30.0
    # A seat that presses again within this time after a refused press is ignored; 0 is off.
    mash_lockout_ms: float = 0.0
    # Length of the "Ready, Set, Go!" call before the race opens.
    countdown_ms: float = 3000.0


@dataclass(frozen=True)
class ServerSettings:
    """Where the phone pages are served, and the table PIN."""

    host: str = "0.0.0.0"
    port: int = 8000
    # Empty means: make a fresh 4-digit PIN at start and show it on the host screen.
    pin: str = ""
    threads: int = 64


@dataclass(frozen=True)
class CameraSettings:
    """Which frame source to read: picamera2, usb:N, video:PATH, folder:PATH, sim, or auto."""

    source: str = "auto"


@dataclass(frozen=True)
class SeatPins:
    """GPIO pins (BCM numbers) of the seats' buttons and LEDs, the buzzer and the host button."""

    buttons: tuple[int, ...] = (5, 6, 13, 19, 26)
    leds: tuple[int, ...] = (12, 16, 20, 21, 18)
    buzzer: int | None = 23
    host_button: int | None = 24
    bounce_ms: float = 20.0
    muted: bool = False
    # Which gpiozero pin factory to use: "auto" (the Pi's GPIO if there is one, else the demo's
    # mock pins), "mock" (demo), "none" (no buttons or LEDs), or a name such as "lgpio".
    pin_factory: str = "auto"
    # Holding the host button this long undoes the last action; a short press starts the round.
    host_hold_ms: float = 1500.0


@dataclass(frozen=True)
class Settings:
    """Every setting of the companion, with defaults that work on a laptop and a Pi."""

    data_dir: str = "~/.local/share/rescue-companion"
    race: RaceSettings = field(default_factory=RaceSettings)
    server: ServerSettings = field(default_factory=ServerSettings)
    camera: CameraSettings = field(default_factory=CameraSettings)
    pins: SeatPins = field(default_factory=SeatPins)

    @property
    def data_path(self) -> Path:
        """The folder that holds the event store, calibration and catalogues."""
        return Path(os.path.expanduser(self.data_dir))


def _build(cls: type, values: dict[str, Any], where: str) -> Any:
    """Make dataclass `cls` from a TOML table, naming any unknown or mistyped field."""
    if not isinstance(values, dict):
        raise SettingsError(f"{where} must be a table of settings, not {values!r}.")
    known = {f.name: f for f in dataclasses.fields(cls)}
    kwargs: dict[str, Any] = {}
    for name, value in values.items():
        if name not in known:
            raise SettingsError(
                f"{where}: unknown setting {name!r}; known ones are {', '.join(sorted(known))}."
            )
        default = getattr(cls(), name)
        if dataclasses.is_dataclass(default):
            kwargs[name] = _build(type(default), value, f"{where}.{name}")
        else:
            kwargs[name] = _coerce(default, value, f"{where}.{name}")
    return cls(**kwargs)


def _coerce(default: Any, value: Any, where: str) -> Any:
    """Check `value` has the type of `default` (ints pass as floats, lists become tuples)."""
    if isinstance(default, bool) or isinstance(value, bool):
        if isinstance(default, bool) and isinstance(value, bool):
            return value
    elif isinstance(default, float) and isinstance(value, (int, float)):
        return float(value)
    elif isinstance(default, int) and isinstance(value, int):
        return value
    elif default is None and (value is None or isinstance(value, int)):
        return value
    elif isinstance(default, str) and isinstance(value, str):
        return value
    elif isinstance(default, tuple) and isinstance(value, list):
        return tuple(value)
    raise SettingsError(f"{where} should be like {default!r}, not {value!r}.")


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """Read the settings file at `path` (or the defaults when there is none)."""
    if path is None:
        return Settings()
    path = Path(path)
    try:
        with path.open("rb") as handle:
            values = tomllib.load(handle)
    except FileNotFoundError:
        raise SettingsError(f"{path}: no such settings file; leave out --settings to use the defaults.") from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{path} is not valid TOML ({error}); fix that line or delete the file.") from None
    except (OSError, UnicodeDecodeError) as error:
        # A folder, a file we may not read, or one that is not text: say so, never a traceback.
        raise SettingsError(f"{path} cannot be read as a settings file ({error}); give a TOML file.") from None
    return _build(Settings, values, str(path))

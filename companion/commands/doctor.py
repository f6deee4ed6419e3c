"""`companion doctor`: check the camera, the pins, the settings, the calibration and the disk, and say what to fix."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from companion.errors import CompanionError
from companion.settings import Settings, load_settings

CAMERA_TIMEOUT_S = 15.0
MIN_FREE_MB = 200
LOW_FREE_MB = 1000
PI_MODEL_FILE = Path("/proc/device-tree/model")


@dataclass(frozen=True)
class Check:
    """One check's verdict: "ok", "warn" (works, but see the note) or "fail"; what was found; what to do."""

    name: str
    status: str
    found: str
    fix: str = ""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `companion doctor [--settings FILE] [--no-interactive] [--timeout S]`."""
    parser = subparsers.add_parser(
        "doctor", help="check the camera, pins, settings, calibration and disk, and say what to fix",
        description="Checks each part the companion needs and says, for each, what to fix. "
                    "The pins check lights each seat's LED and then asks you to press each button.")
    parser.add_argument("--settings", help="the settings file (TOML); leave out for the defaults")
    parser.add_argument("--data-dir", help="the data folder to check (default: from the settings)")
    parser.add_argument("--source", help="camera source to try (default: from the settings)")
    parser.add_argument("--no-interactive", action="store_true",
                        help="do not ask for button presses (the LED test still runs)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each button (default 10)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run every check, print a verdict per check, and return 1 when any failed."""
    settings_check, settings = check_settings(args.settings)
    if args.data_dir:
        settings = replace(settings, data_dir=args.data_dir)
    _print(settings_check)
    checks = [settings_check]
    for step in (
        lambda: check_camera(args.source or settings.camera.source),
        lambda: check_pins(settings, interactive=not args.no_interactive, timeout_s=args.timeout),
        lambda: check_calibration(settings.data_path),
        lambda: check_disk(settings.data_path),
    ):
        check = _safely(step)
        _print(check)
        checks.append(check)
    failed = [c.name for c in checks if c.status == "fail"]
    print(f"\n{'Something needs fixing: ' + ', '.join(failed) + '.' if failed else 'All set.'}")
    return 1 if failed else 0


def _safely(step: Callable[[], Check]) -> Check:
    """Run one check; an unexpected error becomes a failed check, not a traceback."""
    try:
        return step()
    except Exception as error:  # doctor must report every part, whatever one of them raises
        return Check("check", "fail", f"the check itself failed ({type(error).__name__}: {error})",
                     "please report this, with the output above")


def _print(check: Check) -> None:
    """Print one verdict line, and the fix under it."""
    print(f"{check.name:<12} {check.status.upper():<5} {check.found}", flush=True)
    if check.fix:
        print(f"{'':<12} {'':<5} -> {check.fix}", flush=True)


def check_settings(path: str | None) -> tuple[Check, Settings]:
    """Load the settings file; on error, say which field and carry on with the defaults."""
    try:
        settings = load_settings(path)
    except CompanionError as error:
        return Check("settings", "fail", str(error), "fix that line (the other checks use the defaults)"), Settings()
    return Check("settings", "ok", str(path) if path else "no settings file: the defaults"), settings


def check_camera(spec: str) -> Check:
    """Open the camera source and grab one frame (within CAMERA_TIMEOUT_S)."""
    from vision.sources import open_source

    try:
        source = open_source(spec)
    except (CompanionError, ValueError, OSError, RuntimeError) as error:
        return Check("camera", "fail", f"{spec}: {error}", _camera_fix(spec))
    try:
        frame, error = _first_frame(source)
    finally:
        source.close()
    name = getattr(source, "name", spec)
    if frame is None:
        return Check("camera", "fail", f"{name}: no frame ({error or f'none in {CAMERA_TIMEOUT_S:.0f} s'})",
                     _camera_fix(spec))
    size = f"{frame.shape[1]}x{frame.shape[0]}"
    if "sim" in str(name) and not spec.startswith("sim"):
        return Check("camera", "warn", f"no camera found; the simulator gives {size} frames",
                     "connect the camera module (or a USB camera), enable it, and run `companion doctor` again")
    return Check("camera", "ok", f"{name}: a {size} frame")


def _first_frame(source) -> tuple[object | None, str | None]:
    """The source's first frame, read on a thread so that a hung camera cannot hang the doctor."""
    result: dict[str, object] = {}

    def grab() -> None:
        """Read one frame into `result`."""
        try:
            result["frame"] = next(iter(source.frames()), None)
        except Exception as error:  # any driver error is reported, not raised
            result["error"] = f"{type(error).__name__}: {error}"

    thread = threading.Thread(target=grab, daemon=True)
    thread.start()
    thread.join(CAMERA_TIMEOUT_S)
    return result.get("frame"), result.get("error")  # type: ignore[return-value]


def _camera_fix(spec: str) -> str:
    """What to do when the camera source does not give frames."""
    if spec.startswith("picamera2") or spec == "auto":
        return ("check the ribbon cable, install python3-picamera2 (deploy/install-pi.sh), add your user to "
                "the video group (sudo adduser $USER video), and try `rpicam-hello`")
    if spec.startswith("usb"):
        return "plug the USB camera in (see `ls /dev/video*`) and add your user to the video group"
    return "check [camera] source in the settings file (picamera2, usb:N, video:PATH, folder:PATH, sim)"


def check_pins(settings: Settings, interactive: bool, timeout_s: float) -> Check:
    """Check the [pins] settings, open the board, run the LED test and (interactive) the button test."""
    from hardware.board import TableBoard
    from hardware.factory import is_mock, load_pin_factory
    from hardware.selftest import button_test, led_test
    from hardware.wiring import check_pins as check_pin_numbers

    pins = settings.pins
    try:
        check_pin_numbers(pins)
    except CompanionError as error:
        return Check("pins", "fail", str(error), "fix [pins] in the settings file")
    if pins.pin_factory == "none":
        return Check("pins", "ok", "buttons and LEDs are turned off ([pins] pin_factory = \"none\")")
    try:
        factory = load_pin_factory(pins.pin_factory)
    except CompanionError as error:
        status = "fail" if on_a_pi() else "warn"
        reasons = "; ".join(getattr(error, "reasons", ())) or str(error)
        return Check("pins", status, f"no GPIO pins here ({reasons})", _gpio_fix())
    try:
        with TableBoard(pins, pin_factory=factory) as board:
            faults = led_test(board)
            if faults:
                return Check("pins", "fail", f"{', '.join(faults)} did not light", "check the LED pins in [pins]")
            mock = is_mock(factory)
            if mock:
                status = "fail" if on_a_pi() else "warn"
                return Check("pins", status, f"mock pins (no GPIO on this machine): the demo's on-screen "
                             f"buttons drive them; LED test passed on {len(board.seats)} seats", _gpio_fix())
            if not interactive:
                return Check("pins", "ok", f"{len(board.seats)} seats opened; watch the LEDs light in turn "
                             "(buttons not tested: --no-interactive)")
            print("pins         the LEDs lit in turn; now the buttons:", flush=True)
            missing = button_test(board, timeout_s)
    except Exception as error:  # a busy or inaccessible pin, raised by the chip driver
        return Check("pins", "fail", f"could not open the pins ({type(error).__name__}: {error})", _gpio_fix())
    if missing:
        seats = ", ".join(str(s + 1) for s in missing)
        return Check("pins", "fail", f"no press from seat(s) {seats}",
                     "check each button's two wires: one to its GPIO pin, one to ground (README, Wiring)")
    return Check("pins", "ok", f"every LED lit and all {len(pins.buttons)} buttons pressed")


def on_a_pi() -> bool:
    """Whether this machine is a Raspberry Pi (so missing GPIO is a fault, not a laptop)."""
    try:
        return "Raspberry Pi" in PI_MODEL_FILE.read_text(errors="replace")
    except OSError:
        return False


def _gpio_fix() -> str:
    """What to do when the GPIO pins cannot be opened."""
    chip = Path("/dev/gpiochip0")
    if chip.exists() and not os.access(chip, os.R_OK | os.W_OK):
        return "add your user to the gpio group (sudo adduser $USER gpio), then log out and in again"
    if on_a_pi():
        return "run deploy/install-pi.sh (python3-lgpio) and add your user to the gpio group"
    return "fine on a laptop: the phones' on-screen buttons play; on the Pi, run deploy/install-pi.sh"


def check_calibration(data_path: Path) -> Check:
    """Load the calibration file, or say that the table is not calibrated yet."""
    from calibration.store import CALIBRATION_FILE, load_calibration

    path = data_path / CALIBRATION_FILE
    if not path.exists():
        return Check("calibration", "warn", f"not calibrated yet (no {path})",
                     "print the mat and run `companion calibrate` (dice can be tapped on the phones until then)")
    try:
        load_calibration(path)
    except (CompanionError, ValueError, OSError) as error:
        return Check("calibration", "fail", str(error), "run `companion calibrate` again")
    return Check("calibration", "ok", str(path))


def check_disk(data_path: Path) -> Check:
    """Free space on the data folder's disk, and whether the folder can be written."""
    try:
        data_path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=data_path, prefix=".doctor-"):
            pass
    except OSError as error:
        return Check("disk", "fail", f"cannot write to {data_path} ({error.strerror or error})",
                     f"make it writable (sudo chown -R $USER {data_path}) or set data_dir in the settings")
    free_mb = shutil.disk_usage(data_path).free / 1e6
    found = f"{free_mb / 1000:.1f} GB free; {data_path} is writable"
    if free_mb < MIN_FREE_MB:
        return Check("disk", "fail", found, "free some space: the game log needs room to be written safely")
    if free_mb < LOW_FREE_MB:
        return Check("disk", "warn", found, "less than 1 GB left; free some space")
    return Check("disk", "ok", found)


if __name__ == "__main__":
    sys.exit(run(argparse.Namespace(settings=None, data_dir=None, source=None, no_interactive=True, timeout=10.0)))

"""Calibration as plain steps (for the command and the phone page): calibrate one frame, notice a moved camera."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

from calibration.checks import Check, check_picture
from calibration.colours import ColourShot, learn_colours
from calibration.mat import MatGeometry
from calibration.markers import find_markers, identify_mat, locate_mat
from calibration.table import Calibration

# The camera counts as moved when a marker corner shifted further than this many pixels.
MOVED_PX = 3.0


@dataclass(frozen=True, eq=False)
class CalibrationResult:
    """The outcome of calibrating one frame: the calibration (None when the mat was not found) and what to fix."""

    calibration: Calibration | None
    checks: tuple[Check, ...] = ()
    colours: ColourShot | None = None
    problems: tuple[str, ...] = ()  # sentences saying what to fix; empty when all is well
    notes: tuple[str, ...] = ()  # sentences worth knowing that need no action

    @property
    def ok(self) -> bool:
        """Whether the mat was found and every check passed."""
        return self.calibration is not None and not self.problems

    def to_dict(self) -> dict[str, Any]:
        """Plain values for the phone page."""
        return {
            "ok": self.ok,
            "found_mat": self.calibration is not None,
            "seats": len(self.calibration.mat.seats) if self.calibration else None,
            "paper": self.calibration.mat.paper if self.calibration else None,
            "checks": [c.to_dict() for c in self.checks],
            "learned_colours": sorted(self.colours.samples) if self.colours else [],
            "problems": list(self.problems),
            "notes": list(self.notes),
        }


def calibrate_frame(image: np.ndarray, geometry: MatGeometry | None = None, colours: bool = True) -> CalibrationResult:
    """Calibrate from one frame: find the mat, fit the homography, check the picture, learn the colours."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        return CalibrationResult(None, problems=("the picture is empty or not a colour image: check the camera.",))
    geometry = geometry or identify_mat(image)
    if geometry is None:
        return CalibrationResult(None, problems=(
            "no mat markers found: put the printed mat (from `companion calibrate mat`) under the camera, "
            "all of it in the picture, and switch on the light.",))
    fix = locate_mat(image, geometry)
    if fix.homography is None:
        return CalibrationResult(None, problems=(fix.message or "the mat was not found.",))
    height, width = image.shape[:2]
    calibration = Calibration(geometry, (width, height), fix.homography, dict(fix.corners), None,
                              datetime.now(timezone.utc).isoformat(timespec="seconds"))
    checks = tuple(check_picture(image, calibration))
    shot = learn_colours(image, calibration) if colours else None
    problems = [c.message for c in checks if not c.ok]
    if fix.message:
        problems.insert(0, fix.message)
    notes = list(shot.messages) if shot else []
    if shot is not None and shot.profile is not None:
        problems += [m for m in notes if "look alike" in m]
        notes = [m for m in notes if "look alike" not in m]
    final = Calibration(geometry, (width, height), fix.homography, dict(fix.corners),
                        shot.profile if shot else None, calibration.created, tuple(c.to_dict() for c in checks))
    return CalibrationResult(final, checks, shot, tuple(problems), tuple(notes))


@dataclass(frozen=True)
class CameraCheck:
    """Whether the camera still sees the mat where calibration saw it."""

    moved: bool
    shift_px: float | None  # largest corner shift of the markers still seen; None when none are seen
    missing: tuple[int, ...] = field(default_factory=tuple)
    message: str | None = None


def check_camera_moved(calibration: Calibration, frame: np.ndarray, tolerance_px: float = MOVED_PX) -> CameraCheck:
    """Find the markers again and report when they moved more than `tolerance_px` or are gone."""
    if frame.shape[1::-1] != calibration.image_size:
        return CameraCheck(True, None, (), (
            f"the camera now gives {frame.shape[1]}x{frame.shape[0]} pictures, calibration was made at "
            f"{calibration.image_size[0]}x{calibration.image_size[1]}: run `companion calibrate` again."))
    found = find_markers(frame, calibration.mat)
    expected = calibration.markers
    seen = [i for i in expected if i in found]
    missing = tuple(i for i in expected if i not in found)
    if not seen:
        return CameraCheck(True, None, missing, (
            "none of the mat's markers are in view: the camera moved or something covers the mat's corners; "
            "uncover them, or run `companion calibrate` again."))
    shift = max(float(np.max(np.linalg.norm(found[i] - expected[i], axis=1))) for i in seen)
    if shift > tolerance_px:
        return CameraCheck(True, shift, missing, (
            f"the camera or the mat moved (markers shifted {shift:.0f} px since calibration): put them back "
            "or run `companion calibrate` again."))
    if missing:
        names = ", ".join(str(i) for i in missing)
        return CameraCheck(False, shift, missing, f"marker(s) {names} are covered; the others have not moved.")
    return CameraCheck(False, shift, (), None)

"""The calibration file: one versioned JSON file, written whole and validated field by field when loaded."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from calibration.mat import MatGeometry
from calibration.markers import is_usable_homography
from calibration.table import Calibration
from companion.errors import CalibrationError

CALIBRATION_FILE = "calibration.json"  # its name in the data folder
KIND = "rescue-companion calibration"
VERSION = 1
RECALIBRATE = "run `companion calibrate` (or the calibration page on the phone) to make a new one"
_REQUIRED = ("kind", "version", "image_size", "mat", "homography", "markers")


def calibration_to_dict(calibration: Calibration) -> dict[str, Any]:
    """The calibration as plain JSON-able values."""
    return {
        "kind": KIND,
        "version": VERSION,
        "created": calibration.created,
        "image_size": list(calibration.image_size),
        "mat": calibration.mat.to_dict(),
        "homography": np.asarray(calibration.homography, dtype=float).tolist(),
        "markers": {str(i): np.asarray(q, dtype=float).tolist() for i, q in sorted(calibration.markers.items())},
        "colour_profile": calibration.colour_profile,
        "checks": list(calibration.checks),
    }


def save_calibration(calibration: Calibration, path: str | os.PathLike[str]) -> Path:
    """Write the calibration file atomically (a crash never leaves half a file); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(calibration_to_dict(calibration), indent=1)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as handle:
        handle.write(text)
        temporary = Path(handle.name)
    os.replace(temporary, path)
    return path


def load_calibration(path: str | os.PathLike[str], image_size: tuple[int, int] | None = None) -> Calibration:
    """Read and validate a calibration file; `image_size` (width, height) is the current camera's, when known."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(f"{path}: there is no calibration file yet; {RECALIBRATE}.") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CalibrationError(f"{path} cannot be read ({error}); {RECALIBRATE}.") from None
    except json.JSONDecodeError as error:
        raise CalibrationError(f"{path} is not valid JSON (line {error.lineno}): it is damaged; {RECALIBRATE}.") from None
    return calibration_from_dict(data, str(path), image_size)


def calibration_from_dict(data: Any, where: str = "the calibration",
                          image_size: tuple[int, int] | None = None) -> Calibration:
    """Validate plain values from a calibration file and build the Calibration; every fault names itself."""
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise CalibrationError(f"{where} is not a companion calibration file; {RECALIBRATE}.")
    missing = [name for name in _REQUIRED if name not in data]
    if missing:
        raise CalibrationError(f"{where} lacks {', '.join(missing)}: it is incomplete; {RECALIBRATE}.")
    if data["version"] != VERSION:
        raise CalibrationError(
            f"{where} is calibration format version {data['version']!r}, this companion reads version {VERSION}; "
            f"{RECALIBRATE}.")
    size = _image_size(data["image_size"], where)
    if image_size is not None and tuple(image_size) != size:
        raise CalibrationError(
            f"{where} was made for {size[0]}x{size[1]} pictures but the camera now gives "
            f"{image_size[0]}x{image_size[1]}: the camera or its resolution changed; {RECALIBRATE}.")
    mat = _mat(data["mat"], where)
    homography = _homography(data["homography"], where)
    markers = _markers(data["markers"], where)
    profile = _profile(data.get("colour_profile"), where)
    checks = data.get("checks") or []
    return Calibration(mat, size, homography, markers, profile, str(data.get("created", "")),
                       tuple(c for c in checks if isinstance(c, dict)))


def _image_size(value: Any, where: str) -> tuple[int, int]:
    """The (width, height) field, two positive whole numbers."""
    if (not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                                   and v > 0 for v in value)):
        raise CalibrationError(f"{where}: image_size should be [width, height] in pixels, not {value!r}; {RECALIBRATE}.")
    return (value[0], value[1])


def _mat(value: Any, where: str) -> MatGeometry:
    """The mat geometry, rebuilt and checked."""
    try:
        mat = MatGeometry.from_dict(value)
    except (KeyError, TypeError, ValueError) as error:
        raise CalibrationError(f"{where}: the mat description is damaged ({error!s}); {RECALIBRATE}.") from None
    if not mat.seats or len(mat.markers) < 4:
        raise CalibrationError(f"{where}: the mat description has no seats or too few markers; {RECALIBRATE}.")
    return mat


def _homography(value: Any, where: str) -> np.ndarray:
    """The 3x3 homography, finite and invertible."""
    try:
        matrix = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        matrix = np.zeros(0)
    if matrix.shape != (3, 3):
        raise CalibrationError(f"{where}: the homography should be 3x3 numbers; {RECALIBRATE}.")
    if not is_usable_homography(matrix):
        raise CalibrationError(
            f"{where}: the homography is singular (it maps the table onto a line or a point), so the file is "
            f"wrong; {RECALIBRATE}.")
    return matrix


def _markers(value: Any, where: str) -> dict[int, np.ndarray]:
    """Marker id -> its four corners in the picture."""
    if not isinstance(value, dict):
        raise CalibrationError(f"{where}: markers should map marker ids to corners; {RECALIBRATE}.")
    markers: dict[int, np.ndarray] = {}
    for key, corners in value.items():
        try:
            quad = np.array(corners, dtype=np.float64)
            marker_id = int(key)
        except (TypeError, ValueError):
            quad, marker_id = np.zeros(0), -1
        if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
            raise CalibrationError(f"{where}: marker {key!r} should have four [x, y] corners; {RECALIBRATE}.")
        markers[marker_id] = quad
    return markers


def _profile(value: Any, where: str) -> dict[str, Any] | None:
    """The colour profile as stored; checked with vision.colour when the reader is installed."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CalibrationError(f"{where}: colour_profile should be a table of colours; {RECALIBRATE}.")
    try:
        from vision.colour import ColourProfile
    except ImportError:
        return value
    try:
        ColourProfile.from_dict(value)
    except Exception as error:  # noqa: BLE001 - whatever the reader rejects, the user gets one sentence
        raise CalibrationError(f"{where}: the colour profile is damaged ({error}); {RECALIBRATE}.") from None
    return value

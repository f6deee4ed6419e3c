"""Picture checks at calibration: resolution, focus, exposure, glare, grain and haze, each with a
sentence that says what to fix."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import cv2
import numpy as np

from calibration.mat import Rect
from calibration.table import Calibration
from vision.dice import GRAIN_ROWS, GRAINY, pixel_noise

# Focus: a printed marker edge blurred wider than this, both in pixels and in mm of mat, means a blurred picture.
MAX_EDGE_WIDTH_PX = 4.0
MAX_EDGE_WIDTH_MM = 1.8  # a blur sigma of about 0.7 mm: pips (3 mm) start to smear into their face
# Resolution: below this the pips of a 16 mm die are only a few pixels across.
MIN_PX_PER_MM = 1.5
# Exposure: the paper's median brightness must reach this, and at most this share of the mat may be clipped
# (a little clipped paper costs nothing; a fifth of the mat clipped means white dice lose their shading too).
MIN_PAPER_LEVEL, MAX_CLIPPED_FRACTION = 70, 0.2
# Glare: a spot this much brighter than the paper around it, near white, and at least this big.
GLARE_STEP, GLARE_LEVEL, GLARE_MIN_MM2 = 25, 245, 25.0
# Haze: the markers' printed black may read at most this (grey level). Ink on paper reads 0-45 through
# a clean camera; a veil of light over the lens (a dirty lens or cover, a lamp shining into it, a
# cheap lens's flare) lifts it, and with it every pip's dark, halving their contrast (the dice
# benchmark's flat look lifts black to 64). The reader takes a veil off, but what it halved stays lost.
HAZY_BLACK = 56


@dataclass(frozen=True)
class Check:
    """One check of the picture: its name, whether it passed, the value measured, and what to do."""

    name: str
    ok: bool
    value: float
    message: str

    def to_dict(self) -> dict[str, Any]:
        """The check as plain values."""
        return asdict(self)


def check_picture(image: np.ndarray, calibration: Calibration) -> list[Check]:
    """Run every picture check on a calibration frame."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return [check_resolution(calibration), check_focus(grey, calibration), check_exposure(grey, calibration),
            check_glare(image, calibration), check_grain(image), check_haze(grey, calibration)]


def check_resolution(calibration: Calibration) -> Check:
    """Is the mat big enough in the picture for pips to be seen?"""
    scale = calibration.px_per_mm()
    if scale < MIN_PX_PER_MM:
        return Check("resolution", False, scale,
                     f"the mat is small in the picture ({scale:.1f} px per mm): move the camera closer "
                     "or raise the camera's resolution.")
    return Check("resolution", True, scale, f"{scale:.1f} px per mm of mat: enough detail.")


def edge_width_px(grey: np.ndarray, quad: np.ndarray) -> float:
    """How many pixels a black-to-white marker edge takes: about 2 when sharp, 2.5 x the blur's sigma when not."""
    x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
    pad = max(2, w // 10)
    crop = grey[max(0, y - pad):y + h + pad, max(0, x - pad):x + w + pad].astype(np.float32)
    if crop.size < 16:
        return float("inf")
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3) / 8
    steepest = float(np.percentile(np.hypot(gx, gy), 99.5))
    contrast = float(np.percentile(crop, 95) - np.percentile(crop, 5))
    return contrast / steepest if steepest > 0 else float("inf")


def laplacian_variance(grey: np.ndarray, quad: np.ndarray) -> float:
    """The variance of the Laplacian over a marker (the usual focus number; higher is sharper)."""
    x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
    crop = grey[max(0, y):y + h, max(0, x):x + w]
    return float(cv2.Laplacian(crop, cv2.CV_64F).var()) if crop.size else 0.0


def check_focus(grey: np.ndarray, calibration: Calibration) -> Check:
    """Are the printed marker edges crisp?"""
    quads = [calibration.rect_in_image(m.rect) for m in calibration.mat.markers]
    width = float(np.median([edge_width_px(grey, q) for q in quads]))
    width_mm = width / calibration.px_per_mm()
    sharpness = float(np.median([laplacian_variance(grey, q) for q in quads]))
    if width > MAX_EDGE_WIDTH_PX and width_mm > MAX_EDGE_WIDTH_MM:
        return Check("focus", False, width,
                     f"the picture is blurred (marker edges {width:.1f} px wide, Laplacian variance {sharpness:.0f}): "
                     "turn the lens's focus ring until the markers' edges are crisp, clean the lens, "
                     "and keep the camera still.")
    return Check("focus", True, width, f"in focus (marker edges {width:.1f} px wide, Laplacian variance {sharpness:.0f}).")


def _mat_mask(shape: tuple[int, ...], calibration: Calibration) -> np.ndarray:
    """A mask of the mat's paper in the picture, without the black markers."""
    mask = np.zeros(shape[:2], np.uint8)
    whole = Rect(0, 0, calibration.mat.width_mm, calibration.mat.height_mm)
    cv2.fillConvexPoly(mask, np.round(calibration.rect_in_image(whole)).astype(np.int32), 255)
    for marker in calibration.mat.markers:
        cv2.fillConvexPoly(mask, np.round(calibration.rect_in_image(marker.rect)).astype(np.int32), 0)
    return mask > 0


def check_exposure(grey: np.ndarray, calibration: Calibration) -> Check:
    """Is the mat lit well: not too dark, and little of it clipped to pure white or pure black?"""
    values = grey[_mat_mask(grey.shape, calibration)]
    if values.size == 0:
        return Check("exposure", False, 0.0, "the mat is not in the picture: point the camera at the mat.")
    level = float(np.percentile(values, 90))  # the white paper, whatever share the printed zones take
    bright = float(np.mean(values >= 250))
    dark = float(np.mean(values <= 5))
    if bright > MAX_CLIPPED_FRACTION:
        return Check("exposure", False, level,
                     f"overexposed: {bright:.0%} of the mat is pure white; lower the camera's exposure or dim the light.")
    if level < MIN_PAPER_LEVEL or dark > MAX_CLIPPED_FRACTION:
        return Check("exposure", False, level,
                     f"too dark: the mat's white reads {level:.0f} of 255; add light over the table or raise the "
                     "camera's exposure.")
    return Check("exposure", True, level, f"well exposed (the mat's white reads {level:.0f} of 255).")


def glare_spots(image: np.ndarray, calibration: Calibration) -> list[tuple[float, float, float]]:
    """Bright reflections on the mat: (x mm, y mm, area mm2) of each, largest first.

    A reflection is near white and clearly brighter than the mat's usual level; when the whole mat is
    that bright the exposure check speaks instead.
    """
    top = calibration.rectify(image, px_per_mm=1.0)  # one pixel per mm, so areas are in mm2
    value = top if top.ndim == 2 else top.max(axis=2)
    paper = calibration.rectify(_mat_mask(image.shape, calibration).astype(np.uint8) * 255, px_per_mm=1.0) > 127
    if not paper.any():
        return []
    level = float(np.median(value[paper]))
    spots = ((value >= max(GLARE_LEVEL, level + GLARE_STEP)) & paper).astype(np.uint8)
    spots = cv2.morphologyEx(spots, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, _labels, stats, centres = cv2.connectedComponentsWithStats(spots)
    found = [(float(centres[i][0]), float(centres[i][1]), float(stats[i][cv2.CC_STAT_AREA])) for i in range(1, count)
             if stats[i][cv2.CC_STAT_AREA] >= GLARE_MIN_MM2]
    return sorted(found, key=lambda spot: -spot[2])


def check_glare(image: np.ndarray, calibration: Calibration) -> Check:
    """Are there bright reflections of a lamp on the mat?"""
    spots = glare_spots(image, calibration)
    if not spots:
        return Check("glare", True, 0.0, "no glare on the mat.")
    x, y, area = spots[0]
    return Check("glare", False, sum(s[2] for s in spots),
                 f"glare (a lamp's reflection, {area:.0f} mm2) on {where_on_mat(calibration, x, y)}: move or tilt the "
                 "lamp, or use diffuse light, until no bright spot shows on the mat.")


def check_grain(image: np.ndarray) -> Check:
    """Is the picture clean of the sensor's grain, as the dice reader measures it?"""
    bgr = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    noise = pixel_noise(bgr, every=GRAIN_ROWS)  # as the reader measures the grain it smooths
    if noise > GRAINY:
        # The reader smooths such frames, but the smoothing also softens the faint edge of a white
        # die on a pale table, which its ones are told by.
        return Check("grain", False, noise,
                     f"the picture is grainy (noise {noise:.1f}, {GRAINY:g} at most): add light over the table, "
                     "or lower the camera's gain (ISO) and let it expose longer.")
    return Check("grain", True, noise, f"clean picture (noise {noise:.1f}).")


def markers_black(grey: np.ndarray, calibration: Calibration) -> float:
    """The grey level the mat's printed black reads: over each marker, its darkest tenth, the median of them."""
    levels = []
    for marker in calibration.mat.markers:
        mask = np.zeros(grey.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(calibration.rect_in_image(marker.rect)).astype(np.int32), 255)
        inside = grey[mask > 0]
        if inside.size:
            levels.append(float(np.percentile(inside, 10)))
    return float(np.median(levels)) if levels else 0.0


def check_haze(grey: np.ndarray, calibration: Calibration) -> Check:
    """Is the picture clear of a veil of light: does the markers' black read black?"""
    black = markers_black(grey, calibration)
    if black > HAZY_BLACK:
        return Check("haze", False, black,
                     f"the picture is hazy (the markers' black reads {black:.0f} of 255, {HAZY_BLACK} at most): clean "
                     "the camera's lens and any cover over it, and keep lamps from shining into the lens.")
    return Check("haze", True, black, f"clear picture (the markers' black reads {black:.0f} of 255).")


def where_on_mat(calibration: Calibration, x: float, y: float) -> str:
    """Name the part of the mat at (x, y) mm, for messages."""
    seat = calibration.mat.seat_at(x, y)
    if seat is not None:
        return f"seat {seat}'s zone"
    if calibration.mat.display.contains(x, y):
        return "the display area"
    return f"the mat at {x:.0f} mm from the left, {y:.0f} mm from the top"

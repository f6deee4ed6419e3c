"""The colour shot: one die of each colour on its marked square, read and turned into the table's colour profile."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.mat import ColourSquare, Rect
from calibration.table import Calibration

# A die counts as "on" a square when its centre is within this many mm of the square (dice are placed by hand).
SQUARE_SLACK_MM = 2.0
DIE_MM = (9.0, 26.0)  # a reading is taken for a die on a square only when about die-sized
# Two learned colours closer than this in CIE Lab are easily confused at the table (gray vs white in dim light).
MIN_LAB_DISTANCE = 15.0
# A square's middle counts as "a die is there" when this share of it has edges steeper than this (grey levels/px).
BUSY_GRADIENT, BUSY_SHARE = 4.0, 0.01


@dataclass(frozen=True)
class ColourShot:
    """What the colour shot learned: the profile (as plain values), each colour's sample, and what to do."""

    profile: dict[str, Any] | None
    samples: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()


def body_colour(image: np.ndarray, x: float, y: float, size: float, angle: float) -> np.ndarray:
    """The BGR body colour of the die centred at (x, y): the median of its face, pips left out."""
    half = max(2.0, 0.35 * size)
    box = cv2.boxPoints(((x, y), (2 * half, 2 * half), angle))
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 255)
    pixels = image[mask > 0].reshape(-1, 3).astype(np.float32)
    if len(pixels) == 0:
        return np.zeros(3, np.float32)
    # Pips are the minority of a face and far from its colour: keep the pixels nearest the face's median.
    distance = np.linalg.norm(pixels - np.median(pixels, axis=0), axis=1)
    return np.median(pixels[distance <= np.percentile(distance, 60)], axis=0)


def square_body_colour(image: np.ndarray, calibration: Calibration, square: ColourSquare) -> np.ndarray | None:
    """The body colour of a die lying on the square, seen top-down; None when the square is bare paper.

    The reader may miss a die it is unsure of; a die on a known square is still plain to see: its pips
    and edges make the square's middle busy where bare paper is flat.
    """
    scale = 8.0  # px per mm: a 16 mm die becomes 128 px, pips ~25 px
    inner = Rect(square.rect.x + 0.15 * square.rect.w, square.rect.y + 0.15 * square.rect.h,
                 0.7 * square.rect.w, 0.7 * square.rect.h)
    patch = calibration.rectify(image, rect=inner, px_per_mm=scale)
    grey = cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), (5, 5), 0).astype(np.float32)
    gradient = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)) / 8
    if float(np.mean(gradient > BUSY_GRADIENT)) < BUSY_SHARE:
        return None
    pixels = patch.reshape(-1, 3).astype(np.float32)
    distance = np.linalg.norm(pixels - np.median(pixels, axis=0), axis=1)
    return np.median(pixels[distance <= np.percentile(distance, 60)], axis=0)


def die_on_square(readings: list[Any], calibration: Calibration, square: ColourSquare) -> Any | None:
    """The reading whose centre lies on (or just beside) the square, nearest its middle; None if none."""
    best, best_distance = None, float("inf")
    r = square.rect
    scale = calibration.px_per_mm()
    for reading in readings:
        if not DIE_MM[0] <= reading.size / scale <= DIE_MM[1]:
            continue  # not die-sized: a letter of a label, a speck
        mx, my = calibration.to_mat(np.array([[reading.x, reading.y]]))[0]
        inside = (r.x - SQUARE_SLACK_MM <= mx <= r.x + r.w + SQUARE_SLACK_MM
                  and r.y - SQUARE_SLACK_MM <= my <= r.y + r.h + SQUARE_SLACK_MM)
        distance = float(np.hypot(mx - r.centre[0], my - r.centre[1]))
        if inside and distance < best_distance:
            best, best_distance = reading, distance
    return best


def learn_colours(image: np.ndarray, calibration: Calibration) -> ColourShot:
    """Read the dice on the colour squares and learn a colour profile from them."""
    try:
        from vision.colour import learn
        from vision.dice import die_colours, read_dice
    except ImportError:
        return ColourShot(None, messages=("the dice reader is not installed, so the colour profile was not learned.",))
    readings = read_dice(image)
    samples: dict[str, tuple[float, float, float]] = {}
    tables: list[np.ndarray] = []
    for square in calibration.mat.squares:
        die = die_on_square(readings, calibration, square)
        if die is not None:
            colour = body_colour(image, die.x, die.y, die.size, die.angle)
            # The mat beside each die: the profile then follows later changes of light (vision/colour.py).
            tables.append(die_colours(image, die, readings)[1])
        else:
            colour = square_body_colour(image, calibration, square)
        if colour is not None:
            samples[square.colour] = (float(colour[0]), float(colour[1]), float(colour[2]))
    missing = tuple(s.colour for s in calibration.mat.squares if s.colour not in samples)
    if not samples:
        return ColourShot(None, {}, missing, (
            "no dice found on the colour squares: put one die of each colour your game uses on its square "
            "(pips up) and calibrate again; until then the built-in colours are used.",))
    profile = learn(samples, table=np.array(tables) if tables else None)
    return ColourShot(profile.to_dict(), samples, missing, tuple(_shot_messages(samples, missing)))


def _lab(bgr: tuple[float, float, float]) -> np.ndarray:
    """CIE Lab of one BGR colour (L 0-100)."""
    pixel = (np.asarray(bgr, np.float32) / 255.0).reshape(1, 1, 3)
    return cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab).reshape(3)


def alike_pairs(samples: dict[str, tuple[float, float, float]]) -> list[tuple[str, str, float]]:
    """Pairs of learned colours closer than MIN_LAB_DISTANCE in Lab: (name, name, distance)."""
    names = list(samples)
    pairs = []
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            distance = float(np.linalg.norm(_lab(samples[first]) - _lab(samples[second])))
            if distance < MIN_LAB_DISTANCE:
                pairs.append((first, second, distance))
    return pairs


def _shot_messages(samples: dict[str, tuple[float, float, float]], missing: tuple[str, ...]) -> list[str]:
    """Sentences about the colour shot: what was learned, what is missing, which colours look alike."""
    messages = [f"learned the colours {', '.join(samples)} from the dice on their squares."]
    if missing:
        messages.append(f"no die on the {', '.join(missing)} square(s): the reader will not name those colours; "
                        "if your game uses them, put one die of each there and calibrate again.")
    for first, second, distance in alike_pairs(samples):
        messages.append(f"the {first} and {second} dice look alike under this light (Lab distance {distance:.0f}): "
                        "add brighter, whiter light and calibrate again.")
    return messages

"""Telling a die from the printing under it: the frame around a reading against the empty mat's picture.

The printed mat's labels, lines and colour squares hold letters with holes and round bowls that the
dice reader can take for pips ("SEAT 3" read as a two, in the seat's own zone). Where the camera sees
just what the empty mat shows there, nothing lies on it: a die would hide the print.
"""

from __future__ import annotations

import cv2
import numpy as np


def just_print(frame: np.ndarray, printed_grey: np.ndarray, dice: list[tuple[float, float, float]]) -> list[bool]:
    """For each reading (x, y and its size, the top face's side, in the frame's pixels): True when
    the frame shows just the empty mat's printing there (likeness at least PRINT_LIKE), so nothing
    lies on it."""
    if not dice or frame.shape[:2] != printed_grey.shape[:2]:
        return [False] * len(dice)
    likeness = [print_likeness(frame, printed_grey, (x, y), side) for x, y, side in dice]
    return [value is not None and value >= PRINT_LIKE for value in likeness]


def print_likeness(frame: np.ndarray, printed_grey: np.ndarray, centre: tuple[float, float],
                   side: float) -> float | None:
    """How closely the frame (BGR or grey) around `centre` (a square `side` * PRINT_REACH wide, for
    a reading whose top face is `side` wide) looks like the empty printed mat there: the best
    normalised correlation over shifts of up to PRINT_SHIFT pixels (a calibration a pixel or two
    off, a camera's blur); None where the print is plain there (nothing to compare) or the square
    leaves the frame."""
    half = int(round(PRINT_REACH * side / 2.0))
    x, y = int(round(centre[0])), int(round(centre[1]))
    h, w = printed_grey.shape[:2]
    m = PRINT_SHIFT
    if half < 2 or x - half - m < 0 or y - half - m < 0 or x + half + m >= w or y + half + m >= h:
        return None
    printed = printed_grey[y - half:y + half + 1, x - half:x + half + 1]
    if float(printed.std()) < INK_SPREAD:
        return None
    seen = frame[y - half - m:y + half + m + 1, x - half - m:x + half + m + 1]
    if seen.ndim == 3:
        seen = cv2.cvtColor(seen, cv2.COLOR_BGR2GRAY)  # only the square: the whole frame costs ~0.5 ms
    # Both blurred alike: the camera's picture is softer than the drawn print.
    soft = (cv2.GaussianBlur(seen, (0, 0), PRINT_BLUR), cv2.GaussianBlur(printed, (0, 0), PRINT_BLUR))
    return float(cv2.matchTemplate(soft[0], soft[1], cv2.TM_CCOEFF_NORMED).max())


# A reading at least this like the empty print is the print. On simulated printed mats (10 frames:
# 2 sizes, 4 lights), letters and lines read as dice came to 0.84-0.99 (38 readings), dice laid on
# the seats' labels and edges to -0.15-0.38 (55).
PRINT_LIKE = 0.6
# The square compared is this many times a reading's size (its top face's side, about 0.7 of the
# die's): the die's middle, which a die hides (wider, a die lying across a seat's edge leaves the
# edge in view around it: 0.6 alike at 1.2).
PRINT_REACH = 0.6
# The frame and the print may be this many pixels out of line.
PRINT_SHIFT = 3
# Grey-level spread under which the empty mat is plain at a place (the seat zones' fill, the paper).
INK_SPREAD = 12.0
# Gaussian blur (pixels) of both pictures before they are compared (more blurs letters into blots:
# at 1.5, some letters read as dice fell to 0.4, as alike as real dice on the print).
PRINT_BLUR = 0.7

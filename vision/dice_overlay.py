"""Drawing dice readings onto an image (for `companion read --annotate` and the live camera view)."""

from __future__ import annotations

from typing import Iterable

import cv2
import numpy as np

from vision.dice import DieReading

# Outline colour (BGR) by confidence: sure readings green, doubtful ones orange, poor ones red.
_SURE, _DOUBT, _POOR = (60, 200, 60), (0, 160, 255), (40, 40, 230)


def draw_readings(image: np.ndarray, readings: Iterable[DieReading]) -> np.ndarray:
    """A copy of a BGR image with each die's square, value, colour and confidence drawn on it."""
    canvas = image.copy()
    scale = max(0.4, min(canvas.shape[:2]) / 900.0)
    for die in readings:
        colour = _SURE if die.confidence >= 0.8 else _DOUBT if die.confidence >= 0.5 else _POOR
        box = cv2.boxPoints(((die.x, die.y), (die.size, die.size), die.angle))
        cv2.polylines(canvas, [np.round(box).astype(np.int32)], True, colour, max(1, int(2 * scale)), cv2.LINE_AA)
        label = f"{die.value} {die.colour} {die.confidence:.2f}"
        origin = (int(die.x - die.size / 2), int(die.y - die.size / 2 - 4 * scale))
        cv2.putText(canvas, label, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale, (0, 0, 0), max(2, int(3 * scale)), cv2.LINE_AA)
        cv2.putText(canvas, label, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale, colour, max(1, int(scale)), cv2.LINE_AA)
    return canvas

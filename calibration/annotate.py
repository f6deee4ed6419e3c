"""Pictures of what calibration and the live loop see: markers, seat zones, display area, dice, cards, problems."""

from __future__ import annotations

from typing import Any, Iterable

import cv2
import numpy as np

from calibration.table import Calibration

SEAT_COLOURS = ((60, 180, 255), (255, 160, 60), (90, 220, 90), (220, 90, 220), (80, 80, 240), (240, 220, 80))
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def _poly(image: np.ndarray, quad: np.ndarray, colour: tuple[int, int, int], thickness: int) -> None:
    """Draw a closed polygon given as float points."""
    cv2.polylines(image, [np.round(quad).astype(np.int32)], True, colour, thickness, cv2.LINE_AA)


def _text(image: np.ndarray, text: str, at: tuple[float, float], colour: tuple[int, int, int], scale: float) -> None:
    """Write text with a dark outline so it reads on any background."""
    origin = (int(at[0]), int(at[1]))
    thickness = max(1, round(scale * 2))
    cv2.putText(image, text, origin, _FONT, scale, (0, 0, 0), thickness + 3, cv2.LINE_AA)
    cv2.putText(image, text, origin, _FONT, scale, colour, thickness, cv2.LINE_AA)


def draw_calibration(image: np.ndarray, calibration: Calibration | None, problems: Iterable[str] = (),
                     learned: dict[str, Any] | None = None) -> np.ndarray:
    """A copy of `image` with the markers, seat zones, display area and colour squares drawn, and the problems."""
    out = image.copy()
    scale = max(0.5, out.shape[1] / 1600)
    if calibration is not None:
        thickness = max(2, round(scale * 2))
        for marker_id, quad in calibration.markers.items():
            _poly(out, quad, (0, 255, 0), thickness)
            _text(out, f"marker {marker_id}", tuple(quad[0] + [0, -8]), (0, 255, 0), 0.6 * scale)
        for seat, quad in calibration.seat_polygons().items():
            colour = SEAT_COLOURS[(seat - 1) % len(SEAT_COLOURS)]
            _poly(out, quad, colour, thickness)
            _text(out, f"seat {seat}", tuple(quad.mean(axis=0) - [30 * scale, 0]), colour, 0.9 * scale)
        _poly(out, calibration.display_polygon(), (255, 255, 255), thickness)
        for square in calibration.mat.squares:
            quad = calibration.rect_in_image(square.rect)
            ticked = learned is not None and square.colour in learned
            _poly(out, quad, (0, 255, 0) if ticked else (0, 0, 255), max(1, thickness - 1))
    for row, problem in enumerate(problems):
        _text(out, problem[:110], (10, 30 * scale * (row + 1)), (80, 80, 255), 0.6 * scale)
    return out


def draw_readings(image: np.ndarray, calibration: Calibration | None, dice: Iterable[Any] = (),
                  cards: Iterable[Any] = ()) -> np.ndarray:
    """A copy of `image` with seat zones, each die (value, colour; unsure ones in red) and each card drawn."""
    out = draw_calibration(image, calibration) if calibration is not None else image.copy()
    scale = max(0.5, out.shape[1] / 1600)
    for die in dice:
        sure = getattr(die, "confidence", 1.0) >= 0.5
        colour = (0, 220, 0) if sure else (0, 0, 255)
        box = cv2.boxPoints(((die.x, die.y), (die.size, die.size), die.angle))
        _poly(out, box, colour, 2)
        label = f"{die.value}{die.colour[:1].upper()}" + ("" if sure else "?")
        _text(out, label, (die.x - die.size / 2, die.y - die.size / 2 - 4), colour, 0.6 * scale)
    for card in cards:
        quad = np.asarray(card.corners, dtype=np.float64)
        known = card.card_id is not None
        _poly(out, quad, (255, 255, 0) if known else (0, 0, 255), 3)
        _text(out, card.card_id or "unknown card: teach it", tuple(quad.mean(axis=0)), (255, 255, 0), 0.7 * scale)
    return out

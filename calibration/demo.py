"""The simulated table on the printed mat: the simulator's dice rolled in the mat's seat zones, seen by a camera.

Used by the demo table, the live loop's tests and the live benchmark. Everything it draws is read back
through the real calibration (markers) and the real dice reader; nothing is short-cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from calibration.mat import MatGeometry, mat_geometry, render_mat

# Rescue Animals: each seat rolls four white dice and one black die.
RESCUE_DICE = ("white", "white", "white", "white", "black")
SIM_SEATS = 5  # the simulated table's mat has a zone for every seat the game can have
DIE_MM = 16.0


@dataclass(frozen=True, eq=False)
class MatView:
    """Where the mat lies in the simulated frame: frame size, mm -> frame homography, scale."""

    geometry: MatGeometry
    size: tuple[int, int]
    mm_to_frame: np.ndarray
    px_per_mm: float

    def seat_rects(self, inset_mm: float = 0.0) -> list[tuple[float, float, float, float]]:
        """Each seat's zone as a frame rectangle (x1, y1, x2, y2), seat 1 first, shrunk by `inset_mm`."""
        rects = []
        for zone in self.geometry.seats:
            r = zone.rect
            x1, y1 = self._frame(r.x + inset_mm, r.y + inset_mm)
            x2, y2 = self._frame(r.x + r.w - inset_mm, r.y + r.h - inset_mm)
            rects.append((x1, y1, x2, y2))
        return rects

    def _frame(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """A mat point in frame pixels (the view is straight, so a scale and a shift)."""
        point = self.mm_to_frame @ np.array([x_mm, y_mm, 1.0])
        return float(point[0] / point[2]), float(point[1] / point[2])


def straight_view(geometry: MatGeometry, size: tuple[int, int] = (1920, 1080), fill: float = 0.96) -> MatView:
    """The mat seen straight from above, centred, filling `fill` of the frame's height or width."""
    width, height = size
    scale = fill * min(width / geometry.width_mm, height / geometry.height_mm)
    dx = (width - geometry.width_mm * scale) / 2
    dy = (height - geometry.height_mm * scale) / 2
    return MatView(geometry, size, np.array([[scale, 0, dx], [0, scale, dy], [0, 0, 1.0]]), scale)


CARD_MM = (63.0, 88.0)  # a standard playing card


def lay_cards(picture: np.ndarray, cards: Sequence[tuple[np.ndarray, float, float, float]],
              px_per_mm: float) -> np.ndarray:
    """The mat picture (drawn at px_per_mm) with card pictures laid on it: (picture, x mm, y mm, angle)."""
    import cv2

    out = picture.astype(np.float32)
    h, w = out.shape[:2]
    for card, x, y, angle in cards:
        scale = CARD_MM[0] * px_per_mm / card.shape[1]
        matrix = cv2.getRotationMatrix2D((card.shape[1] / 2, card.shape[0] / 2), angle, scale)
        matrix[:, 2] += (x * px_per_mm - card.shape[1] / 2, y * px_per_mm - card.shape[0] / 2)
        warped = cv2.warpAffine(card, matrix, (w, h), flags=cv2.INTER_AREA).astype(np.float32)
        mask = cv2.warpAffine(np.full(card.shape[:2], 255, np.uint8), matrix, (w, h))[..., None] / 255.0
        out = out * (1 - mask) + warped * mask
    return out.astype(np.uint8)


def mat_table(seats: int = 3, paper: str = "A3", size: tuple[int, int] = (1920, 1080), seed: int = 0,
              colours: Sequence[str] = RESCUE_DICE, roll_every: float = 0.0, fps: float = 15.0,
              lighting: str = "neutral", picture_px_per_mm: float = 4.0,
              cards: Sequence[tuple[np.ndarray, float, float, float]] = ()):
    """A SimTable of the printed mat with each seat's dice (default: four white, one black) in its zone.

    SimTable deals die n to seat n % seats in colour colours[(n // seats) % len(colours)], so every
    seat gets one die of each colour listed. `cards` (picture, x mm, y mm, angle) lie in the display.
    """
    from vision.simulator import SimTable

    geometry = mat_geometry(seats, paper)
    view = straight_view(geometry, size)
    picture = render_mat(geometry, picture_px_per_mm)
    if cards:
        picture = lay_cards(picture, cards, picture_px_per_mm)
    # The simulator warps the mat picture (its pixels) into the frame.
    picture_to_frame = view.mm_to_frame @ np.diag([1 / picture_px_per_mm, 1 / picture_px_per_mm, 1.0])
    table = SimTable(seed=seed, dice=len(colours) * seats, size=size, colours=tuple(colours),
                     lighting=lighting, background=picture, homography=picture_to_frame, roll_every=roll_every,
                     die_size=DIE_MM * view.px_per_mm, fps=fps, zones=view.seat_rects(inset_mm=4.0))
    return table, view


class GrayDieFollower:
    """Keeps the simulated table's one gray die with whoever holds it in the game (for the demo table).

    Rescue Animals hands the gray die to the seat left without a rescue; that seat then rolls it with
    its own dice. Subscribed to the session, this lays the gray die in the holder's zone whenever it
    changes hands, and takes it off the table when nobody holds it (a new game).
    """

    def __init__(self, table: object) -> None:
        """Follow the gray die of `table` (a SimTable); nobody holds it yet."""
        self.table = table
        self.holder: int | None = None

    def __call__(self, snapshot: dict) -> None:
        """Session subscriber: move the gray die when the snapshot names another holder (0-based seat or None)."""
        holder = snapshot.get("gray_holder")
        if holder == self.holder:
            return
        self.holder = holder
        self.table.place_lone_die("gray", holder)

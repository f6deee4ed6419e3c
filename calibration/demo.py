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


def mat_table(seats: int = 3, paper: str = "A3", size: tuple[int, int] = (1920, 1080), seed: int = 0,
              colours: Sequence[str] = RESCUE_DICE, roll_every: float = 0.0, fps: float = 15.0,
              lighting: str = "neutral", picture_px_per_mm: float = 4.0):
    """A SimTable of the printed mat with each seat's dice (default: four white, one black) in its zone.

    SimTable deals die n to seat n % seats in colour colours[(n // seats) % len(colours)], so every
    seat gets one die of each colour listed.
    """
    from vision.simulator import SimTable

    geometry = mat_geometry(seats, paper)
    view = straight_view(geometry, size)
    picture = render_mat(geometry, picture_px_per_mm)
    # The simulator warps the mat picture (its pixels) into the frame.
    picture_to_frame = view.mm_to_frame @ np.diag([1 / picture_px_per_mm, 1 / picture_px_per_mm, 1.0])
    table = SimTable(seed=seed, dice=len(colours) * seats, size=size, colours=tuple(colours),
                     lighting=lighting, background=picture, homography=picture_to_frame, roll_every=roll_every,
                     die_size=DIE_MM * view.px_per_mm, fps=fps, zones=view.seat_rects(inset_mm=4.0))
    return table, view

"""A calibrated table: the homography between camera and mat, and the seat zones and display area in the picture."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.mat import MatGeometry, Rect, render_mat
from calibration.markers import project


@dataclass(frozen=True, eq=False)
class Calibration:
    """What one calibration found: the mat, the camera's picture size, the homography and the colour profile."""

    mat: MatGeometry
    image_size: tuple[int, int]  # (width, height) of the camera's frames
    homography: np.ndarray  # image pixels -> mat millimetres
    markers: dict[int, np.ndarray]  # marker id -> (4, 2) corner pixels as found at calibration
    colour_profile: dict[str, Any] | None = None
    created: str = ""
    checks: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    def to_mat(self, points: np.ndarray) -> np.ndarray:
        """Image pixels -> mat millimetres for (N, 2) points."""
        return project(self.homography, points)

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Mat millimetres -> image pixels for (N, 2) points."""
        return project(np.linalg.inv(self.homography), points)

    def rect_in_image(self, rect: Rect) -> np.ndarray:
        """A mat rectangle as its (4, 2) quadrilateral in image pixels."""
        return self.to_image(rect.corners())

    def seat_polygons(self) -> dict[int, np.ndarray]:
        """Each seat's zone as an image polygon (4, 2)."""
        return {zone.seat: self.rect_in_image(zone.rect) for zone in self.mat.seats}

    def display_polygon(self) -> np.ndarray:
        """The display area as an image polygon (4, 2)."""
        return self.rect_in_image(self.mat.display)

    def seat_at(self, x: float, y: float) -> int | None:
        """The seat whose zone holds the image point (x, y), or None."""
        mx, my = self.to_mat(np.array([[x, y]]))[0]
        return self.mat.seat_at(float(mx), float(my))

    def in_display(self, x: float, y: float) -> bool:
        """Whether the image point (x, y) is in the display area."""
        mx, my = self.to_mat(np.array([[x, y]]))[0]
        return self.mat.display.contains(float(mx), float(my))

    def printed_view(self) -> np.ndarray:
        """The empty printed mat as the camera sees it: its grey levels in the camera's frame, drawn
        from the mat's geometry through the homography (0 beyond the mat)."""
        # Drawn and warped at PRINT_DETAIL times the camera's scale, then shrunk by area: letters
        # drawn at the camera's own scale come out unlike the camera's view of the printed ones.
        scale = max(1.0, PRINT_DETAIL * self.px_per_mm())
        picture = cv2.cvtColor(render_mat(self.mat, scale), cv2.COLOR_BGR2GRAY)
        width, height = self.image_size
        picture_to_fine = np.diag([PRINT_DETAIL, PRINT_DETAIL, 1.0]) @ np.linalg.inv(self.homography) @ np.diag(
            [1.0 / scale, 1.0 / scale, 1.0])
        fine = cv2.warpPerspective(picture, picture_to_fine, (PRINT_DETAIL * width, PRINT_DETAIL * height),
                                   flags=cv2.INTER_LINEAR)
        return cv2.resize(fine, (width, height), interpolation=cv2.INTER_AREA)

    def mat_window(self, margin_mm: float) -> tuple[int, int, int, int]:
        """The part of the camera's frames the mat lies in, `margin_mm` of table around it: (x0, y0,
        x1, y1) pixels, within the frame."""
        margin = Rect(-margin_mm, -margin_mm, self.mat.width_mm + 2 * margin_mm, self.mat.height_mm + 2 * margin_mm)
        quad = self.rect_in_image(margin)
        width, height = self.image_size
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
        return max(0, int(x0)), max(0, int(y0)), min(width, int(x1)), min(height, int(y1))

    def px_per_mm(self) -> float:
        """How many image pixels one millimetre of mat spans, at the middle of the mat."""
        cx, cy = self.mat.width_mm / 2, self.mat.height_mm / 2
        ends = self.to_image(np.array([[cx - 5, cy], [cx + 5, cy], [cx, cy - 5], [cx, cy + 5]]))
        return float((np.linalg.norm(ends[1] - ends[0]) + np.linalg.norm(ends[3] - ends[2])) / 20)

    def rectify(self, image: np.ndarray, rect: Rect | None = None, px_per_mm: float = 2.0) -> np.ndarray:
        """A top-down picture of `rect` of the mat (the whole mat by default) at `px_per_mm`."""
        rect = rect or Rect(0, 0, self.mat.width_mm, self.mat.height_mm)
        size = (max(1, round(rect.w * px_per_mm)), max(1, round(rect.h * px_per_mm)))
        return cv2.warpPerspective(image, self.rectify_matrix(rect, px_per_mm), size, flags=cv2.INTER_LINEAR)

    def rectify_matrix(self, rect: Rect, px_per_mm: float) -> np.ndarray:
        """The homography image pixels -> pixels of the rectified picture of `rect`."""
        to_rect = np.array([[px_per_mm, 0, -rect.x * px_per_mm], [0, px_per_mm, -rect.y * px_per_mm], [0, 0, 1]])
        return to_rect @ self.homography


# The empty mat is drawn this many times finer than the camera sees it (see Calibration.printed_view).
PRINT_DETAIL = 3

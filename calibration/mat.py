"""The printable mat: its geometry in millimetres (shared with calibration and the simulator) and its picture."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

# Paper sizes in landscape, millimetres (ISO 216).
PAPER_SIZES: dict[str, tuple[float, float]] = {"A3": (420.0, 297.0), "A2": (594.0, 420.0)}
# OpenCV's ArUco dictionary the mat uses. A mat's four ids are 4k..4k+3, clockwise from the top-left corner,
# where k says the seat count and paper (see mat_number), so a camera picture alone tells which mat it sees.
ARUCO_DICTIONARY = "DICT_4X4_50"
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
# The dice colours calibration learns, one marked square each (issue 5: white, gray, black; red, yellow, green, blue).
COLOUR_SQUARES = ("white", "gray", "black", "red", "yellow", "green", "blue")
MIN_SEATS, MAX_SEATS = 1, 6
# Seat zones are printed in a muted mid-tone blue: white and black dice both stand out from it, and its
# hue tells it from a gray die. (On pale paper the dice reader missed most white dice: 0 of 12 seats read
# right in the simulator, against 12 of 12 on this blue.)
SEAT_FILL, SEAT_EDGE, SEAT_LABEL = (150, 120, 90), (90, 60, 40), (200, 180, 160)
# Paint used for the printed labels of each colour square (BGR), so a player sees where which die goes.
_LABEL_COLOURS = {
    "white": (150, 150, 150), "gray": (110, 110, 110), "black": (0, 0, 0), "red": (40, 40, 200),
    "yellow": (0, 170, 220), "green": (60, 150, 40), "blue": (190, 90, 30),
}


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle on the mat, in millimetres from the mat's top-left corner."""

    x: float
    y: float
    w: float
    h: float

    def corners(self) -> np.ndarray:
        """The four corners, clockwise from the top-left, as a (4, 2) float array in mm."""
        return np.array(
            [[self.x, self.y], [self.x + self.w, self.y], [self.x + self.w, self.y + self.h], [self.x, self.y + self.h]],
            dtype=np.float64,
        )

    def contains(self, x: float, y: float) -> bool:
        """Whether the point (x, y) in mm lies inside this rectangle."""
        return self.x <= x <= self.x + self.w and self.y <= y <= self.y + self.h

    @property
    def centre(self) -> tuple[float, float]:
        """The centre of the rectangle in mm."""
        return (self.x + self.w / 2, self.y + self.h / 2)

    def to_list(self) -> list[float]:
        """The rectangle as [x, y, w, h] for JSON."""
        return [self.x, self.y, self.w, self.h]


@dataclass(frozen=True)
class Marker:
    """One ArUco marker printed on the mat: its id and its square (without the quiet zone)."""

    id: int
    rect: Rect
    corner: str


@dataclass(frozen=True)
class SeatZone:
    """Where one seat rolls its dice; seats are numbered 1..N clockwise seen from above."""

    seat: int
    rect: Rect


@dataclass(frozen=True)
class ColourSquare:
    """A marked square where one die of the named colour is placed for the colour shot."""

    colour: str
    rect: Rect


@dataclass(frozen=True)
class MatGeometry:
    """Everything printed on the mat, in mm: paper, markers, seat zones, display area, colour squares."""

    paper: str
    width_mm: float
    height_mm: float
    dictionary: str
    quiet_zone_mm: float
    markers: tuple[Marker, ...]
    seats: tuple[SeatZone, ...]
    display: Rect
    squares: tuple[ColourSquare, ...]

    def seat_at(self, x: float, y: float) -> int | None:
        """The seat whose zone holds the point (x, y) in mm, or None."""
        for zone in self.seats:
            if zone.rect.contains(x, y):
                return zone.seat
        return None

    def marker(self, marker_id: int) -> Marker | None:
        """The marker with this id, or None when the mat has none."""
        return next((m for m in self.markers if m.id == marker_id), None)

    def to_dict(self) -> dict[str, Any]:
        """The geometry as plain JSON-able values."""
        return {
            "paper": self.paper,
            "width_mm": self.width_mm,
            "height_mm": self.height_mm,
            "dictionary": self.dictionary,
            "quiet_zone_mm": self.quiet_zone_mm,
            "markers": [{"id": m.id, "corner": m.corner, "rect": m.rect.to_list()} for m in self.markers],
            "seats": [{"seat": z.seat, "rect": z.rect.to_list()} for z in self.seats],
            "display": self.display.to_list(),
            "squares": [{"colour": s.colour, "rect": s.rect.to_list()} for s in self.squares],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatGeometry:
        """Rebuild a geometry from `to_dict()` output; raises KeyError/TypeError/ValueError when malformed."""
        return cls(
            paper=str(data["paper"]),
            width_mm=float(data["width_mm"]),
            height_mm=float(data["height_mm"]),
            dictionary=str(data["dictionary"]),
            quiet_zone_mm=float(data["quiet_zone_mm"]),
            markers=tuple(Marker(int(m["id"]), _rect(m["rect"]), str(m["corner"])) for m in data["markers"]),
            seats=tuple(SeatZone(int(z["seat"]), _rect(z["rect"])) for z in data["seats"]),
            display=_rect(data["display"]),
            squares=tuple(ColourSquare(str(s["colour"]), _rect(s["rect"])) for s in data["squares"]),
        )


def _rect(values: Any) -> Rect:
    """A Rect from [x, y, w, h], checking there are four numbers and a positive size."""
    x, y, w, h = (float(v) for v in values)
    if w <= 0 or h <= 0:
        raise ValueError(f"a rectangle needs a positive width and height, not {values!r}")
    return Rect(x, y, w, h)


def mat_geometry(seats: int, paper: str = "A3") -> MatGeometry:
    """The mat's layout for `seats` seats on `paper` (A3 or A2), everything scaled with the paper."""
    if paper not in PAPER_SIZES:
        raise ValueError(f"unknown paper size {paper!r}; choose one of {', '.join(PAPER_SIZES)}.")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"a mat has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}.")
    width, height = PAPER_SIZES[paper]
    s = width / 420.0  # every length below is for A3 and scales with the paper
    margin, marker, quiet = 8 * s, 36 * s, 6 * s
    corner = margin + marker + quiet  # the square each corner marker keeps clear
    band_tb, band_lr = 78 * s, 92 * s  # depth of the top/bottom and left/right seat bands
    markers = _corner_markers(4 * mat_number(seats, paper), width, height, margin, marker)
    zones = _seat_zones(seats, width, height, corner, band_tb, band_lr, 3 * s)
    display = Rect(band_lr + 6 * s, band_tb + 6 * s, width - 2 * (band_lr + 6 * s), height - 2 * (band_tb + 6 * s))
    squares = _colour_squares(display, 18 * s, 5 * s)
    return MatGeometry(paper, width, height, ARUCO_DICTIONARY, quiet, markers, zones, display, squares)


def mat_number(seats: int, paper: str) -> int:
    """The number k of the mat with `seats` seats on `paper`; its markers have ids 4k..4k+3."""
    return (seats - MIN_SEATS) * len(PAPER_SIZES) + list(PAPER_SIZES).index(paper)


def geometry_for_marker(marker_id: int) -> MatGeometry | None:
    """The mat a marker id belongs to, or None when no mat of ours prints that id."""
    number = marker_id // 4
    seats, paper_index = divmod(number, len(PAPER_SIZES))
    seats += MIN_SEATS
    if marker_id < 0 or seats > MAX_SEATS:
        return None
    return mat_geometry(seats, list(PAPER_SIZES)[paper_index])


def _corner_markers(first_id: int, width: float, height: float, margin: float, size: float) -> tuple[Marker, ...]:
    """Four markers, ids first_id.. clockwise from the top-left corner."""
    origins = [(margin, margin), (width - margin - size, margin), (width - margin - size, height - margin - size),
               (margin, height - margin - size)]
    return tuple(Marker(first_id + i, Rect(x, y, size, size), CORNER_NAMES[i]) for i, (x, y) in enumerate(origins))


def _seat_zones(seats: int, width: float, height: float, corner: float, band_tb: float, band_lr: float,
                gap: float) -> tuple[SeatZone, ...]:
    """Seat zones around the edge, numbered clockwise seen from above, starting at the bottom right."""
    bottom = Rect(corner, height - band_tb, width - 2 * corner, band_tb - gap)
    top = Rect(corner, gap, width - 2 * corner, band_tb - gap)
    left = Rect(gap, band_tb, band_lr - gap, height - 2 * band_tb)
    right = Rect(width - band_lr, band_tb, band_lr - gap, height - 2 * band_tb)
    # Clockwise on the picture (y down): along the bottom right-to-left, up the left, along the top, down the right.
    layouts = {
        1: [bottom],
        2: [bottom, top],
        3: [bottom, *_split(top, 2)],
        4: [bottom, left, top, right],
        5: [*reversed(_split(bottom, 2)), left, top, right],
        6: [*reversed(_split(bottom, 2)), left, *_split(top, 2), right],
    }
    return tuple(SeatZone(i + 1, rect) for i, rect in enumerate(layouts[seats]))


def _split(rect: Rect, parts: int) -> list[Rect]:
    """Split a band left to right into `parts` equal rectangles with a small gap between them."""
    gap = 4.0
    w = (rect.w - gap * (parts - 1)) / parts
    return [Rect(rect.x + i * (w + gap), rect.y, w, rect.h) for i in range(parts)]


def _colour_squares(display: Rect, size: float, gap: float) -> tuple[ColourSquare, ...]:
    """A row of squares for the colour shot along the bottom of the display area."""
    count = len(COLOUR_SQUARES)
    row = count * size + (count - 1) * gap
    x0 = display.x + (display.w - row) / 2
    y0 = display.y + display.h - size - 2 * gap
    return tuple(ColourSquare(c, Rect(x0 + i * (size + gap), y0, size, size)) for i, c in enumerate(COLOUR_SQUARES))


def aruco_dictionary(name: str = ARUCO_DICTIONARY) -> cv2.aruco.Dictionary:
    """OpenCV's predefined ArUco dictionary of that name."""
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def render_mat(geometry: MatGeometry, px_per_mm: float = 4.0) -> np.ndarray:
    """Draw the mat as a BGR image at `px_per_mm` (markers, seat zones and labels, display, colour squares)."""
    width, height = round(geometry.width_mm * px_per_mm), round(geometry.height_mm * px_per_mm)
    image = np.full((height, width, 3), 255, np.uint8)
    ink = max(1, round(0.6 * px_per_mm))
    for zone in geometry.seats:
        _draw_rect(image, zone.rect, px_per_mm, SEAT_FILL, fill=True)
        _draw_rect(image, zone.rect, px_per_mm, SEAT_EDGE, ink)
        _label(image, f"SEAT {zone.seat}", zone.rect, px_per_mm, SEAT_LABEL, 7.0)
    _draw_rect(image, geometry.display, px_per_mm, (90, 130, 90), ink)
    top_label = Rect(geometry.display.x, geometry.display.y + 2, geometry.display.w, 10)
    _label(image, "DISPLAY - CARDS HERE", top_label, px_per_mm, (90, 130, 90), 5.0)
    for square in geometry.squares:
        _draw_rect(image, square.rect, px_per_mm, _LABEL_COLOURS[square.colour], ink)
        under = Rect(square.rect.x - 4, square.rect.y + square.rect.h + 0.5, square.rect.w + 8, 4.5)
        _label(image, square.colour.upper(), under, px_per_mm, _LABEL_COLOURS[square.colour], 3.2)
    for marker in geometry.markers:
        _draw_marker(image, geometry, marker, px_per_mm)
    return image


def _px(value_mm: float, px_per_mm: float) -> int:
    """A length or coordinate in mm as whole pixels."""
    return round(value_mm * px_per_mm)


def _draw_rect(image: np.ndarray, rect: Rect, px_per_mm: float, colour: tuple[int, int, int], thickness: int = 1,
               fill: bool = False) -> None:
    """Draw a rectangle given in mm."""
    p0 = (_px(rect.x, px_per_mm), _px(rect.y, px_per_mm))
    p1 = (_px(rect.x + rect.w, px_per_mm) - 1, _px(rect.y + rect.h, px_per_mm) - 1)
    cv2.rectangle(image, p0, p1, colour, cv2.FILLED if fill else thickness)


def _label(image: np.ndarray, text: str, rect: Rect, px_per_mm: float, colour: tuple[int, int, int],
           height_mm: float) -> None:
    """Write `text` centred in `rect` with letters about `height_mm` tall."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height_mm * px_per_mm / 22.0  # Hershey simplex capitals are about 22 px tall at scale 1
    thickness = max(1, round(scale * 2))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    cx, cy = rect.centre
    origin = (round(cx * px_per_mm - tw / 2), round(cy * px_per_mm + th / 2))
    cv2.putText(image, text, origin, font, scale, colour, thickness, cv2.LINE_AA)


def _draw_marker(image: np.ndarray, geometry: MatGeometry, marker: Marker, px_per_mm: float) -> None:
    """Paste one ArUco marker at its square, with a white quiet zone around it."""
    q = geometry.quiet_zone_mm
    _draw_rect(image, Rect(marker.rect.x - q, marker.rect.y - q, marker.rect.w + 2 * q, marker.rect.h + 2 * q),
               px_per_mm, (255, 255, 255), fill=True)
    x0, y0 = _px(marker.rect.x, px_per_mm), _px(marker.rect.y, px_per_mm)
    side = _px(marker.rect.x + marker.rect.w, px_per_mm) - x0
    tile = cv2.aruco.generateImageMarker(aruco_dictionary(geometry.dictionary), marker.id, side)
    image[y0:y0 + side, x0:x0 + side] = tile[:, :, None]


def write_mat(geometry: MatGeometry, out: str | Path, dpi: int = 150) -> tuple[Path, Path]:
    """Write the mat as PNG and PDF at true scale (`dpi` pixels per inch); returns both paths."""
    from PIL import Image  # Pillow only for writing; everything else is OpenCV

    out = Path(out)
    png, pdf = out.with_suffix(".png"), out.with_suffix(".pdf")
    image = render_mat(geometry, px_per_mm=dpi / 25.4)
    picture = Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
    out.parent.mkdir(parents=True, exist_ok=True)
    picture.save(png, dpi=(dpi, dpi))
    picture.save(pdf, resolution=float(dpi))
    return png, pdf

"""Fixtures: photographs of the printed mat made with the table simulator, through a known homography."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

import cv2
import numpy as np
import pytest

from calibration.mat import MatGeometry, mat_geometry, render_mat
from tests.support import ManualTime, close_session, draw_card, open_session
from vision.simulator import LIGHTINGS, DieSpec, Lighting, Scene, render_table

PX_PER_MM = 4.0  # resolution the mat picture is drawn at before it is "photographed"

# Where the mat's corners land in a 1920x1080 frame (top-left, top-right, bottom-right, bottom-left).
VIEWS: dict[str, Sequence[tuple[float, float]]] = {
    "straight": ((200, 60), (1720, 60), (1720, 1020), (200, 1020)),
    "tilted": ((260, 110), (1680, 140), (1720, 1010), (210, 990)),
    "steep": ((420, 160), (1500, 160), (1760, 1040), (160, 1040)),
    "far": ((660, 340), (1260, 330), (1270, 760), (650, 750)),
    "turned": ((1720, 1020), (200, 1030), (230, 70), (1700, 50)),  # camera mounted the other way round
}
# A softer "neutral" light than the simulator's default, so white paper is not clipped (auto exposure would).
GOOD_LIGHT = replace(LIGHTINGS["neutral"], brightness=0.85)


@dataclass(frozen=True, eq=False)
class Photo:
    """A rendered camera frame of the mat and the true homography mat mm -> frame pixels."""

    image: np.ndarray
    mm_to_frame: np.ndarray
    geometry: MatGeometry

    def frame_point(self, x_mm: float, y_mm: float) -> np.ndarray:
        """Where a mat point (mm) lands in the frame."""
        return cv2.perspectiveTransform(np.array([[[x_mm, y_mm]]], np.float64), self.mm_to_frame)[0, 0]

    def px_per_mm_at(self, x_mm: float, y_mm: float) -> float:
        """The frame's scale near a mat point."""
        return float(np.linalg.norm(self.frame_point(x_mm + 5, y_mm) - self.frame_point(x_mm - 5, y_mm)) / 10)


def _mat_picture(geometry: MatGeometry, cache: dict = {}) -> np.ndarray:  # noqa: B006 - a deliberate cache
    """The mat drawn at PX_PER_MM (cached: drawing it takes a moment)."""
    if geometry not in cache:
        cache[geometry] = render_mat(geometry, PX_PER_MM)
    return cache[geometry]


def photograph(geometry: MatGeometry | None = None, view: str | Sequence[tuple[float, float]] = "tilted",
               lighting: Lighting | str = GOOD_LIGHT, dice: Sequence[tuple[str, int, float, float]] = (),
               blur: float = 0.7, seed: int = 0, glare: tuple[float, float, float] | None = None,
               cards: Sequence[tuple[np.ndarray, float, float, float]] = ()) -> Photo:
    """Photograph the mat: dice (colour, value, x mm, y mm) and cards (picture, x mm, y mm, angle) on it,
    a view, a light, optional glare (x, y, radius mm)."""
    geometry = geometry or mat_geometry(4)
    picture = _mat_picture(geometry)
    if cards:
        picture = _lay_cards(picture, cards)
    h, w = picture.shape[:2]
    quad = np.float32(VIEWS[view] if isinstance(view, str) else view)
    to_frame = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad)
    mm_to_frame = to_frame @ np.diag([PX_PER_MM, PX_PER_MM, 1.0])
    photo = Photo(np.zeros(0), mm_to_frame, geometry)
    specs = []
    for index, (colour, value, x, y) in enumerate(dice):
        fx, fy = photo.frame_point(x, y)
        specs.append(DieSpec(float(fx), float(fy), value, colour, angle=17.0 * index, size=16 * photo.px_per_mm_at(x, y)))
    light = LIGHTINGS[lighting] if isinstance(lighting, str) else lighting
    scene = Scene(dice=tuple(specs), background=picture, homography=to_frame, lighting=light, blur=blur)
    image, _truth = render_table(scene, np.random.default_rng(seed))
    if glare is not None:
        image = _add_glare(image, photo, glare)
    return Photo(image, mm_to_frame, geometry)


def _lay_cards(picture: np.ndarray, cards: Sequence[tuple[np.ndarray, float, float, float]]) -> np.ndarray:
    """The mat picture with card pictures laid on it (calibration.demo.lay_cards at PX_PER_MM)."""
    from calibration.demo import lay_cards

    return lay_cards(picture, cards, PX_PER_MM)


def _add_glare(image: np.ndarray, photo: Photo, glare: tuple[float, float, float]) -> np.ndarray:
    """Add a lamp's reflection: a saturated white disc with a soft rim at (x, y) mm of radius r mm."""
    x, y, radius = glare
    centre = photo.frame_point(x, y)
    r_px = radius * photo.px_per_mm_at(x, y)
    yy, xx = np.mgrid[0:image.shape[0], 0:image.shape[1]]
    d = np.hypot(xx - centre[0], yy - centre[1]) / r_px
    boost = np.clip(1.6 - d, 0, 1)[..., None] * 255
    return np.clip(image.astype(np.float32) + boost, 0, 255).astype(np.uint8)


def dice_on_squares(geometry: MatGeometry, colours: Sequence[str] | None = None) -> list[tuple[str, int, float, float]]:
    """One die of each colour (or of the given colours) on its colour square."""
    return [(s.colour, 1 + i % 6, *s.rect.centre) for i, s in enumerate(geometry.squares)
            if colours is None or s.colour in colours]


@pytest.fixture
def photo_of() -> Callable[..., Photo]:
    """The photograph() helper for tests."""
    return photograph


@pytest.fixture(scope="session")
def calibrated_photo() -> Photo:
    """A good photograph of a 4-seat A3 mat with the seven colour dice on their squares."""
    geometry = mat_geometry(4)
    return photograph(geometry, dice=dice_on_squares(geometry))


@pytest.fixture
def on_squares() -> Callable[..., list[tuple[str, int, float, float]]]:
    """The dice_on_squares() helper for tests."""
    return dice_on_squares


@pytest.fixture
def card_drawing() -> Callable[..., np.ndarray]:
    """The draw_card() helper for tests."""
    return draw_card


# ---- the live table: a hand-driven clock, a session with a game, the simulated mat table -------------


class TruthReader:
    """Reads a simulated frame by its truth (for tests of the live glue, apart from the reader's accuracy):
    each die at its centre, with its face; a rolling die is blurred, so it reads less sure."""

    def __init__(self) -> None:
        """No frame yet."""
        self.truth: dict | None = None

    def __call__(self, image: np.ndarray, profile: object = None) -> list:
        """The readings of the frame whose truth was set last."""
        from vision.dice import DieReading

        return [DieReading(x=float(d["centre"][0]), y=float(d["centre"][1]), size=float(d["size"]),
                           angle=float(d["angle"]), colour=d["colour"], value=int(d["value"]),
                           confidence=0.8 if d.get("rolling") else 0.95)
                for d in (self.truth or {}).get("dice", [])]


@pytest.fixture
def manual() -> ManualTime:
    """The hand-driven clock and timer."""
    return ManualTime()


@pytest.fixture
def game(tmp_path, manual):
    """A 3-player demo game (Leader seat 0) over a fresh event store, with the manual clock."""
    session = open_session(tmp_path, manual, seed=7)
    session.start(["Ana", "Ben", "Cy"], leader=0, demo=True, seed=5)
    yield session
    close_session(session)


@pytest.fixture
def truth_reader() -> TruthReader:
    """A reader that returns the simulator's truth."""
    return TruthReader()

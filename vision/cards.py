"""Card recognition by picture: taught once, found again by ORB features, matching and a homography check.

A card is taught from one picture (upright, cropped to the card). To recognise, ORB keypoints of the
scene are matched to each taught card (Hamming distance, ratio test), and a RANSAC homography must
agree with enough of the matches and map the card to a plausible, convex shape. Features are local
and binary-compared on intensity order, so a card turned any way, under other light, or with a
glare spot over part of it is still found; several cards (and several copies of one) are found at
once. Card-shaped things that match no taught card are reported as unknown, for the host to teach.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError

TAUGHT_SIDE = 480  # a taught card is stored with its longer side this long (pixels)
CARD_FEATURES = 800
SCENE_FEATURES = 4000
RATIO = 0.8  # Lowe's ratio test: keep a match only when clearly better than the second best
MIN_INLIERS = 14  # matches the homography must agree with before a card counts as found
MAX_COPIES = 4  # copies of one card looked for in one scene
LIKENESS_SIDE = 168  # pictures are compared at this size (longer side, pixels)
LIKENESS_TILES = (4, 6)  # columns, rows of tiles the likeness is measured in
LIKENESS_QUANTILE = 20  # the likeness is this percentile of the tiles' correlations
MIN_LIKENESS = 0.5  # a found card must look at least this much like its taught picture (0-1)
MIN_CARD_FILL = 0.85  # an outline counts as a card when it fills this much of its rectangle
GLARE_LEVEL = 245  # grey level above which a part of a card counts as washed out by glare
INDEX = "cards.json"


class CardError(CompanionError, ValueError):
    """A card cannot be taught or loaded; the message says which card and what to do."""


@dataclass(frozen=True)
class CardSighting:
    """A card seen in a picture: its id (None when it is not taught yet), corners in pixels, and how sure."""

    card_id: str | None
    corners: tuple[tuple[float, float], ...]  # four corners, in the taught card's order (top-left first)
    inliers: int
    confidence: float

    @property
    def centre(self) -> tuple[float, float]:
        """The middle of the card in the picture."""
        c = np.mean(np.asarray(self.corners), axis=0)
        return (float(c[0]), float(c[1]))

    def to_dict(self) -> dict:
        """Plain values for JSON."""
        return {"card": self.card_id, "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
                "inliers": self.inliers, "confidence": round(self.confidence, 3)}


@dataclass(frozen=True, eq=False)
class _Taught:
    """One taught card: its picture's size, keypoint positions and descriptors."""

    card_id: str
    size: tuple[int, int]  # width, height
    points: np.ndarray  # (N, 2) float32
    descriptors: np.ndarray  # (N, 32) uint8


def _orb(features: int) -> cv2.ORB:
    """An ORB detector; a low FAST threshold keeps features on dim, low-contrast cards."""
    return cv2.ORB_create(nfeatures=features, scaleFactor=1.2, nlevels=8, edgeThreshold=15, patchSize=31,
                          fastThreshold=10)


def _normalised_grey(image: np.ndarray) -> np.ndarray:
    """Grey with local contrast evened out (CLAHE), so warm, dim or uneven light matter less."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(grey)


def _features(image: np.ndarray, count: int, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """ORB keypoint positions (N, 2) and descriptors of an image."""
    keypoints, descriptors = _orb(count).detectAndCompute(_normalised_grey(image), mask)
    points = np.float32([k.pt for k in keypoints]).reshape(-1, 2)
    return points, descriptors


def _as_card_picture(image: np.ndarray) -> np.ndarray:
    """A taught picture scaled so its longer side is TAUGHT_SIDE pixels."""
    scale = TAUGHT_SIDE / max(image.shape[:2])
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=interpolation)


def _check_picture(image: object, what: str) -> np.ndarray:
    """A BGR picture, or a CardError saying why not."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 40:
        raise CardError(f"{what}: need a colour picture of the card at least 40 pixels across.")
    return image


def _file_name(card_id: str) -> str:
    """A safe file name for a card id (ids may hold any characters)."""
    plain = re.sub(r"[^A-Za-z0-9_-]", "_", card_id)[:60]
    return f"{plain}-{card_id.encode().hex()[:16]}.png" if plain != card_id else f"{plain}.png"


class CardLibrary:
    """The taught cards, kept as pictures in a folder (one PNG each and an index of ids)."""

    def __init__(self, folder: str | os.PathLike[str] | None = None):
        """Open the library in `folder` (None: in memory only) and load what was taught there."""
        self.folder = Path(folder) if folder is not None else None
        self._cards: dict[str, _Taught] = {}
        self._pictures: dict[str, np.ndarray] = {}
        if self.folder is not None and (self.folder / INDEX).exists():
            self._load()

    @property
    def card_ids(self) -> tuple[str, ...]:
        """The ids of the taught cards."""
        return tuple(sorted(self._cards))

    def picture(self, card_id: str) -> np.ndarray:
        """The taught picture of a card."""
        return self._pictures[card_id]

    def teach(self, card_id: str, image: np.ndarray) -> None:
        """Learn (or relearn) a card from its upright, cropped picture; saved at once when there is a folder."""
        if not isinstance(card_id, str) or not card_id.strip():
            raise CardError("a taught card needs its catalogue card id.")
        picture = _as_card_picture(_check_picture(image, f"card {card_id!r}"))
        taught = self._learn(card_id, picture)
        if len(taught.points) < MIN_INLIERS * 2:
            raise CardError(f"card {card_id!r}: the picture shows too little detail to recognise it again "
                            f"({len(taught.points)} features); show the card's face, in focus and well lit.")
        self._cards[card_id], self._pictures[card_id] = taught, picture
        if self.folder is not None:
            self._save(card_id, picture)

    def forget(self, card_id: str) -> None:
        """Forget a taught card (and delete its picture)."""
        self._cards.pop(card_id, None)
        self._pictures.pop(card_id, None)
        if self.folder is not None:
            self._write_index()

    @staticmethod
    def _learn(card_id: str, picture: np.ndarray) -> _Taught:
        """Features of a card picture."""
        points, descriptors = _features(picture, CARD_FEATURES)
        if descriptors is None:
            descriptors = np.zeros((0, 32), np.uint8)
        return _Taught(card_id, (picture.shape[1], picture.shape[0]), points, descriptors)

    def _save(self, card_id: str, picture: np.ndarray) -> None:
        """Write the card's picture and the index."""
        assert self.folder is not None
        self.folder.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(self.folder / _file_name(card_id)), picture):
            raise CardError(f"card {card_id!r}: cannot write its picture into {self.folder}.")
        self._write_index()

    def _write_index(self) -> None:
        """Write the index of card ids -> picture files atomically."""
        assert self.folder is not None
        self.folder.mkdir(parents=True, exist_ok=True)
        index = {"version": 1, "cards": {i: _file_name(i) for i in sorted(self._cards)}}
        with tempfile.NamedTemporaryFile("w", dir=self.folder, suffix=".tmp", delete=False) as handle:
            json.dump(index, handle, indent=1)
        os.replace(handle.name, self.folder / INDEX)

    def _load(self) -> None:
        """Load every card listed in the index; a damaged entry is named."""
        assert self.folder is not None
        try:
            index = json.loads((self.folder / INDEX).read_text(encoding="utf-8"))
            cards = dict(index["cards"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise CardError(f"{self.folder / INDEX} is damaged ({error}); delete it and teach the cards again.") from None
        for card_id, name in cards.items():
            picture = cv2.imread(str(self.folder / str(name)), cv2.IMREAD_COLOR)
            if picture is None:
                raise CardError(f"card {card_id!r}: its picture {self.folder / str(name)} is missing or damaged; "
                                "teach the card again.")
            self._cards[card_id], self._pictures[card_id] = self._learn(card_id, picture), picture

    def recognise(self, image: np.ndarray, card_area: tuple[float, float] | None = None) -> list[CardSighting]:
        """Every card in the picture: taught ones by id, other card-shaped things as unknown (card_id None).

        `card_area` is the (smallest, largest) area of a card in pixels, when known (e.g. from the
        calibration); without it, the sizes of the cards recognised are used.
        """
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.size == 0:
            return []
        points, descriptors = _features(image, SCENE_FEATURES)
        found: list[CardSighting] = []
        if descriptors is not None and len(points) >= MIN_INLIERS and self._cards:
            for card_id, pairs in self._matches(descriptors).items():
                found += _find_copies(self._cards[card_id], self._pictures[card_id], image, points, pairs)
        found = _without_overlaps([s for s in found if s.confidence >= MIN_LIKENESS])
        return found + _unknown_cards(image, found, card_area)

    def _matches(self, descriptors: np.ndarray) -> dict[str, list[tuple[int, int]]]:
        """Scene keypoints matched against every taught card at once: card id -> (card point, scene point) pairs.

        Matching against all cards together makes the ratio test drop what cards share (frames, the
        printed dice symbols, the font), so what is left is what tells one card from another.
        """
        cards = [c for c in self._cards.values() if len(c.descriptors)]
        if not cards:
            return {}
        owners = np.concatenate([np.full(len(c.descriptors), k) for k, c in enumerate(cards)])
        offsets = np.cumsum([0] + [len(c.descriptors) for c in cards])
        train = np.concatenate([c.descriptors for c in cards])
        pairs: dict[str, list[tuple[int, int]]] = {}
        for candidates in cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(descriptors, train, k=2):
            if not candidates:
                continue
            best = candidates[0]
            if len(candidates) == 2 and best.distance >= RATIO * candidates[1].distance:
                continue
            owner = int(owners[best.trainIdx])
            pairs.setdefault(cards[owner].card_id, []).append((best.trainIdx - int(offsets[owner]), best.queryIdx))
        return pairs


def _find_copies(taught: _Taught, picture: np.ndarray, scene: np.ndarray, points: np.ndarray,
                 pairs: list[tuple[int, int]]) -> list[CardSighting]:
    """Up to MAX_COPIES copies of one card among its matches; each copy's matches are set aside before the next."""
    sightings = []
    left = list(pairs)
    w, h = taught.size
    outline = np.float32([[[0, 0], [w, 0], [w, h], [0, h]]])
    for _ in range(MAX_COPIES):
        if len(left) < MIN_INLIERS:
            break
        card_pts = np.float32([taught.points[i] for i, _ in left])
        scene_pts = np.float32([points[j] for _, j in left])
        # An affine map, not a full homography: a flat card seen from above (or the rectified mat) is one, and
        # its six unknowns are pinned down by fewer matches, which is what a glared or crowded card leaves.
        affine, mask = cv2.estimateAffine2D(card_pts, scene_pts, method=cv2.RANSAC, ransacReprojThreshold=6.0,
                                            maxIters=2000, confidence=0.995)
        if affine is None or int(mask.sum()) < MIN_INLIERS:
            break
        homography = np.vstack([affine, [0.0, 0.0, 1.0]])
        corners = cv2.perspectiveTransform(outline, homography)[0]
        if not _plausible(corners, taught.size, scene.shape):
            break
        sightings.append(CardSighting(taught.card_id, tuple((float(x), float(y)) for x, y in corners), int(mask.sum()),
                                      appearance_likeness(picture, scene, homography)))
        quad = corners.reshape(-1, 1, 2)
        left = [(i, j) for i, j in left
                if cv2.pointPolygonTest(quad, (float(points[j][0]), float(points[j][1])), False) < 0]
    return sightings


def _detail(grey: np.ndarray) -> np.ndarray:
    """The fine detail of a grey picture (the picture minus its blur), as float."""
    grey = grey.astype(np.float32)
    return grey - cv2.GaussianBlur(grey, (0, 0), 3.0)


def appearance_likeness(picture: np.ndarray, scene: np.ndarray, homography: np.ndarray) -> float:
    """How alike the taught picture and the card in the scene look, 0-1.

    The scene is warped back onto the taught picture and both are cut into tiles; the likeness is
    the lower quartile of the normalised correlations of their fine detail over the tiles not washed
    out by glare. The right card agrees in (nearly) every tile; another card printed in the same
    layout agrees in the frame, title and dice tiles but not in its picture, which the quartile sees.
    """
    h, w = picture.shape[:2]
    small = (max(8, w * LIKENESS_SIDE // max(w, h)), max(8, h * LIKENESS_SIDE // max(w, h)))
    back = np.diag([small[0] / w, small[1] / h, 1.0]) @ np.linalg.inv(homography)
    raw = cv2.warpPerspective(cv2.cvtColor(scene, cv2.COLOR_BGR2GRAY), back, small, flags=cv2.INTER_AREA)
    seen = cv2.warpPerspective(_normalised_grey(scene), back, small, flags=cv2.INTER_AREA)
    a = _detail(seen)
    b = _detail(cv2.resize(_normalised_grey(picture), small, interpolation=cv2.INTER_AREA))
    # Glare: washed-out white where the card itself is not white (white parts of a card may clip in bright light).
    plain = cv2.resize(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY), small, interpolation=cv2.INTER_AREA)
    glare = (raw >= GLARE_LEVEL) & (plain < GLARE_LEVEL - 30)
    scores = []
    for rows in np.array_split(np.arange(small[1]), LIKENESS_TILES[1]):
        for cols in np.array_split(np.arange(small[0]), LIKENESS_TILES[0]):
            if np.mean(glare[np.ix_(rows, cols)]) > 0.05:
                continue  # washed out by a reflection: says nothing either way
            ta, tb = a[np.ix_(rows, cols)], b[np.ix_(rows, cols)]
            ta, tb = ta - ta.mean(), tb - tb.mean()
            norm = float(np.sqrt((ta * ta).sum() * (tb * tb).sum()))
            scores.append(float((ta * tb).sum()) / norm if norm > 1e-6 else 0.0)
    if len(scores) < LIKENESS_TILES[0] * LIKENESS_TILES[1] // 3:  # mostly under glare: too little left to be sure
        return 0.0
    return float(np.clip(np.percentile(scores, LIKENESS_QUANTILE), 0.0, 1.0))


def _plausible(corners: np.ndarray, size: tuple[int, int], shape: tuple[int, ...]) -> bool:
    """A found card must be a convex quadrilateral of sane size whose sides keep the card's proportions."""
    quad = corners.reshape(-1, 2).astype(np.float32)
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return False
    area = cv2.contourArea(quad)
    if area < 400 or area > shape[0] * shape[1] * 1.5:
        return False
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    # Opposite sides of a card seen from above (or at a moderate angle) are about equally long.
    if max(sides[0], sides[2]) > 1.5 * min(sides[0], sides[2]) or max(sides[1], sides[3]) > 1.5 * min(sides[1], sides[3]):
        return False
    aspect = (sides[1] + sides[3]) / (sides[0] + sides[2])
    expected = size[1] / size[0]
    return 0.7 < aspect / expected < 1.4


def _without_overlaps(sightings: list[CardSighting]) -> list[CardSighting]:
    """Where two sightings cover the same place, keep the one that looks most like its taught picture."""
    kept: list[CardSighting] = []
    for sighting in sorted(sightings, key=lambda s: (-s.confidence, -s.inliers)):
        if all(_overlap(sighting, other) < 0.3 for other in kept):
            kept.append(sighting)
    return kept


def _overlap(a: CardSighting, b: CardSighting) -> float:
    """The share of the smaller card's area that the two quadrilaterals have in common."""
    qa, qb = np.float32(a.corners), np.float32(b.corners)
    common, _ = cv2.intersectConvexConvex(qa, qb)
    return float(common) / max(1.0, min(cv2.contourArea(qa), cv2.contourArea(qb)))


def find_card_shapes(image: np.ndarray, card_area: tuple[float, float]) -> list[np.ndarray]:
    """Card-like rectangles in the picture, the most rectangular first, as (4, 2) corners; area within `card_area`."""
    grey = cv2.GaussianBlur(_normalised_grey(image), (5, 5), 0)
    edges = cv2.dilate(cv2.Canny(grey, 40, 120), np.ones((5, 5), np.uint8))
    # Every outline, inner ones too: a card touching something else still has the inner rim of its edge.
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    candidates = []
    for contour in contours:
        rect = cv2.minAreaRect(contour)
        (w, h) = rect[1]
        area = w * h
        if not card_area[0] <= area <= card_area[1] or min(w, h) == 0 or not 1.1 < max(w, h) / min(w, h) < 2.0:
            continue
        # A card fills its rectangle; a card merged with its neighbours, a cluster of dice or a hand does not.
        fill = cv2.contourArea(contour) / area
        if fill >= MIN_CARD_FILL:
            candidates.append((fill, cv2.boxPoints(rect)))
    return [quad for _fill, quad in sorted(candidates, key=lambda c: -c[0])]


def _unknown_cards(image: np.ndarray, known: list[CardSighting],
                   card_area: tuple[float, float] | None) -> list[CardSighting]:
    """Card-shaped things not covered by a recognised card."""
    if card_area is None:
        if not known:
            return []
        typical = float(np.median([cv2.contourArea(np.float32(s.corners)) for s in known]))
        card_area = (0.6 * typical, 1.6 * typical)
    unknown = []
    for quad in find_card_shapes(image, card_area):
        candidate = CardSighting(None, tuple((float(x), float(y)) for x, y in quad), 0, 0.0)
        if all(_overlap(candidate, s) < 0.3 for s in known + unknown):
            unknown.append(candidate)
    return unknown


def crop_card(image: np.ndarray, corners: np.ndarray, portrait: bool = True) -> np.ndarray:
    """The card at `corners` (four points, any order) cut out and straightened, longer side up when portrait."""
    quad = _ordered(np.asarray(corners, np.float32).reshape(4, 2))
    top, side = np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0])
    if portrait and top > side:  # lying sideways: turn it so the longer side is upright
        quad = np.roll(quad, -1, axis=0)
        top, side = side, top
    w, h = max(8, round(top)), max(8, round(side))
    target = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(quad, target), (w, h), flags=cv2.INTER_CUBIC)


def _ordered(quad: np.ndarray) -> np.ndarray:
    """Four corners in clockwise order (on the picture) starting at the one nearest the top-left."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]
    start = int(np.argmin(quad.sum(axis=1)))
    return np.roll(quad, -start, axis=0)

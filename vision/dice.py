"""The dice reader: every pip die in an image, its centre, size, angle, body colour, value and confidence.

How it reads (pip-first, so it works for any body colour with contrasting pips):
1. find pips: small round blobs, darker or lighter than a uniform surround (vision/dice_pips.py);
2. join pips that sit on one uniform face: close, of similar size and polarity, with nothing but
   body colour on the straight path between them (a gap between touching dice or a face edge
   breaks the path);
3. each group of 1-6 pips whose layout matches a die face is a die; of groups that overlap (the
   side faces of a die seen at an angle) only the most frontal face is kept;
4. the body colour is sampled around the pips and named by the colour profile.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.colour import ColourProfile, default_profile
from vision.dice_layout import HALF_SIDE, TOLERANCE, fit_faces
from vision.dice_pips import Pips, find_pips, sample

# The reader works on images no larger than this (longest side, pixels); bigger ones are shrunk.
WORK_SIDE = 2000
# A pip's centre sits this far from its face's centre, as a fraction of the face side (corner pips
# of common dice: 0.22-0.30), so the two farthest pips of a face are ~0.74 side apart.
PIP_OFFSET = 0.26
# Side of the square that the spot maps close/open with: pips up to about this wide are found.
PIP_KERNEL = 11
# Colour distance (BGR) that marks a die's edge against the table around a one.
EDGE_STEP = 18.0


@dataclass(frozen=True)
class DieReading:
    """One die as read: centre and side in image pixels, angle in degrees, colour, value, confidence."""

    x: float
    y: float
    size: float
    angle: float
    colour: str
    value: int
    confidence: float

    def to_dict(self) -> dict:
        """The reading as JSON-able values, rounded for people."""
        return {
            "x": round(self.x, 1), "y": round(self.y, 1), "size": round(self.size, 1),
            "angle": round(self.angle, 1), "value": self.value, "colour": self.colour,
            "confidence": round(self.confidence, 3),
        }


def read_dice(image: np.ndarray, profile: ColourProfile | None = None) -> list[DieReading]:
    """Read every pip die in a BGR (or gray, or BGRA) image; an empty or blank image has none."""
    bgr = _as_bgr(image)
    if bgr is None:
        return []
    profile = profile or default_profile()
    scale = min(1.0, WORK_SIDE / max(bgr.shape[:2]))
    if scale < 1.0:
        bgr = cv2.resize(bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    pips = _find_all_pips(bgr)
    faces = _frontal_faces(pips, _candidate_faces(bgr, pips))
    field = table_field(bgr) if profile.table is not None else None
    return [_rescaled(_reading(bgr, pips, face, profile, field), scale) for face in faces]


def _as_bgr(image: np.ndarray) -> np.ndarray | None:
    """The image as 8-bit BGR, or None when there is nothing to read."""
    if not isinstance(image, np.ndarray) or image.size == 0 or image.ndim not in (2, 3):
        return None
    if min(image.shape[:2]) < 8:
        return None
    if image.dtype != np.uint8:
        image = cv2.normalize(image.astype(np.float32), None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    channels = image.shape[2]
    if channels == 1:
        return cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    if channels == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if channels == 3:
        return np.ascontiguousarray(image)
    return None


def _find_all_pips(bgr: np.ndarray) -> Pips:
    """Pip candidates of 1.3-15 px radius (dice of about 15-90 px)."""
    return find_pips(bgr, kernel=PIP_KERNEL, threshold=40.0, min_area=5, max_area=700)


def _faces(bgr: np.ndarray, pips: Pips) -> list[np.ndarray]:
    """Groups of pip indices joined by pairs that lie on one face (connected components)."""
    n = len(pips)
    if n == 0:
        return []
    i, j = _candidate_pairs(pips)
    joined = _same_face(bgr, pips, i, j)
    parent = np.arange(n)

    def root(k: int) -> int:
        """Union-find root with path halving."""
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in zip(i[joined].tolist(), j[joined].tolist()):
        parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for k in range(n):
        groups.setdefault(root(k), []).append(k)
    return [np.array(g) for g in groups.values()]


def _candidate_pairs(pips: Pips) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of pips close enough, alike enough in size and polarity, to share a face."""
    xy, r = pips.xy, pips.radius
    d = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2)
    rmean = (r[:, None] + r[None, :]) / 2
    ratio = np.maximum(r[:, None], r[None, :]) / np.minimum(r[:, None], r[None, :])
    same = pips.polarity[:, None] == pips.polarity[None, :]
    # Opposite corners of a face are 2.8 grid steps apart; a step is at most ~4.5 pip radii.
    ok = same & (d < 12.0 * rmean) & (ratio < 1.8) & (d > 2.0 * rmean)
    return np.nonzero(np.triu(ok, 1))


_PATH = np.linspace(0.0, 1.0, 9, dtype=np.float32)[None, :, None]


def _same_face(bgr: np.ndarray, pips: Pips, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """For each pair: True when only body colour lies on the straight path between the two pips."""
    if len(i) == 0:
        return np.zeros(0, bool)
    contrast = np.minimum(pips.contrast[i], pips.contrast[j])
    body = (pips.body[i] + pips.body[j]) / 2
    alike = np.linalg.norm(pips.body[i] - pips.body[j], axis=1) <= 0.4 * contrast
    a, b = pips.xy[i], pips.xy[j]
    unit = (b - a) / np.linalg.norm(b - a, axis=1)[:, None]
    start = a + unit * (1.5 * pips.radius[i] + 0.5)[:, None]
    end = b - unit * (1.5 * pips.radius[j] + 0.5)[:, None]
    values = sample(bgr, start[:, None, :] + _PATH * (end - start)[:, None, :])
    worst = np.linalg.norm(values - body[:, None, :], axis=2).max(axis=1)
    # Pips so close that nothing lies between their rims are joined when their bodies agree.
    touching = np.sum((end - start) * unit, axis=1) <= 0
    return alike & (touching | (worst < np.clip(0.3 * contrast, 20.0, 60.0)))


@dataclass(frozen=True)
class _Face:
    """A face found: its pips (indices into the image's pips), value, centre, grid step, turn, fit error."""

    pips: tuple[int, ...]
    value: int
    centre: tuple[float, float]
    step: float
    angle: float
    error: float

    @property
    def size(self) -> float:
        """The face's side in pixels."""
        return 2.0 * HALF_SIDE * self.step


def _candidate_faces(bgr: np.ndarray, pips: Pips) -> list[_Face]:
    """Every face the pip groups hold: fitted layouts of 2-6 pips, and lone pips that look like ones."""
    faces: list[_Face] = []
    lone: list[int] = []
    for group in _faces(bgr, pips):
        fits, left = fit_faces(pips.xy[group], pips.radius[group], pips.roundness[group])
        for fit in fits:
            members = tuple(int(group[m]) for m in fit.members)
            faces.append(_Face(members, fit.value, fit.centre, fit.step, fit.angle, fit.error))
        lone.extend(int(group[m]) for m in left)
    steps = [f.step / float(np.mean(pips.radius[list(f.pips)])) for f in faces]
    # A one's pip is usually bigger than the others; its face is ~2.9 of its radius per grid step.
    ratio = float(np.median(steps)) * 0.8 if steps else 2.9
    for k in lone:
        if _lone_pip_is_die(bgr, pips, k):
            x, y = pips.xy[k]
            faces.append(_Face((k,), 1, (float(x), float(y)), float(pips.radius[k]) * ratio, 0.0, 0.2))
    return faces


def _frontal_faces(pips: Pips, faces: list[_Face]) -> list[_Face]:
    """Drop faces that are side faces of a die next to them (seen at an angle), or that overlap one."""
    # Sizes measured from several pips are better than a one's (guessed from its pip).
    measured = [f.size for f in faces if f.value > 1] or [f.size for f in faces]
    typical = float(np.median(measured)) if measured else 0.0
    # Side faces are foreshortened: their pips are flatter (and smaller) than the top face's.
    round_ = [float(np.mean(pips.roundness[list(f.pips)])) for f in faces]
    # Under light from above the top face is also the brightest face of a die.
    luma = [float(np.mean(pips.body[list(f.pips)] @ _LUMA)) / 255.0 for f in faces]
    # The roundness of small pips is noise, so brightness decides more between faces of small pips.
    radius = [float(np.mean(pips.radius[list(f.pips)])) for f in faces]
    order = sorted(range(len(faces)), key=lambda k: -(round_[k] + luma[k] * float(np.clip((4.5 - radius[k]) / 3.0, 0.0, 0.5))))
    kept: list[int] = []
    for k in order:
        if all(not _side_of(faces[k], round_[k], faces[m], round_[m], typical) for m in kept):
            kept.append(k)
    return [faces[k] for k in sorted(kept)]


_LUMA = np.array([0.114, 0.587, 0.299], np.float32)


def _side_of(face: _Face, roundness: float, top: _Face, top_roundness: float, typical: float) -> bool:
    """True when `face` cannot be a die's top face next to the (rounder) face `top`."""
    reach = typical or max(face.size, top.size)
    wide = max(reach, face.size, top.size)
    distance = float(np.hypot(face.centre[0] - top.centre[0], face.centre[1] - top.centre[1]))
    # Top faces of two dice lie a die's side apart at least; a side face is nearer, and flatter.
    return distance < 0.85 * reach or (distance < 1.4 * wide and roundness < top_roundness - 0.15)


def _lone_pip_is_die(bgr: np.ndarray, pips: Pips, k: int) -> bool:
    """True when a pip with no partner sits in the middle of a plain face (a one), not on clutter."""
    if pips.roundness[k] < 0.6:
        return False
    r = pips.radius[k]
    tolerance = float(np.clip(0.3 * pips.contrast[k], 20.0, 60.0))
    inner = sample(bgr, pips.xy[k] + _RING16 * (2.5 * r + 1.5))
    if float(np.percentile(np.linalg.norm(inner - pips.body[k], axis=1), 85)) >= tolerance:
        return False
    # A one's face ends about 5 pip radii out; a dot on a wide plain surface is no die.
    outer = sample(bgr, np.concatenate([pips.xy[k] + _RING16 * (f * r + 2.0) for f in (6.0, 7.5)]))
    return float(np.mean(np.linalg.norm(outer - pips.body[k], axis=1) > EDGE_STEP)) > 0.25


_RING16 = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)], np.float32)


def _reading(bgr: np.ndarray, pips: Pips, face: _Face, profile: ColourProfile,
             field: np.ndarray | None) -> DieReading:
    """The die reading of one face: colour from the body around its pips, confidence from the fit."""
    members = list(face.pips)
    body = np.median(pips.body[members], axis=0)
    table = _table_at(field, bgr.shape, face.centre) if field is not None else None
    colour_name, colour_conf = profile.classify(body, table)
    fit = 1.0 - min(1.0, face.error / TOLERANCE)
    confidence = (0.5 + 0.5 * fit) * (0.6 + 0.4 * colour_conf)
    return DieReading(
        x=face.centre[0], y=face.centre[1], size=face.size, angle=face.angle,
        colour=colour_name, value=face.value, confidence=float(np.clip(confidence, 0.0, 1.0)),
    )


def die_colours(image: np.ndarray, die: DieReading) -> tuple[np.ndarray, np.ndarray]:
    """The BGR body colour of a die read in `image` and of the table just around it (for calibration)."""
    bgr = _as_bgr(image)
    if bgr is None:
        raise ValueError("die_colours needs a non-empty colour or gray image.")
    turn = np.radians(die.angle + np.array([0.0, 90.0, 180.0, 270.0]))
    # Between the edge pips and the face's edge (pips sit ~0.26 of the side from the centre).
    spokes = np.stack([np.cos(turn), np.sin(turn)], axis=1) * (0.43 * die.size)
    body = np.median(sample(bgr, np.array([die.x, die.y], np.float32) + spokes), axis=0)
    return body, _table_at(table_field(bgr), bgr.shape, (die.x, die.y))


# The table field is the frame shrunk this many times, then median-filtered (dice vanish in it).
FIELD_SHRINK = 16


def table_field(bgr: np.ndarray) -> np.ndarray:
    """The table's colour over the frame, without the dice: a coarse median image of the light."""
    h, w = bgr.shape[:2]
    small = cv2.resize(bgr, (max(1, w // FIELD_SHRINK), max(1, h // FIELD_SHRINK)), interpolation=cv2.INTER_AREA)
    return cv2.medianBlur(small, 5) if min(small.shape[:2]) >= 5 else small


def _table_at(field: np.ndarray, shape: tuple[int, ...], centre: tuple[float, float]) -> np.ndarray:
    """The table's colour at a point of the frame, from the table field."""
    fh, fw = field.shape[:2]
    x = int(np.clip(centre[0] * fw / shape[1], 0, fw - 1))
    y = int(np.clip(centre[1] * fh / shape[0], 0, fh - 1))
    return field[y, x].astype(np.float32)


def _rescaled(reading: DieReading, scale: float) -> DieReading:
    """The reading in the pixels of the original image."""
    if scale == 1.0:
        return reading
    return DieReading(
        x=reading.x / scale, y=reading.y / scale, size=reading.size / scale, angle=reading.angle,
        colour=reading.colour, value=reading.value, confidence=reading.confidence,
    )

"""Pip finding for the dice reader: small round spots whose colour differs from a uniform surround.

A pip is found in any colour channel, darker (black-hat) or lighter (top-hat) than what a
morphological closing/opening of that channel puts in its place, so black pips on yellow, red pips
on blue and white pips on black all show up in one map.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

DARK, LIGHT = 0, 1

# Ring samples around a pip, as unit offsets (16 directions).
_ANGLES = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
_RING = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1).astype(np.float32)


@dataclass(frozen=True)
class Pips:
    """Pip candidates of one image as parallel arrays (pixels of the working image)."""

    xy: np.ndarray  # (n, 2) centres
    radius: np.ndarray  # (n,) equivalent-disc radius
    polarity: np.ndarray  # (n,) DARK or LIGHT (in brightness)
    body: np.ndarray  # (n, 3) BGR colour of the surround
    colour: np.ndarray  # (n, 3) BGR colour of the pip
    contrast: np.ndarray  # (n,) colour distance pip - surround
    roundness: np.ndarray  # (n,) short/long side of the blob's box, 1 for a disc
    spread: np.ndarray  # (n,) spread of the surround relative to the contrast

    def __len__(self) -> int:
        """Number of pips."""
        return len(self.radius)

    def take(self, keep: np.ndarray) -> "Pips":
        """Return the pips selected by a boolean mask or index array."""
        return Pips(*(getattr(self, f)[keep] for f in self.__dataclass_fields__))


def sample(image: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Pixel values at float positions (nearest pixel, clipped to the image), as float32."""
    h, w = image.shape[:2]
    x = np.rint(xy[..., 0]).astype(np.intp)
    y = np.rint(xy[..., 1]).astype(np.intp)
    # In place, by ufunc: np.clip's wrapper costs twice the clipping on these small arrays.
    np.minimum(np.maximum(x, 0, out=x), w - 1, out=x)
    np.minimum(np.maximum(y, 0, out=y), h - 1, out=y)
    return image[y, x].astype(np.float32)


def spot_map(bgr: np.ndarray, kernel: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel strength of small dark spots and of small light spots, over all channels."""
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel, kernel))
    if bgr.shape[0] * bgr.shape[1] < PLANE_PIXELS:
        dark = planes(cv2.morphologyEx(bgr, cv2.MORPH_BLACKHAT, square))
        light = planes(cv2.morphologyEx(bgr, cv2.MORPH_TOPHAT, square))
        # cv2.max per channel: numpy's max over the last axis is ~20 times slower on big frames.
        return cv2.max(cv2.max(dark[0], dark[1]), dark[2]), cv2.max(cv2.max(light[0], light[1]), light[2])
    dark = light = None
    for channel in planes(bgr):
        d = cv2.morphologyEx(channel, cv2.MORPH_BLACKHAT, square)
        lit = cv2.morphologyEx(channel, cv2.MORPH_TOPHAT, square)
        dark = d if dark is None else cv2.max(dark, d, dst=dark)
        light = lit if light is None else cv2.max(light, lit, dst=light)
    return dark, light


def shrunk(image: np.ndarray, times: int) -> np.ndarray:
    """The image shrunk a whole number of `times` by area (each pixel about the mean of `times` x
    `times` of its pixels), its last rows and columns (fewer than `times`) left out."""
    # OpenCV averages 2x2 blocks fast (~0.1 ms a 640x640 frame); 4x4 blocks at once take 0.6 ms,
    # and a size that is no whole share of the frame (w // 2 of an odd width) ~4 ms, as it weighs
    # fractions of pixels. So an even factor is made of halvings (each rounds, by half a level at most).
    while times % 2 == 0:
        image, times = _shrunk_once(image, 2), times // 2
    return _shrunk_once(image, times) if times > 1 else image


def _shrunk_once(image: np.ndarray, times: int) -> np.ndarray:
    """The image shrunk `times` times by area in one step, its last rows and columns left out."""
    h, w = image.shape[:2]
    whole = image[:h - h % times, :w - w % times]
    return cv2.resize(whole, (w // times, h // times), interpolation=cv2.INTER_AREA)


def planes(image: np.ndarray) -> np.ndarray:
    """The channels of an image as one (channels, h, w) array, as cv2.split gives them."""
    # Split into one numpy block: the planes cv2.split makes itself cost 0.1-2 ms for a 960x540
    # frame as its fresh memory happened to be mapped (the region search's half-size frame), into
    # the block ~0.05 ms; a simulator frame ~5 % faster, photos the same.
    out = np.empty((image.shape[2],) + image.shape[:2], image.dtype)
    cv2.split(image, list(out))
    return out


# From this many pixels on, spot maps are made plane by plane: on a whole photo OpenCV's morphology
# of single planes is ~3 times faster than of interleaved BGR; on small crops it is the other way.
PLANE_PIXELS = 250_000


def _outlines(mask: np.ndarray, offset: tuple[int, int] = (0, 0)) -> list[np.ndarray]:
    """The outer outlines of a mask's blobs (at least 4 points), moved by `offset` pixels; also of
    the blobs inside a die-sized ring (a die's dark outline on a light card rings its pips)."""
    # Contours are ~40 times faster than connected components on a sparse full-HD mask; outlines of
    # every nesting level (RETR_CCOMP) cost seconds on a noisy one, so only die-sized rings are opened.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=offset)
    webs = [c for c in contours if len(c) >= RING_POINTS and max(cv2.boundingRect(c)[2:]) > RING_SIDE]
    if webs and WEBS_CLEARED:
        # A blob wider than any die is a web (the light between a cloth's dark dots, a mesh's wires):
        # what lies in its holes, dice and their pips too, has no outer outline. It is cleared, and
        # the outlines taken again.
        mask = mask.copy()
        for web in webs:
            cv2.floodFill(mask, None, (int(web[0, 0, 0]) - offset[0], int(web[0, 0, 1]) - offset[1]), 0, flags=8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=offset)
    out = [c for c in contours if len(c) >= 4]
    for ring in (c for c in contours if len(c) >= RING_POINTS):
        x, y, w, h = cv2.boundingRect(ring)
        if max(w, h) > RING_SIDE:
            continue
        box = mask[y - offset[1]:y - offset[1] + h, x - offset[0]:x - offset[0] + w]
        # Only a blob with holes (fewer pixels than its outline encloses) can ring anything: tracing
        # every long outline's box cost ~0.7 ms a full-HD frame.
        if cv2.countNonZero(box) < HOLLOW * cv2.contourArea(ring):
            out.extend(_inside_holes(box, (x, y)))
    return out


def _inside_holes(box: np.ndarray, offset: tuple[int, int]) -> list[np.ndarray]:
    """Outlines of the blobs inside the holes of the blob that fills a mask's box (every second
    nesting level below it); blobs of other outlines that reach into the box are left to those."""
    contours, hierarchy = cv2.findContours(box, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE, offset=offset)
    if hierarchy is None:
        return []
    parents = hierarchy[0][:, 3]
    whole = (offset[0], offset[1], box.shape[1], box.shape[0])
    out = []
    for k, contour in enumerate(contours):
        depth, top = 0, k
        while parents[top] >= 0:
            depth, top = depth + 1, parents[top]
        if depth >= 2 and depth % 2 == 0 and len(contour) >= 4 and cv2.boundingRect(contours[top]) == whole:
            out.append(contour)
    return out


# An outline this long (points) may ring a die's pips, if its box is at most RING_SIDE pixels wide.
RING_POINTS, RING_SIDE = 60, 240
# A blob wider than RING_SIDE is cleared from the mask and the mask's outlines taken again: on a
# patterned table the light between the marks is one web, and a die in its hole lost every pip
# (patterned benchmark, 36 frames: 210 -> 270 of 288 dice read, false dice 27 -> 20; both photo
# sets at every size and the simulator read the same, but for one photo at x2 whose 3 dice moved
# by a pixel).
WEBS_CLEARED = True
# A blob whose pixels are fewer than this share of the area its outline encloses has holes.
HOLLOW = 0.8


def _shapes(kept: list[np.ndarray], min_area: int, max_area: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre, pixel area and roundness (minor/major axis) of each round-enough blob outline."""
    if not kept:
        return np.zeros((0, 2), np.float32), np.zeros(0, np.float32), np.zeros(0, np.float32)
    n, m00, m10, m01, mu20, mu02, mu11, w, h = _polygon_moments(kept)
    # The outline runs through the border pixels' centres: add half the border back.
    pixels = m00 + n / 2.0 + 1.0
    ok = (np.minimum(w, h) >= 0.33 * np.maximum(w, h)) & (m00 > 0) & (pixels >= min_area) & (pixels <= max_area)
    ok &= pixels >= 0.45 * w * h
    safe = np.where(ok, m00, 1.0)
    # The half-pixel border left out of the outline widens both axes a little.
    a, b, c = mu20 / safe + 0.3, mu02 / safe + 0.3, mu11 / safe
    spread = np.sqrt((a - b) * (a - b) / 4 + c * c)
    roundness = np.sqrt(np.maximum((a + b) / 2 - spread, 0.0) / np.maximum((a + b) / 2 + spread, 1e-9))
    xy = np.stack([m10 / safe, m01 / safe], axis=1)
    return xy[ok].astype(np.float32), pixels[ok].astype(np.float32), roundness[ok].astype(np.float32)


def _polygon_moments(contours: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Per closed outline, at once (as cv2.moments does one by one, by Green's formula): point count,
    area, first moments, central second moments, and bounding-box width and height."""
    counts = np.array([len(c) for c in contours])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    points = np.concatenate(contours).reshape(-1, 2).astype(np.float64)
    following = np.arange(1, len(points) + 1)
    following[starts + counts - 1] = starts  # each outline closes on its first point
    x, y = points[:, 0], points[:, 1]
    x1, y1 = x[following], y[following]
    cross = x * y1 - x1 * y
    m00 = np.add.reduceat(cross, starts) / 2.0
    m10 = np.add.reduceat(cross * (x + x1), starts) / 6.0
    m01 = np.add.reduceat(cross * (y + y1), starts) / 6.0
    m20 = np.add.reduceat(cross * (x * x + x * x1 + x1 * x1), starts) / 12.0
    m02 = np.add.reduceat(cross * (y * y + y * y1 + y1 * y1), starts) / 12.0
    m11 = np.add.reduceat(cross * (2 * x * y + x * y1 + x1 * y + 2 * x1 * y1), starts) / 24.0
    # Outlines may run either way round: the area is positive as cv2.moments gives it.
    sign = np.where(m00 < 0, -1.0, 1.0)
    m00, m10, m01, m20, m02, m11 = (sign * v for v in (m00, m10, m01, m20, m02, m11))
    safe = np.where(m00 != 0, m00, 1.0)
    cx, cy = m10 / safe, m01 / safe
    w = np.maximum.reduceat(x, starts) - np.minimum.reduceat(x, starts) + 1
    h = np.maximum.reduceat(y, starts) - np.minimum.reduceat(y, starts) + 1
    return counts, m00, m10, m01, m20 - cx * m10, m02 - cy * m01, m11 - cx * m01, w, h


def find_pips(bgr: np.ndarray, kernel: int, threshold: float, min_area: int, max_area: int,
              regions: list[tuple[int, int, int, int]] | None = None) -> Pips:
    """Find pip candidates in a BGR image: round spots, darker or lighter than a uniform surround;
    only inside `regions` (x, y, w, h) when given, in the image's pixels."""
    h, w = bgr.shape[:2]
    outlines: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    for x, y, rw, rh in regions or [(0, 0, w, h)]:
        maps = spot_map(bgr[y:y + rh, x:x + rw], kernel)
        for polarity, strength in ((DARK, maps[0]), (LIGHT, maps[1])):
            outlines[polarity].extend(_outlines(_pip_mask(strength, threshold), (x, y)))
    # Every region's outlines are measured in one pass: per-region numpy calls cost more than the maps.
    found = [_blobs(bgr, outlines[polarity], polarity, threshold, min_area, max_area) for polarity in (DARK, LIGHT)]
    return Pips(*(np.concatenate([getattr(p, f) for p in found]) for f in Pips.__dataclass_fields__))


def _pip_mask(strength: np.ndarray, threshold: float) -> np.ndarray:
    """Pixels of a spot-strength map that are strong and near their local peak."""
    # Keep pixels near their local peak, so that neighbouring pips of a six do not merge.
    peak = cv2.dilate(strength, _PEAK)
    floor = cv2.max(cv2.convertScaleAbs(peak, alpha=0.7), float(threshold))
    return cv2.compare(strength, floor, cv2.CMP_GT)


_PEAK = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))


def _blobs(bgr: np.ndarray, outlines: list[np.ndarray], polarity: int, threshold: float, min_area: int,
           max_area: int) -> Pips:
    """Round blobs of one polarity, from their outlines, on a uniform surround."""
    xy, area, roundness = _shapes(outlines, min_area, max_area)
    keep = roundness > 0.3
    xy, area, roundness = xy[keep], area[keep], roundness[keep]
    radius = np.sqrt(area / np.pi)
    centre = sample(bgr, xy)
    ring = sample(bgr, xy[:, None, :] + _RING[None, :, :] * (1.5 * radius[:, None, None] + 1.0))
    # Median and 45th percentile of the 16 ring samples, by sorting (numpy's are slow per call).
    body = np.sort(ring, axis=1)[:, 7:9].mean(axis=1)
    contrast = np.linalg.norm(centre - body, axis=1)
    ring_dist = np.linalg.norm(ring - body[:, None, :], axis=2)
    spread = np.sort(ring_dist, axis=1)[:, 7] / np.maximum(contrast, 1.0)
    good = (contrast > threshold) & (spread < 0.5)
    n = int(good.sum())
    return Pips(
        xy=xy[good], radius=radius[good], polarity=np.full(n, polarity, np.int8), body=body[good],
        colour=centre[good], contrast=contrast[good], roundness=roundness[good], spread=spread[good],
    )

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
    x = np.clip(np.rint(xy[..., 0]).astype(np.intp), 0, w - 1)
    y = np.clip(np.rint(xy[..., 1]).astype(np.intp), 0, h - 1)
    return image[y, x].astype(np.float32)


def spot_map(bgr: np.ndarray, kernel: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel strength of small dark spots and of small light spots, over all channels."""
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel, kernel))
    dark = cv2.split(cv2.morphologyEx(bgr, cv2.MORPH_BLACKHAT, square))
    light = cv2.split(cv2.morphologyEx(bgr, cv2.MORPH_TOPHAT, square))
    # cv2.max per channel: numpy's max over the last axis is ~20 times slower on big frames.
    return cv2.max(cv2.max(dark[0], dark[1]), dark[2]), cv2.max(cv2.max(light[0], light[1]), light[2])


def _shapes(mask: np.ndarray, min_area: int, max_area: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre, pixel area and roundness (minor/major axis) of each round-enough blob of a mask."""
    # Contours are ~40 times faster than connected components on a sparse full-HD mask.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    xy, area, roundness = [], [], []
    for contour in contours:
        n = len(contour)
        if n < 4:
            continue
        x, y, w, h = cv2.boundingRect(contour)
        if min(w, h) < 0.33 * max(w, h):
            continue
        m = cv2.moments(contour)
        # The outline runs through the border pixels' centres: add half the border back.
        pixels = m["m00"] + n / 2.0 + 1.0
        if m["m00"] <= 0 or not min_area <= pixels <= max_area or pixels < 0.45 * w * h:
            continue
        # The half-pixel border left out of the outline widens both axes a little.
        a, b, c = m["mu20"] / m["m00"] + 0.3, m["mu02"] / m["m00"] + 0.3, m["mu11"] / m["m00"]
        spread = ((a - b) * (a - b) / 4 + c * c) ** 0.5
        xy.append((m["m10"] / m["m00"], m["m01"] / m["m00"]))
        area.append(pixels)
        roundness.append((max((a + b) / 2 - spread, 0.0) / max((a + b) / 2 + spread, 1e-9)) ** 0.5)
    return (np.array(xy, np.float32).reshape(-1, 2), np.array(area, np.float32),
            np.array(roundness, np.float32))


def find_pips(bgr: np.ndarray, kernel: int, threshold: float, min_area: int, max_area: int) -> Pips:
    """Find pip candidates in a BGR image: round spots, darker or lighter than a uniform surround."""
    dark, light = spot_map(bgr, kernel)
    found = [_blobs(bgr, strength, polarity, threshold, min_area, max_area)
             for strength, polarity in ((dark, DARK), (light, LIGHT))]
    return Pips(*(np.concatenate([getattr(p, f) for p in found]) for f in Pips.__dataclass_fields__))


def _blobs(bgr: np.ndarray, strength: np.ndarray, polarity: int, threshold: float, min_area: int,
           max_area: int) -> Pips:
    """Round blobs of one polarity in a spot-strength map, on a uniform surround."""
    # Keep pixels near their local peak, so that neighbouring pips of a six do not merge.
    peak = cv2.dilate(strength, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)))
    floor = cv2.max(cv2.convertScaleAbs(peak, alpha=0.7), float(threshold))
    mask = cv2.compare(strength, floor, cv2.CMP_GT)
    xy, area, roundness = _shapes(mask, min_area, max_area)
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

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
    dark = cv2.morphologyEx(bgr, cv2.MORPH_BLACKHAT, square)
    light = cv2.morphologyEx(bgr, cv2.MORPH_TOPHAT, square)
    return dark.max(axis=2), light.max(axis=2)


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
    mask = ((strength > threshold) & (strength.astype(np.uint16) * 10 > peak.astype(np.uint16) * 7)).astype(np.uint8)
    count, _, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float32)
    bw = stats[1:, cv2.CC_STAT_WIDTH].astype(np.float32)
    bh = stats[1:, cv2.CC_STAT_HEIGHT].astype(np.float32)
    xy = centroids[1:].astype(np.float32)
    fill = area / (bw * bh)
    roundness = np.minimum(bw, bh) / np.maximum(bw, bh)
    # A disc fills pi/4 of its box; a tilted ellipse less, but a pip never under ~0.45.
    keep = (area >= min_area) & (area <= max_area) & (fill > 0.45) & (roundness > 0.33)
    xy, area, roundness = xy[keep], area[keep], roundness[keep]
    radius = np.sqrt(area / np.pi)
    centre = sample(bgr, xy)
    ring = sample(bgr, xy[:, None, :] + _RING[None, :, :] * (1.6 * radius[:, None, None] + 1.0))
    body = np.median(ring, axis=1)
    contrast = np.linalg.norm(centre - body, axis=1)
    ring_dist = np.linalg.norm(ring - body[:, None, :], axis=2)
    spread = np.percentile(ring_dist, 70, axis=1) / np.maximum(contrast, 1.0)
    good = (contrast > threshold) & (spread < 0.5)
    n = int(good.sum())
    return Pips(
        xy=xy[good], radius=radius[good], polarity=np.full(n, polarity, np.int8), body=body[good],
        colour=centre[good], contrast=contrast[good], roundness=roundness[good], spread=spread[good],
    )

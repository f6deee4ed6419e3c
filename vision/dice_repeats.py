"""Repeating tables: a place where the image repeats itself within a die's width, one step of a
pattern in two directions and back, is the table's pattern (a wire mesh, a perforated tray, a
dotted cloth), not a die.

A die's face repeats nowhere within its own width: its pips lie on a grid of at most three, its
edges and the table beyond them move with any shift. A pattern's marks repeat across the whole
table, so the patch at a false die's place matches the image one step of the pattern away, and
one step back, along two rows of marks. The reader's pip finder misses many marks of a fine mesh
(their surround is the next marks, not a plain body), so the marks it does find are too scattered
for rows of marks (vision.dice._lattice_pips) to hold them all; their image still repeats.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

# The patch tested is TEMPLATE face sides wide (most of a die's width, whatever its turn), scaled to
# SCALED pixels; it is compared with the image shifted up to REACH face sides, or REACH_MARKS of
# the frame's mark spacing where that is farther (a small false face on a coarser pattern), at
# most MOST_REACH patch widths (bounding the cost on a sparse cloth).
TEMPLATE, SCALED = 1.2, 24
# A place is also tested by patches of these narrower widths (face sides): a false face beside a
# die holds part of that die in its widest patch, which then repeats nowhere, while its middle is
# all pattern. Over the benchmark's 36 patterned tables (seeds 900-935), widths 1.2 alone left 17
# false dice, with 0.8 and 0.5 too 10 (mesh 9 -> 7, holes 5 -> 2, dots 3 -> 1), the same 275 of 288
# dice read right; 0.6 or 0.4 alone beside 1.2 left 10 and 13.
TEMPLATES_TRIED = (TEMPLATE, 0.8, 0.5)
REACH, REACH_MARKS, MOST_REACH = 1.5, 1.3, 2.0
# Shifts within CORE face sides of none only find the patch's own blur; a second direction lies at
# least APART degrees off the first; of near-equal matches the shorter step is taken (the best match
# less NEARER for a step as long as the reach): a lattice matches as well two steps along as one.
CORE, APART, NEARER = 0.2, 30.0, 0.1
# A place whose image matches itself this well one step away and back, two ways, and the two
# steps' sum away (normalised correlation), is a pattern. Over 72 simulated patterned tables
# (the benchmark's seeds 900-971) the 434 dice read matched at most 0.57, and 478 of the 536
# false dice on the patterns more than 0.8; every reading of both photo sets at x0.5, x1 and x2 at
# most 0.61 (of those 1,551 frames only 7 at x2 are checked: vision.dice.PATTERNS_CHECKED).
REPEATS = 0.8
# A patch this flat (grey levels' spread, less their mean over SMOOTH of the patch's width) shows
# nothing to repeat. That mean takes out slopes of light (one matches itself at every shift); over
# the mesh frames of the tests' seeds 0-23, a mean over 0.3 of the width left 40 false dice, over
# 0.5, 0.9 and 1.3 of it 42, 53 and 56.
FLAT, SMOOTH = 2.0, 0.3


def repeats(gray: np.ndarray, centre: tuple[float, float], face_side: float, mark_spacing: float = 0.0,
            template_sides: float = TEMPLATE) -> float:
    """How well the image around a place (a die's face `face_side` px wide) matches itself one step
    of a pattern away and back, along two directions, and both steps away: the least of those
    correlations (-1..1; 0 for a place with nothing to repeat). `mark_spacing`: the frame's
    pattern marks' spacing (px), 0 if unknown; `template_sides`: the patch's width in face sides."""
    if not all(math.isfinite(v) for v in (*centre, face_side, mark_spacing)) or face_side < 1.0:
        return 0.0  # no place, or a face of less than a pixel: nothing to compare
    scale = SCALED / (template_sides * face_side)
    side = SCALED | 1
    # At least REACH face sides: 30 px at this scale.
    reach = int(round(min(max(REACH * face_side, REACH_MARKS * mark_spacing) * scale, MOST_REACH * side)))
    # The view holds twice the reach (and a pixel) about the patch: the steps are looked for within
    # the reach, their way back and their sum (up to twice as long) are then all in view.
    region, (tx, ty) = _region(gray, centre, scale, side + 4 * reach + 2, side)
    template = region[ty:ty + side, tx:tx + side]
    if float(template.std()) < FLAT:
        return 0.0
    steps = _steps(region, template, (tx, ty), reach, CORE * face_side * scale)
    if steps is None:
        return 0.0
    (fx, fy, first), (sx, sy, second) = steps
    # Back one step too: a die beside a pattern may match it one way by chance, not both ways; and a
    # lattice's steps add up (the shorter sum lands on a mark too), where dice strewn over a tray
    # that match a die's place two ways rarely stand.
    summed = min(((fx + sx, fy + sy), (fx - sx, fy - sy)), key=lambda e: math.hypot(*e))
    ends = [_match_near(region, template, (tx + x, ty + y)) for x, y in ((-fx, -fy), (-sx, -sy), summed)]
    return float(min([first, second] + [v for v in ends if v is not None]))


def _steps(region: np.ndarray, template: np.ndarray, at: tuple[int, int], reach: int,
           core: float) -> tuple[tuple[int, int, float], tuple[int, int, float]] | None:
    """The two steps (x, y, match) within `reach` px of the patch at `at` in the region where it
    matches best, the second APART degrees off the first, neither within `core` px; None if the
    region allows none."""
    tx, ty = at
    x0, y0 = max(tx - reach, 0), max(ty - reach, 0)
    window = region[y0:ty + reach + len(template), x0:tx + reach + len(template)]
    match = cv2.matchTemplate(window, template, cv2.TM_CCOEFF_NORMED)
    dx, dy, distance = _shifts(x0 - tx, y0 - ty, *match.shape)
    nearer = match - NEARER * distance / reach
    away = distance > core
    first = _best(nearer, away)
    if first is None:
        return None
    fx, fy = int(dx.flat[first]), int(dy.flat[first])
    across = away & (np.abs(dx * fx + dy * fy) < math.cos(math.radians(APART)) * distance * math.hypot(fx, fy))
    second = _best(nearer, across)
    if second is None:
        return None
    return (fx, fy, float(match.flat[first])), (int(dx.flat[second]), int(dy.flat[second]), float(match.flat[second]))


@functools.lru_cache(maxsize=64)
def _shifts(x0: int, y0: int, rows: int, columns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shifts (x, y) and their lengths over a match map of `rows` x `columns` whose first
    entry is the shift (x0, y0); the same few maps recur, so they are kept."""
    dy, dx = np.mgrid[y0:y0 + rows, x0:x0 + columns]
    shifts = (dx, dy, np.hypot(dx, dy))
    for array in shifts:
        array.setflags(write=False)
    return shifts


def _match_near(region: np.ndarray, template: np.ndarray, at: tuple[int, int]) -> float | None:
    """The best match of the template within a pixel of `at` (the corner it would cover) in the
    region (steps end between pixels), or None where that lies outside the region."""
    x, y = at
    side = len(template)
    if x < 1 or y < 1 or x + side + 1 > region.shape[1] or y + side + 1 > region.shape[0]:
        return None
    return float(cv2.matchTemplate(region[y - 1:y + side + 1, x - 1:x + side + 1], template, cv2.TM_CCOEFF_NORMED).max())


def patterned(bgr: np.ndarray, centres: list[tuple[float, float]], face_sides: list[float], mark_spacing: float) -> np.ndarray:
    """Which of these places (faces `face_sides` px wide) in a BGR frame lie on a repeating
    pattern rather than on a die (REPEATS)."""
    if not len(centres):
        return np.zeros(0, bool)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if bgr.ndim == 3 else bgr
    return np.array([any(repeats(gray, c, s, mark_spacing, t) > REPEATS for t in TEMPLATES_TRIED)
                     for c, s in zip(centres, face_sides)], bool)


def _region(gray: np.ndarray, centre: tuple[float, float], scale: float, side: int, inner: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The square `side` px around `centre`, the image scaled by `scale`, less its mean over
    SMOOTH of `inner` (a smooth slope of light matches itself at every shift); moved inside the frame where
    the frame is wide enough (replicated edges make stripes that repeat); and where in it the
    `inner` px square around `centre` begins (x, y), kept inside it."""
    h, w = gray.shape[:2]
    half = side / 2.0 / scale
    x, y = float(centre[0]), float(centre[1])
    cx = min(max(x, half), w - half) if w > 2 * half else x
    cy = min(max(y, half), h - half) if h > 2 * half else y
    warp = np.array([[scale, 0.0, side / 2.0 - scale * cx], [0.0, scale, side / 2.0 - scale * cy]])
    region = cv2.warpAffine(gray, warp, (side, side), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    box = int(SMOOTH * inner) | 1
    region -= cv2.blur(region, (box, box))
    corner = [int(round(side / 2.0 + scale * (v - c) - inner / 2.0)) for v, c in ((x, cx), (y, cy))]
    return region, (min(max(corner[0], 0), side - inner), min(max(corner[1], 0), side - inner))


def _best(match: np.ndarray, allowed: np.ndarray) -> int | None:
    """The flat index of the highest match among the allowed shifts, or None if none is allowed."""
    if not allowed.any():
        return None
    return int(np.where(allowed, match, -2.0).argmax())

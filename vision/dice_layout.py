"""Fitting die faces to a group of pips: which pips form one face, and what value that face shows.

The pips of a face sit on a 3x3 grid of step u around the face's centre. Any two pips that are
opposite corners of that grid fix the whole grid (centre, step, turn); a hypothesis is good when
every pip inside its face square sits on a grid point and the occupied points are a real layout
(1 to 6). Pips of a side face seen at an angle, or of a touching die, fall outside the square and
are left for another face.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Grid points of each value, in a frame where the hypothesis' diagonal runs (-1,-1) to (1,1).
_LAYOUTS: dict[frozenset, int] = {
    frozenset({(-1, -1), (1, 1)}): 2,
    frozenset({(-1, -1), (0, 0), (1, 1)}): 3,
    frozenset({(-1, -1), (1, 1), (-1, 1), (1, -1)}): 4,
    frozenset({(-1, -1), (1, 1), (-1, 1), (1, -1), (0, 0)}): 5,
    frozenset({(-1, -1), (1, 1), (-1, 1), (1, -1), (-1, 0), (1, 0)}): 6,
    frozenset({(-1, -1), (1, 1), (-1, 1), (1, -1), (0, -1), (0, 1)}): 6,
}
# A face's half side in grid steps (pip offset ~0.26 of the side), and how far off a grid point a
# pip may sit (perspective, pip-finding noise) as a fraction of the step.
HALF_SIDE = 1.9
INSIDE = 1.6
TOLERANCE = 0.45
# Step / pip radius of real dice: about 2.5 (big pips) to 4.5 (small pips).
STEP_PER_RADIUS = (1.0, 5.5)
# Largest size ratio of two pips of one face (blob sizes of small pips are noisy).
SIZE_RATIO = 1.45


@dataclass(frozen=True)
class FaceFit:
    """One face found in a pip group: its pips (indices into the group), value, centre, step, turn."""

    members: tuple[int, ...]
    value: int
    centre: tuple[float, float]
    step: float
    angle: float
    error: float


def fit_faces(xy: np.ndarray, radius: np.ndarray, weight: np.ndarray | None = None) -> tuple[list[FaceFit], list[int]]:
    """Split a group of pips into faces of 2-6 pips; returns the faces and the pips left over.

    `weight` says how much each pip counts (its roundness: the flattened pips of a side face seen
    at an angle count less), so the face explaining the most pip weight wins."""
    weight = np.ones(len(xy)) if weight is None else np.asarray(weight, np.float64)
    remaining = list(range(len(xy)))
    faces: list[FaceFit] = []
    while len(remaining) >= 2:
        best = _best_face(xy[remaining], radius[remaining], weight[remaining])
        if best is None:
            break
        members = tuple(remaining[k] for k in best.members)
        faces.append(FaceFit(members, best.value, best.centre, best.step, best.angle, best.error))
        remaining = [k for k in remaining if k not in members]
    return faces, remaining


def _best_face(xy: np.ndarray, radius: np.ndarray, weight: np.ndarray) -> FaceFit | None:
    """The face hypothesis that explains the most pip weight, all pips on grid points, or None."""
    if len(xy) == 2:
        return _two(xy, radius)
    i, j = _pairs(len(xy))
    diag = xy[j] - xy[i]
    length = np.hypot(diag[:, 0], diag[:, 1])
    step = length * (0.5 / np.sqrt(2.0))
    rmean = (radius[i] + radius[j]) * 0.5
    # Pips of one face are alike in size (a one's big pip never pairs with the small pips of a side).
    rr = radius[i] / radius[j]
    plausible = ((step > STEP_PER_RADIUS[0] * rmean) & (step < STEP_PER_RADIUS[1] * rmean)
                 & (rr < SIZE_RATIO) & (rr > 1.0 / SIZE_RATIO))
    keep = np.flatnonzero(plausible)
    if keep.size == 0:
        return None
    i, j, diag, step, rmean, length = i[keep], j[keep], diag[keep], step[keep], rmean[keep], length[keep]
    centre = (xy[i] + xy[j]) * 0.5
    c = np.cos(np.pi / 4) / length
    # The grid axes are the diagonal turned by -45 and +45 degrees, as columns of one matrix each.
    axes = np.empty((len(keep), 2, 2))
    axes[:, 0, 0] = c * (diag[:, 0] + diag[:, 1])
    axes[:, 1, 0] = c * (diag[:, 1] - diag[:, 0])
    axes[:, 0, 1] = c * (diag[:, 0] - diag[:, 1])
    axes[:, 1, 1] = c * (diag[:, 0] + diag[:, 1])
    q = np.matmul(xy[None, :, :] - centre[:, None, :], axes) / step[:, None, None]
    ratio = radius[None, :] / rmean[:, None]
    member = (np.abs(q).max(axis=2) < INSIDE) & (ratio > 1.0 / SIZE_RATIO) & (ratio < SIZE_RATIO)
    grid = np.clip(np.rint(q), -1, 1)
    error = np.where(member, np.abs(q - grid).max(axis=2), 0.0)
    good = error.max(axis=1) <= TOLERANCE
    e1 = axes[:, :, 0]
    # Each pip's grid point as a bit (0-8); a hypothesis' bits name its layout in one lookup.
    codes = ((grid[..., 0] + 1) * 3 + (grid[..., 1] + 1)).astype(np.int64)
    bits = np.where(member, np.left_shift(1, codes), 0)
    mask = np.bitwise_or.reduce(bits, axis=1)
    count = member.sum(axis=1)
    value = _VALUE_OF_MASK[mask]
    ok = good & (value > 0) & (_POPCOUNT[mask] == count)
    if not ok.any():
        return None
    score = np.where(ok, np.round((weight[None, :] * member).sum(axis=1), 3), -1.0)
    mean_error = error.sum(axis=1) / np.maximum(count, 1)
    top = np.nonzero(score == score.max())[0]
    p = int(top[np.argmin(mean_error[top])])
    members = np.nonzero(member[p])[0]
    angle = float(np.degrees(np.arctan2(e1[p, 1], e1[p, 0])) % 90.0)
    return FaceFit(tuple(int(m) for m in members), int(value[p]), (float(centre[p, 0]), float(centre[p, 1])),
                   float(step[p]), angle, float(mean_error[p]))


def _two(xy: np.ndarray, radius: np.ndarray) -> FaceFit | None:
    """Two pips alone: a two when they are alike and as far apart as a face's opposite corners."""
    (x0, y0), (x1, y1) = xy.tolist()
    r0, r1 = float(radius[0]), float(radius[1])
    step = float(np.hypot(x1 - x0, y1 - y0) * (0.5 / np.sqrt(2.0)))
    rmean = (r0 + r1) * 0.5
    if not (STEP_PER_RADIUS[0] * rmean < step < STEP_PER_RADIUS[1] * rmean and 1 / SIZE_RATIO < r0 / r1 < SIZE_RATIO):
        return None
    angle = float((np.degrees(np.arctan2(y1 - y0, x1 - x0)) - 45.0) % 90.0)
    return FaceFit((0, 1), 2, ((x0 + x1) / 2, (y0 + y1) / 2), step, angle, 0.0)


_PAIR_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """All index pairs (i < j) of n pips (cached)."""
    if n not in _PAIR_CACHE:
        _PAIR_CACHE[n] = np.triu_indices(n, 1)
    return _PAIR_CACHE[n]


def _mask_table() -> np.ndarray:
    """Value of each set of grid points (as a 9-bit mask), 0 for sets that are no face."""
    table = np.zeros(512, np.int64)
    for points, value in _LAYOUTS.items():
        table[sum(1 << ((gx + 1) * 3 + (gy + 1)) for gx, gy in points)] = value
    return table


_VALUE_OF_MASK = _mask_table()
_POPCOUNT = np.array([bin(m).count("1") for m in range(512)], np.int64)

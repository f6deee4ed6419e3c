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
TOLERANCE = 0.38
# Step / pip radius of real dice: about 2.5 (big pips) to 4.5 (small pips).
STEP_PER_RADIUS = (1.3, 5.5)
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
    n = len(xy)
    i, j = np.triu_indices(n, 1)
    diag = xy[j] - xy[i]
    length = np.linalg.norm(diag, axis=1)
    step = length / (2.0 * np.sqrt(2.0))
    rmean = (radius[i] + radius[j]) / 2.0
    # Pips of one face are alike in size (a one's big pip never pairs with the small pips of a side).
    alike = np.maximum(radius[i], radius[j]) < SIZE_RATIO * np.minimum(radius[i], radius[j])
    plausible = (step > STEP_PER_RADIUS[0] * rmean) & (step < STEP_PER_RADIUS[1] * rmean) & alike
    if not plausible.any():
        return None
    i, j, diag, step, rmean, length = i[plausible], j[plausible], diag[plausible], step[plausible], rmean[plausible], length[plausible]
    centre = (xy[i] + xy[j]) / 2.0
    unit = diag / length[:, None]
    # The grid axes are the diagonal turned by -45 and +45 degrees.
    c = np.cos(np.pi / 4)
    e1 = np.stack([c * (unit[:, 0] + unit[:, 1]), c * (unit[:, 1] - unit[:, 0])], axis=1)
    e2 = np.stack([c * (unit[:, 0] - unit[:, 1]), c * (unit[:, 0] + unit[:, 1])], axis=1)
    rel = xy[None, :, :] - centre[:, None, :]
    q = np.stack([np.einsum("pnk,pk->pn", rel, e1), np.einsum("pnk,pk->pn", rel, e2)], axis=2) / step[:, None, None]
    inside = np.max(np.abs(q), axis=2) < INSIDE
    size_ok = (radius[None, :] > rmean[:, None] / SIZE_RATIO) & (radius[None, :] < SIZE_RATIO * rmean[:, None])
    member = inside & size_ok
    grid = np.clip(np.rint(q), -1, 1)
    error = np.where(member, np.abs(q - grid).max(axis=2), 0.0)
    good = error.max(axis=1) <= TOLERANCE
    best: FaceFit | None = None
    best_key = (0.0, 0.0)
    for p in np.nonzero(good)[0]:
        members = np.nonzero(member[p])[0]
        points = [(int(g[0]), int(g[1])) for g in grid[p, members]]
        value = _LAYOUTS.get(frozenset(points)) if len(set(points)) == len(points) else None
        if value is None:
            continue
        err = float(error[p, members].mean())
        key = (round(float(weight[members].sum()), 3), -err)
        if best is None or key > best_key:
            best_key = key
            angle = float(np.degrees(np.arctan2(e1[p, 1], e1[p, 0])) % 90.0)
            best = FaceFit(tuple(int(m) for m in members), value, (float(centre[p, 0]), float(centre[p, 1])),
                           float(step[p]), angle, err)
    return best

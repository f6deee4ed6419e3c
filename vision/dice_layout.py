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
    weight = np.ones(len(xy)) if weight is None else weight
    return fit_groups(xy, radius, weight, [np.arange(len(xy))])[0]


def fit_groups(xy: np.ndarray, radius: np.ndarray, weight: np.ndarray,
               groups: list[np.ndarray]) -> list[tuple[list[FaceFit], list[int]]]:
    """fit_faces for many groups of pips (index arrays into xy) at once: each group's faces (members
    as indices into the group) and leftover pips. Groups are fitted in a few numpy passes, one for
    all groups of 3 to PADDED pips and one for each larger size (a full-HD table holds some 50
    groups; one pass per group cost more than the fitting)."""
    # A pip far from every other pads the smaller groups of a pass to its largest: it pairs with
    # none, lies in no face's square and weighs nothing.
    xy = np.vstack([np.asarray(xy, np.float64).reshape(-1, 2), [[_FAR, _FAR]]])
    radius, weight = (np.append(np.asarray(a, np.float64), value) for a, value in ((radius, 1.0), (weight, 0.0)))
    results: list[tuple[list[FaceFit], list[int]]] = [([], []) for _ in groups]
    remaining = {g: list(range(len(group))) for g, group in enumerate(groups)}
    while remaining:
        passes: dict[int, list[int]] = {}
        for g, left in remaining.items():
            passes.setdefault(_padded_size(len(left)), []).append(g)
        for n, ids in passes.items():
            if n < 2:
                fits = [None] * len(ids)
            else:
                pips = np.full((len(ids), max(len(remaining[g]) for g in ids)), len(xy) - 1)
                for row, g in zip(pips, ids):
                    row[:len(remaining[g])] = groups[g][remaining[g]]
                fits = _best_faces(xy[pips], radius[pips], weight[pips])
            for g, best in zip(ids, fits):
                left = remaining[g]
                if best is None:
                    results[g][1].extend(left)
                    del remaining[g]
                    continue
                members = tuple(left[k] for k in best.members)
                results[g][0].append(FaceFit(members, best.value, best.centre, best.step, best.angle, best.error))
                remaining[g] = [k for k in left if k not in members]
    return results


def _padded_size(pips: int) -> int:
    """The pass a group of this many pips is fitted in: PADDED for 3 to PADDED pips, BIG for more
    (each group padded to its pass's largest), a pass of its own for 0, 1 or 2."""
    return pips if pips < 3 else PADDED if pips <= PADDED else BIG


# Groups of 3 to PADDED pips are fitted in one pass, padded to the largest: a pass costs ~0.25 ms
# however few its groups (numpy calls on small arrays), and a full-HD table made ~13 passes of 3-7
# pips (fit_groups 4.1 -> 3.1 ms a simulator frame, 1.2 -> 0.9 ms a nell-byler photo). Groups of
# more pips (touching dice) share a pass of their own: a simulator frame's dozen sizes of 8-27 pips
# had made a pass each, every round. Sums over a hypothesis' pips are added one pip after another
# (_row_sums), so that padding leaves every sum to its last bit.
PADDED = 7
BIG = PADDED + 1
_FAR = 1e9


def _best_faces(xy: np.ndarray, radius: np.ndarray, weight: np.ndarray) -> list[FaceFit | None]:
    """For each of G groups of n pips (xy G x n x 2, radius and weight G x n): the face hypothesis
    that explains the most pip weight, all pips on grid points, or None."""
    if xy.shape[1] == 2:
        return [_two(p, r) for p, r in zip(xy, radius)]
    i, j = _pairs(xy.shape[1])
    diag = xy[:, j] - xy[:, i]  # (G, pairs, 2): each pair of pips as opposite corners of a face
    length = np.hypot(diag[..., 0], diag[..., 1])
    step = length * (0.5 / np.sqrt(2.0))
    rmean = (radius[:, i] + radius[:, j]) * 0.5
    # Pips of one face are alike in size (a one's big pip never pairs with the small pips of a side).
    rr = radius[:, i] / radius[:, j]
    plausible = ((step > STEP_PER_RADIUS[0] * rmean) & (step < STEP_PER_RADIUS[1] * rmean)
                 & (rr < SIZE_RATIO) & (rr > 1.0 / SIZE_RATIO))
    g, h = np.nonzero(plausible)  # hypotheses: group and pair
    out: list[FaceFit | None] = [None] * len(xy)
    if g.size == 0:
        return out
    diag, step, rmean, length = diag[g, h], step[g, h], rmean[g, h], length[g, h]
    centre = (xy[g, i[h]] + xy[g, j[h]]) * 0.5
    c = np.cos(np.pi / 4) / length
    # The grid axes are the diagonal turned by -45 and +45 degrees, as columns of one matrix each.
    axes = np.empty((len(g), 2, 2))
    axes[:, 0, 0] = c * (diag[:, 0] + diag[:, 1])
    axes[:, 1, 0] = c * (diag[:, 1] - diag[:, 0])
    axes[:, 0, 1] = c * (diag[:, 0] - diag[:, 1])
    axes[:, 1, 1] = c * (diag[:, 0] + diag[:, 1])
    q = np.matmul(xy[g] - centre[:, None, :], axes) / step[:, None, None]
    ratio = radius[g] / rmean[:, None]
    member = (np.abs(q).max(axis=2) < INSIDE) & (ratio > 1.0 / SIZE_RATIO) & (ratio < SIZE_RATIO)
    grid = np.clip(np.rint(q), -1, 1)
    error = np.where(member, np.abs(q - grid).max(axis=2), 0.0)
    good = error.max(axis=1) <= TOLERANCE
    # Each pip's grid point as a bit (0-8); a hypothesis' bits name its layout in one lookup.
    codes = ((grid[..., 0] + 1) * 3 + (grid[..., 1] + 1)).astype(np.int64)
    bits = np.where(member, np.left_shift(1, codes), 0)
    mask = np.bitwise_or.reduce(bits, axis=1)
    count = member.sum(axis=1)
    value = _VALUE_OF_MASK[mask]
    ok = good & (value > 0) & (_POPCOUNT[mask] == count)
    if not ok.any():
        return out
    score = np.round(_row_sums(weight[g] * member), 3)
    mean_error = _row_sums(error) / np.maximum(count, 1)
    # Per group: the most weight explained, then the least mean error, then the first pair.
    ranked = np.flatnonzero(ok)
    ranked = ranked[np.lexsort((ranked, mean_error[ranked], -score[ranked], g[ranked]))]
    first = ranked[np.r_[True, g[ranked][1:] != g[ranked][:-1]]]
    for p in first.tolist():
        e1 = axes[p, :, 0]
        angle = float(np.degrees(np.arctan2(e1[1], e1[0])) % 90.0)
        out[int(g[p])] = FaceFit(tuple(np.flatnonzero(member[p]).tolist()), int(value[p]),
                                 (float(centre[p, 0]), float(centre[p, 1])), float(step[p]), angle,
                                 float(mean_error[p]))
    return out


def _row_sums(values: np.ndarray) -> np.ndarray:
    """Each row's sum, its numbers added left to right: the zeros a padded row ends in leave it
    exactly as it was, by construction (numpy may add eight numbers or more pairwise, in an order
    the row's length sets; on these hypotheses no reading was seen to move either way)."""
    total = values[:, 0].copy()
    for column in values.T[1:]:
        total += column
    return total


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

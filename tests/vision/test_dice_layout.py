"""Face fitting (vision/dice_layout.py), pip grouping, and the face scorer's training (vision/dice_scorer.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.dice_layout import fit_faces, fit_groups
from vision.dice_scorer import FEATURES, FaceScorer, train

GRID = {
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _face(value: int, centre=(100.0, 80.0), step=9.0, turn=0.0) -> np.ndarray:
    """Pip centres of a face turned by `turn` degrees."""
    c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
    points = np.array(GRID[value], float) * step
    return points @ np.array([[c, s], [-s, c]]) + np.array(centre)


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("turn", [0.0, 17.0, 45.0, 71.0])
def test_each_layout_is_fitted_at_any_turn(value, turn):
    xy = _face(value, turn=turn)
    faces, left = fit_faces(xy, np.full(len(xy), 3.0))
    assert left == [] and len(faces) == 1
    assert faces[0].value == value
    assert np.allclose(faces[0].centre, (100.0, 80.0), atol=0.5)
    assert faces[0].step == pytest.approx(9.0, rel=0.05)


def test_a_side_face_beside_the_top_is_left_out_of_the_top():
    top = _face(5)
    side = np.array([[85.0, 104.0], [115.0, 104.0]])  # flattened pips just past the bottom edge
    xy = np.vstack([top, side])
    radius = np.array([3.0] * 5 + [2.6, 2.6])
    weight = np.array([1.0] * 5 + [0.5, 0.5])
    faces, _ = fit_faces(xy, radius, weight)
    assert faces[0].value == 5 and set(faces[0].members) == {0, 1, 2, 3, 4}


def test_two_touching_dice_are_two_faces():
    xy = np.vstack([_face(4, centre=(100.0, 80.0)), _face(6, centre=(136.0, 80.0))])
    faces, left = fit_faces(xy, np.full(len(xy), 3.0))
    assert sorted(f.value for f in faces) == [4, 6] and left == []


def test_scattered_spots_are_no_face():
    xy = np.array([[0.0, 0.0], [13.0, 2.0], [5.0, 11.0], [21.0, 17.0]])
    faces, left = fit_faces(xy, np.full(4, 3.0))
    assert all(f.value == 2 for f in faces)  # at best pairs, never a 4


def test_scorer_learns_a_rule_and_round_trips():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, len(FEATURES)))
    y = (x[:, 6] + 0.5 * x[:, 12] > 0).astype(float)
    scorer = train(x, y, steps=400)
    accuracy = np.mean((scorer.probability(x) > 0.5) == (y > 0.5))
    assert accuracy > 0.95
    again = FaceScorer.from_dict(scorer.to_dict())
    assert np.allclose(again.probability(x[:5]), scorer.probability(x[:5]))
    with pytest.raises(ValueError, match="retrain"):
        FaceScorer.from_dict(dict(scorer.to_dict(), features=["something", "else"]))


def _scattered_group(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A group of pips: often a real face, turned and jittered, with stray pips around it."""
    rng = np.random.default_rng(seed)
    strays = rng.uniform(0, 60, (int(rng.integers(0, 8)), 2))
    if rng.random() < 0.7:
        value = int(rng.integers(2, 7))
        face = _face(value, (30.0, 30.0), rng.uniform(5, 9), rng.uniform(0, 360)) + rng.normal(0, 0.5, (value, 2))
        strays = np.vstack([face, strays])
    n = len(strays)
    return strays, rng.uniform(1.5, 2.5, n), rng.uniform(0.5, 1.0, n)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=8))
def test_groups_fitted_together_fit_as_each_alone(seeds):
    # The reader fits all of a frame's groups in a few batched passes, each padded to its largest
    # group; each group's faces must be those it gets fitted on its own, to the last bit, whatever
    # groups share the pass (a face's error feeds the face scorer).
    parts = [_scattered_group(seed) for seed in seeds]
    xy = np.concatenate([p[0] for p in parts] + [np.zeros((0, 2))])
    radius = np.concatenate([p[1] for p in parts] + [np.zeros(0)])
    weight = np.concatenate([p[2] for p in parts] + [np.zeros(0)])
    bounds = np.cumsum([0] + [len(p[0]) for p in parts])
    groups = [np.arange(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    together = fit_groups(xy, radius, weight, groups)
    for (alone_faces, alone_left), (faces, left), part in zip(
            (fit_faces(*p) for p in parts), together, parts):
        assert left == alone_left
        assert [(f.members, f.value) for f in faces] == [(f.members, f.value) for f in alone_faces]
        for f, g in zip(faces, alone_faces):
            assert [*f.centre, f.step, f.angle, f.error] == [*g.centre, g.step, g.angle, g.error]


@pytest.mark.parametrize("seed", range(3))
def test_big_groups_of_other_sizes_fitted_together_fit_as_each_alone(seed):
    # Groups of touching dice (8 pips or more) share one pass, each padded to the largest: each must
    # get every face it gets alone, to the last bit (a face's error feeds the face scorer).
    rng = np.random.default_rng(seed)
    parts = []
    for value, strays in ((5, 3), (6, 4), (6, 7), (4, 5), (5, 12)):
        face = _face(value, (30.0, 30.0), rng.uniform(6, 9), rng.uniform(0, 360)) + rng.normal(0, 0.6, (value, 2))
        # The strays first, so that a face's pips lie past the eighth place, where numpy's order of adding may differ.
        xy = np.vstack([rng.uniform(0, 60, (strays, 2)) + (60.0, 0.0), face])
        parts.append((xy, rng.uniform(1.5, 2.5, len(xy)), rng.uniform(0.5, 1.0, len(xy))))
    xy, radius, weight = (np.concatenate([p[k] for p in parts]) for k in range(3))
    bounds = np.cumsum([0] + [len(p[0]) for p in parts])
    together = fit_groups(xy, radius, weight, [np.arange(a, b) for a, b in zip(bounds[:-1], bounds[1:])])
    assert [len(p[0]) for p in parts] == [8, 10, 13, 9, 17]
    for (faces, left), part in zip(together, parts):
        alone_faces, alone_left = fit_faces(*part)
        assert faces and left == alone_left
        assert [(f.members, f.value, f.centre, f.step, f.angle, f.error) for f in faces] == \
            [(f.members, f.value, f.centre, f.step, f.angle, f.error) for f in alone_faces]


def _components_by_search(n: int, a: list[int], b: list[int]) -> list[list[int]]:
    """Connected components by plain depth-first search, in order of their first node."""
    links: dict[int, set[int]] = {k: set() for k in range(n)}
    for x, y in zip(a, b):
        links[x].add(y)
        links[y].add(x)
    seen: set[int] = set()
    out = []
    for k in range(n):
        if k in seen:
            continue
        stack, part = [k], set()
        while stack:
            m = stack.pop()
            if m not in part:
                part.add(m)
                stack.extend(links[m] - part)
        seen |= part
        out.append(sorted(part))
    return out


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))))
def test_pip_groups_are_the_connected_components(graph):
    from vision.dice import _components

    n, edges = graph
    a = np.array([x for x, _ in edges], np.intp)
    b = np.array([y for _, y in edges], np.intp)
    assert [g.tolist() for g in _components(n, a, b)] == _components_by_search(n, a.tolist(), b.tolist())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 10_000))
def test_near_pairs_are_every_pair_within_reach(n, seed):
    from vision.dice import _near_pairs

    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 200, n), 1).astype(np.float32)  # rounded: ties in x happen
    reach = rng.uniform(0, 60, n).astype(np.float32)
    i, j = _near_pairs(x, reach)
    # Each pair once, first index below the second; the pair is near from the one earlier in x.
    found = sorted(zip(i.tolist(), j.tolist()))
    assert all(a < b for a, b in found) and len(set(found)) == len(found)
    order = np.argsort(x, kind="stable")
    rank = np.empty(n, int)
    rank[order] = np.arange(n)
    expected = sorted((min(a, b), max(a, b)) for a in range(n) for b in range(n)
                      if rank[a] < rank[b] and x[b] < x[a] + reach[a])
    assert found == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60), st.integers(0, 10_000))
def test_candidate_pairs_are_those_of_the_whole_pair_table(n, seed):
    from vision.dice import _candidate_pairs
    from vision.dice_pips import Pips

    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 150, (n, 2)).astype(np.float32)
    r = rng.uniform(1.0, 6.0, n).astype(np.float32)
    pips = Pips(xy=xy, radius=r, polarity=rng.integers(0, 2, n).astype(np.int8), body=np.zeros((n, 3), np.float32),
                colour=np.zeros((n, 3), np.float32), contrast=np.ones(n, np.float32),
                roundness=np.ones(n, np.float32), spread=np.zeros(n, np.float32))
    d = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2)
    rmean = (r[:, None] + r[None, :]) / 2
    ratio = np.maximum(r[:, None], r[None, :]) / np.minimum(r[:, None], r[None, :])
    same = pips.polarity[:, None] == pips.polarity[None, :]
    table = np.nonzero(np.triu(same & (d < 12.0 * rmean) & (ratio < 1.8) & (d > 2.0 * rmean), 1))
    i, j = _candidate_pairs(pips)
    assert i.tolist() == table[0].tolist() and j.tolist() == table[1].tolist()

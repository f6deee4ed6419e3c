"""Face fitting (vision/dice_layout.py) and the face scorer's training (vision/dice_scorer.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice_layout import fit_faces
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

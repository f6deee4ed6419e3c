"""A small learned judge of candidate die faces: is this group of pips the top face of a real die?

The reader finds more candidate faces than there are dice: side faces seen at an angle, two faces
merged, spots on clutter. Each candidate is described by a few numbers (its layout fit, the shape,
size and contrast of its pips, how plain its body is, how it compares with the candidates around
it), and a tiny neural network (one hidden layer, numpy only) turns them into a probability. The
weights live in vision/models/dice_faces.json, made by training/train_dice_faces.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MODEL_PATH = Path(__file__).parent / "models" / "dice_faces.json"

FEATURES = (
    "value1", "value2", "value3", "value4", "value5", "value6", "fit_error", "roundness", "roundness_min",
    "radius_rel", "size_rel", "contrast", "plain", "saturation", "roundness_vs_neighbours", "crowding", "dark_pips", "step_per_radius", "spread", "nearest",
    "stray_pips", "radius_vs_neighbours", "partners",
)


@dataclass(frozen=True)
class FaceScorer:
    """A one-hidden-layer network over standardised face features."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float
    threshold: float = 0.5

    def probability(self, features: np.ndarray) -> np.ndarray:
        """The probability that each candidate (row) is a die's top face, read right."""
        if len(features) == 0:
            return np.zeros(0)
        hidden = np.tanh(((features - self.mean) / self.scale) @ self.w1 + self.b1)
        return 1.0 / (1.0 + np.exp(-(hidden @ self.w2 + self.b2)))

    def to_dict(self) -> dict:
        """The weights as plain lists (the model file)."""
        return {
            "features": list(FEATURES), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
            "w1": self.w1.tolist(), "b1": self.b1.tolist(), "w2": self.w2.tolist(), "b2": float(self.b2),
            "threshold": float(self.threshold),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "FaceScorer":
        """A scorer from `to_dict()` output; refuses a file made for other features."""
        if tuple(data.get("features", ())) != FEATURES:
            raise ValueError("the dice face model was made for other features; retrain it with "
                             "training/train_dice_faces.py")
        return cls(np.array(data["mean"]), np.array(data["scale"]), np.array(data["w1"]), np.array(data["b1"]),
                   np.array(data["w2"]), float(data["b2"]), float(data.get("threshold", 0.5)))


def load_scorer(path: Path = MODEL_PATH) -> FaceScorer | None:
    """The shipped face scorer, or None when its file is missing or unusable (the reader then uses rules)."""
    try:
        return FaceScorer.from_dict(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def train(features: np.ndarray, labels: np.ndarray, hidden: int = 24, steps: int = 3000, seed: int = 1,
          l2: float = 1e-3) -> FaceScorer:
    """Fit the network by full-batch Adam on the logistic loss (deterministic for a given seed)."""
    rng = np.random.default_rng(seed)
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-6
    x = (features - mean) / scale
    y = labels.astype(np.float64)
    params = [rng.normal(0, 0.5, (x.shape[1], hidden)), np.zeros(hidden), rng.normal(0, 0.5, hidden), np.zeros(1)]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    # Weigh the classes equally: there are several false candidates per true face.
    weight = np.where(y > 0.5, 0.5 / max(y.mean(), 1e-6), 0.5 / max(1 - y.mean(), 1e-6)) / len(y)
    for t in range(1, steps + 1):
        w1, b1, w2, b2 = params
        h = np.tanh(x @ w1 + b1)
        p = 1.0 / (1.0 + np.exp(-(h @ w2 + b2[0])))
        g_out = (p - y) * weight
        grads = [None, None, h.T @ g_out + l2 * w2, np.array([g_out.sum()])]
        g_h = np.outer(g_out, w2) * (1 - h * h)
        grads[0] = x.T @ g_h + l2 * w1
        grads[1] = g_h.sum(axis=0)
        for k, g in enumerate(grads):
            moments[k] = 0.9 * moments[k] + 0.1 * g
            squares[k] = 0.999 * squares[k] + 0.001 * g * g
            params[k] = params[k] - 0.01 * (moments[k] / (1 - 0.9 ** t)) / (np.sqrt(squares[k] / (1 - 0.999 ** t)) + 1e-8)
    w1, b1, w2, b2 = params
    return FaceScorer(mean, scale, w1, b1, w2, float(b2[0]))

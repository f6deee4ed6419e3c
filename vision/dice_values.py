"""A small convolutional reader of a die's value, for the dice the reader is not sure of.

The judge (vision/dice_judge.py) sees a die small, with table around it, to tell whether a die is
there and where. The value reader looks closer: a patch just wider than the die, at about the
photo's own resolution, so that faint, small or red-on-dark pips still show. It runs through
OpenCV's dnn module from vision/models/dice_values.onnx, made by training/train_dice_values.py;
without the file the reader's other stages decide the value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.dice_judge import OnnxNet, load_network, patches

MODEL_PATH = Path(__file__).parent / "models" / "dice_values.onnx"

# Patch side in network pixels, and the patch's side as a share of the die side (the die's own
# edges show, and little of its neighbours).
PATCH = 40
CONTEXT = 1.25


class ValueReader(OnnxNet):
    """The value network, loaded once; `read` reads many dice in one pass."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        """Load the ONNX network (raises cv2.error or OSError when the file is unusable)."""
        super().__init__(path)

    def read(self, bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray | float) -> np.ndarray:
        """The chance of each value 1-6 (n x 6) for dice about `sides` wide at `centres` of a BGR image."""
        if len(centres) == 0:
            return np.zeros((0, 6))
        logits = self.forward(patches(bgr, centres, sides, PATCH, CONTEXT))
        chances = np.exp(logits - logits.max(axis=1, keepdims=True))
        return chances / chances.sum(axis=1, keepdims=True)


def load_value_reader(path: Path = MODEL_PATH) -> ValueReader | None:
    """The shipped value reader, or None when its file is missing or unreadable."""
    return load_network(ValueReader, path)

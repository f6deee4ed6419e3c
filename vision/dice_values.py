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

from vision.dice_judge import OnnxNet, candidate_network, load_network, patches

MODEL_PATH = Path(__file__).parent / "models" / "dice_values.onnx"

# Patch side in network pixels, and the patch's side as a share of the die side (the die's own
# edges show, and little of its neighbours).
PATCH = 40
CONTEXT = 1.25


class ValueReader(OnnxNet):
    """The value network, loaded once; `read` reads many dice in one pass."""

    PATCH_SIDE = PATCH
    WIDTH = 6

    def __init__(self, path: Path = MODEL_PATH) -> None:
        """Load the ONNX network (raises cv2.error or OSError when the file is unusable)."""
        super().__init__(path)

    def read(self, bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray | float, beside: bool = True) -> np.ndarray:
        """The chance of each value 1-6 (n x 6) for dice about `sides` wide at `centres` of a BGR
        image; a die read less than RECHECK_BELOW sure is also read a little off its centre, each
        way, and the five readings averaged (unless not `beside`: one look at each centre)."""
        if len(centres) == 0:
            return np.zeros((0, 6))
        centres = np.asarray(centres, np.float64)
        sides = np.broadcast_to(np.asarray(sides, np.float64), (len(centres),))
        chances = self._chances(bgr, centres, sides)
        # The reader's centres are off by up to a tenth of a side (the network learnt that spread):
        # where one look is unsure, looks beside it say more. Held out (two-fold), nell-byler 95.0
        # -> 95.9 % end to end; matteop65 and the simulator unchanged; ~0.3 ms a 640x640 photo.
        unsure = np.flatnonzero(chances.max(axis=1) < RECHECK_BELOW) if beside else []
        if len(unsure):
            shifted = (centres[unsure][None] + _SHIFTS[:, None, :] * sides[unsure][None, :, None]).reshape(-1, 2)
            more = self._chances(bgr, shifted, np.tile(sides[unsure], len(_SHIFTS))).reshape(len(_SHIFTS), -1, 6)
            chances[unsure] = (chances[unsure] + more.sum(axis=0)) / (1 + len(_SHIFTS))
        return chances

    def _chances(self, bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray) -> np.ndarray:
        """The network's chances of each value (n x 6) at these centres, one look each."""
        logits = self.forward(patches(bgr, centres, sides, PATCH, CONTEXT))
        chances = np.exp(logits - logits.max(axis=1, keepdims=True))
        return chances / chances.sum(axis=1, keepdims=True)


# A die read less sure than this is read again at four centres a tenth of its side away.
RECHECK_BELOW = 0.7
_SHIFTS = np.array([(0.1, 0.0), (-0.1, 0.0), (0.0, 0.1), (0.0, -0.1)])


def load_value_reader(path: Path = MODEL_PATH) -> ValueReader | None:
    """The shipped value reader, or None when its file is missing or unreadable."""
    return load_network(ValueReader, path)


def candidate_value_reader(path: Path) -> ValueReader:
    """A value reader to score in place of the shipped one (the benchmarks' --values); ValueError,
    saying what to give instead, when the file is no value model OpenCV loads."""
    return candidate_network(ValueReader, path, "value", "train_dice_values.py")

"""A small convolutional judge of die candidates: is a die centred here, which value shows, and where
exactly is its centre?

The pip-first reader (vision/dice.py) proposes places where a die may be: fitted pip layouts, lone
round pips, die-sized bodies. Each place is cut out as a small square patch, scaled so that a die
of the size expected there fills the same share of it, and a tiny network reads the patch: the
chance that a die is centred there, the chance of each value 1-6, and the die's centre relative to
the patch. The network runs through OpenCV's dnn module from an ONNX file
(vision/models/dice_judge.onnx) made by training/train_dice_judge.py: the mean of two such networks
trained alike but for what each was taught is no die, in one graph, so it reads like one. Nothing
else is needed at the table. Without the file, the pip-first reader's own judgement stands.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

MODEL_PATH = Path(__file__).parent / "models" / "dice_judge.onnx"

# The patch side in network pixels, and the patch's side as a share of the expected die side: a
# little table around the die shows where it ends, and which pips are its own.
PATCH = 32
CONTEXT = 1.6
# Output columns: 0 = a die is centred here (logit), 1..6 = the value it shows (logits, read as if
# the die were centred); then the die centre's offset (x, y) from the patch centre, in die sides.
CLASSES = 7


@dataclass(frozen=True)
class Verdicts:
    """The judge's reading of n patches: chance of a die, value chances (n x 6), centre offsets."""

    die: np.ndarray
    values: np.ndarray
    offsets: np.ndarray

    @property
    def value(self) -> np.ndarray:
        """The likeliest value of each patch (1-6)."""
        return self.values.argmax(axis=1) + 1

    def joined(self, later: "Verdicts") -> "Verdicts":
        """These verdicts followed by later ones."""
        return Verdicts(np.concatenate([self.die, later.die]), np.concatenate([self.values, later.values]),
                        np.concatenate([self.offsets, later.offsets]))


def patches(bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray | float, patch: int = PATCH,
            context: float = CONTEXT) -> np.ndarray:
    """Square patches (n, 3, patch, patch) float32 around `centres`, each `context` die sides wide,
    each standardised on its own so that light and body colour matter less than shape."""
    n = len(centres)
    cut = np.empty((n, patch, patch, 3), np.uint8)
    scales = patch / (context * np.broadcast_to(np.asarray(sides, np.float64), (n,)))
    for k, (centre, scale) in enumerate(zip(np.asarray(centres, np.float64).tolist(), scales.tolist())):
        cut_patch(bgr, centre, scale, side=patch, out=cut[k])
    # Standardised all at once: per patch, numpy's mean and spread cost more than the cutting.
    return standardised(cut)


def cut_patch(bgr: np.ndarray, centre, scale: float, turn: float = 0.0, side: int = PATCH,
              out: np.ndarray | None = None) -> np.ndarray:
    """The BGR patch (side x side) whose middle is `centre` (x, y), the image scaled by `scale` and
    turned by `turn` radians about it (training turns patches; the reader does not); written into
    `out` when given."""
    # The warp from plain floats: numpy's small-array calls cost more than the warping itself.
    x, y = float(centre[0]), float(centre[1])
    c, s = math.cos(turn) * scale, math.sin(turn) * scale
    warp = np.array([[c, -s, side / 2 - (c * x - s * y)], [s, c, side / 2 - (s * x + c * y)]])
    return cv2.warpAffine(bgr, warp, (side, side), dst=out, flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def standardised(patch: np.ndarray) -> np.ndarray:
    """A BGR uint8 patch (h, w, 3) as (3, h, w) float32 with zero mean and unit spread over all its
    values; a stack of patches (n, h, w, 3) as (n, 3, h, w), each patch on its own."""
    # A C-ordered copy, so that `flat` is a view of it (a channel-shuffled training patch is not
    # C-ordered, and reshaping it would standardise a copy and leave `values` raw).
    values = np.array(patch, np.float32, order="C")
    flat = values.reshape(len(values) if values.ndim == 4 else 1, -1)
    flat -= flat.mean(axis=1, keepdims=True)
    flat /= flat.std(axis=1, keepdims=True) + 8.0
    return np.ascontiguousarray(np.moveaxis(values, -1, -3))


class OnnxNet:
    """An ONNX network run by OpenCV's dnn module, loaded once and shared by threads; a kind of
    network reads square patches of PATCH_SIDE pixels into rows of WIDTH numbers."""

    PATCH_SIDE = 0
    WIDTH = 0

    def __init__(self, path: Path) -> None:
        """Load the network (raises cv2.error or OSError when the file is unusable)."""
        # OpenCV 5.0's classic engine ran these small networks about a fifth faster than its new one;
        # 5.1 has none (its default and ENGINE_OPENCV measured within 10 % of each other), and the default runs.
        engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
        self._net = cv2.dnn.readNetFromONNX(str(path)) if engine is None else cv2.dnn.readNetFromONNX(str(path), engine)
        # One network object serves every thread (the live table, a card being taught from a phone):
        # OpenCV's forward pass is not safe to run twice at once on it.
        self._lock = threading.Lock()

    def forward(self, batch: np.ndarray) -> np.ndarray:
        """The network's output rows (float64, one per patch) for a batch of patches."""
        with self._lock:
            self._net.setInput(batch)
            return np.asarray(self._net.forward(), np.float64).reshape(len(batch), -1)

    def misfit(self) -> str | None:
        """What keeps the network from serving as its kind (None when nothing does): it must read a
        patch of PATCH_SIDE pixels into a row of WIDTH numbers."""
        # Another kind's network loads as well as the right one, then fails or misreads at the first
        # patch: a value reader given as a judge stopped a benchmark halfway with OpenCV's traceback.
        try:
            width = self.forward(np.zeros((1, 3, self.PATCH_SIDE, self.PATCH_SIDE), np.float32)).shape[1]
        except cv2.error:
            width = None
        if width == self.WIDTH:
            return None
        return f"it does not read a {self.PATCH_SIDE}-pixel patch into {self.WIDTH} numbers"


class DiceJudge(OnnxNet):
    """The judge network, loaded once; `judge` reads many patches in one pass."""

    PATCH_SIDE = PATCH
    WIDTH = CLASSES + 2

    def __init__(self, path: Path = MODEL_PATH) -> None:
        """Load the ONNX network (raises cv2.error or OSError when the file is unusable)."""
        super().__init__(path)

    def judge(self, bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray | float,
              turned: bool = False) -> Verdicts:
        """The verdicts on patches around `centres` in a BGR image, for dice about `sides` wide
        (offsets are in those sides); where `turned`, an unsure patch's die chance is its four
        quarter turns' (UNSURE_LOGITS)."""
        if len(centres) == 0:
            return Verdicts(np.zeros(0), np.zeros((0, 6)), np.zeros((0, 2)))
        cut = patches(bgr, centres, sides)
        out = self.forward(cut)
        if turned:
            unsure = (out[:, 0] > UNSURE_LOGITS[0]) & (out[:, 0] < UNSURE_LOGITS[1])
            if unsure.any():
                out[unsure, 0] = self._turned_logits(cut[unsure], out[unsure, 0])
        return verdicts(out)

    def turned_die(self, bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray | float) -> np.ndarray:
        """The die chance at each centre from its patch's mean die logit over its four quarter
        turns, however sure the patch as it stands is."""
        if len(centres) == 0:
            return np.zeros(0)
        cut = patches(bgr, centres, sides)
        return die_chances(self._turned_logits(cut, self.forward(cut)[:, 0]))

    def turned_dice(self, bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray | float) -> np.ndarray:
        """The die chance at each centre in each of its patch's other three quarter turns (n x 3)."""
        if len(centres) == 0:
            return np.zeros((0, 3))
        return die_chances(self._other_turns_logits(patches(bgr, centres, sides)))

    def _turned_logits(self, cut: np.ndarray, first: np.ndarray) -> np.ndarray:
        """The mean die logit of patches over their four quarter turns (`first`: the logits of the
        patches as they are)."""
        return (self._other_turns_logits(cut).sum(axis=1) + first) / 4.0

    def _other_turns_logits(self, cut: np.ndarray) -> np.ndarray:
        """The die logits of patches turned a quarter, a half and three quarters (n x 3), in one pass."""
        turned = np.concatenate([np.rot90(cut, k, axes=(2, 3)) for k in (1, 2, 3)])
        return self.forward(np.ascontiguousarray(turned))[:, 0].reshape(3, -1).T


# A patch whose die chance lies between these (as logits: 0.01 and 0.995, the reader's bar for a die
# that no body holds) is looked at in its four quarter turns, and its chance is their mean logit's.
# A die turned shows the same die, and the network learnt every turn alike, yet a few patches it
# reads unsteadily: a blue one on its body's square 0.16 as it stands, 0.91-1.0 turned (a red one,
# 0.03 and 0.41-0.97, is still missed). Nell-byler as shot 1057 -> 1059 dice (false 8 -> 7),
# matteop65 1196 -> 1197 (8 -> 6); over each set's six sizes and eight looks nell 14,503 -> 14,541
# dice (false 144 -> 146), matteop 16,606 -> 16,631 (310 -> 271); the simulator 517 of 520 as
# before, no colour error; its things that are not dice 11 -> 15 false on 400. It costs three
# patches more for each unsure one (nell-byler ~20.5 -> ~28 a photo, matteop65 ~6.3 -> ~9). With
# the mirrored views too (eight), as many dice and false dice within a few, at twice the cost; with
# the half turn alone, nell as shot 1057 and summed 14,529 (false 151), matteop 16,617 (306).
UNSURE_LOGITS = (math.log(0.01 / 0.99), math.log(0.995 / 0.005))


def die_chances(logits: np.ndarray) -> np.ndarray:
    """Die logits as chances (clipped: a logit far out of range is certainty, not an overflow)."""
    return 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))


def verdicts(out: np.ndarray) -> Verdicts:
    """The network's raw rows (die logit, 6 value logits, 2 offsets) as chances and offsets."""
    die = die_chances(out[:, 0])
    logits = out[:, 1:CLASSES]
    values = np.exp(logits - logits.max(axis=1, keepdims=True))
    values /= values.sum(axis=1, keepdims=True)
    return Verdicts(die=die, values=values, offsets=out[:, CLASSES:CLASSES + 2])


def load_judge(path: Path = MODEL_PATH) -> DiceJudge | None:
    """The shipped judge, or None when its file is missing or unreadable (the reader then judges alone)."""
    return load_network(DiceJudge, path)


def candidate_judge(path: Path) -> DiceJudge:
    """A judge to score in place of the shipped one (benchmarks' --judge, the tests' --dice-judge);
    ValueError, saying what to give instead, when the file is no judge model OpenCV loads."""
    return candidate_network(DiceJudge, path, "judge", "train_dice_judge.py")


def candidate_network(kind: type, path: Path, what: str, script: str):
    """A network of this kind (an OnnxNet class) from a file given to be scored; ValueError, naming
    the training `script` whose file to give instead, when it is missing or not such a model."""
    network, problem = opened_network(kind, path)
    if network is None:
        raise ValueError(f"{path}: no {what} model ({problem}); give an .onnx file written by training/{script}")
    return network


def load_network(kind: type, path: Path):
    """A network of this kind (an OnnxNet class) from its file, or None when the file is missing,
    unreadable or another kind's network: the reader then does without it."""
    return opened_network(kind, path)[0]


def opened_network(kind: type, path: Path) -> tuple[OnnxNet | None, str]:
    """A network of this kind from its file, or None and what is wrong with the file."""
    if not path.exists():
        return None, "no such file"
    try:
        network = kind(path)
    except (cv2.error, OSError):
        return None, "OpenCV cannot load it"
    problem = network.misfit()
    return (None, problem) if problem else (network, "")

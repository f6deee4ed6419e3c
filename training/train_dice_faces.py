"""Train the dice reader's face scorer (vision/models/dice_faces.json) and measure it honestly.

usage: python3 training/train_dice_faces.py [--train sim,nell-byler-1208,matteop65] [--write] [--report]

Candidates come from the reader itself (vision.dice.candidate_faces); a candidate is a positive
when it sits on a labelled die's top face and shows that die's value. Training data: seeded
simulator frames (all colours, tables, lights, sizes, clutter) and, if asked, the labelled photo
sets in ../shared/data/dice. --report trains one model per held-out split and prints the end-to-end
accuracy on each photo set with the team's scorer: simulator only (both sets unseen), simulator +
one set (the other unseen), and everything (in-sample). Deterministic: fixed seeds throughout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "training"))

import dice_benchmark  # noqa: E402
import vision.dice as dice  # noqa: E402
from train_dice_judge import light_and_table  # noqa: E402
from vision.dice_scorer import MODEL_PATH, train  # noqa: E402
from vision.simulator import BLANK_CLUTTER, BODY_COLOURS, random_scene, render_table  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "dice"
SETS = ("nell-byler-1208", "matteop65")
SIM_FRAMES = 90
SEED = 2024


def simulator_samples(frames: int = SIM_FRAMES, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of the candidates in varied simulator frames."""
    rng = np.random.default_rng(seed)
    colours = [c for c in BODY_COLOURS]
    xs, ys = [], []
    for k in range(frames):
        size = float(rng.uniform(24, 48))
        width, height = (1280, 720) if k % 2 else (960, 720)
        # Half the frames hold Rescue Animals' white, gray and black dice side by side.
        palette = ("white", "gray", "black") if k % 3 else colours
        scene = random_scene(rng, dice=int(rng.integers(6, 20)), colours=palette, width=width, height=height,
                             die_size=size, **light_and_table(k),
                             # The shipped model saw blank clutter only (dice with numbers and keys came later).
                             clutter=int(rng.integers(0, 5)), clutter_kinds=BLANK_CLUTTER)
        image, truth = render_table(scene, rng)
        for face, row in dice.candidate_faces(image):
            xs.append(row)
            ys.append(any(np.hypot(face.centre[0] - t["centre"][0], face.centre[1] - t["centre"][1]) < 0.35 * t["size"]
                          and face.value == t["value"] for t in truth["dice"]))
    return np.array(xs), np.array(ys, float)


def photo_samples(name: str, fold: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of the candidates in one labelled photo set (or in one of its two folds:
    the first or second half of truth.json, so near-identical neighbouring shots stay together)."""
    folder = DATA / name
    truth = json.loads((folder / "truth.json").read_text())
    if fold is not None:
        truth = _half(truth, fold)
    xs, ys = [], []
    for entry in truth:
        image = cv2.imread(str(folder / "images" / entry["image"]))
        for face, row in dice.candidate_faces(image):
            xs.append(row)
            ys.append(any(dice_benchmark._inside(face.centre[0], face.centre[1], d["box"], 0.15)
                          and face.value == d["value"] for d in entry["dice"]))
    return np.array(xs), np.array(ys, float)


def _half(items: list, fold: int) -> list:
    """The first (fold 0) or second (fold 1) half of a list."""
    middle = len(items) // 2
    return items[:middle] if fold == 0 else items[middle:]


def fit(parts: dict[str, tuple[np.ndarray, np.ndarray]], names: list[str]):
    """A scorer trained on the named parts."""
    x = np.concatenate([parts[n][0] for n in names])
    y = np.concatenate([parts[n][1] for n in names])
    return train(x, y, seed=SEED)


def evaluate(scorer, names=SETS, fold: int | None = None) -> dict[str, dict]:
    """End-to-end numbers of the reader with this scorer on the photo sets (the team's scorer)."""
    saved = dice._SCORER
    dice._SCORER = scorer
    try:
        score = dice_benchmark.load_scorer()
        out = {}
        for name in names:
            truth, readings, _ = dice_benchmark.read_folder(DATA / name)
            if fold is not None:
                truth, readings = _half(truth, fold), _half(readings, fold)
            out[name] = score(truth, readings)
        return out
    finally:
        dice._SCORER = saved


def report_folds(parts: dict) -> None:
    """Two-fold by image within each set: train on the simulator, the other set and half of this
    set's images; read the other half (same camera and table, unseen photos)."""
    for name in SETS:
        others = [n for n in parts if n not in ("sim", name)]
        right = total = false = 0
        for fold in (0, 1):
            half = photo_samples(name, fold=1 - fold)
            local = dict(parts, **{"half": half})
            result = evaluate(fit(local, ["sim", *others, "half"]), [name], fold=fold)[name]
            right += result["value_right"]
            total += result["true_dice"]
            false += result["false_dice"]
        print(f"two-fold by image on {name}: {100 * right / max(total, 1):.2f}% end to end, {false} false dice [held out]")


def main(argv: list[str] | None = None) -> int:
    """Gather candidates, train, report held-out numbers, and write the model if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", default="sim," + ",".join(SETS), help="parts to train the shipped model on")
    parser.add_argument("--write", action="store_true", help="write vision/models/dice_faces.json")
    parser.add_argument("--report", action="store_true", help="print held-out and in-sample numbers")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    dice._SCORER = None  # candidates must not depend on an older model
    parts = {"sim": simulator_samples()}
    for name in SETS:
        if (DATA / name / "truth.json").exists():
            parts[name] = photo_samples(name)
    for name, (x, y) in parts.items():
        print(f"{name}: {len(y)} candidates, {int(y.sum())} true faces")
    if args.report:
        splits = [("sim only", ["sim"])] + [(f"sim + {n}", ["sim", n]) for n in SETS if n in parts]
        splits.append(("everything", [n for n in parts]))
        for label, names in splits:
            results = evaluate(fit(parts, names))
            text = ", ".join(f"{n} {100 * r['end_to_end']:.2f}% (false {r['false_dice']})"
                             + (" [in-sample]" if n in names else " [held out]") for n, r in results.items())
            print(f"trained on {label}: {text}")
    if args.report:
        report_folds(parts)
    chosen = [n for n in args.train.split(",") if n in parts]
    scorer = fit(parts, chosen)
    if args.write:
        MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
        MODEL_PATH.write_text(json.dumps(scorer.to_dict(), indent=1) + "\n")
        print(f"wrote {MODEL_PATH} (trained on {', '.join(chosen)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

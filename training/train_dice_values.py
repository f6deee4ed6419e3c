"""Train the dice reader's value reader (vision/models/dice_values.onnx) and measure it honestly.

usage: python3 training/train_dice_values.py [--report] [--across [SET]] [--write] [--epochs N]

Needs PyTorch and onnx for training only (`pip install -e '.[train]'`); the table needs neither.
The value reader looks closer than the judge: a patch just wider than the die, at about the
photo's own resolution, so that faint, small or red-on-dark pips still show. Patches: every
labelled die, cut as the reader would (its centre a little off, its side the die side the reader
measures in that image), at any turn, rescaled and recoloured; from the labelled photo sets in
../shared/data/dice and seeded simulator frames (every body colour, table and light).

--report trains two models, each on the simulator and one half of each photo set (the first or
second half of truth.json, so near-identical neighbouring shots stay together), and prints the
value accuracy on the dice of the other half: numbers on photos the model has not seen. --across
trains without one whole photo set (another camera, table and dice), writes the model to
/tmp/dice_values_without_SET.onnx and prints its accuracy on that set. --write trains on
everything and writes the model. Seeded throughout.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

import vision.dice as dice  # noqa: E402
from train_dice_judge import (SETS, WORSE_SEED, arguments, camera_copies, export, fitted, gathered,  # noqa: E402
                              labelled_images, light_and_table, parts_without, recoloured, source_index)
from vision.dice_judge import cut_patch, standardised  # noqa: E402
from vision.dice_values import CONTEXT, MODEL_PATH, PATCH, ValueReader  # noqa: E402
from vision.simulator import BLANK_CLUTTER, BODY_COLOURS, PIP_COLOURS, random_scene, render_table  # noqa: E402

SEED = 2026
SIM_FRAMES = 200
# Patches cut around each labelled die (photos), and around each simulator die.
PER_PHOTO_DIE, PER_SIM_DIE = 48, 10
# How far off the die's centre a patch is cut (share of a die side): the reader's centres are that good.
JITTER = 0.1
# The die side a patch assumes, against the side the reader measured: dice nearer an angled camera
# look bigger, and a typical side is a median.
STRETCH = (0.8, 1.25)


def simulator_images(frames: int = SIM_FRAMES, seed: int = SEED) -> list:
    """Seeded simulator frames of every body colour, table, light and clutter, with their dice; in
    half of them every die takes a pip colour at random (red pips on black or blue dice, say)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(frames):
        scene = random_scene(rng, dice=int(rng.integers(6, 20)), colours=list(BODY_COLOURS), width=960, height=720,
                             die_size=float(rng.uniform(24, 48)), **light_and_table(k),
                             # The shipped model saw blank clutter only (dice with numbers and keys came later).
                             clutter=int(rng.integers(0, 4)), clutter_kinds=BLANK_CLUTTER)
        if k % 2:
            scene = replace(scene, dice=tuple(replace(d, pips=_contrasting_pips(d.colour, rng)) for d in scene.dice))
        image, truth = render_table(scene, rng)
        out.append((image, [(d["centre"][0], d["centre"][1], 0 if d["rolling"] else d["value"], d["size"])
                            for d in truth["dice"]], k % 2))
    return out


def _contrasting_pips(body: str, rng: np.random.Generator) -> str:
    """A pip colour at random among those that stand out from the body colour."""
    colour = np.array(BODY_COLOURS[body], float)
    names = [name for name, pip in PIP_COLOURS.items() if np.abs(np.array(pip, float) - colour).max() > 90]
    return str(rng.choice(names))


def measured_side(bgr: np.ndarray) -> float:
    """The typical die side the reader measures in an image (0 when it reads no face)."""
    with dice.judged_by(None):
        chosen, candidates, squares, _ = dice._top_faces(bgr)
        return dice.judge_proposals(chosen, candidates, squares)[2]


def die_patches(bgr: np.ndarray, dice_: list, count: int, rng: np.random.Generator,
                worse: np.random.Generator | None = None) -> tuple[list, list]:
    """`count` value patches and labels for every die (x, y, value, side) of one image; with a
    `worse` generator, some of them cut from the image as a lesser camera would deliver it."""
    side = measured_side(bgr)
    if side == 0:
        return [], []
    sources = [bgr] + (camera_copies(bgr, worse) if worse is not None else [])
    xs, labels = [], []
    for x, y, value, _ in dice_:
        if not value:
            continue  # a rolling die's value is a blur
        for _ in range(count):
            r, a = JITTER * side * np.sqrt(rng.random()), rng.uniform(0, 2 * np.pi)
            centre = np.array([x + r * np.cos(a), y + r * np.sin(a)])
            stretch = float(np.exp(rng.uniform(*np.log(STRETCH))))
            source = sources[source_index(worse, len(sources))]
            cut = cut_patch(source, centre, PATCH / (CONTEXT * side * stretch), rng.uniform(0, 2 * np.pi), side=PATCH)
            xs.append(standardised(recoloured(cut, rng)))
            labels.append(int(value) - 1)
    return xs, labels


def samples(images: list, count: int, seed: int) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Patches and labels (value - 1) by half (0, 1) from (image, dice, half) triples."""
    rng = np.random.default_rng(seed)
    # The camera copies draw from their own generator, so every patch keeps its place, turn and colours.
    worse = np.random.default_rng(seed + WORSE_SEED)
    parts: dict[int, tuple[list, list]] = {0: ([], []), 1: ([], [])}
    for bgr, dice_, half in images:
        xs, labels = die_patches(bgr, dice_, count, rng, worse)
        parts[half][0].extend(xs)
        parts[half][1].extend(labels)
    return {half: (np.array(x, np.float32).reshape(-1, 3, PATCH, PATCH), np.array(y, np.int64))
            for half, (x, y) in parts.items()}


def network():
    """The value reader: four small conv blocks and two dense layers (about 6 M multiply-adds a patch)."""
    from torch import nn

    def block(i: int, o: int, pool: bool = True):
        """A 3x3 conv, batch norm, ReLU and (mostly) 2x2 max pool."""
        return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU()] + ([nn.MaxPool2d(2)] if pool else [])

    return nn.Sequential(*block(3, 16), *block(16, 32), *block(32, 64), *block(64, 64, pool=False), nn.Flatten(),
                         nn.Linear(64 * (PATCH // 8) ** 2, 64), nn.ReLU(), nn.Linear(64, 6))


def train(x: np.ndarray, labels: np.ndarray, epochs: int, seed: int = SEED):
    """A trained value network (PyTorch) on these patches."""

    def batch_loss(net, xb, yb):
        """The value's cross-entropy on one batch, half the patches mirrored."""
        import torch
        from torch import nn

        # A mirrored die shows the same value (the patches are already turned at random).
        flip = torch.rand(len(xb)) < 0.5
        xb = torch.where(flip[:, None, None, None], torch.flip(xb, dims=[3]), xb)
        return nn.functional.cross_entropy(net(xb), yb, label_smoothing=0.05)

    return fitted(network, (x, labels), batch_loss, epochs, seed)


def held_out_accuracy(path: Path, images: list, half: int) -> tuple[int, int]:
    """Dice of one half that the value reader at `path` reads right at their labelled centres, and all of them."""
    reader = ValueReader(path)
    right = total = 0
    for bgr, dice_, h in images:
        side = measured_side(bgr) if h == half else 0
        if side == 0 or not dice_:
            continue
        centres = np.array([(x, y) for x, y, _, _ in dice_], np.float64)
        truth = np.array([v for _, _, v, _ in dice_])
        right += int((reader.read(bgr, centres, side).argmax(axis=1) + 1 == truth).sum())
        total += len(truth)
    return right, total


def report_across(parts: list, photos: dict, epochs: int, only: str | None = None) -> None:
    """Train without each photo set in turn (parts: the simulator's, then SETS' in order), or
    without `only`; write each model to /tmp and print its accuracy on the whole set it did not see."""
    for name in SETS:
        if only is not None and name != only:
            continue
        net = train(*gathered(parts_without(parts, name), (0, 1)), epochs=epochs)
        path = Path(f"/tmp/dice_values_without_{name}.onnx")
        export(net, path, PATCH)
        # Every photo of the set: each half read in turn.
        halves = [held_out_accuracy(path, photos[name], half) for half in (0, 1)]
        right, total = sum(r for r, _ in halves), sum(t for _, t in halves)
        print(f"trained without {name}, wrote {path}: {right}/{total} of its dice "
              f"({100 * right / max(total, 1):.2f}%) read right at their labelled centres [another camera and table]",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    """Gather patches, train, report held-out numbers, and write the model if asked."""
    args = arguments(argv, __doc__, epochs=30, model=MODEL_PATH, across=True)
    cv2.setNumThreads(1)
    started = time.perf_counter()
    photos = {name: labelled_images(name) for name in SETS}
    parts = [samples(simulator_images(SIM_FRAMES, SEED), PER_SIM_DIE, SEED)]
    parts += [samples(photos[name], PER_PHOTO_DIE, SEED + k + 1) for k, name in enumerate(SETS)]
    for name, part in zip(("sim", *SETS), parts):
        print(f"{name}: {sum(len(part[h][1]) for h in (0, 1))} patches")
    print(f"patches gathered in {time.perf_counter() - started:.0f} s", flush=True)
    if args.report:
        for held in (0, 1):
            net = train(*gathered(parts, (1 - held,)), epochs=args.epochs)
            path = Path(f"/tmp/dice_values_half{1 - held}.onnx")
            export(net, path, PATCH)
            for name in SETS:
                right, total = held_out_accuracy(path, photos[name], held)
                print(f"trained on the other half, read half {held} of {name}: {right}/{total} dice "
                      f"({100 * right / max(total, 1):.2f}%) read right at their labelled centres [held out]", flush=True)
    if args.across:
        report_across(parts, photos, args.epochs, None if args.across == "both" else args.across)
    if args.write:
        net = train(*gathered(parts, (0, 1)), epochs=args.epochs)
        export(net, args.out, PATCH)
        print(f"wrote {args.out}")
    print(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fingerprint the dice reader's readings: one hash over a fixed sample of frames, so that a change
meant to keep every reading (a faster step, a tidier function) can show that it did.

usage: python3 benchmarks/readings_hash.py [FOLDER_WITH_truth.json ...] [--every N] [--scales 0.5,1,2,3] [--sim N]
Without folders it reads both sets in ../shared/data/dice: every second photo at x0.5, x1, x2 and x3,
and 6 simulator frames of 1920x1080. It prints the number of readings, their md5 and the CPU
seconds; the same hash before and after a change means the same readings to the tenth of a pixel.
Runs on ONE core (cv2.setNumThreads(1)).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.dice_benchmark import (DATA, DEFAULT_SETS, _scales, add_judge_option, chosen_judge,  # noqa: E402
                                       simulator_frames)
from vision.dice import read_dice  # noqa: E402


def digest_of(frames, into=None) -> tuple[int, "hashlib._Hash"]:
    """The number of dice read in (label, image) frames and an md5 over their labels and readings."""
    into = into or hashlib.md5()
    count = 0
    for label, image in frames:
        dice = [d.to_dict() for d in read_dice(image)]
        count += len(dice)
        into.update(json.dumps([label, dice]).encode())
    return count, into


def photo_frames(folder: Path, every: int, scales: list[float]):
    """Every `every`-th photo of a labelled folder at each scale, as (label, image)."""
    truth = json.loads((folder / "truth.json").read_text())
    images = folder / "images" if (folder / "images").is_dir() else folder
    for entry in truth[::every]:
        photo = cv2.imread(str(images / entry["image"]))
        if photo is None:
            raise SystemExit(f"{images / entry['image']}: missing or unreadable; the fingerprint needs every image.")
        for scale in scales:
            label = [folder.name, entry["image"], scale]
            if scale == 1.0:
                yield label, photo
            else:
                yield label, cv2.resize(photo, None, fx=scale, fy=scale,
                                        interpolation=cv2.INTER_AREA if scale < 1.0 else cv2.INTER_CUBIC)


def sim_frames(count: int):
    """The dice benchmark's first `count` simulator frames, as (label, image)."""
    for k, (frame, _) in enumerate(simulator_frames(count)):
        yield ["sim", k], frame


def main(argv: list[str] | None = None) -> int:
    """Read the sample and print its fingerprint."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", help="folders holding truth.json and images/")
    parser.add_argument("--every", type=int, default=2, help="read every N-th photo (default 2)")
    parser.add_argument("--scales", type=_scales, default=[0.5, 1.0, 2.0, 3.0],
                        help="sizes to read each photo at (default 0.5,1,2,3)")
    parser.add_argument("--sim", type=int, default=6, help="simulator frames to read (default 6)")
    add_judge_option(parser)
    args = parser.parse_args(argv)
    folders = [Path(f) for f in args.folders] or [DATA / name for name in DEFAULT_SETS]
    missing = [str(f) for f in folders if not (f / "truth.json").exists()]
    if missing:
        print(f"{', '.join(missing)}: no truth.json here; give folders with truth.json and images/.", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    with chosen_judge(parser, args.judge, args.values):
        read_dice(np.full((64, 64, 3), 128, np.uint8))  # load the models before the clock starts
        start = time.process_time()
        total, digest = 0, hashlib.md5()
        for folder in folders:
            count, digest = digest_of(photo_frames(folder, args.every, args.scales), digest)
            total += count
        count, digest = digest_of(sim_frames(args.sim), digest)
        total += count
    print(f"{total} readings, md5 {digest.hexdigest()}, {time.process_time() - start:.1f} CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""List the dice reader's mistakes on a labelled folder: every false die, missed die and wrong value,
as it is shot, resized or as another light or camera shows it, with a sheet of pictures of them.

usage: python3 benchmarks/dice_mistakes.py FOLDER_WITH_truth.json [--scale 0.4] [--look sharpened]
       [--kinds false,missed,wrong] [--sheet mistakes.png]
One line a mistake (image, kind, place in the labels' pixels, what was read and what is true), then
the counts; the sheet shows each mistake cut from the photo as shot, the reading or the labelled
box ringed. Matching is the benchmark's (the team scorer's rule). Runs on ONE core.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.dice_benchmark import (LOOKS, TURNS, add_judge_option, chosen_judge, labels_problem,  # noqa: E402
                                       matched, read_folder)

KINDS = ("false", "missed", "wrong")
# Each picture on the sheet: TILE px square, showing CONTEXT times the die's size around it.
TILE, CONTEXT, SHEET_COLUMNS = 120, 2.4, 8


class Mistake(NamedTuple):
    """One mistake: the image, its kind, the place and size (labels' pixels), and what was read / is true."""

    image: str
    kind: str
    x: float
    y: float
    size: float
    read: str
    true: str

    def line(self) -> str:
        """The mistake as one line for people."""
        return f"{self.image}  {self.kind:6s}  at ({self.x:.0f}, {self.y:.0f})  size {self.size:.0f}  read {self.read}  true {self.true}"


def mistakes(truth: list[dict], readings: list[dict]) -> list[Mistake]:
    """Every false die, missed die and wrong value of the readings (one dict per image, as
    read_folder gives them) against the labels."""
    by_name = {r["image"]: r["dice"] for r in readings}
    out: list[Mistake] = []
    for entry in truth:
        found = matched(entry, by_name.get(entry["image"], []))
        for d in found.missed:
            x1, y1, x2, y2 = d["box"]
            out.append(Mistake(entry["image"], "missed", (x1 + x2) / 2, (y1 + y2) / 2, max(x2 - x1, y2 - y1), "-", str(d["value"])))
        for d, g in found.pairs:
            if int(g["value"]) != d["value"]:
                out.append(Mistake(entry["image"], "wrong", g["x"], g["y"], g["size"], _said(g), str(d["value"])))
        out.extend(Mistake(entry["image"], "false", g["x"], g["y"], g["size"], _said(g), "-") for g in found.false)
    return out


def _said(reading: dict) -> str:
    """What a reading says: value, colour and confidence."""
    return f"{reading['value']} {reading['colour']} ({reading['confidence']:.2f})"


def sheet(folder: Path, found: list[Mistake]) -> np.ndarray | None:
    """A picture of each mistake, cut from its photo as shot, SHEET_COLUMNS to a row (None with none)."""
    images = folder / "images" if (folder / "images").is_dir() else folder
    tiles = []
    for m in found:
        photo = cv2.imread(str(images / m.image))
        if photo is not None:
            tiles.append(_tile(photo, m))
    if not tiles:
        return None
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % SHEET_COLUMNS)
    return np.vstack([np.hstack(tiles[k:k + SHEET_COLUMNS]) for k in range(0, len(tiles), SHEET_COLUMNS)])


def _tile(photo: np.ndarray, m: Mistake) -> np.ndarray:
    """The part of the photo around a mistake, TILE px square, the die ringed and the kind written on it."""
    half = max(4.0, CONTEXT * m.size / 2.0)
    scale = TILE / (2.0 * half)
    warp = np.array([[scale, 0.0, TILE / 2.0 - scale * m.x], [0.0, scale, TILE / 2.0 - scale * m.y]])
    tile = cv2.warpAffine(photo, warp, (TILE, TILE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    colour = {"false": (0, 0, 255), "missed": (255, 128, 0), "wrong": (0, 200, 255)}[m.kind]
    cv2.circle(tile, (TILE // 2, TILE // 2), max(2, int(round(scale * m.size / 2.0))), colour, 1, cv2.LINE_AA)
    label = m.kind if m.kind == "missed" else f"{m.kind} {m.read.split()[0]}"
    cv2.putText(tile, label, (3, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    return tile


def main(argv: list[str] | None = None) -> int:
    """Read the folder, print its mistakes and their counts, and write the sheet when asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a folder holding truth.json and images/")
    parser.add_argument("--scale", type=float, default=1.0, help="read each photo resized by this factor")
    parser.add_argument("--look", choices=sorted([*LOOKS, *TURNS]), help="read each photo as this light or camera shows it")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"which mistakes to list, of {', '.join(KINDS)}")
    parser.add_argument("--sheet", type=Path, help="write a picture of each mistake listed to this image file")
    add_judge_option(parser)
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not kinds:
        parser.error(f"unknown kinds {', '.join(unknown) or '(none given)'}; choose among {', '.join(KINDS)}")
    problem = labels_problem(args.folder)
    if problem:
        parser.error(f"{args.folder}: {problem}")
    if args.scale <= 0:
        parser.error("--scale must be above 0")
    cv2.setNumThreads(1)
    with chosen_judge(parser, args.judge, args.values):
        truth, readings, _ = read_folder(args.folder, args.scale, args.look)
    found = [m for m in mistakes(truth, readings) if m.kind in kinds]
    for m in found:
        print(m.line())
    counts = {kind: sum(m.kind == kind for m in found) for kind in kinds}
    print(f"{len(truth)} images, {sum(len(e['dice']) for e in truth)} dice: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    if args.sheet is not None:
        picture = sheet(args.folder, found)
        if picture is None:
            print("no mistake to draw: no sheet written")
        elif not cv2.imwrite(str(args.sheet), picture):
            print(f"could not write {args.sheet}: give a path ending in .png or .jpg in a folder that exists")
            return 1
        else:
            print(f"sheet of {len(found)} mistakes: {args.sheet}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

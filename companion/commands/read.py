"""`companion read IMAGE...`: read the dice in photos and print them as a table or as JSON lines."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError
from vision.colour import ColourProfile, ColourProfileError, default_profile
from vision.dice import DieReading, read_dice
from vision.dice_overlay import draw_readings

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `companion read IMAGE... [--json] [--annotate DIR] [--profile FILE]`."""
    parser = subparsers.add_parser(
        "read", help="read the dice in photos (files or folders)",
        description="Read every die in each photo: centre, size, value, body colour and confidence.")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photo files, or folders of photos")
    parser.add_argument("--json", action="store_true", help="print one JSON object per image and line")
    parser.add_argument("--annotate", metavar="DIR", help="write each photo with its readings drawn on it to DIR")
    parser.add_argument("--profile", metavar="FILE", help="colour profile (JSON), or a calibration file holding one")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Read every image named; return 0 when all were read, 1 when some could not be."""
    try:
        profile = load_profile(args.profile) if args.profile else default_profile()
        annotate = _annotate_dir(args.annotate) if args.annotate else None
    except CompanionError as error:
        print(f"companion read: {error}", file=sys.stderr)
        return 2
    paths, failures = expand_paths(args.images)
    for message in failures:
        print(f"companion read: {message}", file=sys.stderr)
    for path in paths:
        if not _read_one(path, profile, args.json, annotate):
            failures.append(str(path))
    return 1 if failures else 0


def load_profile(path: str) -> ColourProfile:
    """The colour profile in a JSON file: the profile itself or a calibration file's `colour_profile`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ColourProfileError(f"{path}: no such profile file; leave out --profile to use the built-in colours.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ColourProfileError(f"{path} is not a readable JSON colour profile ({error}).") from None
    if isinstance(data, dict) and isinstance(data.get("colour_profile"), dict):
        data = data["colour_profile"]
    try:
        return ColourProfile.from_dict(data)
    except ColourProfileError as error:
        raise ColourProfileError(f"{path}: {error}") from None


def expand_paths(names: list[str]) -> tuple[list[Path], list[str]]:
    """Image paths from file and folder names (folders give their images, sorted); and what is missing."""
    paths: list[Path] = []
    problems: list[str] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
            if not found:
                problems.append(f"{name}: this folder holds no images ({', '.join(sorted(IMAGE_SUFFIXES))}).")
            paths.extend(found)
        elif path.exists():
            paths.append(path)
        else:
            problems.append(f"{name}: no such file or folder.")
    return paths, problems


def _annotate_dir(name: str) -> Path:
    """The folder for annotated images, made if needed."""
    folder = Path(name)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CompanionError(f"cannot make the folder {name} for annotated images ({error.strerror}).") from None
    return folder


def _read_one(path: Path, profile: ColourProfile, as_json: bool, annotate: Path | None) -> bool:
    """Read one image and print its dice; False (with a one-line error) when it cannot be read."""
    image = _load(path)
    if image is None:
        print(f"companion read: {path}: not an image OpenCV can read (is it a photo?).", file=sys.stderr)
        return False
    start = time.perf_counter()
    readings = read_dice(image, profile)
    ms = (time.perf_counter() - start) * 1000.0
    if as_json:
        print(json.dumps({"image": str(path), "dice": [r.to_dict() for r in readings], "ms": round(ms, 2)}))
    else:
        print(format_table(str(path), readings, ms))
    if annotate is not None:
        target = annotate / (path.stem + ".annotated.png")
        if not cv2.imwrite(str(target), draw_readings(image, readings)):
            print(f"companion read: could not write {target}.", file=sys.stderr)
            return False
    return True


def _load(path: Path) -> np.ndarray | None:
    """The image at `path` as BGR, or None when it is not a readable image."""
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError:
        return None
    if data.size == 0:
        return None
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def format_table(name: str, readings: list[DieReading], ms: float) -> str:
    """A readable table of one image's dice."""
    lines = [f"{name}: {len(readings)} dice ({ms:.1f} ms)"]
    if readings:
        lines.append(f"  {'value':>5}  {'colour':<8} {'x':>7} {'y':>7} {'size':>6}  confidence")
        for r in sorted(readings, key=lambda r: (r.y, r.x)):
            lines.append(f"  {r.value:>5}  {r.colour:<8} {r.x:7.1f} {r.y:7.1f} {r.size:6.1f}  {r.confidence:.2f}")
    return "\n".join(lines)

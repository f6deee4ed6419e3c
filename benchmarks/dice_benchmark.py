"""Benchmark the dice reader: accuracy and speed on labelled photo folders and on simulator frames.

usage: python3 benchmarks/dice_benchmark.py [FOLDER_WITH_truth.json ...] [--sim N] [--no-sim]
       [--scales 0.5,1.5,3] [--looks warm,cool,dark,bright,flat,noisy,jpeg,blurred] [--things N] [--desk N] [--patterned N]
Without folders it measures both sets in ../shared/data/dice. Runs on ONE core
(cv2.setNumThreads(1)). Matching is the scorer's (../shared/tools/score_dice.py): a reading matches
a true die when its centre lies inside the true box with 15% slack, each true die matched once.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import statistics
import sys
import time
import zlib
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.dice import judged_by, read_dice, valued_by  # noqa: E402
from vision.dice_judge import candidate_judge  # noqa: E402
from vision.dice_values import candidate_value_reader  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "dice"
SCORER = ROOT.parent / "shared" / "tools" / "score_dice.py"
DEFAULT_SETS = ("nell-byler-1208", "matteop65")

# `--judge none`: the reader with no judge, the floor a judge must beat on photos it was not trained
# on (a judge trained without nell-byler read it 79.4 %, the reader alone 94.7 %: README).
NO_JUDGE = "none"


def add_judge_option(parser: argparse.ArgumentParser) -> None:
    """Give a benchmark --judge PATH and --values PATH: read with those networks instead of the shipped ones."""
    parser.add_argument("--judge", type=Path,
                        help="read with this judge model (.onnx) instead of the shipped one: a candidate written by "
                             "training/train_dice_judge.py --write --out PATH, or one trained --across; "
                             f"'{NO_JUDGE}' reads with no judge at all (the pip-first reader alone)")
    parser.add_argument("--values", type=Path,
                        help="read with this value reader (.onnx) instead of the shipped one: one written by "
                             "training/train_dice_values.py --across (with --judge of a judge trained --across, "
                             "a photo set neither network has seen)")


def chosen_judge(parser: argparse.ArgumentParser, path: Path | None,
                 values: Path | None = None) -> contextlib.AbstractContextManager:
    """Where to read with the judge at `path` (the shipped one when None, none at all for NO_JUDGE)
    and the value reader at `values` (the shipped one when None); the parser's error, which ends
    the run, when a file is not such a model this OpenCV loads."""
    stack = contextlib.ExitStack()
    if path is not None:
        stack.enter_context(judged_by(None if str(path) == NO_JUDGE else _loaded(parser, "--judge", candidate_judge, path)))
    if values is not None:
        stack.enter_context(valued_by(_loaded(parser, "--values", candidate_value_reader, values)))
    return stack


def _loaded(parser: argparse.ArgumentParser, option: str, load, path: Path):
    """The network `load` makes of the file at `path`; the parser's error, naming the option, when it cannot."""
    try:
        return load(path)
    except ValueError as problem:
        parser.error(f"{option} {problem}")


def load_scorer():
    """The team's scorer module, loaded by path; a copy of its rule when it is not there."""
    if SCORER.exists():
        spec = importlib.util.spec_from_file_location("score_dice", SCORER)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.score
    return score_copy


def _inside(x: float, y: float, box: list[float], pad: float = 0.0) -> bool:
    """The scorer's rule: (x, y) inside the box grown by `pad` of its size on each side."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    return x1 - pad * w <= x <= x2 + pad * w and y1 - pad * h <= y <= y2 + pad * h


class Matched(NamedTuple):
    """One image's readings against its labels: (true die, reading) pairs, true dice no reading
    matched, and readings that match no true die nor any box to ignore."""

    pairs: list[tuple[dict, dict]]
    missed: list[dict]
    false: list[dict]


def matched(entry: dict, got: list[dict]) -> Matched:
    """The scorer's matching for one labelled image: each true die takes the nearest unused reading
    whose centre lies in its box (15 % slack)."""
    got = list(got)
    used: set[int] = set()
    pairs, missed = [], []
    for d in entry["dice"]:
        cx, cy = (d["box"][0] + d["box"][2]) / 2, (d["box"][1] + d["box"][3]) / 2
        best = None
        for i, g in enumerate(got):
            if i not in used and _inside(g["x"], g["y"], d["box"], pad=0.15):
                dist = (g["x"] - cx) ** 2 + (g["y"] - cy) ** 2
                if best is None or dist < best[0]:
                    best = (dist, i)
        if best is None:
            missed.append(d)
            continue
        used.add(best[1])
        pairs.append((d, got[best[1]]))
    false = [g for i, g in enumerate(got)
             if i not in used and not any(_inside(g["x"], g["y"], b, pad=0.15) for b in entry.get("ignore", []))]
    return Matched(pairs, missed, false)


def score_copy(truth: list[dict], readings: list[dict]) -> dict:
    """The same scoring as ../shared/tools/score_dice.py (used only when that file is absent)."""
    by_name = {Path(r["image"]).name: r for r in readings}
    n_true = n_found = n_right = n_false = n_images_right = 0
    for t in truth:
        found = matched(t, by_name.get(t["image"], {}).get("dice", []))
        right = sum(int(g["value"]) == d["value"] for d, g in found.pairs)
        n_true += len(t["dice"])
        n_found += len(found.pairs)
        n_right += right
        n_false += len(found.false)
        n_images_right += t["image"] in by_name and right == len(t["dice"]) and not found.false
    return {
        "images": len(truth), "true_dice": n_true, "found": n_found, "false_dice": n_false,
        "value_right": n_right, "recall": n_found / max(n_true, 1), "value_accuracy": n_right / max(n_found, 1),
        "end_to_end": n_right / max(n_true, 1), "images_all_right": n_images_right / max(len(truth), 1),
    }


def read_folder(folder: Path, scale: float = 1.0, look: str | None = None) -> tuple[list[dict], list[dict], list[float]]:
    """Read every image of a labelled folder, resized by `scale` (as a camera nearer or farther
    would show it) and changed as another light or camera would (`look`, one of LOOKS): (truth,
    readings as JSON lines in the labels' pixels, ms per image); a look of TURNS turns the photo
    instead, and its readings are brought back to the photo's pixels."""
    truth = json.loads((folder / "truth.json").read_text())
    images = folder / "images" if (folder / "images").is_dir() else folder
    readings, times = [], []
    for entry in truth:
        image = cv2.imread(str(images / entry["image"]))
        if image is None:
            raise SystemExit(f"{images / entry['image']}: missing or unreadable; the benchmark needs every image.")
        if scale != 1.0:
            image = cv2.resize(image, None, fx=scale, fy=scale,
                               interpolation=cv2.INTER_AREA if scale < 1.0 else cv2.INTER_CUBIC)
        height, width = image.shape[:2]
        turn, back = TURNS.get(look, (None, None))
        if turn is not None:
            image = turn(image)
        elif look is not None:
            image = LOOKS[look](image, zlib.crc32(entry["image"].encode()))
        dice, ms = timed_read(image)
        times.append(ms)
        places = [back(d.x, d.y, width, height) if back else (d.x, d.y) for d in dice]
        found = [dict(d.to_dict(), x=x / scale, y=y / scale, size=round(d.size / scale, 1)) for d, (x, y) in zip(dice, places)]
        readings.append({"image": entry["image"], "dice": found})
    return truth, readings, times


def _scaled_channels(image: np.ndarray, gains: tuple[float, float, float], offset: float = 0.0) -> np.ndarray:
    """The image with each channel (B, G, R) scaled by its gain and `offset` added, clipped to 0-255."""
    return np.clip(image.astype(np.float32) * np.array(gains, np.float32) + offset, 0, 255).astype(np.uint8)


def _noisy(image: np.ndarray, seed: int) -> np.ndarray:
    """The image with a small sensor's noise in dim light (Gaussian, 8 grey levels), seeded per image."""
    noise = np.random.default_rng(seed).normal(0.0, 8.0, image.shape)
    return np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def saved_as_jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """The image saved as a JPEG of this quality and read back (colour at half resolution, 8x8 blocks)."""
    return cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


def _sharpened(image: np.ndarray, seed: int) -> np.ndarray:
    """The image as a phone or webcam that sharpens hard shows it (unsharp mask, amount 1, 1.5 px): edges get halos."""
    return cv2.addWeighted(image, 2.0, cv2.GaussianBlur(image, (0, 0), 1.5), -1.0, 0)


def _vignetted(image: np.ndarray, seed: int) -> np.ndarray:
    """The image through a wide cheap lens: light falling off to 45 % in the corners."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    reach = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2  # 2 in the corners
    return np.clip(image.astype(np.float32) * (1.0 - 0.275 * reach)[..., None], 0, 255).astype(np.uint8)


def _shadowed(image: np.ndarray, seed: int) -> np.ndarray:
    """The image with its left half in a soft-edged shadow (45 % of the light): someone leaning over the table."""
    w = image.shape[1]
    gain = 0.45 + 0.55 / (1.0 + np.exp(-(np.arange(w, dtype=np.float32) - w / 2) / (0.03 * w)))
    return np.clip(image.astype(np.float32) * gain[None, :, None], 0, 255).astype(np.uint8)


def _soft(image: np.ndarray, seed: int) -> np.ndarray:
    """The image from a camera of half the resolution, enlarged to this size."""
    h, w = image.shape[:2]
    return cv2.resize(cv2.resize(image, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA), (w, h),
                      interpolation=cv2.INTER_LINEAR)


def _vivid(image: np.ndarray, seed: int) -> np.ndarray:
    """The image as a phone that boosts colour shows it (saturation x1.6)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    hsv[..., 1] = np.clip(hsv[..., 1].astype(np.float32) * 1.6, 0, 255).astype(np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


# Other lights and cameras, made from the labelled photos (`--looks`): each takes an image and a
# seed (from its file name) and returns the image as that light or camera would show it.
LOOKS = {
    "warm": lambda image, seed: _scaled_channels(image, (0.7, 0.95, 1.15)),  # a lamp, white balance off
    "cool": lambda image, seed: _scaled_channels(image, (1.2, 1.0, 0.8)),  # daylight on a warm setting
    "dark": lambda image, seed: _scaled_channels(image, (0.45, 0.45, 0.45)),  # underexposed
    "bright": lambda image, seed: _scaled_channels(image, (1.5, 1.5, 1.5)),  # overexposed: whites clip
    "flat": lambda image, seed: _scaled_channels(image, (0.5, 0.5, 0.5), 64.0),  # haze, a cheap lens
    "noisy": _noisy,
    "jpeg": lambda image, seed: saved_as_jpeg(image, 50),  # a messenger's or a cheap webcam's hard compression
    "blurred": lambda image, seed: cv2.GaussianBlur(image, (0, 0), 1.0),  # out of focus
    # Looks first measured on 2026-12-03 (not in the README's summed line, which is of the eight above).
    "sharpened": _sharpened,
    "vignetted": _vignetted,
    "streaked": lambda image, seed: cv2.blur(image, (5, 1)),  # a die or the camera moving sideways (5 px)
    "shadowed": _shadowed,
    "soft": _soft,
    "vivid": _vivid,
    "grey": lambda image, seed: cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR),  # monochrome
}


def timed_read(image: np.ndarray, profile=None) -> tuple[list, float]:
    """Read an image; the readings and the wall-clock milliseconds it took (also kept as CPU time)."""
    start, cpu = time.perf_counter(), time.thread_time()
    dice = read_dice(image, profile)
    CPU_MS.append((time.thread_time() - cpu) * 1000.0)
    return dice, (time.perf_counter() - start) * 1000.0


# CPU milliseconds of the reads timed since the last report: on a shared machine the wall clock
# also counts the time other processes held the core.
CPU_MS: list[float] = []


def report_folder(folder: Path, score) -> dict:
    """Benchmark one labelled folder and print its numbers."""
    read_dice(np.full((64, 64, 3), 128, np.uint8))  # warm up OpenCV before timing
    CPU_MS.clear()
    truth, readings, times = read_folder(folder)
    s = score(truth, readings)
    per_100 = 100.0 * s["false_dice"] / max(s["images"], 1)
    print(f"== {folder.name}: {s['images']} images, {s['true_dice']} dice")
    print(f"  dice found          {s['found']}/{s['true_dice']} ({100 * s['recall']:.2f}%)")
    print(f"  false dice          {s['false_dice']} ({per_100:.2f} per 100 images)")
    print(f"  value accuracy      {100 * s['value_accuracy']:.2f}% of dice found")
    print(f"  end-to-end accuracy {100 * s['end_to_end']:.2f}%  ({s['value_right']}/{s['true_dice']})")
    print(f"  images all right    {100 * s['images_all_right']:.2f}%")
    print(f"  median ms per image {statistics.median(times):.2f}  (p90 {np.percentile(times, 90):.2f}; "
          f"CPU median {statistics.median(CPU_MS):.2f})")
    CPU_MS.clear()
    return s


def simulator_frames(count: int, seed: int = 7, **scene_options) -> list[tuple[np.ndarray, dict]]:
    """`count` 1920x1080 simulator frames with 26 dice each, with their truth."""
    from vision.simulator import LIGHTINGS, random_scene, render_table

    rng = np.random.default_rng(seed)
    frames = []
    # Every lighting the simulator makes, in turn (the colour sets count their frames by them too).
    lightings = tuple(LIGHTINGS)
    backgrounds = ("mat", "wood", "cloth", "plain")
    for k in range(count):
        options = {"lighting": lightings[k % len(lightings)], "background": backgrounds[(k // len(lightings)) % len(backgrounds)]}
        options.update(scene_options)
        scene = random_scene(rng, dice=26, **options)
        frames.append(render_table(scene, rng))
    return frames


def report_simulator(count: int, score, colour_sets: int = 1) -> None:
    """Time the reader on 1920x1080 simulator frames of 26 dice; print accuracy and colour errors too."""
    try:
        from vision.simulator import LIGHTINGS

        frames = simulator_frames(count)
    except ImportError as error:
        print(f"== simulator: not available ({error}); no 1920x1080 timing.")
        return
    read_dice(frames[0][0])  # warm up
    CPU_MS.clear()
    times, readings, truths = [], [], []
    for k, (image, truth) in enumerate(frames):
        dice, ms = timed_read(image)
        times.append(ms)
        readings.append({"image": f"sim-{k}", "dice": [d.to_dict() for d in dice]})
        truths.append({"image": f"sim-{k}", "dice": truth["dice"], "ignore": truth.get("ignore", [])})
    s = score(truths, readings)
    print(f"== simulator: {count} frames 1920x1080, 26 dice each (white, gray, black; {len(LIGHTINGS)} lightings, 4 tables)")
    print(f"  end-to-end accuracy {100 * s['end_to_end']:.2f}%  found {s['found']}/{s['true_dice']}, "
          f"false {s['false_dice']}")
    print(f"  median ms per frame {statistics.median(times):.2f}  (p90 {np.percentile(times, 90):.2f}; "
          f"CPU median {statistics.median(CPU_MS):.2f})")
    CPU_MS.clear()
    report_colours(count, colour_sets)


def report_things(count: int, score) -> None:
    """False dice on things that are not dice (blank and marked: dice with numbers, keys), in
    `count` seeded 1280x720 frames of 12 things alone and `count` of 10 dice of every colour among 8
    things; and how well those dice are read."""
    from vision.simulator import BACKGROUNDS, BODY_COLOURS, CLUTTER_KINDS, LIGHTINGS, random_scene, render_table

    lightings = list(LIGHTINGS)
    frames = []
    for k in range(2 * count):
        rng = np.random.default_rng(500 + k)
        scene = random_scene(rng, dice=10 * (k % 2), clutter=12 - 4 * (k % 2), width=1280, height=720,
                             die_size=float(rng.uniform(26, 44)), colours=tuple(BODY_COLOURS),
                             lighting=lightings[k % len(lightings)], background=BACKGROUNDS[(k // 2) % len(BACKGROUNDS)])
        frames.append(render_table(scene, rng))
    print(f"== things that are not dice: {count} frames of 12 alone, {count} of 10 dice among 8 (1280x720)")
    report_clutter(frames, CLUTTER_KINDS, score)


def report_desk(count: int, score) -> None:
    """False dice on a desk's things (a laptop's keys, printed labels), in `count` seeded 1280x720
    frames of 4-11 dice of every colour among 2-4 of them; and how well those dice are read."""
    from vision.simulator import BACKGROUNDS, BODY_COLOURS, DESK_CLUTTER, LIGHTINGS, random_scene, render_table

    lightings = list(LIGHTINGS)
    frames = []
    for k in range(count):
        # Seeds apart from the desk frames the judge is trained on (training/train_dice_judge.py).
        rng = np.random.default_rng(1500 + k)
        scene = random_scene(rng, dice=int(rng.integers(4, 12)), clutter=int(rng.integers(2, 5)), width=1280, height=720,
                             die_size=float(rng.uniform(24, 48)), colours=tuple(BODY_COLOURS), clutter_kinds=DESK_CLUTTER,
                             lighting=lightings[k % len(lightings)], background=BACKGROUNDS[(k // 2) % len(BACKGROUNDS)])
        frames.append(render_table(scene, rng))
    print(f"== a desk's things: {count} frames of 4-11 dice among 2-4 keyboards and labels (1280x720)")
    report_clutter(frames, DESK_CLUTTER, score)


def report_clutter(frames: list[tuple[np.ndarray, dict]], kinds: tuple[str, ...], score) -> None:
    """Print the false dice read in simulator frames among things of `kinds` (in all, and on each
    kind of thing), and how many of the frames' dice were read right."""
    on_kind = {kind: 0 for kind in kinds}
    seen = {kind: 0 for kind in kinds}
    truths, readings = [], []
    for k, (image, truth) in enumerate(frames):
        dice = read_dice(image)
        for thing in truth["clutter"]:
            seen[thing["kind"]] += 1
            on_kind[thing["kind"]] += sum(_inside(d.x, d.y, thing["box"]) for d in dice)
        truths.append({"image": f"clutter-{k}", "dice": truth["dice"], "ignore": []})
        readings.append({"image": f"clutter-{k}", "dice": [d.to_dict() for d in dice]})
    s = score(truths, readings)
    print(f"  false dice          {s['false_dice']} on {sum(seen.values())} things: "
          + ", ".join(f"{kind} {on_kind[kind]}/{seen[kind]}" for kind in kinds))
    print(f"  dice among things   {s['value_right']}/{s['true_dice']} read right")


def patterned_frame(k: int) -> tuple[str, np.ndarray, dict]:
    """The benchmark's k-th patterned table (seeded): its pattern, the 1280x720 frame of 8 dice of
    every colour on it, and the truth."""
    from vision.simulator import BODY_COLOURS, LIGHTINGS, PATTERNS, patterned_table, random_scene, render_table

    rng = np.random.default_rng(900 + k)
    kind, side = PATTERNS[k % len(PATTERNS)], float(rng.uniform(26, 44))
    lightings = list(LIGHTINGS)
    scene = random_scene(rng, dice=8, width=1280, height=720, die_size=side, colours=tuple(BODY_COLOURS),
                         lighting=lightings[k % len(lightings)], background=patterned_table(rng, kind, 1280, 720, side))
    image, truth = render_table(scene, rng)
    return kind, image, truth


def report_patterned(count: int, score) -> None:
    """False dice and dice read right on patterned tables whose marks look like pips (dotted cloth,
    perforated metal, mesh), in `count` seeded 1280x720 frames of 8 dice of every colour."""
    from vision.simulator import PATTERNS

    truths, readings = [], []
    false_by_kind = {kind: 0 for kind in PATTERNS}
    for k in range(count):
        kind, image, truth = patterned_frame(k)
        truths.append({"image": f"patterned-{k}", "dice": truth["dice"], "ignore": []})
        readings.append({"image": f"patterned-{k}", "dice": [d.to_dict() for d in read_dice(image)]})
        false_by_kind[kind] += score(truths[-1:], readings[-1:])["false_dice"]
    s = score(truths, readings)
    print(f"== patterned tables: {count} frames of 8 dice on {', '.join(PATTERNS)} (1280x720)")
    print(f"  false dice          {s['false_dice']}: " + ", ".join(f"{kind} {n}" for kind, n in false_by_kind.items()))
    print(f"  dice read right     {s['value_right']}/{s['true_dice']}")


def report_colours(count: int, sets: int = 1) -> None:
    """White / gray / black: colour errors with the built-in profile and with one learned per table,
    over `sets` seeded sets of frames (each: every table under every lighting)."""
    from vision.colour import default_profile
    from vision.simulator import LIGHTINGS

    errors = {"built-in": [0, 0], "learned": [0, 0]}
    for seed in (200 * s + k for s in range(sets) for k in range(4)):
        background = ("mat", "wood", "cloth", "plain")[seed % 4]
        profile = calibrate_on_simulator(background, seed=100 + seed)
        frames = simulator_frames(max(1, count // 4) * len(LIGHTINGS), seed=200 + seed, background=background)
        for image, truth in frames:
            for name, used in (("built-in", default_profile()), ("learned", profile)):
                wrong, checked = colour_mistakes(truth["dice"], read_dice(image, used))
                errors[name][0] += wrong
                errors[name][1] += checked
    for name, (wrong, checked) in errors.items():
        print(f"  colour errors, {name + ' profile:':18} {wrong} of {checked} dice found ({sets} set(s) of frames)")


def calibrate_on_simulator(background: str, seed: int):
    """A colour profile learned as calibration does (calibration/colours.py): one neutral-light frame
    of that table, each colour's body and the table beside it measured the same way."""
    from calibration.colours import body_colour
    from vision.colour import learn
    from vision.dice import die_colours
    from vision.simulator import random_scene, render_table

    rng = np.random.default_rng(seed)
    samples, tables = {}, []
    # As a player would, show the camera another frame until every colour has been read once.
    for _ in range(5):
        image, truth = render_table(random_scene(rng, dice=12, background=background, lighting="neutral",
                                                 touching=0.0), rng)
        dice = read_dice(image)
        for t in truth["dice"]:
            cx, cy = t["centre"]
            near = [d for d in dice if (d.x - cx) ** 2 + (d.y - cy) ** 2 < (0.3 * t["size"]) ** 2
                    and d.value == t["value"]]
            if near and t["colour"] not in samples:
                die = near[0]
                samples[t["colour"]] = body_colour(image, die.x, die.y, die.size, die.angle)
                tables.append(die_colours(image, die, dice)[1])
        if len(samples) == 3:
            break
    return learn(samples, table=np.median(np.array(tables), axis=0))


def colour_mistakes(truth: list[dict], dice: list) -> tuple[int, int]:
    """How many dice read at a true die's top face got the wrong colour name, and how many were read."""
    errors = checked = 0
    for t in truth:
        cx, cy = t["centre"]
        near = [d for d in dice if (d.x - cx) ** 2 + (d.y - cy) ** 2 < (0.5 * t["size"]) ** 2]
        if not near:
            continue
        die = min(near, key=lambda d: (d.x - cx) ** 2 + (d.y - cy) ** 2)
        checked += 1
        errors += die.colour != t["colour"]
    return errors, checked


# Other ways a camera may face the table (`--looks turned,mirrored`): each turns a photo, and brings
# a point read in the turned photo (x, y) back to the photo's pixels given its width and height. A
# die reads alike whichever way it is seen; the networks were trained on these photos as they stand.
TURNS = {
    "turned": (lambda image: cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE), lambda x, y, w, h: (y, h - 1 - x)),
    "mirrored": (lambda image: cv2.flip(image, 1), lambda x, y, w, h: (w - 1 - x, y)),
}


def _looks(text: str) -> list[str]:
    """Comma-separated names of LOOKS and TURNS."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    known = [*LOOKS, *TURNS]
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"{text!r}: give looks separated by commas, of {', '.join(known)}")
    return names


def report_changed(folder: Path, label: str, score, scale: float = 1.0, look: str | None = None) -> dict:
    """Benchmark one labelled folder resized by `scale` and shown in `look`; one line under `label`,
    and the scores."""
    truth, readings, times = read_folder(folder, scale, look)
    s = score(truth, readings)
    print(f"  {label}: end-to-end {100 * s['end_to_end']:.2f}%, found {100 * s['recall']:.2f}%, "
          f"false dice {s['false_dice']}, median ms {statistics.median(times):.2f}")
    return s


def report_together(changed: list[dict]) -> None:
    """One line over every resized and changed reading of a folder: the photos as other cameras,
    distances and lights give them, which its own size (the models' training photos) flatters."""
    if not changed:
        return
    right = sum(s["value_right"] for s in changed)
    dice = sum(s["true_dice"] for s in changed)
    false = sum(s["false_dice"] for s in changed)
    print(f"  resized and changed together: end-to-end {100 * right / max(dice, 1):.2f}% "
          f"({right}/{dice}), false dice {false} ({len(changed)} readings of the folder)")


def _scales(text: str) -> list[float]:
    """Comma-separated positive factors."""
    try:
        factors = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        factors = []
    if not factors or min(factors) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give positive factors separated by commas, e.g. 0.5,1.5,3")
    return factors


def labels_problem(folder: Path) -> str | None:
    """What keeps a folder from being benchmarked (no labels, unreadable labels, none labelled), or None."""
    path = folder / "truth.json"
    if not path.exists():
        return "no truth.json here; give a folder with truth.json and images/."
    try:
        truth = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return f"truth.json is not readable JSON ({error}); see ../shared/data/dice/README.md for its format."
    if not isinstance(truth, list) or not all(isinstance(e, dict) and "image" in e for e in truth):
        return "truth.json must be a list of {\"image\": ..., \"dice\": [...]} entries (../shared/data/dice/README.md)."
    if not truth:
        return "truth.json labels no images; label at least one image to benchmark."
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark on the folders given (or both photo sets) and on the simulator."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", help="folders holding truth.json and images/")
    parser.add_argument("--sim", type=int, default=20, help="simulator frames to time (default 20)")
    parser.add_argument("--no-sim", action="store_true", help="skip the simulator frames")
    parser.add_argument("--things", type=int, default=20,
                        help="simulator frames of things that are not dice, alone and among dice (default 20 each)")
    parser.add_argument("--desk", type=int, default=20,
                        help="simulator frames of dice among a desk's things: keyboards, printed labels (default 20)")
    parser.add_argument("--patterned", type=int, default=12,
                        help="simulator frames of dice on dotted, perforated and mesh tables (default 12)")
    parser.add_argument("--colour-sets", type=int, default=1,
                        help="seeded sets of simulator frames for the colour errors (default 1)")
    parser.add_argument("--scales", type=_scales, default=[],
                        help="also read each folder resized by these factors, e.g. 0.5,1.5,3")
    parser.add_argument("--looks", type=_looks, default=[],
                        help=f"also read each folder as other lights and cameras show it: {', '.join([*LOOKS, *TURNS])}")
    add_judge_option(parser)
    args = parser.parse_args(argv)
    with chosen_judge(parser, args.judge, args.values):
        return run(args)


def run(args: argparse.Namespace) -> int:
    """The benchmark's reports, as the options ask (2 when a folder's labels cannot be read)."""
    cv2.setNumThreads(1)
    score = load_scorer()
    folders = [Path(f) for f in args.folders] or [DATA / name for name in DEFAULT_SETS]
    for folder in folders:
        problem = labels_problem(folder)
        if problem:
            print(f"{folder}: {problem}", file=sys.stderr)
            return 2
        report_folder(folder, score)
        changed = [report_changed(folder, f"resized x{scale:g}", score, scale=scale) for scale in args.scales]
        changed += [report_changed(folder, look, score, look=look) for look in args.looks]
        report_together(changed)
    if not args.no_sim:
        report_simulator(args.sim, score, args.colour_sets)
        if args.things:
            report_things(args.things, score)
        if args.desk:
            report_desk(args.desk, score)
        if args.patterned:
            report_patterned(args.patterned, score)
    return 0


if __name__ == "__main__":
    sys.exit(main())

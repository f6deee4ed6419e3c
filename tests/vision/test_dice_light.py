"""The dice reader in dim, colour-cast and grainy frames: brightened to the level its thresholds
expect, brought back to gray and smoothed, within limits."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.test_dice import _benchmark
from tests.vision.test_dice_scale import _right
from vision import dice
from vision.dice import Lift, balanced, denoised, lit, read_dice

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "dice"


def _right_as_shot_and_changed(change, every: int = 6) -> tuple[int, int, int]:
    """Dice read right in every `every`th nell-byler photo as shot and changed by `change`, and the
    dice there are (skipped where the photos are absent)."""
    folder = DATA / "nell-byler-1208"
    if not (folder / "truth.json").exists():
        pytest.skip("the nell-byler-1208 photos are absent")
    entries = json.loads((folder / "truth.json").read_text())[::every]
    own = changed = 0
    for entry in entries:
        image = cv2.imread(str(folder / "images" / entry["image"]))
        own += _right(read_dice(image), entry, 1.0)
        changed += _right(read_dice(change(image)), entry, 1.0)
    return own, changed, sum(len(e["dice"]) for e in entries)


def test_underexposed_photos_are_read_about_as_well_as_the_originals():
    own, dark, dice_there = _right_as_shot_and_changed(lambda image: (image * 0.45).astype(np.uint8))
    # Unbrightened, the pips' contrast fell under the pip finder's threshold: 10 points fewer right.
    assert dark >= own - 0.03 * dice_there, (own, dark)


def test_a_bright_frame_is_left_as_it_is():
    frame = np.full((120, 160, 3), 210, np.uint8)
    frame[50:60, 50:60] = 0  # a pip: the frame's black is black
    same, lift = lit(frame)
    assert same is frame and lift == Lift()


def test_an_even_gray_frame_is_neither_brightened_nor_unveiled():
    frame = np.full((120, 160, 3), 200, np.uint8)
    same, lift = lit(frame)
    assert same is frame and lift == Lift()


def _veiled(image: np.ndarray) -> np.ndarray:
    """The image as haze or a cheap lens shows it: half its contrast, its black lifted to 64."""
    return _look("flat")(image, 0)


def test_a_veiled_frame_has_its_black_taken_off_and_its_contrast_restored():
    rng = np.random.default_rng(3)
    frame = cv2.GaussianBlur(rng.integers(90, 130, (240, 320, 3)).astype(np.uint8), (0, 0), 3)
    frame[100:140, 100:140] = 205  # a white die ...
    frame[115:125, 115:125] = 10  # ... and its pip
    veiled = _veiled(frame)
    unveiled, lift = lit(veiled)
    assert lift.black == veiled[::8, ::8].min() >= 64
    # The pip stands out of its die as far as it did before the veil (within rounding).
    assert int(unveiled[120, 120, 1]) == 0
    assert abs((int(unveiled[105, 105, 1]) - int(unveiled[120, 120, 1])) - (205 - 10)) <= 12
    # The reader's colours are brought back to the camera's for naming.
    assert np.allclose(lift.undone(unveiled[105, 105].astype(np.float32)), veiled[105, 105], atol=1.0)


def test_a_balanced_and_unveiled_frame_gives_its_colours_back_as_the_camera_saw_them():
    balance = np.array([1.4, 1.0, 0.8])
    lift = Lift(1.7, 40.0).after(balance)
    seen = np.array([[60.0, 90.0, 120.0], [180.0, 150.0, 100.0]])
    reader_frame = (seen * balance - 40.0) * 1.7  # balanced, then its black taken off and brightened
    assert np.allclose(lift.undone(reader_frame), seen)


def test_veiled_photos_are_read_about_as_well_as_the_originals():
    own, veiled, dice_there = _right_as_shot_and_changed(_veiled)
    # Read as they came, the veiled photos' pips had half their contrast: 184 of 194 right, against 193.
    # Unveiled: 193 of 194 against 194 with the judge of 2026-12-01, 192 with that of 2026-12-06
    # (over the whole set 99.25 % against 99.53 % as shot; 99.34 % against 99.81 % before).
    assert veiled >= own - 0.015 * dice_there, (own, veiled)


def test_a_dim_frame_is_brightened_and_nothing_saturates():
    rng = np.random.default_rng(1)
    frame = rng.integers(40, 70, (240, 320, 3)).astype(np.uint8)
    frame = cv2.GaussianBlur(frame, (0, 0), 3)  # smooth, like a JPEG photo: little noise
    frame[100:140, 100:140] = 110  # the brightest thing, a white die in the dim light
    frame[115:125, 115:125] = 5  # its pip: a dim frame's black is still black
    brighter, lift = lit(frame)
    assert lift.black == 0 and 1.5 < lift.gain <= 255 / 110
    assert brighter.max() < 255


def test_a_noisy_dim_frame_is_brightened_less_than_a_clean_one():
    rng = np.random.default_rng(2)
    clean = np.full((240, 320, 3), 60, np.uint8)
    noisy = np.clip(60 + rng.normal(0, 4, clean.shape), 0, 255).astype(np.uint8)
    clean_gain = lit(clean)[1].gain
    noisy_gain = lit(noisy)[1].gain
    assert noisy_gain < clean_gain
    # The sensor's noise grows no bigger than pip-finding can stand.
    assert noisy_gain * dice.pixel_noise(noisy) <= dice.NOISE_ROOM + 1e-6


@pytest.mark.parametrize("seed", range(5))
def test_the_noise_measure_is_the_mean_of_the_smaller_half_of_neighbour_steps(seed):
    rng = np.random.default_rng(seed)
    frame = np.clip(100 + rng.normal(0, 1 + seed, (64, 90, 3)), 0, 255).astype(np.uint8)
    steps = np.abs(np.diff(frame[::8, :, 1].astype(np.int16), axis=1)).ravel()
    half = len(steps) // 2
    assert dice.pixel_noise(frame) == pytest.approx(np.sort(steps)[:half].mean())


@functools.cache
def _look(name: str):
    """One of the benchmark's looks (image, seed) -> image: the light or camera the reader must cope with."""
    return _benchmark().LOOKS[name]


def _warm(image: np.ndarray) -> np.ndarray:
    """The image under a lamp the camera did not balance for."""
    return _look("warm")(image, 0)


def test_a_gray_frame_is_left_as_it_is():
    frame = np.full((120, 160, 3), (200, 205, 198), np.uint8)
    out, gains = balanced(frame)
    assert out is frame and gains is None


def test_a_cast_frame_is_brought_back_to_gray_and_nothing_saturates():
    frame = np.full((240, 320, 3), (120, 150, 170), np.uint8)  # a warm-lit table...
    frame[100:140, 100:140] = (140, 190, 220)  # ...and its white die, blue short of red
    out, gains = balanced(frame)
    assert gains is not None and gains[2] == 1.0 and gains[0] > gains[1] > 1.0
    die = out[120, 120].astype(float)
    assert die.max() - die.min() <= 2  # the white die is gray again
    assert out.max() == 220  # no channel was pushed past the brightest the camera gave


def test_a_channel_already_at_its_top_is_not_raised():
    frame = np.full((240, 320, 3), (150, 200, 230), np.uint8)
    frame[100:140, 100:140] = (255, 240, 255)  # blue, the short channel, already clips somewhere
    frame[10:50, 10:50] = (160, 230, 250)
    out, gains = balanced(frame)
    assert gains is None or gains[0] == 1.0


def test_warm_lit_photos_of_ones_are_read_about_as_well_as_the_originals(monkeypatch):
    folder = DATA / "matteop65"
    if not (folder / "truth.json").exists():
        pytest.skip("the matteop65 photos are absent")
    entries = [e for e in json.loads((folder / "truth.json").read_text()) if e["image"].startswith("dice_")]
    images = [cv2.imread(str(folder / "images" / e["image"])) for e in entries]
    dice_count = sum(len(e["dice"]) for e in entries)

    def right(change) -> int:
        return sum(_right(read_dice(change(image)), entry, 1.0) for image, entry in zip(images, entries))

    own, warm = right(lambda image: image), right(_warm)
    monkeypatch.setattr(dice, "BALANCED", False)
    unbalanced = right(_warm)
    # Unbalanced, the white dice's bodies fade into the pale wood: the lone pips of ones go unread.
    assert warm >= own - 0.02 * dice_count, (own, warm)
    assert warm >= unbalanced + 0.05 * dice_count, (unbalanced, warm, own)


def test_a_cast_frame_s_colours_are_named_as_the_camera_saw_them(monkeypatch):
    from vision.simulator import random_scene, render_table

    rng = np.random.default_rng(12)
    scene = random_scene(rng, dice=12, lighting="warm", touching=0.0, colours=("red", "yellow", "green", "blue", "white"))
    image, _ = render_table(scene, rng)
    assert balanced(image)[1] is not None  # the simulator's warm light casts the frame
    read = {(round(d.x / 4), round(d.y / 4)): d.colour for d in read_dice(image)}
    monkeypatch.setattr(dice, "BALANCED", False)
    unbalanced = {(round(d.x / 4), round(d.y / 4)): d.colour for d in read_dice(image)}
    both = read.keys() & unbalanced.keys()
    assert len(both) >= 10
    # Named in the balanced frame, two of these dice were named blue where the camera's frame says black.
    assert all(read[k] == unbalanced[k] for k in both)


def test_a_clean_frame_is_not_smoothed():
    rng = np.random.default_rng(4)
    frame = np.clip(120 + rng.normal(0, 1.5, (240, 320, 3)), 0, 255).astype(np.uint8)  # a camera's raw frame
    assert denoised(frame) is frame


def test_a_grainy_frame_is_smoothed_and_keeps_its_edges():
    frame = np.full((240, 320, 3), 200, np.uint8)
    frame[:, 160:] = 40  # a dark die's edge on a white mat
    grainy = _look("noisy")(frame, 5)  # a small sensor in a dim room
    smooth = denoised(grainy)
    assert dice.pixel_noise(smooth) < 0.6 * dice.pixel_noise(grainy)
    # The edge stays a step of one pixel, not a ramp.
    row = smooth[120].astype(float).mean(axis=1)
    assert row[157] > 180 and row[162] < 60


def test_grainy_photos_are_read_about_as_well_as_the_originals(monkeypatch):
    folder = DATA / "nell-byler-1208"
    if not (folder / "truth.json").exists():
        pytest.skip("the nell-byler-1208 photos are absent")
    bench = _benchmark()
    score = bench.load_scorer()
    smoothed = score(*bench.read_folder(folder, look="noisy")[:2])
    monkeypatch.setattr(dice, "DENOISED", False)
    unsmoothed = score(*bench.read_folder(folder, look="noisy")[:2])
    # As shot, 98.7 % end to end and 9 false dice; unsmoothed, the grain broke pips up and made
    # specks of pips (1032 dice right, 19 false), smoothed 1042 and 8.
    assert smoothed["end_to_end"] >= 0.975, smoothed
    margin = (smoothed["value_right"] - smoothed["false_dice"]) - (unsmoothed["value_right"] - unsmoothed["false_dice"])
    assert margin >= 10, (smoothed, unsmoothed)

"""The dice reader in dim frames: brightened to the level its thresholds expect, within limits."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.test_dice_scale import _right
from vision import dice
from vision.dice import lit, read_dice

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "dice"


def test_underexposed_photos_are_read_about_as_well_as_the_originals():
    folder = DATA / "nell-byler-1208"
    if not (folder / "truth.json").exists():
        pytest.skip("the nell-byler-1208 photos are absent")
    entries = json.loads((folder / "truth.json").read_text())[::6]
    own = dark = 0
    for entry in entries:
        image = cv2.imread(str(folder / "images" / entry["image"]))
        own += _right(read_dice(image), entry, 1.0)
        dark += _right(read_dice((image * 0.45).astype(np.uint8)), entry, 1.0)
    # Unbrightened, the pips' contrast fell under the pip finder's threshold: 10 points fewer right.
    assert dark >= own - 0.03 * sum(len(e["dice"]) for e in entries), (own, dark)


def test_a_bright_frame_is_left_as_it_is():
    frame = np.full((120, 160, 3), 210, np.uint8)
    assert lit(frame) == (frame, 1.0)


def test_a_dim_frame_is_brightened_and_nothing_saturates():
    rng = np.random.default_rng(1)
    frame = rng.integers(40, 70, (240, 320, 3)).astype(np.uint8)
    frame = cv2.GaussianBlur(frame, (0, 0), 3)  # smooth, like a JPEG photo: little noise
    frame[100:140, 100:140] = 110  # the brightest thing, a white die in the dim light
    brighter, gain = lit(frame)
    assert 1.5 < gain <= 255 / 110
    assert brighter.max() < 255


def test_a_noisy_dim_frame_is_brightened_less_than_a_clean_one():
    rng = np.random.default_rng(2)
    clean = np.full((240, 320, 3), 60, np.uint8)
    noisy = np.clip(60 + rng.normal(0, 4, clean.shape), 0, 255).astype(np.uint8)
    _, clean_gain = lit(clean)
    _, noisy_gain = lit(noisy)
    assert noisy_gain < clean_gain
    # The sensor's noise grows no bigger than pip-finding can stand.
    assert noisy_gain * dice._noise(noisy) <= dice.NOISE_ROOM + 1e-6


@pytest.mark.parametrize("seed", range(5))
def test_the_noise_measure_is_the_mean_of_the_smaller_half_of_neighbour_steps(seed):
    rng = np.random.default_rng(seed)
    frame = np.clip(100 + rng.normal(0, 1 + seed, (64, 90, 3)), 0, 255).astype(np.uint8)
    steps = np.abs(np.diff(frame[::8, :, 1].astype(np.int16), axis=1)).ravel()
    half = len(steps) // 2
    assert dice._noise(frame) == pytest.approx(np.sort(steps)[:half].mean())

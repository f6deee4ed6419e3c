"""The dice reader in a frame partly in shadow: pips are found as if its shaded places were
brightened to the light of the rest, and read with the frame's own colours."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.test_dice_light import _look, _right_as_shot_and_changed
from vision import dice
from vision.dice import shade_of
from vision.dice_pips import Shade, find_pips


def test_a_shades_gains_land_on_the_frames_pixels_whole_in_boxes_and_shrunk():
    grid = np.arange(12, dtype=np.float32).reshape(3, 4) + 1.0
    shade = Shade(grid, every=8)
    whole = shade.over(0, 0, 32, 24)
    # Grid point (row k, column j) stands for the frame's pixel (8j, 8k), linear in between.
    assert whole[8, 16] == grid[1, 2] and whole[8, 20] == pytest.approx((grid[1, 2] + grid[1, 3]) / 2)
    assert shade.at(np.array([[16.0, 8.0]]))[0] == grid[1, 2]
    assert np.allclose(shade.over(8, 4, 16, 12), whole[4:16, 8:24])
    assert np.allclose(shade.over(0, 0, 16, 12, times=2), whole[::2, ::2])


def _half_shaded_table(shadow: float = 0.45) -> np.ndarray:
    """A light table of white dice with faint pips, smooth as a photo, its left half in a shadow."""
    rng = np.random.default_rng(5)
    frame = np.clip(185 + rng.normal(0, 1.0, (240, 480, 3)), 0, 255).astype(np.uint8)
    for x in (60, 180, 300, 420):
        frame[100:140, x - 20:x + 20] = 235  # a white die ...
        frame[116:124, x - 4:x + 4] = 150  # ... and its faint pip (contrast ~85 in the light)
    light = np.where(np.arange(480) < 240, shadow, 1.0).astype(np.float32)
    return (frame * light[None, :, None]).astype(np.uint8)


def test_an_evenly_lit_frame_has_no_shade():
    assert shade_of(_half_shaded_table(shadow=1.0)) is None


def test_a_frames_shaded_half_is_brightened_up_to_the_light_of_the_rest_within_a_limit():
    shade = shade_of(_half_shaded_table())
    gains = shade.over(0, 0, 480, 240)
    # 1 / 0.45 = 2.2 would bring it to the light of the rest; SHADE_GAIN is the most it is brightened.
    assert 1.8 <= gains[120, :100].min() <= gains.max() <= dice.SHADE_GAIN
    assert np.allclose(gains[120, 380:], 1.0)


def test_faint_pips_in_the_shade_are_found_and_keep_the_frames_colours():
    frame = _half_shaded_table()
    plain = find_pips(frame, kernel=11, threshold=40.0, min_area=5, max_area=700)
    shaded = find_pips(frame, kernel=11, threshold=40.0, min_area=5, max_area=700, shade=shade_of(frame))
    # In the shadow the pips stand ~38 levels out of their dice, under the threshold of 40.
    assert sorted(np.rint(plain.xy[:, 0]).astype(int)) == [300, 420]
    assert sorted(np.rint(shaded.xy[:, 0]).astype(int)) == [60, 180, 300, 420]
    left = shaded.xy[:, 0] < 240
    assert np.allclose(shaded.colour[left], 150 * 0.45, atol=2) and np.allclose(shaded.body[left], 235 * 0.45, atol=2)


def test_shadowed_photos_are_read_nearly_as_well_as_the_originals(monkeypatch):
    shadowed = lambda image: _look("shadowed")(image, 0)  # noqa: E731 - the left half at 45 % of the light
    own, lifted, dice_there = _right_as_shot_and_changed(shadowed, every=1)
    monkeypatch.setattr(dice, "SHADE_LIFTED", False)
    _, unlifted, _ = _right_as_shot_and_changed(shadowed, every=1)
    # Measured: 1039 of 1063 right shadowed, 1027 with the shade not lifted, 1059 as shot.
    assert lifted >= own - 0.025 * dice_there > unlifted, (own, lifted, unlifted)

"""The dice reader in a frame partly in shadow: its shaded places are brightened to the light of the
rest before it is read, and the dice's colours are still named as the camera saw them."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.test_dice_light import _look, _right_as_shot_and_changed
from vision import dice
from vision.dice import Lift, Shade, shade_of, shaded


def test_a_shades_gains_land_on_the_frames_pixels_and_follow_it_resized():
    grid = np.arange(12, dtype=np.float32).reshape(3, 4) + 1.0
    shade = Shade(grid, every=8)
    whole = shade.over(32, 24)
    # Grid point (row k, column j) stands for the frame's pixel (8j, 8k), linear in between.
    assert whole[8, 16] == grid[1, 2] and whole[8, 20] == pytest.approx((grid[1, 2] + grid[1, 3]) / 2)
    assert shade.at(np.array([[16.0, 8.0]]))[0] == grid[1, 2]
    assert shade.at(np.array([[20.0, 12.0]]))[0] == pytest.approx(whole[12, 20])
    # The frame read twice as big: the same place is at twice the pixels.
    assert shade.resized(2.0).at(np.array([[32.0, 16.0]]))[0] == grid[1, 2]
    assert np.allclose(shade.resized(2.0).over(64, 48)[::2, ::2], whole)


def _half_shaded_table(shadow: float = 0.45) -> np.ndarray:
    """A light table of white dice with faint pips, smooth as a photo, its left half in a shadow."""
    rng = np.random.default_rng(5)
    frame = np.clip(185 + rng.normal(0, 1.0, (240, 480, 3)), 0, 255).astype(np.uint8)
    for x in (60, 180, 300, 420):
        frame[100:140, x - 20:x + 20] = 235  # a white die ...
        frame[116:124, x - 4:x + 4] = 150  # ... and its faint pip
    light = np.where(np.arange(480) < 240, shadow, 1.0).astype(np.float32)
    return (frame * light[None, :, None]).astype(np.uint8)


def test_an_evenly_lit_frame_is_not_shaded():
    frame = _half_shaded_table(shadow=1.0)
    assert shade_of(frame) is None
    same, lift = shaded(frame, Lift())
    assert same is frame and lift == Lift()


def test_a_frames_shaded_half_is_brightened_up_to_the_light_of_the_rest_within_a_limit():
    frame = _half_shaded_table()
    brightened, lift = shaded(frame, Lift())
    gains = lift.shade.over(480, 240)
    # 1 / 0.45 = 2.2 would bring it to the light of the rest; SHADE_GAIN is the most it is brightened.
    assert 1.8 <= gains[120, :100].min() <= gains.max() <= dice.SHADE_GAIN
    assert np.allclose(gains[120, 380:], 1.0)
    # A pip in the shade stands out of its die as far as a pip in the light, nearly.
    shaded_pip = int(brightened[110, 60, 1]) - int(brightened[120, 60, 1])
    lit_pip = int(brightened[110, 300, 1]) - int(brightened[120, 300, 1])
    assert 0.8 * lit_pip <= shaded_pip <= lit_pip


def test_colours_found_in_the_brightened_frame_are_given_back_as_the_camera_saw_them():
    frame = _half_shaded_table()
    brightened, lift = shaded(frame, Lift())
    places = np.array([[60.0, 110.0], [180.0, 130.0], [300.0, 110.0]])
    found = np.array([brightened[int(y), int(x)] for x, y in places], np.float32)
    seen = np.array([frame[int(y), int(x)] for x, y in places], np.float32)
    assert np.allclose(lift.undone(found, places), seen, atol=2.0)
    # Read twice as big, the same dice are at twice the pixels.
    assert np.allclose(lift.resized(2.0).undone(found, 2.0 * places), seen, atol=2.0)


def test_shadowed_photos_are_read_nearly_as_well_as_the_originals(monkeypatch):
    shadowed = lambda image: _look("shadowed")(image, 0)  # noqa: E731 - the left half at 45 % of the light
    own, brightened, dice_there = _right_as_shot_and_changed(shadowed, every=1)
    monkeypatch.setattr(dice, "SHADE_LIFTED", False)
    _, as_they_are, _ = _right_as_shot_and_changed(shadowed, every=1)
    # Measured: 1048 of 1063 right shadowed, 1036 with the shade left as it is (1027 before the judge
    # fell back on bodies it found no die on: BODY_FALLBACK), 1057 as shot; with the judge of
    # 2026-12-06, 1050 shadowed, 1045 left as it is, 1058 as shot.
    assert brightened >= own - 0.02 * dice_there, (own, brightened)
    assert brightened > as_they_are + 0.004 * dice_there, (brightened, as_they_are)


def test_colours_of_a_shaded_frame_are_not_given_back_without_their_places():
    _, lift = shaded(_half_shaded_table(), Lift())
    with pytest.raises(ValueError):
        lift.undone(np.array([[100.0, 100.0, 100.0]], np.float32))

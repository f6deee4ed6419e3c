"""A reading whose place repeats itself, one step of a pattern away and back, two ways, is a
patterned table (a mesh, a perforated tray), not a die."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision import dice, dice_repeats
from vision.dice import read_dice
from vision.dice_repeats import REPEATS, TEMPLATES_TRIED, patterned, repeats
from vision.simulator import random_scene, render_table

from tests.vision.test_dice_patterns import _false_and_right, _grid, _patterned_frame, _pips_at


def _mesh(width: int = 400, height: int = 300, period: float = 14.0, wire: int = 3, turn: float = 0.35) -> np.ndarray:
    """A grey image of light wires crossing over a dark ground, turned, `period` px apart."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    u = (x * np.cos(turn) + y * np.sin(turn)) % period
    v = (-x * np.sin(turn) + y * np.cos(turn)) % period
    image = np.where((u < wire) | (v < wire), 190.0, 40.0)
    return cv2.GaussianBlur(image.astype(np.uint8), (0, 0), 0.8)


@pytest.mark.parametrize("place", [(200.0, 150.0), (120.3, 77.8), (380.0, 150.0), (200.0, 298.0)])
def test_a_mesh_repeats_itself_anywhere_even_at_the_frame_s_edge(place):
    # A face of two holes fitted on it (18 px), a place at the edge: the patch is moved inside.
    assert repeats(_mesh(), place, face_side=18.0) > REPEATS


def test_a_small_false_face_sees_the_repeat_of_a_coarser_pattern_with_its_marks_spacing():
    # A face of 9 px (two specks in one hole) on a mesh 24 px apart: its own reach falls short.
    mesh = _mesh(period=24.0, wire=4)
    assert repeats(mesh, (200.0, 150.0), face_side=9.0) < REPEATS
    assert repeats(mesh, (200.0, 150.0), face_side=9.0, mark_spacing=20.0) > REPEATS


def test_a_flat_place_and_a_slope_of_light_do_not_repeat():
    flat = np.full((200, 200), 120, np.uint8)
    assert repeats(flat, (100.0, 100.0), 30.0) == 0.0
    # A smooth slope matches itself at every shift unless its slow change is taken out.
    y, x = np.mgrid[0:200, 0:200]
    slope = np.clip(40 + 0.6 * x + 0.3 * y + np.random.default_rng(2).normal(0, 1.5, x.shape), 0, 255).astype(np.uint8)
    assert repeats(slope, (100.0, 100.0), 30.0) < REPEATS


def test_dice_do_not_repeat_on_a_plain_table_nor_on_a_mesh():
    rng = np.random.default_rng(11)
    mesh = cv2.cvtColor(_mesh(960, 540, period=11.0), cv2.COLOR_GRAY2BGR)
    for background in ("mat", "wood", mesh):
        scene = random_scene(rng, dice=10, width=960, height=540, die_size=40.0, background=background)
        image, truth = render_table(scene, rng)
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        for die in truth["dice"]:
            face = die["size"] / dice.DIE_PER_FACE
            # As read, and as a face fitted a third too big or too small; by every patch width tried.
            for side in (face, 1.3 * face, 0.7 * face):
                for width in TEMPLATES_TRIED:
                    assert repeats(gray, tuple(die["centre"]), side, template_sides=width) < REPEATS, (
                        background if isinstance(background, str) else "mesh", die, width)


def test_patterned_says_which_places_repeat():
    mesh = cv2.cvtColor(_mesh(), cv2.COLOR_GRAY2BGR)
    mesh[100:160, 170:230] = 230  # a plain die-sized square, one dark pip on it
    cv2.circle(mesh, (200, 130), 6, (30, 30, 30), -1)
    assert patterned(mesh, [(200.0, 130.0), (80.0, 60.0)], [40.0, 18.0], 0.0).tolist() == [False, True]
    assert patterned(mesh, [], [], 0.0).shape == (0,)


def test_a_false_face_beside_a_die_on_a_mesh_is_told_by_the_middle_of_its_place():
    # Its widest patch holds the die's edge and repeats nowhere (0.78); its middle is all mesh
    # (0.94). Beside the dice of the benchmark's mesh frames, the judge took such places for sixes.
    mesh = cv2.cvtColor(_mesh(), cv2.COLOR_GRAY2BGR)
    mesh[110:150, 180:220] = 230
    cv2.circle(mesh, (200, 130), 6, (30, 30, 30), -1)
    beside = (242.0, 130.0)
    assert repeats(cv2.cvtColor(mesh, cv2.COLOR_BGR2GRAY), beside, 24.0) < REPEATS
    assert patterned(mesh, [beside, (200.0, 130.0)], [24.0, 32.0], 0.0).tolist() == [True, False]


def test_a_crowded_frame_tells_its_pattern_s_spacing_and_a_photo_none():
    # Marks 14 px apart, too scattered for rows (every other one missed at random): over CROWDED_PIPS.
    frame = cv2.cvtColor(_mesh(1280, 720, period=14.0), cv2.COLOR_GRAY2BGR)
    pips, spacing = dice._find_all_pips(frame)
    assert spacing > 0
    image = np.full((480, 640, 3), 200, np.uint8)
    cv2.circle(image, (320, 240), 5, (20, 20, 20), -1)
    assert dice._find_all_pips(image)[1] == 0.0


def test_a_grid_of_marks_is_spaced_by_its_step():

    assert dice._mark_spacing(_pips_at(_grid(8, 6, 14.0))) == pytest.approx(14.0, abs=0.01)


@pytest.mark.parametrize("seed", [0, 11, 15, 18])
def test_a_mesh_s_places_are_not_read_as_dice(seed, monkeypatch):
    frames = [_patterned_frame(seed, "mesh")]
    false, right = _false_and_right(frames)
    # Measured with the check: 3, 2, 1 and 0 false dice (8, 8, 8 and 7 of 8 right); without it, and
    # without that rule, 190, 10, 5 and 334 (8 of 8 right each); without the check alone 190, 5, 5
    # and 154 (the judge of 2026-12-09, taught keyboards, rules out most of a fine mesh's places
    # itself). With the two-member judge of 2026-12-07: 0, 1, 0 and 0 (8, 8, 7 and 7 right; 2, 1, 0
    # and 1 before dice added off the dice had to show a sure value, PIPS_ALONE_VALUE, then asked off
    # the dice only); without it, and without that rule, 49, 20, 11 and 340 (8, 8, 7, 8 right);
    # without the check alone 49, 4, 11 and 210. Seed 15's fine mesh shows 288 pips and no rows of marks (CROWDED_PIPS). Seed 18's lost die
    # is the front-face rule's: with the false dice gone the dice's face side is theirs, and the
    # square holes beside two dice make their pips look flat. With the judge of 2026-12-06 seed 18
    # reads 6 of 8 (8 unchecked, with 340 false dice): it also loses a black two on the mesh.
    monkeypatch.setattr(dice, "PATTERNS_CHECKED", False)
    monkeypatch.setattr(dice, "PIPS_ALONE_VALUE", 0.0)
    unchecked, right_unchecked = _false_and_right(frames)
    assert false <= 3 and unchecked > false, (false, unchecked)
    lost = 2 if seed == 18 else 1
    assert right >= right_unchecked - lost and right >= 8 - lost


def test_the_check_s_reach_is_bounded(monkeypatch):
    # A sparse pattern's spacing would ask for a shift far beyond the patch: the reach stays bounded.
    calls = []
    real = cv2.matchTemplate

    def spy(region, template, method):
        calls.append(region.shape[0] - template.shape[0])
        return real(region, template, method)

    monkeypatch.setattr(dice_repeats.cv2, "matchTemplate", spy)
    repeats(_mesh(), (200.0, 150.0), face_side=10.0, mark_spacing=400.0)
    assert calls and calls[0] <= 2 * dice_repeats.MOST_REACH * (dice_repeats.SCALED | 1)


def test_a_frame_of_dice_on_a_mesh_is_read_at_its_own_size(monkeypatch):
    # The patterned benchmark's frame 29: holes fitted as faces told the holes' size, and the frame
    # was read at 0.42 of its size, where 1 of its 8 dice could be read (7 since).
    from benchmarks.dice_benchmark import patterned_frame

    kind, image, truth = patterned_frame(29)
    assert kind == "mesh"
    factors = []
    real = dice._sized_look

    def spy(*args, **kwargs):
        found = real(*args, **kwargs)
        factors.append(found[2])
        return found

    monkeypatch.setattr(dice, "_sized_look", spy)
    false, right = _false_and_right([(image, truth)])
    assert factors == [1.0] and right >= 6 and false <= 2, (factors, right, false)


@settings(max_examples=60, deadline=None)
@given(height=st.integers(1, 120), width=st.integers(1, 120), seed=st.integers(0, 2**16),
       x=st.floats(-50, 200), y=st.floats(-50, 200), face=st.floats(0.0, 400.0), spacing=st.floats(0.0, 300.0))
def test_any_place_of_any_image_gets_a_correlation_and_no_error(height, width, seed, x, y, face, spacing):
    # Tiny frames, places off the frame, faces of no size or bigger than the frame.
    gray = np.random.default_rng(seed).integers(0, 256, (height, width), dtype=np.uint8)
    value = repeats(gray, (x, y), face, spacing)
    assert -1.0 - 1e-6 <= value <= 1.0 + 1e-6
    assert repeats(gray, (float("nan"), y), 30.0) == 0.0 and repeats(gray, (x, y), -3.0) == 0.0


def test_no_die_is_read_off_the_frame():
    # The patterned benchmark's frame 26: the judge, looking at a dark strip of mesh at the frame's
    # top, moved its die's centre 5 px above the frame; no camera sees a die there.
    from benchmarks.dice_benchmark import patterned_frame

    _, image, _ = patterned_frame(26)
    readings = read_dice(image)
    assert readings and all(0 <= r.x < image.shape[1] and 0 <= r.y < image.shape[0] for r in readings)

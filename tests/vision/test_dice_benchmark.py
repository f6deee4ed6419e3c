"""The dice benchmark's command line: a labelled folder read at its own size and resized."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
PHOTOS = REPO.parent / "shared" / "data" / "dice" / "nell-byler-1208"


def _benchmark():
    """The benchmark module, loaded by path."""
    spec = importlib.util.spec_from_file_location("dice_benchmark", REPO / "benchmarks" / "dice_benchmark.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def two_photos(tmp_path: Path) -> Path:
    """A labelled folder of two real photos."""
    if not (PHOTOS / "truth.json").exists():
        pytest.skip("the nell-byler-1208 photos are absent")
    truth = json.loads((PHOTOS / "truth.json").read_text())[:2]
    (tmp_path / "images").mkdir()
    for entry in truth:
        shutil.copy(PHOTOS / "images" / entry["image"], tmp_path / "images")
    (tmp_path / "truth.json").write_text(json.dumps(truth))
    return tmp_path


def test_resized_reads_are_scored_in_the_labels_pixels(two_photos, capsys):
    assert _benchmark().main([str(two_photos), "--no-sim", "--scales", "1.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    own = next(line for line in lines if "end-to-end accuracy" in line)
    resized = next(line for line in lines if "resized x1.5" in line)
    # Readings mapped back to the labels' pixels find about as many dice as at the photos' own size.
    assert float(resized.split("found ")[1].split("%")[0]) > 80.0, (own, resized)


@pytest.mark.parametrize("text", ["0", "x", "0.5,-1", ""])
def test_bad_scales_are_refused_with_a_message(two_photos, capsys, text):
    with pytest.raises(SystemExit):
        _benchmark().main([str(two_photos), "--no-sim", "--scales", text])
    assert "positive factors" in capsys.readouterr().err


def test_other_lights_and_cameras_are_read_and_scored_each_on_a_line(two_photos, capsys):
    assert _benchmark().main([str(two_photos), "--no-sim", "--looks", "warm,noisy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("  warm: end-to-end") for line in lines)
    assert any(line.startswith("  noisy: end-to-end") for line in lines)


def test_the_resized_and_changed_readings_are_summed_on_one_line(two_photos, capsys):
    assert _benchmark().main([str(two_photos), "--no-sim", "--scales", "1.5", "--looks", "warm"]) == 0
    lines = capsys.readouterr().out.splitlines()
    dice = sum(len(entry["dice"]) for entry in json.loads((two_photos / "truth.json").read_text()))
    each = [line for line in lines if line.startswith(("  resized x1.5:", "  warm:"))]
    together = next(line for line in lines if line.startswith("  resized and changed together:"))
    assert f"/{2 * dice})" in together and "(2 readings of the folder)" in together
    false = sum(int(line.split("false dice ")[1].split(",")[0]) for line in each)
    assert together.endswith(f"false dice {false} (2 readings of the folder)")


def test_no_together_line_without_resized_or_changed_readings(two_photos, capsys):
    assert _benchmark().main([str(two_photos), "--no-sim"]) == 0
    assert "resized and changed together" not in capsys.readouterr().out


def test_turned_and_mirrored_reads_are_scored_in_the_labels_pixels(two_photos, capsys):
    assert _benchmark().main([str(two_photos), "--no-sim", "--looks", "turned,mirrored"]) == 0
    lines = capsys.readouterr().out.splitlines()
    own = float(next(line for line in lines if "dice found" in line).split("(")[1].split("%")[0])
    for name in ("turned", "mirrored"):
        line = next(line for line in lines if line.startswith(f"  {name}: end-to-end"))
        # Readings brought back to the labels' pixels find as many dice as the photos as they stand
        # (unmapped, none of them would lie in its die's box).
        assert float(line.split("found ")[1].split("%")[0]) >= own - 10.0, (own, line)


@pytest.mark.parametrize("name", ["turned", "mirrored"])
def test_a_turned_point_comes_back_where_it_was(name):
    turn, back = _benchmark().TURNS[name]
    photo = np.zeros((30, 50, 3), np.uint8)
    photo[7, 41] = 255  # a point at x 41, y 7
    ys, xs = np.nonzero(turn(photo)[:, :, 0])
    assert back(float(xs[0]), float(ys[0]), 50, 30) == (41, 7)


def test_each_look_changes_a_photo_as_its_light_or_camera_would():
    looks = _benchmark().LOOKS
    photo = np.full((20, 30, 3), (100, 150, 200), np.uint8)
    warm, dark, flat = looks["warm"](photo, 0), looks["dark"](photo, 0), looks["flat"](photo, 0)
    assert warm[0, 0, 0] < photo[0, 0, 0] and warm[0, 0, 2] > photo[0, 0, 2]  # bluer less, redder more
    assert (dark < photo).all() and flat.max() - flat.min() < photo.max() - photo.min()
    assert looks["bright"](photo, 0)[0, 0, 2] == 255  # whites clip
    noisy = looks["noisy"](photo, 7)
    assert noisy.dtype == np.uint8 and noisy.shape == photo.shape
    assert (noisy == looks["noisy"](photo, 7)).all() and (noisy != looks["noisy"](photo, 8)).any()


def test_the_further_looks_change_a_photo_as_their_camera_or_light_would():
    looks = _benchmark().LOOKS
    photo = np.full((40, 60, 3), (60, 120, 180), np.uint8)
    photo[:, 30:] = (200, 200, 200)  # an edge down the middle
    seen = {name: looks[name](photo, 0) for name in ("sharpened", "vignetted", "streaked", "shadowed", "soft", "vivid", "grey")}
    assert all(image.dtype == np.uint8 and image.shape == photo.shape for image in seen.values())
    # Sharpening overshoots either side of the edge; a vignette darkens the corners more than the middle.
    assert seen["sharpened"][20, 29, 0] < photo[20, 29, 0] and seen["sharpened"][20, 30, 0] > photo[20, 30, 0]
    assert seen["vignetted"][0, 0, 2] < seen["vignetted"][20, 15, 2] <= photo[20, 15, 2]
    # Sideways streaks blur the edge across, and leave a row alone; the shadow falls on the left half.
    assert photo[20, 29, 0] < seen["streaked"][20, 29, 0] < photo[20, 30, 0] and (seen["streaked"][:, 10] == photo[:, 10]).all()
    assert seen["shadowed"][20, 5, 2] < 0.5 * photo[20, 5, 2] and seen["shadowed"][20, 55, 2] >= 0.95 * photo[20, 55, 2]
    assert seen["soft"][20, 29, 0] > photo[20, 29, 0]  # half the resolution smears the edge
    # A vivid camera spreads the channels further apart; a monochrome one shows none.
    assert int(seen["vivid"][5, 5, 2]) - int(seen["vivid"][5, 5, 0]) > 180 - 60
    assert (seen["grey"][..., 0] == seen["grey"][..., 2]).all()


def test_the_lesser_camera_looks_smear_a_red_pip_on_a_blue_die():
    looks = _benchmark().LOOKS
    die = np.full((64, 64, 3), (140, 60, 20), np.uint8)  # dark blue (BGR)
    cv2.circle(die, (32, 32), 3, (40, 40, 200), -1)  # a small red pip
    for name in ("jpeg", "blurred"):
        seen = looks[name](die, 0)
        assert seen.dtype == np.uint8 and seen.shape == die.shape
        # The pip's red stands out less from the body than it did.
        assert int(seen[32, 32, 2]) - int(seen[32, 32, 0]) < int(die[32, 32, 2]) - int(die[32, 32, 0])
    assert (looks["jpeg"](die, 0) == looks["jpeg"](die, 9)).all()  # a camera, not a random draw


@pytest.mark.parametrize("text", ["sepia", "", "warm,sepia"])
def test_unknown_looks_are_refused_with_the_known_ones(two_photos, capsys, text):
    with pytest.raises(SystemExit):
        _benchmark().main([str(two_photos), "--no-sim", "--looks", text])
    assert "warm, cool, dark, bright, flat, noisy" in capsys.readouterr().err


@pytest.mark.parametrize("labels, says", [("[]", "labels no images"), ("{not json", "not readable JSON"),
                                          ('{"image": "a.jpg"}', "must be a list")])
def test_a_folder_with_no_usable_labels_is_refused_with_a_message(tmp_path, capsys, labels, says):
    (tmp_path / "images").mkdir()
    (tmp_path / "truth.json").write_text(labels)
    assert _benchmark().main([str(tmp_path), "--no-sim"]) == 2
    assert says in capsys.readouterr().err


def test_things_that_are_not_dice_are_counted_by_kind(capsys):
    bench = _benchmark()
    bench.report_things(1, bench.load_scorer())
    lines = capsys.readouterr().out.splitlines()
    false = next(line for line in lines if "false dice" in line)
    counts = [part.strip().split(" ")[-1] for part in false.split(": ", 1)[1].split(",")]
    on_each, seen = zip(*(tuple(int(n) for n in count.split("/")) for count in counts))
    # One frame of 12 things alone and one of 10 dice among 8: every thing counted under its kind,
    # and no more false dice on things than false dice in all.
    assert sum(seen) == 20 and len(counts) == 7
    assert sum(on_each) <= int(false.split()[2])
    assert next(line for line in lines if "dice among things" in line).split()[-3].endswith("/10")


def test_false_dice_among_a_desks_things_are_counted_on_keyboards_and_labels(capsys):
    bench = _benchmark()
    bench.report_desk(2, bench.load_scorer())
    lines = capsys.readouterr().out.splitlines()
    false = next(line for line in lines if "false dice" in line)
    counts = dict(part.strip().rsplit(" ", 1) for part in false.split(": ", 1)[1].split(","))
    assert set(counts) == {"keyboard", "label"}
    on_each, seen = zip(*(tuple(int(n) for n in count.split("/")) for count in counts.values()))
    assert 4 <= sum(seen) <= 8 and sum(on_each) <= int(false.split()[2])
    right, dice = next(line for line in lines if "dice among things" in line).split()[-3].split("/")
    assert 8 <= int(dice) <= 22 and int(right) <= int(dice)


def test_false_dice_on_patterned_tables_are_counted_by_pattern(capsys):
    bench = _benchmark()
    bench.report_patterned(3, bench.load_scorer())
    lines = capsys.readouterr().out.splitlines()
    false = next(line for line in lines if "false dice" in line)
    by_pattern = dict(part.split() for part in false.split(": ", 1)[1].split(", "))
    # Three frames, one of each pattern: each pattern's false dice counted, together the total.
    assert set(by_pattern) == {"dots", "holes", "mesh"}
    assert sum(int(n) for n in by_pattern.values()) == int(false.split()[2].rstrip(":"))
    assert next(line for line in lines if "dice read right" in line).split()[-1].endswith("/24")

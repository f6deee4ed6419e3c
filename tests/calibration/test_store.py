"""The calibration file: a round trip, each kind of wrongness with its own message, and a moved camera."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.mat import mat_geometry
from calibration.steps import calibrate_frame, check_camera_moved
from calibration.store import calibration_to_dict, load_calibration, save_calibration
from companion.errors import CalibrationError


@pytest.fixture(scope="module")
def calibration(calibrated_photo):
    """A calibration made from the good photograph."""
    return calibrate_frame(calibrated_photo.image).calibration


def test_round_trip_keeps_everything(calibration, tmp_path) -> None:
    """Saved and loaded: same mat, size, homography, markers, colour profile and checks."""
    path = save_calibration(calibration, tmp_path / "deep" / "calibration.json")
    loaded = load_calibration(path, image_size=(1920, 1080))
    assert loaded.mat == calibration.mat and loaded.image_size == (1920, 1080)
    assert np.allclose(loaded.homography, calibration.homography)
    assert loaded.markers.keys() == calibration.markers.keys()
    assert all(np.allclose(loaded.markers[i], calibration.markers[i]) for i in loaded.markers)
    assert loaded.colour_profile == calibration.colour_profile
    assert [c["name"] for c in loaded.checks] == ["resolution", "focus", "exposure", "glare", "grain", "haze"]
    assert list(tmp_path.joinpath("deep").iterdir()) == [path]  # no temporary file left behind


def _write(tmp_path, data) -> str:
    """Write `data` (a dict, or raw text) as the calibration file and return its path."""
    path = tmp_path / "calibration.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def _broken(calibration, change) -> dict:
    """The calibration's plain values with `change` applied."""
    data = json.loads(json.dumps(calibration_to_dict(calibration)))
    change(data)
    return data


WRONGS = {
    "not json": ("{ this is not json", "is not valid JSON (line 1): it is damaged"),
    "another file": ({"hello": 1}, "is not a companion calibration file"),
    "missing homography": (lambda d: d.pop("homography"), "lacks homography: it is incomplete"),
    "missing two": (lambda d: (d.pop("markers"), d.pop("mat")), "lacks mat, markers: it is incomplete"),
    "old version": (lambda d: d.update(version=0), "is calibration format version 0, this companion reads version 1"),
    "bad size": (lambda d: d.update(image_size=[1920]), "image_size should be [width, height] in pixels, not [1920]"),
    "singular": (lambda d: d.update(homography=[[1, 2, 3], [2, 4, 6], [0, 0, 1]]), "the homography is singular"),
    "not 3x3": (lambda d: d.update(homography=[[1, 0], [0, 1]]), "the homography should be 3x3 numbers"),
    "infinite": (lambda d: d["homography"][0].__setitem__(0, float("inf")), "the homography is singular"),
    "bad mat": (lambda d: d["mat"].pop("seats"), "the mat description is damaged ('seats')"),
    "bad marker": (lambda d: d["markers"].update({"24": [[1, 2]]}), "marker '24' should have four [x, y] corners"),
    "bad profile": (lambda d: d.update(colour_profile={"colours": {"white": [[1, 2]]}}), "the colour profile is damaged"),
}


@pytest.mark.parametrize("kind", WRONGS)
def test_each_wrong_file_gets_its_own_message(calibration, tmp_path, kind: str) -> None:
    """Every kind of damage is named, with the file, and says how to recalibrate."""
    damage, message = WRONGS[kind]
    data = damage if isinstance(damage, (str, dict)) else _broken(calibration, damage)
    path = _write(tmp_path, data)
    with pytest.raises(CalibrationError) as caught:
        load_calibration(path)
    text = str(caught.value)
    assert message in text and path in text and "run `companion calibrate`" in text


def test_missing_file_says_there_is_none_yet(tmp_path) -> None:
    """No file: 'there is no calibration file yet' and how to make one."""
    with pytest.raises(CalibrationError, match="there is no calibration file yet; run `companion calibrate`"):
        load_calibration(tmp_path / "none.json")


def test_a_camera_with_another_resolution_is_told_to_recalibrate(calibration, tmp_path) -> None:
    """Made at 1920x1080, loaded for a 1280x720 camera: the sizes are named."""
    path = save_calibration(calibration, tmp_path / "c.json")
    with pytest.raises(CalibrationError, match="made for 1920x1080 pictures but the camera now gives 1280x720"):
        load_calibration(path, image_size=(1280, 720))


def test_an_unmoved_camera_is_not_reported(calibration, photo_of) -> None:
    """A new frame of the same view (other noise, other dice): not moved."""
    frame = photo_of(mat_geometry(4), seed=11).image
    verdict = check_camera_moved(calibration, frame)
    assert not verdict.moved and verdict.message is None and verdict.shift_px < 1.0


def test_a_moved_camera_is_reported_with_the_shift(calibration, photo_of) -> None:
    """The camera nudged by 12 px: reported as moved, with the size of the shift."""
    nudged = [(x + 12, y + 5) for x, y in ((260, 110), (1680, 140), (1720, 1010), (210, 990))]
    verdict = check_camera_moved(calibration, photo_of(mat_geometry(4), view=nudged).image)
    assert verdict.moved and 10 < verdict.shift_px < 16
    assert "moved (markers shifted 13 px since calibration)" in verdict.message


def test_a_camera_looking_elsewhere_is_reported(calibration) -> None:
    """No markers in view at all: moved, and the message says to uncover or recalibrate."""
    verdict = check_camera_moved(calibration, np.full((1080, 1920, 3), 120, np.uint8))
    assert verdict.moved and verdict.shift_px is None and "none of the mat's markers are in view" in verdict.message


def test_a_covered_marker_alone_is_not_a_move(calibration, calibrated_photo) -> None:
    """A hand over one marker: not moved, but the covered marker is named."""
    image = calibrated_photo.image.copy()
    quad = np.round(calibration.markers[min(calibration.markers)]).astype(np.int32)
    cv2.fillConvexPoly(image, cv2.convexHull(quad), (80, 120, 160))
    verdict = check_camera_moved(calibration, image)
    assert not verdict.moved and verdict.missing == (min(calibration.markers),)
    assert "are covered" in verdict.message


def test_check_command_reports_a_moved_camera(calibration, photo_of, tmp_path, capsys) -> None:
    """`companion calibrate check --image F --out C` exits 1 and says the camera moved."""
    from companion.cli import main

    path = save_calibration(calibration, tmp_path / "c.json")
    moved = tmp_path / "moved.png"
    cv2.imwrite(str(moved), photo_of(mat_geometry(4), view="straight").image)
    assert main(["calibrate", "check", "--image", str(moved), "--out", str(path)]) == 1
    assert "the camera or the mat moved" in capsys.readouterr().err

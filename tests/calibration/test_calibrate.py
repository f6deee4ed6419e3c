"""Calibration from one rendered frame: the mat found at several angles, distances and lights; the checks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.checks import HAZY_BLACK
from calibration.mat import mat_geometry
from calibration.steps import calibrate_frame
from vision.simulator import LIGHTINGS


def _lightness(bgr) -> float:
    """CIE L of one BGR colour."""
    return float(cv2.cvtColor(np.float32(bgr).reshape(1, 1, 3) / 255, cv2.COLOR_BGR2Lab)[0, 0, 0])


@pytest.mark.parametrize("view", ["straight", "tilted", "steep", "far", "turned"])
def test_homography_maps_the_mat_within_a_millimetre(photo_of, view: str) -> None:
    """Seen straight, tilted, steep, far or upside down, the found homography matches the true one."""
    photo = photo_of(mat_geometry(4), view=view)
    result = calibrate_frame(photo.image, colours=False)
    calibration = result.calibration
    assert calibration is not None, result.problems
    assert calibration.mat == photo.geometry
    grid = np.array([[x, y] for x in np.linspace(20, 400, 9) for y in np.linspace(20, 277, 7)])
    true_pixels = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), photo.mm_to_frame).reshape(-1, 2)
    error_mm = np.linalg.norm(calibration.to_mat(true_pixels) - grid, axis=1)
    assert error_mm.max() < 1.0, error_mm.max()


@pytest.mark.parametrize("view", ["tilted", "turned"])
def test_seat_zones_are_mapped_into_the_picture(photo_of, view: str) -> None:
    """A point in the middle of each seat's zone is that seat; the display's middle is the display."""
    geometry = mat_geometry(5)
    photo = photo_of(geometry, view=view)
    calibration = calibrate_frame(photo.image, colours=False).calibration
    for zone in geometry.seats:
        x, y = photo.frame_point(*zone.rect.centre)
        assert calibration.seat_at(x, y) == zone.seat
        assert cv2.pointPolygonTest(np.float32(calibration.seat_polygons()[zone.seat]), (float(x), float(y)),
                                    False) > 0
    assert calibration.in_display(*photo.frame_point(*geometry.display.centre))
    assert calibration.seat_at(*photo.frame_point(*geometry.display.centre)) is None


@pytest.mark.parametrize("lighting", ["neutral", "warm", "cool", "dim", "uneven", "warm-dim"])
def test_calibration_works_under_each_light(photo_of, on_squares, lighting: str) -> None:
    """Every light of the simulator: mat found, white/gray/black learned in the right order of lightness."""
    geometry = mat_geometry(4)
    light = LIGHTINGS[lighting]
    if lighting == "neutral":
        light = light.__class__(**{**light.__dict__, "brightness": 0.85})
    photo = photo_of(geometry, lighting=light, dice=on_squares(geometry))
    result = calibrate_frame(photo.image)
    assert result.calibration is not None
    samples = result.colours.samples
    assert set(samples) == {"white", "gray", "black", "red", "yellow", "green", "blue"}, result.notes
    assert _lightness(samples["white"]) > _lightness(samples["gray"]) + 15 > _lightness(samples["black"]) + 30
    red, yellow, blue, green = samples["red"], samples["yellow"], samples["blue"], samples["green"]
    assert red[2] > 1.5 * red[1] and blue[0] > 1.5 * blue[2] and green[1] > green[2] and yellow[2] > 2 * yellow[0]
    assert result.calibration.colour_profile == result.colours.profile


def test_a_good_picture_passes_every_check(calibrated_photo) -> None:
    """Sharp, well lit, no glare: every check passes and nothing is asked of the host."""
    result = calibrate_frame(calibrated_photo.image)
    assert [c.name for c in result.checks] == ["resolution", "focus", "exposure", "glare", "grain", "haze"]
    assert all(c.ok for c in result.checks), [c.message for c in result.checks]
    assert result.ok and result.problems == ()
    assert "learned the colours white, gray, black, red, yellow, green, blue" in result.notes[0]


def test_a_blurred_picture_is_asked_to_be_focused(photo_of) -> None:
    """Out of focus: the focus check fails and says to turn the focus ring."""
    result = calibrate_frame(photo_of(mat_geometry(4), blur=3.5).image, colours=False)
    focus = next(c for c in result.checks if c.name == "focus")
    assert not focus.ok and "blurred" in focus.message and "focus ring" in focus.message
    assert focus.message in result.problems


def test_a_dark_picture_is_asked_for_more_light(photo_of) -> None:
    """Too dark: exposure fails with 'add light'; the mat is still found."""
    dark = LIGHTINGS["dim"].__class__(brightness=0.2, noise=3.0)
    result = calibrate_frame(photo_of(mat_geometry(4), lighting=dark).image, colours=False)
    exposure = next(c for c in result.checks if c.name == "exposure")
    assert result.calibration is not None
    assert not exposure.ok and "too dark" in exposure.message and "add light" in exposure.message


def test_an_overexposed_picture_is_asked_for_less_exposure(photo_of) -> None:
    """Blown out: exposure fails with 'lower the camera's exposure'."""
    bright = LIGHTINGS["bright"].__class__(brightness=1.6, unevenness=0.1)
    result = calibrate_frame(photo_of(mat_geometry(4), lighting=bright).image, colours=False)
    exposure = next(c for c in result.checks if c.name == "exposure")
    assert not exposure.ok and "overexposed" in exposure.message


def test_a_grainy_picture_is_asked_for_more_light(photo_of) -> None:
    """A small sensor's grain (8 grey levels): the grain check fails and says to add light or lower the gain."""
    image = photo_of(mat_geometry(4)).image
    grainy = np.clip(image + np.random.default_rng(3).normal(0.0, 8.0, image.shape), 0, 255).astype(np.uint8)
    result = calibrate_frame(grainy, colours=False)
    grain = next(c for c in result.checks if c.name == "grain")
    assert result.calibration is not None
    assert not grain.ok and "grainy" in grain.message and "lower the camera's gain" in grain.message
    assert grain.message in result.problems
    assert next(c for c in calibrate_frame(image, colours=False).checks if c.name == "grain").ok


@pytest.mark.parametrize("lighting", ["neutral", "dim", "bright", "warm-dim", "uneven"])
def test_a_hazy_picture_is_asked_for_a_clean_lens_and_a_clear_one_is_not(photo_of, lighting) -> None:
    """A veil of light over the lens (half the contrast, black lifted to 64): the haze check fails
    and says to clean the lens; the same picture without the veil passes, in any of these lights."""
    image = photo_of(mat_geometry(4), lighting=lighting).image
    hazy = np.clip(image.astype(np.float32) * 0.5 + 64.0, 0, 255).astype(np.uint8)
    result = calibrate_frame(hazy, colours=False)
    haze = next(c for c in result.checks if c.name == "haze")
    assert result.calibration is not None
    assert not haze.ok and "hazy" in haze.message and "clean the camera's lens" in haze.message
    assert haze.message in result.problems
    clear = next(c for c in calibrate_frame(image, colours=False).checks if c.name == "haze")
    assert clear.ok and clear.value < HAZY_BLACK


def test_glare_is_found_and_placed(photo_of) -> None:
    """A lamp's reflection over seat 2's zone is reported there; the same mat without it is clean."""
    geometry = mat_geometry(4)
    x, y = geometry.seats[1].rect.centre
    glared = calibrate_frame(photo_of(geometry, glare=(x, y, 12.0)).image, colours=False)
    glare = next(c for c in glared.checks if c.name == "glare")
    assert not glare.ok and "seat 2's zone" in glare.message and "lamp" in glare.message
    clean = calibrate_frame(photo_of(geometry).image, colours=False)
    assert next(c for c in clean.checks if c.name == "glare").ok


def test_a_covered_marker_is_named_and_the_rest_still_calibrates(photo_of) -> None:
    """One marker covered: calibration still works from three, and says which one to uncover."""
    geometry = mat_geometry(4)
    photo = photo_of(geometry)
    image = photo.image.copy()
    marker = geometry.markers[2]
    corners = np.array([photo.frame_point(*p) for p in marker.rect.corners()])
    cv2.fillConvexPoly(image, np.round(corners).astype(np.int32), (60, 90, 120))
    result = calibrate_frame(image, colours=False)
    assert result.calibration is not None and not result.ok
    assert f"marker {marker.id} (bottom-right corner) not seen" in result.problems[0]


def test_no_mat_in_the_picture_says_what_to_do() -> None:
    """A picture without the mat: no calibration, and a sentence about putting the mat there."""
    rng = np.random.default_rng(3)
    image = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)
    result = calibrate_frame(image)
    assert result.calibration is None and not result.ok
    assert "no mat markers found" in result.problems[0] and "companion calibrate mat" in result.problems[0]


@pytest.mark.parametrize("bad", [np.zeros((0, 0, 3), np.uint8), np.zeros((50, 50), np.uint8), "picture"])
def test_bad_frames_get_a_sentence(bad) -> None:
    """Empty, grey-only or not-an-image input is refused in words."""
    result = calibrate_frame(bad)
    assert result.calibration is None and "check the camera" in result.problems[0]


def test_missing_colour_dice_are_named(photo_of, on_squares) -> None:
    """Only the Rescue Animals dice on the squares: those three learned, the others named as missing."""
    geometry = mat_geometry(4)
    photo = photo_of(geometry, dice=on_squares(geometry, ["white", "gray", "black"]))
    result = calibrate_frame(photo.image)
    assert set(result.colours.samples) == {"white", "gray", "black"}
    assert set(result.calibration.colour_profile["colours"]) == {"white", "gray", "black"}
    assert any("red, yellow, green, blue square(s)" in n for n in result.notes)


def test_learned_profile_names_the_dice_it_learned_from(photo_of, on_squares) -> None:
    """The learned profile, used by the colour namer, names each square's sample as that square's colour
    even under warm dim light where the built-in profile is unsure."""
    from vision.colour import ColourProfile

    geometry = mat_geometry(4)
    photo = photo_of(geometry, lighting="warm-dim", dice=on_squares(geometry))
    result = calibrate_frame(photo.image)
    profile = ColourProfile.from_dict(result.calibration.colour_profile)
    for name, sample in result.colours.samples.items():
        assert profile.classify(sample)[0] == name


def test_command_calibrates_from_a_picture(calibrated_photo, tmp_path, capsys) -> None:
    """`companion calibrate --image F --out C` writes the calibration file and an annotated picture."""
    from calibration.store import load_calibration
    from companion.cli import main

    picture = tmp_path / "frame.png"
    cv2.imwrite(str(picture), calibrated_photo.image)
    status = main(["calibrate", "--image", str(picture), "--out", str(tmp_path / "cal.json")])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "found the 4-seat A3 mat" in out and "focus: ok" in out
    calibration = load_calibration(tmp_path / "cal.json", image_size=(1920, 1080))
    assert calibration.colour_profile is not None
    annotated = cv2.imread(str(tmp_path / "cal.png"))
    assert annotated.shape == calibrated_photo.image.shape
    assert np.mean(np.any(annotated != calibrated_photo.image, axis=2)) > 0.005  # the zones are drawn on it


def test_command_with_a_missing_picture_says_so(tmp_path, capsys) -> None:
    """A picture that does not exist: exit 2 and a sentence."""
    from companion.cli import main

    assert main(["calibrate", "--image", str(tmp_path / "nope.png"), "--out", str(tmp_path / "c.json")]) == 2
    assert "is not a picture that can be read" in capsys.readouterr().err


def test_command_with_nowhere_to_write_says_so(calibrated_photo, tmp_path, capsys) -> None:
    """A calibration file or picture that cannot be written (its folder is a file): exit 2 and a sentence."""
    from companion.cli import main

    picture = tmp_path / "frame.png"
    cv2.imwrite(str(picture), calibrated_photo.image)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file", encoding="utf-8")
    assert main(["calibrate", "--image", str(picture), "--out", str(blocker / "cal.json")]) == 2
    assert "cannot write the picture" in capsys.readouterr().err
    assert main(["calibrate", "--image", str(picture), "--out", str(blocker / "cal.json"),
                 "--annotate", str(tmp_path / "cal.png")]) == 2
    assert "cannot write the calibration file" in capsys.readouterr().err
    assert main(["calibrate", "--image", str(picture), "--out", str(tmp_path / "cal.json"),
                 "--annotate", str(tmp_path / "cal.xyz")]) == 2
    assert "not a picture file name" in capsys.readouterr().err

"""Cards laid out in the mat's display area: recognised through the calibration, taught from the frame, prefilled."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.cards import (cards_in_display, card_library, card_picture, prefill_requirement,
                               requirement_from_dice, teach_card)
from calibration.mat import mat_geometry
from calibration.steps import calibrate_frame
from vision.dice import DieReading

LAYOUT = ((135.0, 140.0, 8.0), (210.0, 142.0, 176.0), (285.0, 136.0, -12.0))  # x mm, y mm, angle in the display


@pytest.fixture
def setup(photo_of, card_drawing):
    """The calibration of the bare tilted mat, and a function photographing given cards on it."""
    geometry = mat_geometry(4)
    calibration = calibrate_frame(photo_of(geometry).image, colours=False).calibration

    def shoot(indices, lighting="neutral", seed=0, glare=None):
        """Photograph the cards `indices` laid out in the display (LAYOUT order)."""
        cards = [(card_drawing(i), *LAYOUT[k]) for k, i in enumerate(indices)]
        return photo_of(geometry, cards=cards, lighting=lighting, seed=seed, glare=glare)
    return calibration, shoot, card_drawing


def _near(sighting, photo, x_mm, y_mm, tolerance_px=12.0) -> bool:
    """Whether a sighting's centre is within tolerance of a mat point's place in the frame."""
    return float(np.linalg.norm(np.subtract(sighting.centre, photo.frame_point(x_mm, y_mm)))) < tolerance_px


def test_taught_cards_are_found_in_the_display(setup, tmp_path) -> None:
    """Three taught cards laid out (one upside down) are found by id at their places in the frame."""
    calibration, shoot, draw = setup
    library = card_library(tmp_path)
    for i in (1, 2, 3, 4):
        library.teach(f"animal-{i}", draw(i))
    photo = shoot([2, 4, 1])
    sightings = cards_in_display(calibration, photo.image, library)
    assert sorted(s.card_id for s in sightings) == ["animal-1", "animal-2", "animal-4"]
    for sighting, (x, y, _a) in zip(sorted(sightings, key=lambda s: s.centre[0]), LAYOUT):
        assert _near(sighting, photo, x, y), sighting


def test_cards_are_found_in_warm_dim_light_with_glare(setup, tmp_path) -> None:
    """Other light and a reflection on one card: still all found."""
    calibration, shoot, draw = setup
    library = card_library(tmp_path)
    for i in (1, 2, 3):
        library.teach(f"animal-{i}", draw(i))
    photo = shoot([3, 1, 2], lighting="warm-dim", seed=3, glare=(150.0, 120.0, 10.0))
    assert sorted(s.card_id for s in cards_in_display(calibration, photo.image, library)) == [
        "animal-1", "animal-2", "animal-3"]


def test_an_unknown_card_is_taught_from_the_frame_and_then_known(setup, tmp_path) -> None:
    """A new card shows as unknown; cut from the frame and taught, it is recognised in the next frame."""
    calibration, shoot, draw = setup
    library = card_library(tmp_path)
    library.teach("animal-1", draw(1))
    photo = shoot([1, 6])
    sightings = cards_in_display(calibration, photo.image, library)
    unknown = [s for s in sightings if s.card_id is None]
    assert [s.card_id for s in sightings if s.card_id] == ["animal-1"]
    assert len(unknown) == 1 and _near(unknown[0], photo, *LAYOUT[1][:2], tolerance_px=20)
    teach_card(library, "animal-6", card_picture(photo.image, unknown[0]))
    later = shoot([6, 1], seed=5)
    again = cards_in_display(calibration, later.image, card_library(tmp_path))
    assert sorted(s.card_id for s in again) == ["animal-1", "animal-6"]


def _reading(colour: str, value: int, size: float = 50.0, confidence: float = 0.9) -> DieReading:
    """A die reading as the dice reader returns it."""
    return DieReading(x=10.0, y=10.0, size=size, angle=0.0, colour=colour, value=value, confidence=confidence)


def test_requirement_text_from_dice_read_on_a_card() -> None:
    """Black first then white, by value; unsure, off-size and coloured readings are left out."""
    readings = [_reading("white", 6), _reading("black", 2), _reading("gray", 3), _reading("white", 1, confidence=0.2),
                _reading("white", 4, size=20.0), _reading("red", 5), _reading("ivory", 3)]
    assert requirement_from_dice(readings) == "B2 W3 W3 W6"
    assert requirement_from_dice([]) == ""


@pytest.mark.parametrize("dice, size", [((("white", 3), ("white", 6)), 40)])
def test_prefill_reads_dice_drawn_on_a_card(dice, size) -> None:
    """Dice drawn on a card (rendered like real dice) are read into requirement text for the host to confirm."""
    from vision.simulator import DieSpec, Lighting, Scene, render_table

    card = np.full((420, 300, 3), (225, 235, 240), np.uint8)
    specs = tuple(DieSpec(x=60 + 90 * k, y=330, value=v, colour=c, size=size) for k, (c, v) in enumerate(dice))
    scene = Scene(width=300, height=420, background=card, dice=specs, blur=0.5,
                  lighting=Lighting(shadow=0.0, unevenness=0.0, noise=1.0))
    picture, _ = render_table(scene, np.random.default_rng(0))
    guess = prefill_requirement(picture)
    expected = " ".join(f"W{value}" for _colour, value in dice)
    assert guess.text == expected and guess.dice == len(dice)
    assert "check them against the card" in guess.note


def test_prefill_of_a_card_without_dice_asks_for_them_by_hand() -> None:
    """Nothing readable: empty text and a note to enter the requirement by hand."""
    guess = prefill_requirement(np.full((420, 300, 3), 200, np.uint8))
    assert guess.text == "" and "by hand" in guess.note

"""Colour profiles: naming body colours, learning from samples, following the light, the file form."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.errors import CompanionError
from vision.colour import ColourProfile, ColourProfileError, default_profile, learn, relight_gain


@pytest.mark.parametrize("bgr, name", [
    ((236, 238, 238), "white"),
    ((196, 226, 240), "white"),  # ivory counts as white
    ((128, 130, 130), "gray"),
    ((34, 32, 32), "black"),
    ((40, 38, 196), "red"),
    ((40, 212, 240), "yellow"),
    ((70, 150, 40), "green"),
    ((176, 84, 24), "blue"),
    ((128, 44, 110), "purple"),
])
def test_default_profile_names_common_dice(bgr, name):
    got, confidence = default_profile().classify(bgr)
    assert got == name
    assert 0.0 < confidence <= 1.0


def test_confidence_is_low_between_two_colours():
    profile = learn({"white": (230, 230, 230), "gray": (120, 120, 120)})
    _, clear = profile.classify((228, 228, 228))
    _, between = profile.classify((172, 172, 172))
    assert clear > 0.8
    assert between < 0.2


def test_learned_profile_follows_a_change_of_light_seen_on_the_table():
    # Learned under bright light on a green mat; read later in a room at half the light, warmer.
    profile = learn({"white": (230, 230, 230), "gray": (120, 120, 120), "black": (35, 35, 35)}, table=(60, 100, 50))
    gain = np.array([0.4, 0.5, 0.6])
    for name, bgr in (("white", (230, 230, 230)), ("gray", (120, 120, 120)), ("black", (35, 35, 35))):
        dim_die = np.array(bgr) * gain
        dim_table = np.array([60, 100, 50]) * gain
        assert profile.classify(dim_die, dim_table)[0] == name
        # Without the table the dim white die looks gray: that is why the table is kept.
    assert profile.classify(np.array((230, 230, 230)) * gain)[0] != "white"


def test_relight_gain_is_clipped():
    assert np.allclose(relight_gain((100, 100, 100), (50, 200, 100)), (2.0, 0.5, 1.0))
    assert relight_gain((255, 255, 255), (0, 0, 0)).max() <= 4.0


def test_learn_takes_patches_and_uses_their_median():
    patch = np.full((10, 10, 3), 200, np.uint8)
    patch[0, 0] = (0, 0, 0)  # a stray pixel does not move the median
    profile = learn({"white": patch})
    assert profile.colours["white"] == ((200.0, 200.0, 200.0),)


def test_round_trip_through_json():
    profile = learn({"white": (230, 231, 232), "red": (40, 40, 200)}, table=(90, 100, 110))
    again = ColourProfile.from_dict(json.loads(json.dumps(profile.to_dict())))
    assert again == profile
    assert again.classify((45, 42, 190)) == profile.classify((45, 42, 190))
    assert ColourProfile.from_dict(default_profile().to_dict()) == default_profile()


@pytest.mark.parametrize("data, words", [
    ({}, '"colours"'),
    ({"colours": {}}, "at least one colour"),
    ({"colours": {"white": [[1, 2]]}}, "'white'"),
    ({"colours": {"white": "bright"}}, "'white'"),
    ({"colours": {"white": [[200, 200, 200]]}, "table": [1, 2]}, "table"),
    ({"colours": {"white": [[200, 200, 200]]}, "table": "green"}, "table"),
    ([], '"colours"'),
])
def test_bad_profile_data_is_named(data, words):
    with pytest.raises(ColourProfileError, match=words) as caught:
        ColourProfile.from_dict(data)
    assert isinstance(caught.value, CompanionError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("samples, table", [
    ({}, None),
    ({"white": (1, 2)}, None),
    ({"white": (200, 200, 200)}, (1, 2)),
])
def test_bad_samples_are_named(samples, table):
    with pytest.raises(ColourProfileError):
        learn(samples, table=table)

"""The dice reader on real labelled photos, on simulator frames, and on bad input."""

from __future__ import annotations

import importlib.util
import json
import tracemalloc
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import dice
from vision.colour import default_profile, learn
from vision.dice import DieReading, die_colours, read_dice
from vision.simulator import BLANK_CLUTTER, MARKED_CLUTTER

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "dice"
BENCHMARK = REPO / "benchmarks" / "dice_benchmark.py"


def _benchmark():
    """The benchmark module (its scorer is the team's matching rule)."""
    spec = importlib.util.spec_from_file_location("dice_benchmark", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _score_set(name: str) -> dict:
    """Read one labelled photo set and score it with the team's scorer."""
    folder = DATA / name
    if not (folder / "truth.json").exists():
        pytest.skip(f"{folder} is absent: the real dice photos live in ../shared/data/dice next to the repo")
    bench = _benchmark()
    truth, readings, _ = bench.read_folder(folder)
    return bench.load_scorer()(truth, readings)


# Regression floors on the real photos: the reader does at least this well (see the benchmark for
# the exact numbers; the targets are higher and not all met yet).
@pytest.mark.parametrize("name, end_to_end, false_per_image", [
    ("nell-byler-1208", 0.975, 0.08),
    ("matteop65", 0.985, 0.04),
])
def test_real_photos_are_read_at_least_this_well(name, end_to_end, false_per_image):
    s = _score_set(name)
    assert s["end_to_end"] >= end_to_end, s
    assert s["false_dice"] / s["images"] <= false_per_image, s


def test_the_face_scorer_model_ships_with_the_reader():
    import vision.dice

    assert vision.dice._SCORER is not None, "vision/models/dice_faces.json is missing or stale: run training/train_dice_faces.py --write"


def test_a_single_photo_reads_the_labelled_values():
    folder = DATA / "matteop65"
    if not folder.exists():
        pytest.skip(f"{folder} is absent")
    truth = {t["image"]: t for t in json.loads((folder / "truth.json").read_text())}
    image = cv2.imread(str(folder / "images" / "dice_41.jpg"))
    got = sorted(d.value for d in read_dice(image))
    assert got == sorted(d["value"] for d in truth["dice_41.jpg"]["dice"])


def _sim_frame(seed: int, **options):
    """One simulator frame and its truth."""
    simulator = pytest.importorskip("vision.simulator")
    rng = np.random.default_rng(seed)
    return simulator.render_table(simulator.random_scene(rng, **options), rng)


def _matched(truth: dict, dice: list[DieReading]) -> list[tuple[dict, DieReading | None]]:
    """Each true die with the reading nearest its centre inside its box (or None)."""
    pairs = []
    for t in truth["dice"]:
        x1, y1, x2, y2 = t["box"]
        near = [d for d in dice if x1 <= d.x <= x2 and y1 <= d.y <= y2]
        cx, cy = t["centre"]
        pairs.append((t, min(near, key=lambda d: (d.x - cx) ** 2 + (d.y - cy) ** 2) if near else None))
    return pairs


def test_simulator_frame_values_and_positions():
    image, truth = _sim_frame(3, dice=26, lighting="neutral", background="mat")
    dice = read_dice(image)
    pairs = _matched(truth, dice)
    right = sum(1 for t, d in pairs if d is not None and d.value == t["value"])
    assert right >= 0.85 * len(pairs)
    for t, d in pairs:
        if d is not None:
            assert abs(d.x - t["centre"][0]) < t["size"] / 2 and abs(d.y - t["centre"][1]) < t["size"] / 2
            assert 0.6 * t["size"] < d.size < 1.5 * t["size"]
            assert 0.0 <= d.confidence <= 1.0


def test_clutter_is_not_read_as_dice():
    image, truth = _sim_frame(5, dice=0, clutter=12, clutter_kinds=BLANK_CLUTTER, lighting="neutral", background="plain")
    assert read_dice(image) == []


@pytest.mark.parametrize("seed", [2, 5, 14])
def test_beads_on_a_wooden_table_are_not_read_as_ones(seed):
    # With no layout of two or more pips in the frame, a round bead passes for a one on the face
    # scorer's word; the judge sees no die around it.
    image, _ = _sim_frame(seed, dice=0, clutter=12, clutter_kinds=BLANK_CLUTTER, lighting="neutral", background="wood")
    assert read_dice(image) == []


@pytest.mark.parametrize("seed", [5, 7, 11])
def test_beads_among_dice_are_not_read_as_ones(seed):
    # A bead's round spot is twice a pip's size or more: the face scorer is sure of it as a one, the
    # judge sees no die around it.
    image, truth = _sim_frame(seed, dice=10, clutter=8, clutter_kinds=BLANK_CLUTTER, lighting="neutral", background="wood")
    readings = read_dice(image)
    assert _outside_dice(truth, readings) == 0
    assert sum(pair[1] is not None and pair[1].value == pair[0]["value"] for pair in _matched(truth, readings)) >= 9


def _false_readings(seed: int, lighting: str) -> int:
    """Readings outside every die's box in a seeded frame of 3-15 dice and 4-11 things on wood."""
    simulator = pytest.importorskip("vision.simulator")
    rng = np.random.default_rng(seed)
    scene = simulator.random_scene(rng, dice=int(rng.integers(3, 16)), colours=("white", "gray", "black"),
                                   clutter=int(rng.integers(4, 12)), clutter_kinds=BLANK_CLUTTER, lighting=lighting,
                                   background="wood")
    image, truth = simulator.render_table(scene, rng)
    return _outside_dice(truth, read_dice(image))


def _outside_dice(truth: dict, readings: list[DieReading]) -> int:
    """How many readings lie in no true die's box."""
    boxes = [t["box"] for t in truth["dice"]]
    return sum(not any(x1 <= r.x <= x2 and y1 <= r.y <= y2 for x1, y1, x2, y2 in boxes) for r in readings)


def test_a_bead_among_dice_is_dropped_unless_the_judge_finds_a_die_there(monkeypatch):
    # Frames where the shipped judge gives a bead among dice a chance of a die between VETO and
    # BEAD_VETO (found among seeds 900-1099, each under one light; the judge retrained, they move).
    # (Found with the judge taking its patches as they stand: its turned views move those chances too.)
    # (905 and 1080 cool for the judge of 2026-12-01, 1042 and 1051 for that of 2026-12-06, 919 and 948
    # for the two-member judge of 2026-12-07.)
    frames = [(948, "bright"), (1016, "warm-dim")]
    assert sum(_false_readings(seed, light) for seed, light in frames) == 0
    monkeypatch.setattr(dice, "TURNED", False)
    assert sum(_false_readings(seed, light) for seed, light in frames) == 0
    monkeypatch.setattr(dice, "BEAD_VETO", dice.VETO)  # kept on the judge's word as any unsure face
    assert sum(_false_readings(seed, light) for seed, light in frames) >= 4  # two beads read as ones in each


@pytest.mark.parametrize("background", ["mat", "wood", "cloth", "plain"])
def test_white_gray_black_with_a_learned_profile_under_every_light(background):
    bench = _benchmark()
    simulator = pytest.importorskip("vision.simulator")
    profile = bench.calibrate_on_simulator(background, seed=100)
    assert set(profile.names) == {"white", "gray", "black"}
    wrong = checked = 0
    for k, lighting in enumerate(simulator.LIGHTINGS):
        image, truth = _sim_frame(300 + k, dice=12, lighting=lighting, background=background, touching=0.0)
        errors, seen = bench.colour_mistakes(truth["dice"], read_dice(image, profile))
        wrong += errors
        checked += seen
    assert checked >= 60
    # The issue asks for no error at all (the benchmark: none in 18,000 dice over five seeded sets).
    assert wrong == 0, (wrong, checked)


def _grayed(image: np.ndarray, boxes: list[list[float]], factor: float) -> np.ndarray:
    """The photo with the bright die bodies inside the boxes scaled by `factor` (pips untouched)."""
    out = image.copy()
    for x1, y1, x2, y2 in boxes:
        x1, y1 = max(0, int(x1) - 6), max(0, int(y1) - 6)
        patch = out[y1:int(y2) + 6, x1:int(x2) + 6]
        bright = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) > 150
        # Gray plastic is neutral: drop the ivory tint as well as the brightness.
        gray = cv2.cvtColor(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        patch[bright] = (gray[bright] * factor).astype(np.uint8)
    return out


def _on_true_dice(dice: list[DieReading], boxes: list[list[float]]) -> list[DieReading]:
    """The readings whose centre lies on a labelled die's top face."""
    return [d for d in dice if any(x1 <= d.x <= x2 and y1 <= d.y <= y2 for x1, y1, x2, y2 in boxes)]


def test_ivory_dice_made_gray_are_named_gray():
    folder = DATA / "matteop65"
    if not folder.exists():
        pytest.skip(f"{folder} is absent")
    truth = json.loads((folder / "truth.json").read_text())
    profile = default_profile()
    named = {"white": 0, "gray": 0, "other": 0}
    for entry in truth[100:140]:
        image = cv2.imread(str(folder / "images" / entry["image"]))
        top_faces = [d["box"] for d in entry["dice"]]
        for d in _on_true_dice(read_dice(image, profile), top_faces):
            named[d.colour if d.colour == "white" else "other"] += 1
        for d in _on_true_dice(read_dice(_grayed(image, top_faces, 0.55), profile), top_faces):
            named[d.colour if d.colour == "gray" else "other"] += 1
    assert named["white"] > 50 and named["gray"] > 50
    assert named["other"] <= 0.05 * (named["white"] + named["gray"]), named


def test_die_colours_gives_body_and_table():
    image, truth = _sim_frame(9, dice=6, lighting="neutral", background="plain", touching=0.0)
    dice = read_dice(image)
    assert dice
    body, table = die_colours(image, dice[0])
    assert body.shape == (3,) and table.shape == (3,)
    profile = learn({"white": body}, table=table)
    assert profile.table is not None


def test_the_table_beside_a_die_in_a_crowd_is_the_frames_table_not_black():
    from vision.dice import table_field, tables_beside

    image = np.full((200, 200, 3), (100, 80, 60), np.uint8)
    crowd = [((float(x), float(y)), 20.0) for x in range(0, 100, 10) for y in range(0, 200, 10)]
    field = table_field(image, crowd)
    assert np.allclose(field[25, 5], (100, 80, 60), atol=1)  # a quarter way down, deep in the crowd
    assert np.allclose(tables_beside(image, crowd)[0], (100, 80, 60), atol=1)


def test_a_fitted_faces_colour_comes_from_between_its_pips_not_from_around_them():
    # Pips near a die's edge: the rings round them (the face's own colour estimate) reach the white
    # die it touches; the points between the pips lie on the gray body whatever the layout.
    from vision.dice import _body_colours, _Face

    image = np.full((120, 160, 3), 236, np.uint8)  # white dice all round
    cv2.rectangle(image, (60, 40), (99, 79), (128, 128, 128), -1)  # the gray die, centre (79.5, 59.5)
    for x in (66, 93):
        for y in (46, 73):
            cv2.circle(image, (x, y), 4, (25, 25, 25), -1)
    fitted = _Face((0, 1, 2, 3), 4, (79.5, 59.5), 13.5 / 1.0, 0.0, 0.05, body=(236.0, 236.0, 236.0))
    found_alone = _Face((), 4, (79.5, 59.5), 13.5, 0.0, 0.05, body=(128.0, 128.0, 128.0))
    colours = _body_colours(image, [fitted, found_alone])
    assert np.allclose(colours, 128, atol=2)


def test_a_shadow_on_one_side_of_a_die_barely_changes_the_table_beside_it():
    from vision.dice import tables_beside

    image = np.full((300, 300, 3), 150, np.uint8)
    cv2.rectangle(image, (130, 130), (169, 169), (235, 235, 235), -1)  # a white die, 40 px, face ~ 29 px
    cv2.rectangle(image, (90, 110), (129, 190), (40, 40, 40), -1)  # its shadow falls to the left
    table = tables_beside(image, [((149.5, 149.5), 40.0 / 1.4)])[0]
    assert np.allclose(table, 150, atol=3)


@pytest.mark.parametrize("image", [
    np.zeros((0, 0, 3), np.uint8),
    np.zeros((0,), np.uint8),
    np.zeros((5, 5, 3), np.uint8),
    np.zeros((480, 640, 3), np.uint8),
    np.full((480, 640, 3), 255, np.uint8),
    np.zeros((480, 640, 2), np.uint8),
    np.full((20000, 9, 3), 128, np.uint8),
    np.full((60, 60, 3), np.nan, np.float32),
], ids=["empty", "1-d", "tiny", "black", "white", "two-channel", "sliver", "not-a-number"])
def test_blank_or_unusable_images_have_no_dice(image):
    assert read_dice(image) == []


def test_not_an_array_has_no_dice():
    assert read_dice(None) == []  # type: ignore[arg-type]


def test_gray_four_channel_and_float_input_read_like_colour():
    image, truth = _sim_frame(11, dice=8, lighting="neutral", background="plain", touching=0.0)
    colour = sorted((d.value, round(d.x)) for d in read_dice(image))
    assert len(colour) >= 6
    bgra = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    assert sorted((d.value, round(d.x)) for d in read_dice(bgra)) == colour
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert len(read_dice(gray)) >= len(colour) - 1
    assert len(read_dice(gray[:, :, None])) == len(read_dice(gray))
    as_float = image.astype(np.float32) / 255.0
    assert len(read_dice(as_float)) >= len(colour) - 1


def test_huge_image_is_read_without_trouble():
    image, _ = _sim_frame(13, dice=4, lighting="neutral", background="plain", touching=0.0)
    huge = cv2.resize(image, (5760, 3240), interpolation=cv2.INTER_LINEAR)
    dice = read_dice(huge)
    assert all(0 <= d.x < 5760 and 0 <= d.y < 3240 for d in dice)


def _polka_dots() -> np.ndarray:
    """A full-HD frame of a dotted tablecloth: ten thousand dark dots, every one pip-like."""
    cloth = np.full((1080, 1920, 3), 230, np.uint8)
    for y in range(10, 1080, 14):
        for x in range(10, 1920, 14):
            cv2.circle(cloth, (x, y), 3, (30, 30, 30), -1)
    return cloth


@pytest.mark.parametrize("frame", [
    _polka_dots(),
    np.random.default_rng(0).integers(0, 256, (1080, 1920, 3)).astype(np.uint8),
], ids=["dotted cloth", "noise"])
def test_a_frame_of_thousands_of_pips_is_read_in_bounded_memory(frame):
    # The dotted cloth once made one group of 10,549 pips, and fitting it asked for 29 GB; the
    # noise held 250,000 nested outlines that took seconds to trace.
    tracemalloc.start()
    try:
        dice = read_dice(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(dice, list) and len(dice) <= 2
    assert peak < 300e6


def test_a_one_whose_face_runs_off_the_image_is_no_die():
    # A lone spot at the image's edge (a key's symbol) shows no face around it to make it a one.
    from vision.dice import _cut_off, _Face
    from vision.dice_layout import HALF_SIDE

    step = 30 / (2 * HALF_SIDE)  # a face 30 px wide
    inside = _Face((0,), 1, (100.0, 100.0), step, 0.0, 0.0)
    at_edge = _Face((0,), 1, (10.0, 100.0), step, 0.0, 0.0)
    assert not _cut_off((200, 300, 3), inside)
    assert _cut_off((200, 300, 3), at_edge)
    assert _cut_off((200, 300, 3), _Face((0,), 1, (100.0, 190.0), step, 0.0, 0.0))


def _lone_dot_on_a_square(side: int, pip_radius: int) -> np.ndarray:
    """A light square (a die's face seen close up, or a card) with one dark dot in its middle, on wood."""
    image = np.full((400, 480, 3), (70, 110, 150), np.uint8)
    x, y = 240 - side // 2, 200 - side // 2
    cv2.rectangle(image, (x, y), (x + side, y + side), (225, 235, 240), -1)
    cv2.circle(image, (240, 200), pip_radius, (20, 20, 20), -1, cv2.LINE_AA)
    return cv2.GaussianBlur(image, (3, 3), 0)


@pytest.mark.parametrize("side, pip_radius", [(100, 5), (120, 6), (130, 6)])
def test_a_close_up_one_whose_face_is_many_pips_wide_is_read(side, pip_radius):
    # The face ends 8-11 pip radii out, beyond where a one's face usually ends (~5 radii).
    dice = read_dice(_lone_dot_on_a_square(side, pip_radius))
    assert [d.value for d in dice] == [1]
    # Big pips are read in a shrunk frame: the centre comes back within a pixel.
    assert abs(dice[0].x - 240) < 1.5 and abs(dice[0].y - 200) < 1.5


def test_a_dot_on_a_wide_plain_card_is_no_one():
    # Its surface runs on 25 dot radii: no die's face is that much wider than its pip.
    assert read_dice(_lone_dot_on_a_square(300, 6)) == []


@pytest.mark.parametrize("side, axes", [(60, (7, 4)), (50, (6, 3)), (70, (8, 4))])
def test_a_one_whose_pip_motion_blur_stretched_is_read(side, axes):
    # The pip is about half as wide as long: too flat for a round pip, yet alone on a plain face.
    image = np.full((400, 480, 3), (70, 110, 150), np.uint8)
    cv2.rectangle(image, (240 - side // 2, 200 - side // 2), (240 + side // 2, 200 + side // 2), (225, 235, 240), -1)
    cv2.ellipse(image, (240, 200), axes, 30, 0, 360, (20, 20, 20), -1, cv2.LINE_AA)
    dice = read_dice(cv2.GaussianBlur(image, (3, 3), 0))
    assert [(d.value, round(d.x), round(d.y)) for d in dice] == [(1, 240, 200)]


@pytest.mark.parametrize("image", ["dice_22.jpg", "dice_35.jpg", "dice_39.jpg"])
def test_close_up_ones_in_real_photos_are_all_read(image):
    folder = DATA / "matteop65"
    if not folder.exists():
        pytest.skip(f"{folder} is absent")
    truth = {t["image"]: t for t in json.loads((folder / "truth.json").read_text())}
    got = sorted(d.value for d in read_dice(cv2.imread(str(folder / "images" / image))))
    assert got == sorted(d["value"] for d in truth[image]["dice"])


def _marked_things_frame(seed: int, kind: str, dice: int = 0):
    """A seeded 960x720 frame of 12 things of one marked kind (or 8 among `dice` dice of every
    colour), on one of the simulator's tables, with its truth."""
    simulator = pytest.importorskip("vision.simulator")
    rng = np.random.default_rng(seed)
    scene = simulator.random_scene(rng, dice=dice, clutter=8 if dice else 12, clutter_kinds=(kind,), width=960,
                                   height=720, die_size=float(rng.uniform(28, 44)),
                                   colours=tuple(simulator.BODY_COLOURS),
                                   background=simulator.BACKGROUNDS[seed % len(simulator.BACKGROUNDS)])
    return simulator.render_table(scene, rng)


@pytest.mark.parametrize("kind", MARKED_CLUTTER)
def test_dice_of_other_kinds_and_keys_are_not_read_as_pip_dice(kind):
    # Their numbers' and letters' strokes, holes and dots pass for pips on a die-sized body. With no
    # pip die in the frame nothing tells the dice's size, and the judge alone tells them apart: the
    # judge trained without marked things read 35 (numbered), 35 (many-sided) and 32 (keys) of these
    # 48 things as dice; trained with them (THINGS_FRAMES), 3, 8 and 11.
    false = [len(read_dice(_marked_things_frame(seed, kind)[0])) for seed in range(4)]
    assert sum(false) <= 14, false


@pytest.mark.parametrize("kind", MARKED_CLUTTER)
def test_pip_dice_among_dice_of_other_kinds_and_keys_are_read_and_the_others_not(kind):
    # Among 24 pip dice, the judge trained without marked things read 24 (numbered), 19 (many-sided)
    # and 19 (keys) of these 24 things as dice; trained with them, 0, 1 and 0. Every die is read.
    right = false = 0
    for seed in range(3):
        image, truth = _marked_things_frame(40 + seed, kind, dice=8)
        readings = read_dice(image)
        right += sum(d is not None and d.value == t["value"] for t, d in _matched(truth, readings))
        false += _outside_dice(truth, readings)
    assert right >= 23 and false <= 3, (right, false)


def test_a_reading_over_two_smaller_dice_is_no_die():
    # Dice lie beside each other, never on a die's top: a face centred over two far smaller dice is
    # made of their pips. One smaller reading inside it is not enough (a real two holding a false three).
    from vision.dice import _Face, _without_dice_holding_dice
    from vision.dice_layout import HALF_SIDE

    def face(value, x, y, side):
        return _Face((0, 1), value, (x, y), side / (2 * HALF_SIDE), 0.0, 0.0)

    small_a, small_b, apart = face(5, 100, 100, 40), face(5, 150, 150, 40), face(3, 400, 100, 40)
    big = face(2, 125, 125, 140)
    assert _without_dice_holding_dice([small_a, small_b, apart, big]) == [small_a, small_b, apart]
    assert _without_dice_holding_dice([small_a, apart, big]) == [small_a, apart, big]
    # Two dice of about its size beside it are no dice on it.
    beside = [face(5, 100, 100, 120), face(5, 160, 160, 120), big]
    assert _without_dice_holding_dice(beside) == beside


def test_two_fives_side_by_side_are_not_read_as_a_big_two_across_them():
    # matteop65's five_22 twice as big: the middle pips of two fives fitted a two 3.5 face sides
    # wide across both, which the judge took for a die (0.98 sure).
    from tests.support import labelled_photo

    photo, entry = labelled_photo("matteop65", "five_22.jpg")
    readings = read_dice(cv2.resize(photo, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC))
    assert sorted(d.value for d in readings) == [5] * len(entry["dice"])


def test_a_reading_s_confidence_is_its_certainty_unless_its_colour_lies_halfway_between_two():
    face = dice._Face((0, 1), 2, (50.0, 60.0), 5.0, 10.0, dice.TOLERANCE, certainty=0.9)
    # A grid fitted at the edge of its tolerance, a colour clear of the next: the certainty itself
    # (the fit's error and a fair colour margin said nothing of a reading's being right).
    assert dice._reading(face, "white", 0.5).confidence == pytest.approx(0.9)
    assert dice._reading(face, "white", dice.AMBIGUOUS_COLOUR).confidence == pytest.approx(0.9)
    # A colour all but halfway between two: as likely the other, so the reading is less sure.
    halfway = dice._reading(face, "gray", 0.0).confidence
    assert halfway == pytest.approx(0.9 * (1.0 - dice.COLOUR_DOUBT))
    assert halfway < dice._reading(face, "gray", dice.AMBIGUOUS_COLOUR / 2).confidence < 0.9

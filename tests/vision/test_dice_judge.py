"""The convolutional die judge: its patches, its verdicts, its model file (and the value reader's), and what it
adds to the reader."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.dice as dice
from tests.support import labelled_photo
from vision.dice_judge import (CONTEXT, MODEL_PATH, PATCH, DiceJudge, die_chances, load_judge, patches, standardised,
                               verdicts)
from vision.dice_values import MODEL_PATH as VALUES_MODEL
from vision.dice_values import load_value_reader
from vision.simulator import BODY_COLOURS, DieSpec, Scene, render_table

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "dice"


@pytest.fixture(autouse=True)
def _judge_alone(monkeypatch):
    """The judge's own rules, without the value reader after it (test_dice_values.py has both)."""
    monkeypatch.setattr(dice, "_VALUES", None)


def test_verdicts_turn_raw_rows_into_chances_and_offsets():
    raw = np.array([[0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1, -0.2],
                    [-40.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.0, 0.0, 0.0]])
    v = verdicts(raw)
    assert v.die[0] == pytest.approx(0.5)
    assert v.die[1] < 1e-9
    assert np.allclose(v.values.sum(axis=1), 1.0)
    assert v.value.tolist() == [1, 6]
    assert v.offsets[0].tolist() == pytest.approx([0.1, -0.2])


def test_a_patch_is_centred_on_its_place_and_scaled_to_the_die_side():
    image = np.full((200, 300, 3), 30, np.uint8)
    cv2.rectangle(image, (140, 90), (160, 110), (250, 250, 250), -1)  # a 21 px bright square at (150, 100)
    out = patches(image, np.array([[150.0, 100.0], [40.0, 40.0]]), 21.0)
    assert out.shape == (2, 3, PATCH, PATCH) and out.dtype == np.float32
    middle = out[0, :, PATCH // 2, PATCH // 2]
    corner = out[0, :, 0, 0]
    assert (middle > 0).all() and (corner < 0).all()
    # The square fills 1 / CONTEXT of the patch's width: count the bright columns across the middle.
    bright = int((out[0, 0, PATCH // 2] > 0).sum())
    assert abs(bright - PATCH / CONTEXT) <= 2
    # A patch of plain table is flat, not noise blown up by the standardising.
    assert np.abs(out[1]).max() < 1e-3


def test_patches_near_the_edge_and_of_several_sizes_are_made():
    image = np.random.default_rng(3).integers(0, 255, (50, 60, 3), dtype=np.uint8)
    out = patches(image, np.array([[0.0, 0.0], [59.0, 49.0], [30.0, 25.0]]), np.array([10.0, 80.0, 30.0]))
    assert out.shape == (3, 3, PATCH, PATCH)
    assert np.isfinite(out).all()


def test_standardised_patch_has_zero_mean():
    patch = np.random.default_rng(1).integers(0, 255, (PATCH, PATCH, 3), dtype=np.uint8)
    out = standardised(patch)
    assert out.shape == (3, PATCH, PATCH)
    assert abs(float(out.mean())) < 1e-4


def test_a_stack_of_patches_is_standardised_patch_by_patch():
    rng = np.random.default_rng(2)
    stack = np.stack([rng.integers(0, 60, (PATCH, PATCH, 3)), rng.integers(100, 255, (PATCH, PATCH, 3))]).astype(np.uint8)
    out = standardised(stack)
    assert out.shape == (2, 3, PATCH, PATCH)
    np.testing.assert_allclose(out, np.stack([standardised(p) for p in stack]), atol=1e-6)
    assert np.abs(out.mean(axis=(1, 2, 3))).max() < 1e-4  # each on its own, not over the stack


def test_a_patch_of_any_memory_layout_is_standardised():
    # Training shuffles a patch's channels (a view in another order): a reshaped copy was once
    # standardised in its stead and the patch left raw, 0-255.
    patch = np.random.default_rng(4).integers(0, 255, (PATCH, PATCH, 3), dtype=np.uint8)
    shuffled = np.asfortranarray(patch)[:, :, [2, 0, 1]]
    out = standardised(shuffled)
    np.testing.assert_allclose(out, standardised(np.ascontiguousarray(shuffled)), atol=1e-6)
    assert abs(float(out.mean())) < 1e-4 and float(np.abs(out).max()) < 10


@pytest.mark.parametrize("load", [load_judge, load_value_reader], ids=["judge", "value reader"])
def test_a_missing_or_broken_model_file_leaves_the_reader_on_its_own(tmp_path, load):
    assert load(tmp_path / "absent.onnx") is None
    broken = _not_a_network(tmp_path)
    assert load(broken) is None


def test_a_network_of_the_other_kind_is_no_judge_nor_value_reader():
    # Each loads in OpenCV, but reads patches of another size into rows of another width.
    assert load_judge(VALUES_MODEL) is None and load_value_reader(MODEL_PATH) is None
    assert load_judge(MODEL_PATH) is not None and load_value_reader(VALUES_MODEL) is not None


def test_the_judge_model_ships_with_the_reader():
    assert MODEL_PATH.exists(), "vision/models/dice_judge.onnx is made by training/train_dice_judge.py --write"
    judge = load_judge()
    assert judge is not None and dice._JUDGE is not None


def test_no_places_no_verdicts():
    judge = DiceJudge()
    v = judge.judge(np.zeros((40, 40, 3), np.uint8), np.zeros((0, 2)), 10.0)
    assert len(v.die) == 0 and v.values.shape == (0, 6)


def test_an_unsure_patch_is_judged_by_its_four_quarter_turns_and_a_sure_one_once(monkeypatch):
    judge = DiceJudge()
    batches = []

    def network(batch, lift=0.0):
        """A stand-in network whose die logit is the patch's top-left value (plus `lift`)."""
        batches.append(len(batch))
        out = np.zeros((len(batch), 9))
        out[:, 0] = batch[:, 0, 0, 0] + lift
        return out

    image = np.random.default_rng(1).integers(0, 256, (100, 100, 3), np.uint8)
    place = np.array([[50.0, 50.0]])
    cut = patches(image, place, 20.0)[0, 0]
    monkeypatch.setattr(judge, "forward", network)
    # Standardised, the top-left value is a logit near 0: unsure. Each quarter turn brings another corner there.
    corners = [cut[0, 0], cut[0, -1], cut[-1, -1], cut[-1, 0]]
    assert judge.judge(image, place, 20.0, turned=True).die[0] == pytest.approx(1.0 / (1.0 + np.exp(-np.mean(corners))))
    assert batches == [1, 3]
    batches.clear()
    # Unless asked to, the judge takes the patch as it stands.
    assert judge.judge(image, place, 20.0).die[0] == pytest.approx(1.0 / (1.0 + np.exp(-corners[0])))
    assert batches == [1]
    batches.clear()
    monkeypatch.setattr(judge, "forward", lambda batch: network(batch, lift=20.0))
    assert judge.judge(image, place, 20.0, turned=True).die[0] > 0.999
    assert batches == [1]

    # turned_die takes the four turns however sure the patch as it stands is.
    batches.clear()
    monkeypatch.setattr(judge, "forward", lambda batch: network(batch, lift=-20.0))
    sure_no = judge.judge(image, place, 20.0, turned=True).die[0]
    assert sure_no < 1e-8 and batches == [1]
    assert judge.turned_die(image, place, 20.0)[0] == pytest.approx(1.0 / (1.0 + np.exp(-(np.mean(corners) - 20.0))))
    assert len(judge.turned_die(image, np.zeros((0, 2)), 20.0)) == 0
    # turned_dice gives the die chance of each other quarter turn on its own.
    others = judge.turned_dice(image, place, 20.0)
    assert others.shape == (1, 3)
    assert others[0] == pytest.approx(1.0 / (1.0 + np.exp(-(np.array(corners[1:]) - 20.0))))
    assert judge.turned_dice(image, np.zeros((0, 2)), 20.0).shape == (0, 3)


def test_a_die_the_judge_rules_out_as_it_stands_but_not_turned_is_doubted_by_turned_die():
    # An ivory four, a patch 0.4 of its side off its centre: as the patch stands the judge is sure
    # of no die there (0.003), over its four quarter turns likelier one than not (0.89). (For the
    # two-member judge of 2026-12-07: an ivory three in IMG_20191208_112224.jpg at (252.9, 360.9),
    # 0.0006 and 0.92; for the judge of 2026-12-06: a six in IMG_20191208_111316.jpg at (410.1, 145.8),
    # 0.0005 and 0.9985; for that of 2026-12-01, a dark swirled die with a red one in
    # IMG_20191208_112305.jpg at (111.9, 209.7).)
    photo, _ = labelled_photo("nell-byler-1208", "IMG_20191208_111246.jpg")
    judge = DiceJudge()
    place, side = np.array([[294.1, 237.6]]), np.array([34.0])
    assert judge.judge(photo, place, side, turned=True).die[0] < dice.VETO
    assert judge.turned_die(photo, place, side)[0] > 0.5


def _truth(name: str) -> list[dict]:
    """The labels of one photo set, or a skip when the photos are not beside the repo."""
    path = DATA / name / "truth.json"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return json.loads(path.read_text())


def test_the_judge_sees_the_labelled_dice_and_not_the_table_between_them():
    name = "nell-byler-1208"
    truth = _truth(name)
    judge = DiceJudge()
    on, off = [], []
    for entry in truth[:20]:
        image = cv2.imread(str(DATA / name / "images" / entry["image"]))
        centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in (d["box"] for d in entry["dice"])])
        side = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in (d["box"] for d in entry["dice"])]))
        on.extend(judge.judge(image, centres, side).die.tolist())
        # Points a die and a half away from every die: table, tray rim, shadows.
        rng = np.random.default_rng(7)
        points = rng.uniform(0, 640, (60, 2))
        gaps = np.hypot(*(points[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)).min(axis=1)
        off.extend(judge.judge(image, points[gaps > 1.5 * side], side).die.tolist())
    assert np.mean(np.array(on) > 0.5) > 0.95
    assert np.mean(np.array(off) < 0.5) > 0.95


def test_the_judge_finds_dice_the_pip_first_reader_misses(monkeypatch):
    from benchmarks.dice_benchmark import load_scorer

    name = "nell-byler-1208"
    truth = _truth(name)[:40]
    images = [cv2.imread(str(DATA / name / "images" / entry["image"])) for entry in truth]
    # As shipped: the value reader reads the dice the judge adds (alone, the judge adds only dice whose
    # value it is sure of too).
    monkeypatch.setattr(dice, "_VALUES", load_value_reader())
    scored = {}
    for judge in (None, dice._JUDGE):
        monkeypatch.setattr(dice, "_JUDGE", judge)
        readings = [{"image": entry["image"], "dice": [r.to_dict() for r in dice.read_dice(image)]}
                    for entry, image in zip(truth, images)]
        scored[judge is not None] = load_scorer()(truth, readings)
    # Matched as the team's scorer matches (each die once, its box grown by 0.15): without the judge,
    # the bodies are read by their own pips, and more things that are not dice pass for dice.
    assert scored[True]["found"] > scored[False]["found"]
    assert scored[True]["false_dice"] < scored[False]["false_dice"]


def _not_a_network(tmp_path: Path) -> Path:
    """A file named like a model that holds no network."""
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"this is not a network")
    return broken


def _training_module(torch_needed: bool = True):
    """training/train_dice_judge.py as a module (training needs PyTorch, which only training
    installs; making its frames and patches does not)."""
    if torch_needed:
        pytest.importorskip("torch")
    import importlib.util

    spec = importlib.util.spec_from_file_location("train_dice_judge", REPO / "training" / "train_dice_judge.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_training_turns_keep_each_offset_on_its_die_centre():
    torch = pytest.importorskip("torch")
    train = _training_module()
    x = torch.zeros(16, 3, 8, 8)
    x[:, :, 1, 6] = 1.0  # the "die centre" pixel: column 6, row 1, i.e. (+2.5, -2.5) from the middle
    offsets = torch.tensor([[2.5, -2.5]] * 16)
    torch.manual_seed(0)
    turned, moved = train._turned(x, offsets)
    views = set()
    for k in range(16):
        row, col = (turned[k, 0] == 1).nonzero()[0].tolist()
        assert (col - 3.5, row - 3.5) == pytest.approx(tuple(moved[k].tolist()))
        views.add((row, col))
    assert len(views) > 1  # the batch really was turned


def test_training_labels_a_place_by_the_nearest_die():
    train = _training_module()
    dice_ = [(100.0, 100.0, 4, 40.0), (200.0, 100.0, 0, 40.0)]  # the second die is rolling: no value
    value, offset = train.label_at(np.array([105.0, 100.0]), dice_, 40.0)
    assert value == 4 and offset.tolist() == pytest.approx([-0.125, 0.0])
    assert train.label_at(np.array([100.0, 120.0]), dice_, 40.0) is None  # half on the die: left out
    assert train.label_at(np.array([150.0, 160.0]), dice_, 40.0)[0] == 0
    assert train.label_at(np.array([201.0, 100.0]), dice_, 40.0) is None  # on the rolling die


def test_training_frames_of_a_desk_mark_every_key_of_their_keyboards_as_no_die():
    train = _training_module()
    ((image, dice_, half, marked),) = train.desk_images(frames=1)
    assert image.shape == (720, 1280, 3) and len(dice_) >= 4 and half == 0
    # Only keyboards (desk_images' kinds unless told): each of 2-4 shows 15 keys, each key a marked place clear of the dice.
    assert len(marked) % 15 == 0 and 2 <= len(marked) // 15 <= 4
    side = float(np.median([d[3] for d in dice_]))
    assert all(train.label_at(np.array([x, y]), dice_, side)[0] == 0 for x, y, _ in marked)


def test_training_frames_of_things_give_patches_on_their_marked_things_that_show_no_die():
    train = _training_module()
    judge = dice._JUDGE
    ((image, dice_, half, marked),) = train.things_images(frames=1)
    assert image.shape == (720, 1280, 3) and len(dice_) >= 4 and half == 0
    assert marked, "the seeded frame holds marked things"
    side = float(np.median([d[3] for d in dice_]))
    # Every marked thing lies clear of the dice: each patch on it is labelled no die.
    assert all(train.label_at(np.array([x, y]), dice_, side)[0] == 0 for x, y, _ in marked)
    rng = np.random.default_rng(0)
    with_things = train.image_samples(image, dice_, rng, marked)[1]
    rng = np.random.default_rng(0)
    without = train.image_samples(image, dice_, rng)[1]
    assert len(with_things) - len(without) == train.ON_THING * len(marked)
    # Making patches once left the reader without its judge, and later tests read without it.
    assert dice._JUDGE is judge is not None


class _FakeJudge:
    """A judge that knows where the dice are: sure of a die (and its value) within half a side of
    one, sure of none elsewhere; it points from a place to the nearest die's centre."""

    def __init__(self, dice_: list[tuple[float, float, int]], sureness: float = 0.999, reach: float = 0.5) -> None:
        self.dice = np.array([(x, y) for x, y, _ in dice_], float)
        self.reach = reach  # in sides: how far from a die the judge still sees it
        self.values = [v for _, _, v in dice_]
        self.sureness = sureness
        self.looks = 0

    def judge(self, bgr, centres, sides, turned=False):
        """Verdicts at these places."""
        from vision.dice_judge import Verdicts

        centres = np.asarray(centres, float).reshape(-1, 2)
        sides = np.broadcast_to(np.asarray(sides, float), (len(centres),))
        self.looks += len(centres)
        die, values, offsets = [], [], []
        for (x, y), side in zip(centres, sides):
            gaps = np.hypot(*(self.dice - (x, y)).T)
            k = int(gaps.argmin())
            near = gaps[k] < self.reach * side
            die.append(self.sureness if near else 0.01)
            row = np.full(6, (1 - self.sureness) / 5)
            row[self.values[k] - 1] = self.sureness
            values.append(row)
            offsets.append((self.dice[k] - (x, y)) / side if near else (0.0, 0.0))
        return Verdicts(np.array(die), np.array(values), np.array(offsets).reshape(-1, 2))

    def turned_die(self, bgr, centres, sides):
        """Die chances at these places: this judge sees a die alike in every turn."""
        return self.turned_dice(bgr, centres, sides)[:, 0]

    def turned_dice(self, bgr, centres, sides):
        """Die chances at these places in the three other quarter turns: alike in every turn (not
        counted as looks: the tests count the places looked at)."""
        looks = self.looks
        die = self.judge(bgr, centres, sides).die
        self.looks = looks
        return np.repeat(die[:, None], 3, axis=1)


def _face(x: float, y: float, value: int, size: float = 20.0, certainty: float = 0.9):
    """A pip-first face at (x, y) of this value and face size, as sure as the face scorer made it."""
    from vision.dice_layout import HALF_SIDE

    return dice._Face(tuple(range(value)), value, (x, y), size / (2 * HALF_SIDE), 0.0, 0.1, (200.0, 200.0, 200.0),
                      certainty=certainty)


def test_the_judge_adds_a_die_where_no_face_was_chosen_and_rereads_a_value_it_is_sure_of(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [_face(100, 100, 3), _face(200, 100, 4)]
    missed = _face(300, 200, 2)  # a candidate the pip-first reader did not choose
    judge = _FakeJudge([(100, 100, 3), (200, 100, 6), (302, 203, 5)])
    monkeypatch.setattr(dice, "_JUDGE", judge)
    faces = dice._judged_faces(image, chosen, [missed], squares=[])
    found = sorted((round(f.centre[0]), round(f.centre[1]), f.value) for f in faces)
    assert found == [(100, 100, 3), (200, 100, 6), (302, 203, 5)]



class _UnsteadyJudge(_FakeJudge):
    """A judge sure of its dice as their patches stand, and of none in their other quarter turns."""

    def turned_dice(self, bgr, centres, sides):
        """Die chances in the three other quarter turns: 0.1 in each."""
        return np.full((len(np.asarray(centres).reshape(-1, 2)), 3), 0.1)


def test_a_die_added_at_pips_alone_off_the_dice_must_hold_in_its_other_quarter_turns(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [_face(100, 100, 3), _face(200, 100, 4)]
    beside, off = _face(228, 112, 2), _face(330, 250, 2)  # candidates the pip-first reader did not choose
    dice_ = [(100, 100, 3), (200, 100, 4), (228, 112, 2), (330, 250, 5)]
    monkeypatch.setattr(dice, "_JUDGE", _UnsteadyJudge(dice_))

    def found() -> list[tuple[int, int]]:
        """The places of the dice the judge keeps and adds."""
        return sorted((round(f.centre[0]), round(f.centre[1]))
                      for f in dice._judged_faces(image, chosen, [beside, off], squares=[]))

    # Beside a die of fitted pips, within TURNS_FROM die sides, it is not asked; off the dice it is, and doubted.
    assert found() == [(100, 100), (200, 100), (228, 112)]
    monkeypatch.setattr(dice, "TURNS_SURE", 0.0)
    assert found() == [(100, 100), (200, 100), (228, 112), (330, 250)]

def test_a_die_the_judge_adds_takes_the_dice_size_not_its_places(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [_face(100, 100, 3), _face(200, 100, 4)]
    few_pips = _face(300, 200, 2, size=12.0)  # a candidate of two of a die's pips: far too small a face
    monkeypatch.setattr(dice, "_JUDGE", _FakeJudge([(100, 100, 3), (200, 100, 6), (302, 203, 5)]))
    added = [f for f in dice._judged_faces(image, chosen, [few_pips], squares=[]) if f.centre[0] > 250]
    # Its colour and the table beside it are read within and around a die of the chosen faces' size.
    assert len(added) == 1 and added[0].size == pytest.approx(20.0)


def test_an_unsure_judge_changes_nothing(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [_face(100, 100, 3), _face(200, 100, 4)]
    monkeypatch.setattr(dice, "_JUDGE", _FakeJudge([(100, 100, 3), (200, 100, 6), (300, 200, 5)], sureness=0.9))
    faces = dice._judged_faces(image, chosen, [_face(300, 200, 2)], squares=[])
    assert sorted((f.centre, f.value) for f in faces) == [((100, 100), 3), ((200, 100), 4)]


def test_a_centred_first_look_is_not_repeated(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    judge = _FakeJudge([(100, 100, 3), (200, 100, 4)])
    monkeypatch.setattr(dice, "_JUDGE", judge)
    dice._judged_faces(image, [_face(100, 100, 3), _face(200, 100, 4)], [], squares=[])
    assert judge.looks == 2


def test_faces_the_face_scorer_is_sure_of_are_not_judged_again(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    judge = _FakeJudge([(100, 100, 6), (200, 100, 4)])
    monkeypatch.setattr(dice, "_JUDGE", judge)
    sure, unsure = _face(100, 100, 3, certainty=dice.SETTLED), _face(200, 100, 4, certainty=0.5)
    faces = dice._judged_faces(image, [sure, unsure], [], squares=[])
    assert judge.looks == 1  # only the unsure face
    assert sorted((f.centre, f.value) for f in faces) == [((100, 100), 3), ((200, 100), 4)]


@pytest.mark.parametrize("pip_reach", [0.25, 0.32])  # pips near the middle, or near the edges (as the simulator's)
def test_a_die_the_judge_adds_takes_its_body_colour_from_inside_the_die(pip_reach):
    image = np.full((200, 200, 3), 60, np.uint8)  # a dark table
    cv2.rectangle(image, (80, 80), (119, 119), (235, 235, 235), -1)  # a white die, 40 px, centre (99.5, 99.5)
    cv2.rectangle(image, (120, 80), (159, 119), (128, 128, 128), -1)  # a gray die touching it
    for dx in (-1, 1):
        for dy in (-1, 1):
            cv2.circle(image, (round(99.5 + dx * pip_reach * 40), round(99.5 + dy * pip_reach * 40)), 4, (20, 20, 20), -1)
    # The judge's die side runs DIE_PER_FACE face sizes; a fit's face size may be the whole die.
    face = dice._judged_face(image, np.array([99.5, 99.5]), 4, 0.99, dice.DIE_PER_FACE * 40.0)
    assert min(face.body) > 200


def test_an_unsure_face_where_the_judge_sees_no_die_is_dropped_and_a_sure_one_kept(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    judge = _FakeJudge([(100, 100, 3)])  # a die at (100, 100) only
    monkeypatch.setattr(dice, "_JUDGE", judge)
    key = _face(250, 200, 1, certainty=0.6)  # a keyboard key's symbol, say
    sure = _face(100, 250, 2, certainty=dice.SETTLED)
    faces = dice._judged_faces(image, [_face(100, 100, 3), key, sure], [], squares=[])
    assert sorted((f.centre, f.value) for f in faces) == [((100, 100), 3), ((100, 250), 2)]


@pytest.mark.parametrize("off, moved", [(3.0, False), (8.0, True)])
def test_an_unsure_face_off_the_die_the_judge_finds_is_moved_to_that_dies_centre(monkeypatch, off, moved):
    image = np.full((300, 400, 3), 90, np.uint8)
    monkeypatch.setattr(dice, "_JUDGE", _FakeJudge([(100, 100, 1), (200, 100, 4)]))
    # Pips fitted a little below the die's top face (its front face, seen at an angle): 3 px is the
    # judge's own spread about a centre, 8 px (0.29 of the 28 px die) a face off the die's middle.
    side_face = _face(100, 100 + off, 3, certainty=0.6)
    faces = dice._judged_faces(image, [side_face, _face(200, 100, 4)], [], squares=[])
    (read,) = [f for f in faces if f.centre[0] < 150]
    assert read.centre == pytest.approx((100, 100) if moved else (100, 100 + off))
    assert read.moved is moved
    # Not moved when the rule is off.
    monkeypatch.setattr(dice, "MOVED", False)
    (kept,) = [f for f in dice._judged_faces(image, [side_face, _face(200, 100, 4)], [], squares=[]) if f.centre[0] < 150]
    assert kept.centre == pytest.approx((100, 100 + off)) and not kept.moved


@pytest.mark.parametrize("die_value, roundness, moved", [(3, 0.5, False), (1, 0.5, True), (3, 0.9, True)])
def test_a_flat_face_whose_die_the_judge_finds_below_it_showing_its_value_is_that_dies_top_face(
        monkeypatch, die_value, roundness, moved):
    image = np.full((300, 400, 3), 90, np.uint8)
    # An unsure three, the die the judge finds 8 px below it (toward the camera, which sees a die's
    # front face below its top face): where the judge reads the three there too and the pips look
    # flattened (a camera at an angle), the pips are the die's top face, whose centre the labels
    # give, and stay. Where it reads another value they are a side face's, and where they look round
    # (a camera above the table) the face was fitted off its die's middle: both are moved. A face
    # below its die is moved either way (the test above).
    monkeypatch.setattr(dice, "_JUDGE", _FakeJudge([(100, 108, die_value), (200, 100, 4)]))
    top = replace(_face(100, 100, 3, certainty=0.6), roundness=roundness)
    (read,) = [f for f in dice._judged_faces(image, [top, _face(200, 100, 4)], [], squares=[]) if f.centre[0] < 150]
    assert read.centre == pytest.approx((100, 108) if moved else (100, 100)) and read.moved is moved
    monkeypatch.setattr(dice, "TOP_FACES_STAY", False)
    (read,) = [f for f in dice._judged_faces(image, [top, _face(200, 100, 4)], [], squares=[]) if f.centre[0] < 150]
    assert read.centre == pytest.approx((100, 108)) and read.moved


def test_a_moved_face_is_coloured_around_its_new_centre_not_by_its_grid_or_its_pips():
    image = np.full((200, 200, 3), 200, np.uint8)  # a light table
    cv2.rectangle(image, (80, 80), (119, 119), (20, 20, 20), -1)  # a black die
    cv2.circle(image, (100, 100), 4, (245, 245, 245), -1)  # its middle pip
    # Two of its pips fitted as a small face, then moved to the die's centre: its grid's points
    # between pips, laid from that centre, fall on the middle pip.
    face = replace(_face(100, 100, 2, size=18.0), body=(20.0, 20.0, 20.0))
    assert min(dice._body_colours(image, [face])[0]) > 150
    assert max(dice._body_colours(image, [replace(face, moved=True)])[0]) < 40
    # A two fitted across this die's pip and a touching white die's, its pips' colour between the
    # two dice's, moved onto this die: the die's own black, not the pips' gray.
    across = replace(_face(100, 100, 1, size=38.0), body=(120.0, 120.0, 120.0), moved=True)
    assert max(dice._body_colours(image, [across])[0]) < 40


class _ScaleBoundJudge(_FakeJudge):
    """A fake judge that finds a die's centre only through a patch of the die's own side: through a
    bigger one it overshoots, as far as the patch is too big."""

    def __init__(self, dice_: list[tuple[float, float, int]], die_side: float) -> None:
        super().__init__(dice_)
        self.die_side = die_side

    def judge(self, bgr, centres, sides, turned=False):
        """The fake judge's verdicts, offsets stretched by each patch's side over the die's."""
        from vision.dice_judge import Verdicts

        found = super().judge(bgr, centres, sides, turned)
        stretch = np.broadcast_to(np.asarray(sides, float), (len(found.die),)) / self.die_side
        return Verdicts(found.die, found.values, found.offsets * stretch[:, None])


@pytest.mark.parametrize("fitted, misfit", [(20.0, False), (30.0, True)])
def test_a_face_fitted_at_the_wrong_size_and_moved_is_looked_at_again_with_the_frames_die_side(monkeypatch, fitted, misfit):
    image = np.full((300, 400, 3), 90, np.uint8)
    # Faces of 20 px (dice of 28 px); an unsure two 12 px below its die, fitted at the frame's size
    # or half as big again (two pips taken along an edge, not across the diagonal).
    judge = _ScaleBoundJudge([(100, 100, 3), (200, 100, 4), (100, 212, 2)], die_side=dice.DIE_PER_FACE * 20.0)
    monkeypatch.setattr(dice, "_JUDGE", judge)
    chosen = [_face(100, 100, 3), _face(200, 100, 4), _face(100, 224, 2, size=fitted, certainty=0.6)]
    (moved,) = [f for f in dice._judged_faces(image, chosen, [], squares=[]) if f.centre[1] > 150]
    looks = judge.looks
    assert moved.moved and moved.size == pytest.approx(20.0)  # coloured within a die of the frame's size
    # Looked at again with the frame's die side, the misfit's die is found where it is.
    assert moved.centre == pytest.approx((100.0, 212.0))
    monkeypatch.setattr(dice, "RECENTRED", False)
    judge.looks = 0
    (kept,) = [f for f in dice._judged_faces(image, chosen, [], squares=[]) if f.centre[1] > 150]
    assert kept.size == pytest.approx(fitted)
    # Without the second look, the misfit's too big patch overshot the die's centre.
    assert (abs(kept.centre[1] - 212.0) > 2.0) is misfit
    assert looks - judge.looks == (1 if misfit else 0)


def _pips(rows: list[tuple[float, float, float, float, float]]):
    """Pips from rows of (x, y, radius, contrast, roundness): dark pips on a light body."""
    from vision.dice_pips import Pips

    a = np.array(rows, np.float64).reshape(-1, 5)
    n = len(a)
    return Pips(a[:, :2], a[:, 2], np.zeros(n, np.intp), np.full((n, 3), 200.0), np.full((n, 3), 30.0),
                a[:, 3], a[:, 4], np.zeros(n))


def test_a_loose_pip_that_no_face_holds_is_judged_and_its_die_added(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [replace(_face(100, 100, 3), radius=3.0), replace(_face(200, 100, 4), radius=3.0)]
    # A one's pip the lone-pip rules doubted, a speck, a flat smear, a faint spot and a blob twice the
    # faces' pip size (a pip of a die far bigger than the others), all far from the faces.
    pips = _pips([(300, 200, 4.0, 120, 0.9), (60, 250, 1.0, 120, 0.9), (200, 250, 3.0, 120, 0.3),
                  (350, 60, 3.0, 20, 0.9), (360, 260, 6.0, 120, 0.9)])
    judge = _FakeJudge([(100, 100, 3), (200, 100, 4), (301, 201, 1), (60, 250, 2), (200, 250, 5), (350, 60, 6),
                        (360, 260, 1)])
    monkeypatch.setattr(dice, "_JUDGE", judge)
    faces = dice._judged_faces(image, chosen, [], squares=[], pips=pips)
    found = sorted((round(f.centre[0]), round(f.centre[1]), f.value) for f in faces)
    assert found == [(100, 100, 3), (200, 100, 4), (301, 201, 1)]
    # Without the frame's pips, only the chosen faces are judged.
    assert dice._judged_faces(image, chosen, [], squares=[]) == chosen


def test_a_settled_face_keeps_its_value_when_a_look_beside_it_comes_to_rest_on_it(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    sure = replace(_face(100, 100, 5, certainty=dice.SETTLED), radius=3.0)
    other = replace(_face(200, 100, 4), radius=3.0)
    # A loose pip just beyond the settled face's reach: the judge's look there moves onto that die.
    pips = _pips([(100, 121, 3.0, 120, 0.9)])
    judge = _FakeJudge([(100, 100, 6), (200, 100, 4)], reach=0.8)
    monkeypatch.setattr(dice, "_JUDGE", judge)
    faces = dice._judged_faces(image, [sure, other], [], squares=[], pips=pips)
    assert judge.looks >= 2  # the loose pip was judged
    assert sorted((f.centre, f.value) for f in faces) == [((100, 100), 5), ((200, 100), 4)]


def test_a_pip_within_a_face_side_of_a_chosen_face_is_no_loose_pip(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [replace(_face(100, 100, 3, certainty=dice.SETTLED), radius=3.0),
              replace(_face(200, 100, 4, certainty=dice.SETTLED), radius=3.0)]
    # A pip on the first die's side face (0.85 of a face side from its centre), and one well beyond.
    pips = _pips([(100, 117, 3.0, 120, 0.9), (300, 200, 3.0, 120, 0.9)])
    judge = _FakeJudge([(100, 100, 3), (200, 100, 4)])
    monkeypatch.setattr(dice, "_JUDGE", judge)
    dice._judged_faces(image, chosen, [], squares=[], pips=pips)
    assert judge.looks == 1  # the pip beyond every face only


def test_a_loose_pip_inside_a_die_the_other_places_found_is_not_looked_at(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [replace(_face(100, 100, 3, certainty=dice.SETTLED), radius=3.0),
              replace(_face(200, 100, 4, certainty=dice.SETTLED), radius=3.0)]
    unchosen = [_face(300, 200, 2)]  # a candidate face on a die the reader did not choose
    pips = _pips([(306, 204, 3.0, 120, 0.9)])  # one of that die's pips, loose
    judge = _FakeJudge([(100, 100, 3), (200, 100, 4), (300, 200, 2)])
    monkeypatch.setattr(dice, "_JUDGE", judge)
    faces = dice._judged_faces(image, chosen, unchosen, squares=[], pips=pips)
    assert judge.looks == 1 and len(faces) == 3
    # Looked at, the loose pip finds the same die (and costs a look and a second look).
    monkeypatch.setattr(dice, "LOOSE_FOUND", 0.0)
    judge.looks = 0
    assert len(dice._judged_faces(image, chosen, unchosen, squares=[], pips=pips)) == 3
    assert judge.looks == 3


def test_with_only_ones_chosen_the_loose_pips_are_those_of_about_the_ones_pip_size():
    ones = [replace(_face(100, 100, 1), radius=4.0), replace(_face(200, 100, 1), radius=4.0)]
    # A blurred one's pip the lone-pip rules doubted, and a speck far smaller than the ones' pips.
    pips = _pips([(300, 200, 4.0, 120, 0.9), (300, 40, 1.5, 120, 0.9)])
    assert dice._loose_pips(ones, pips) == [(300.0, 200.0)]
    # Faces of several pips, where chosen, tell the size instead.
    three = replace(_face(100, 250, 3), radius=2.0)
    assert dice._loose_pips(ones + [three], pips) == [(300.0, 40.0)]


def test_with_only_ones_chosen_the_dice_size_is_the_ones_not_a_side_face_candidates():
    ones = [_face(100, 100, 1, size=30.0), _face(200, 100, 1, size=34.0)]
    side_face = _face(115, 125, 3, size=16.0)  # a candidate of small pips on a one's side face
    assert dice._typical_face(ones, [side_face]) == pytest.approx(32.0)
    # With nothing chosen, the candidates still tell the size.
    assert dice._typical_face([], [side_face]) == pytest.approx(16.0)


def test_loose_pips_find_dice_on_photos_that_faces_and_bodies_miss(monkeypatch):
    name = "nell-byler-1208"
    truth = _truth(name)
    monkeypatch.setattr(dice, "_VALUES", load_value_reader())
    right = {}
    shipped = dice.LOOSE_RADIUS
    for loose in (False, True):
        # No pip is nine times the faces' pip size: with that range, no pip is loose.
        monkeypatch.setattr(dice, "LOOSE_RADIUS", shipped if loose else (9.0, 9.0))
        right[loose] = 0
        for entry in truth:
            readings = dice.read_dice(cv2.imread(str(DATA / name / "images" / entry["image"])))
            right[loose] += sum(any(b[0] <= r.x <= b[2] and b[1] <= r.y <= b[3] and r.value == d["value"]
                                    for r in readings) for b, d in ((d["box"], d) for d in entry["dice"]))
    # On the first 40 photos, 8 dice more before touching dice and heaps were split (the judge now
    # finds some of them on their bodies), 5 since, 1 since faint blobs are judged too (FAINT_BODIES);
    # on all 121, 9 before faint blobs, 4 since.
    assert right[True] >= right[False] + 3, right


def test_an_unsure_face_the_judge_finds_part_of_a_settled_faces_die_is_dropped(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    top = _face(100, 100, 3, certainty=dice.SETTLED)
    side = _face(118, 100, 3, certainty=0.7)  # a side face's pips, fitted as a three beside the top face
    monkeypatch.setattr(dice, "_JUDGE", _FakeJudge([(100, 100, 3)], reach=0.7))
    faces = dice._judged_faces(image, [top, side], [], squares=[])
    assert [f.centre for f in faces] == [top.centre]
    # The judge does find a die at the side face's place, so the veto alone kept it.
    monkeypatch.setattr(dice, "ONTO_SETTLED", 0.0)
    assert [f.centre for f in dice._judged_faces(image, [top, side], [], squares=[])] == [top.centre, side.centre]


def test_a_die_sized_body_is_a_die_on_less_of_the_judges_word_than_a_place_without_one(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [_face(100, 100, 3), _face(200, 100, 4)]
    # Two places the pip-first reader did not choose; a body square lies at the first only.
    unchosen = [_face(300, 200, 2), _face(100, 230, 5)]
    squares = [((302.0, 198.0), 28.0, 0.0)]
    sure = 0.9  # enough on a body, not without one (and sure enough of the value, with no value reader)
    assert dice.NEW_BODY <= sure < dice.NEW_DIE and sure >= dice.NEW_VALUE
    judge = _FakeJudge([(100, 100, 3), (200, 100, 4), (300, 200, 2), (100, 230, 5)], sureness=sure)
    monkeypatch.setattr(dice, "_JUDGE", judge)
    faces = dice._judged_faces(image, chosen, unchosen, squares=squares)
    assert sorted((round(f.centre[0]), round(f.centre[1])) for f in faces) == [(100, 100), (200, 100), (300, 200)]


def test_a_faint_blob_is_a_place_to_judge_but_a_die_only_on_the_judge_s_word_for_pips_alone(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    chosen = [_face(100, 100, 3), _face(200, 100, 4)]
    faint = [((300.0, 200.0), 28.0, 0.0)]  # no candidate face there: only the faint blob tells the place
    monkeypatch.setattr(dice, "_JUDGE", _FakeJudge([(100, 100, 3), (200, 100, 4), (300, 200, 5)], sureness=0.9))
    assert [f.centre for f in dice._judged_faces(image, chosen, [], squares=[], faint=faint)] == [f.centre for f in chosen]
    monkeypatch.setattr(dice, "_JUDGE", _FakeJudge([(100, 100, 3), (200, 100, 4), (300, 200, 5)], sureness=0.999))
    faces = dice._judged_faces(image, chosen, [], squares=[], faint=faint)
    assert sorted((round(f.centre[0]), round(f.centre[1]), f.value) for f in faces)[-1] == (300, 200, 5)
    assert len(dice._judged_faces(image, chosen, [], squares=[])) == 2  # without it, nothing looks there


def test_no_second_die_is_added_on_the_edge_of_a_die_bigger_than_the_others(monkeypatch):
    image = np.full((300, 400, 3), 90, np.uint8)
    big = _face(100, 100, 5, size=40.0, certainty=dice.SETTLED)  # a die nearer the camera: 40 px face, 56 px die
    chosen = [big, _face(250, 100, 3), _face(250, 200, 4), _face(330, 150, 2)]  # typical face: 20 px
    edge = _face(100, 127, 2)  # a fit on the big die's edge: 27 px from its centre
    judge = _FakeJudge([(100, 100, 5), (250, 100, 3), (250, 200, 4), (330, 150, 2), (100, 127, 2)])
    monkeypatch.setattr(dice, "_JUDGE", judge)
    faces = dice._judged_faces(image, chosen, [edge], squares=[])
    assert sorted((round(f.centre[0]), round(f.centre[1])) for f in faces) == [(100, 100), (250, 100), (250, 200),
                                                                              (330, 150)]
    # An unsure fit's size says little (tiny dice, blur): beside it, the usual spacing holds.
    unsure = [replace(big, certainty=0.9)] + chosen[1:]
    faces = dice._judged_faces(image, unsure, [edge], squares=[])
    assert (100, 127) in [(round(f.centre[0]), round(f.centre[1])) for f in faces]


def test_a_sure_one_is_judged_when_nothing_tells_the_dice_size_or_its_pip_is_far_too_big():
    face = dice._Face
    five = face((0, 1, 2, 3, 4), 5, (100.0, 100.0), 8.0, 0.0, 0.0, radius=3.0, certainty=0.99)
    one = face((5,), 1, (200.0, 100.0), 8.0, 0.0, 0.0, radius=4.0, certainty=0.99)
    bead = face((6,), 1, (300.0, 100.0), 8.0, 0.0, 0.0, radius=7.0, certainty=0.99)
    unsure = face((7, 8), 2, (400.0, 100.0), 8.0, 0.0, 0.0, radius=3.0, certainty=0.6)
    faces = [five, one, bead, unsure]
    assert dice._bead_like(faces, []).tolist() == [False, False, True, False]
    assert dice._settled(faces, dice._bead_like(faces, [])).tolist() == [True, True, False, False]
    # Ones alone: nothing tells a one from a bead; a layout among the candidates tells the size.
    assert dice._settled([one], dice._bead_like([one], [])).tolist() == [False]
    assert dice._settled([one], dice._bead_like([one], [unsure])).tolist() == [True]


def test_with_no_face_chosen_each_body_is_judged_at_its_own_size():
    squares = [((100.0, 100.0), 30.0, 0.0), ((200.0, 100.0), 40.0, 0.0)]
    wrong_size = _face(300, 200, 2, size=10.0)  # a candidate no die holds: two specks
    places, sides, die_side = dice.judge_proposals([], [wrong_size], squares)
    assert die_side == pytest.approx(35.0)  # the bodies' median, not the candidate's 14
    by_place = {(round(x), round(y)): side for (x, y), side in zip(places, sides)}
    assert by_place[(100, 100)] == pytest.approx(30.0) and by_place[(200, 100)] == pytest.approx(40.0)
    # A chosen face of two or more pips tells the size: every body takes it.
    places, sides, die_side = dice.judge_proposals([_face(400, 300, 3, size=20.0, certainty=0.5)], [], squares)
    assert die_side == pytest.approx(28.0) and np.allclose(sides, 28.0)


def test_a_lone_die_whose_pips_the_pip_finder_misses_is_found_by_its_body(monkeypatch):
    name = "nell-byler-1208"
    entry = next(e for e in _truth(name) if e["image"] == "IMG_20191208_112556.jpg")
    (die,) = entry["dice"]  # a five, red pips on a dark blue-black body: no pip is found
    x1, y1, x2, y2 = die["box"]
    image = cv2.imread(str(DATA / name / "images" / entry["image"]))
    # The judge finds the die; the value reader reads the value of every die the judge adds (the
    # judge trained with marked things is sure it is a die, but only half sure it shows a five).
    monkeypatch.setattr(dice, "_VALUES", load_value_reader())
    readings = dice.read_dice(image)
    assert [(x1 <= r.x <= x2 and y1 <= r.y <= y2, r.value) for r in readings] == [(True, 5)]
    monkeypatch.setattr(dice, "_JUDGE", None)
    assert dice.read_dice(image) == []


def _marked_part(mark: int) -> dict:
    """A training part of two patches a half, marked by its classes (and pixels): 0 the simulator, 1
    the things, 2 and 3 the photo sets in order, 4 the desk's."""
    return {half: (np.full((2, 3, PATCH, PATCH), float(mark), np.float32), np.full(2, mark),
                   np.zeros((2, 2), np.float32)) for half in (0, 1)}


def test_training_across_sets_leaves_the_set_it_reads_out_of_every_member(monkeypatch, capsys):
    train = _training_module()
    parts = [_marked_part(mark) for mark in range(4)]
    monkeypatch.setattr(train, "MEMBERS", ((), ("label",)))
    trained_on, averaged = [], []
    monkeypatch.setattr(train, "train", lambda x, classes, offsets, epochs: trained_on.append(sorted(set(classes.tolist()))))
    monkeypatch.setattr(train, "export", lambda net, path: None)
    monkeypatch.setattr(train, "write_averaged", lambda members, path: averaged.append((len(members), path.name)))
    scores = {name: {"end_to_end": 0.5 + k / 10, "value_right": k, "true_dice": 10, "false_dice": k}
              for k, name in enumerate(train.SETS)}
    monkeypatch.setattr(train, "evaluate", lambda path, half: scores)
    train.report_across(parts, {("label",): _marked_part(4)}, epochs=1)
    # Each set left out of both members; only the labels member sees the desk's frames.
    assert trained_on == [[0, 1, 3], [0, 1, 3, 4], [0, 1, 2], [0, 1, 2, 4]]
    assert averaged == [(2, f"dice_judge_without_{name}.onnx") for name in train.SETS]
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in printed] == [f"trained without {name}" for name in train.SETS]
    assert "60.00% end to end (1 / 10), 1 false dice" in printed[1]


def test_varied_training_dice_have_pips_that_stand_out_and_half_are_marbled():
    train = _training_module(torch_needed=False)
    rng = np.random.default_rng(1)
    made = [train.varied_die(DieSpec(x=0, y=0, value=3, colour=colour), rng)
            for colour in BODY_COLOURS for _ in range(40)]
    for die in made:
        light = sum(BODY_COLOURS[die.colour]) > 3 * 128
        assert die.pips in (("black", "red") if light else ("white", "red")) and die.pips != die.colour
        assert die.swirl is None or (die.swirl in BODY_COLOURS and die.swirl != die.colour)
    red = np.mean([die.pips == "red" for die in made if die.colour != "red"])
    marbled = np.mean([die.swirl is not None for die in made])
    assert abs(red - train.RED_PIPS) < 0.08 and abs(marbled - 0.5) < 0.08
    # Every maker's pip layout lies in range, and they differ (a judge that saw one layout took
    # dice whose pips sit nearer the middle for smaller than they are).
    steps = np.array([die.pip_step for die in made])
    radii = np.array([die.pip_radius for die in made])
    assert steps.min() >= train.PIP_STEPS[0] and steps.max() <= train.PIP_STEPS[1] and steps.std() > 0.02
    assert radii.min() >= train.PIP_RADII[0] and (radii <= train.PIP_GAP * steps + 1e-9).all()
    image, _ = render_table(Scene(width=400, height=300, dice=tuple(replace(die, x=200, y=150) for die in made[:20])),
                            rng)  # each layout is one the simulator draws
    assert image.shape == (300, 400, 3)


def test_varied_training_frames_hold_marbled_dice_with_their_truth():
    train = _training_module(torch_needed=False)
    ((image, dice_, half),) = train.varied_images(frames=1)
    assert image.shape == (720, 1280, 3) and half == 0 and len(dice_) >= 6
    assert all(1 <= value <= 6 and 24 * 0.9 <= side for _, _, value, side in dice_)


def test_tilted_training_frames_show_side_faces_whose_places_are_labelled_no_die():
    train = _training_module(torch_needed=False)
    ((image, dice_, half),) = train.tilted_images(frames=1)
    assert image.shape == (720, 1280, 3) and half == 0 and len(dice_) >= 6
    # The camera is close: a die off the frame's middle shows a side face most of its side tall,
    # leaning away from the middle, and a patch on that face's middle shows no die.
    middle = np.array([640.0, 360.0])
    alone = [d for d in dice_ if all(e is d or np.hypot(e[0] - d[0], e[1] - d[1]) > 2.5 * d[3] for e in dice_)]
    off = max(alone, key=lambda d: np.hypot(d[0] - 640.0, d[1] - 360.0))
    centre, side = np.array(off[:2]), off[3]
    away = (centre - middle) / np.linalg.norm(centre - middle)
    on_side_face = centre - away * 0.8 * side
    label = train.label_at(on_side_face, dice_, side)
    assert label is not None and label[0] == 0
    # The side face is drawn there: it is the die's own colour, darker, not the table.
    table = image[5:40, 5:40].reshape(-1, 3).mean(axis=0)
    x, y = np.round(on_side_face).astype(int)
    assert np.linalg.norm(image[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).mean(axis=0) - table) > 20


def test_the_reader_reads_with_the_judge_it_is_given_and_its_own_again_after():
    entry = _truth("nell-byler-1208")[0]
    frame = cv2.imread(str(DATA / "nell-byler-1208" / "images" / entry["image"]))
    shipped, lent = dice._JUDGE, _FakeJudge([(0.0, 0.0, 1)])
    with dice.judged_by(lent):
        dice.read_dice(frame)
    asked = lent.looks
    assert asked > 0 and dice._JUDGE is shipped
    dice.read_dice(frame)
    assert lent.looks == asked
    with pytest.raises(RuntimeError), dice.judged_by(None):
        raise RuntimeError("a read that fails inside the block")
    assert dice._JUDGE is shipped


def test_a_trained_model_is_written_where_out_says_and_over_the_shipped_one_by_default():
    arguments = _training_module(torch_needed=False).arguments
    assert arguments(["--write"], "A script.", 48, MODEL_PATH).out == MODEL_PATH
    assert arguments(["--write", "--out", "/tmp/candidate.onnx"], "A script.", 48, MODEL_PATH).out == Path("/tmp/candidate.onnx")


def test_training_without_a_photo_set_keeps_every_made_part_and_the_other_sets():
    training = _training_module(torch_needed=False)
    sets = training.SETS
    parts = ["sim", "things", *(f"photos of {name}" for name in sets)]
    assert training.parts_without(parts, sets[0]) == ["sim", "things", *(f"photos of {name}" for name in sets[1:])]
    assert training.parts_without(parts, sets[1]) == ["sim", "things", f"photos of {sets[0]}"]


def _top_face():
    """A kept three at (100, 100), 20 px, of the frame's pips 0-2 (_round_top_pips)."""
    from vision.dice_layout import HALF_SIDE

    return dice._Face((0, 1, 2), 3, (100.0, 100.0), 20.0 / (2 * HALF_SIDE), 0.0, 0.1, (200.0, 200.0, 200.0), certainty=0.9)


def _round_top_pips(*more: tuple[float, float, float]):
    """The kept three's round pips, then pips at (x, y) of the roundness given."""
    return _pips([(95, 95, 3, 80, 0.9), (100, 100, 3, 80, 0.9), (105, 105, 3, 80, 0.9)]
                 + [(x, y, 3, 80, roundness) for x, y, roundness in more])


@pytest.mark.parametrize("roundness, value, added", [(0.4, 2, False), (0.9, 2, True), (0.4, 1, True)])
def test_a_die_at_pips_alone_beside_a_die_whose_pips_are_flatter_than_its_is_that_dies_side_face(monkeypatch, roundness, value, added):
    image = np.full((300, 400, 3), 90, np.uint8)
    # Two marks at the place beside the kept die, as round or flattened as a side face seen at a
    # slant shows its pips; where the judge sees a one there, they are its body's swirls.
    pips = _round_top_pips((124, 108, roundness), (132, 116, roundness))
    monkeypatch.setattr(dice, "_JUDGE", _FakeJudge([(100, 100, 3), (128, 112, value)]))

    def found() -> set[tuple[int, int]]:
        """The places of the dice the judge keeps and adds."""
        faces = dice._judged_faces(image, [_top_face()], [_face(128, 112, 2)], squares=[], pips=pips)
        return {(round(f.centre[0]), round(f.centre[1])) for f in faces}

    assert ((128, 112) in found()) == added
    monkeypatch.setattr(dice, "SLANTED_SIDES_DROPPED", False)
    assert (128, 112) in found()


def test_a_side_face_is_only_judged_by_pips_near_a_kept_die():
    far = _round_top_pips((220, 100, 0.4))
    # Flattened pips far from every kept die, and a place with no pip of its own: no side face.
    assert not dice._slanted_side(np.array([220.0, 100.0]), [_top_face()], far, 28.0)
    assert not dice._slanted_side(np.array([128.0, 112.0]), [_top_face()], far, 28.0)
    assert dice._slanted_side(np.array([128.0, 112.0]), [_top_face()], _round_top_pips((128, 112, 0.4)), 28.0)


def _shifted_judge(path: Path, shift: np.ndarray, out: Path) -> None:
    """Write the judge at `path` with `shift` added to every verdict row (another network, as far as
    its outputs tell)."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    model = onnx.load(str(path))
    output = model.graph.output[0].name
    for node in model.graph.node:
        node.output[:] = ["unshifted" if name == output else name for name in node.output]
    model.graph.initializer.append(numpy_helper.from_array(shift.astype(np.float32), "shift"))
    model.graph.node.append(helper.make_node("Add", ["unshifted", "shift"], [output]))
    onnx.save(model, str(out))


@pytest.mark.parametrize("in_chance", [False, True], ids=["logits averaged", "die chances averaged"])
def test_an_averaged_judge_reads_each_patch_as_the_mean_of_its_members(tmp_path, monkeypatch, in_chance):
    pytest.importorskip("onnx")
    train = _training_module(torch_needed=False)
    monkeypatch.setattr(train, "AVERAGED_CHANCE", in_chance)
    shift = np.linspace(-3.0, 3.0, 9)
    _shifted_judge(MODEL_PATH, shift, tmp_path / "shifted.onnx")
    assert train.main(["--average", str(MODEL_PATH), str(tmp_path / "shifted.onnx"),
                       "--out", str(tmp_path / "averaged.onnx")]) == 0
    patches_ = np.random.default_rng(3).normal(size=(5, 3, PATCH, PATCH)).astype(np.float32)
    alone = DiceJudge(MODEL_PATH).forward(patches_)
    assert np.allclose(DiceJudge(tmp_path / "shifted.onnx").forward(patches_), alone + shift, atol=1e-4)
    # Each member keeps its own weights beside the other's: values and offsets move by half the shift...
    averaged = load_judge(tmp_path / "averaged.onnx")
    assert averaged is not None
    rows = averaged.forward(patches_)
    assert np.allclose(rows[:, 1:], alone[:, 1:] + shift[1:] / 2.0, atol=1e-4)
    # ...and the die chance is the mean of the members' chances, or that of their mean logit.
    if in_chance:
        chance = (die_chances(alone[:, 0]) + die_chances(alone[:, 0] + shift[0])) / 2.0
        assert np.allclose(die_chances(rows[:, 0]), chance, atol=1e-5)
    else:
        assert np.allclose(rows[:, 0], alone[:, 0] + shift[0] / 2.0, atol=1e-4)


def test_one_member_sure_of_a_die_keeps_a_judge_averaged_in_chance_half_sure_however_sure_the_other_is_of_none(
        tmp_path, monkeypatch):
    pytest.importorskip("onnx")
    train = _training_module(torch_needed=False)
    monkeypatch.setattr(train, "AVERAGED_CHANCE", True)
    # One member's die logits pushed far up, the other's far down: their mean logit would be the
    # first network's, but the mean chance is a half wherever one member is sure either way.
    _shifted_judge(MODEL_PATH, np.r_[40.0, np.zeros(8)], tmp_path / "sure.onnx")
    _shifted_judge(MODEL_PATH, np.r_[-60.0, np.zeros(8)], tmp_path / "doubting.onnx")
    assert train.main(["--average", str(tmp_path / "sure.onnx"), str(tmp_path / "doubting.onnx"),
                       "--out", str(tmp_path / "averaged.onnx")]) == 0
    patches_ = np.random.default_rng(4).normal(size=(6, 3, PATCH, PATCH)).astype(np.float32)
    rows = load_judge(tmp_path / "averaged.onnx").forward(patches_)
    assert np.all(np.isfinite(rows)) and np.allclose(die_chances(rows[:, 0]), 0.5, atol=1e-4)


def test_a_member_cut_from_an_averaged_judge_averages_again_into_the_same_judge(tmp_path):
    onnx = pytest.importorskip("onnx")
    train = _training_module(torch_needed=False)
    # extract_model notes the shared input's shape among the member's tensors: that note once made
    # add_prefix rename the member's uses of the input, and the averaged file failed onnx's check.
    cut = [tmp_path / f"member{k}.onnx" for k in (0, 1)]
    for k, path in enumerate(cut):
        onnx.utils.extract_model(str(MODEL_PATH), str(path), ["patches"], [f"m{k}_verdicts"])
    assert "patches" in [v.name for v in onnx.load(str(cut[0])).graph.value_info]
    assert train.main(["--average", *map(str, cut), "--out", str(tmp_path / "again.onnx")]) == 0
    patches_ = np.random.default_rng(6).normal(size=(5, 3, PATCH, PATCH)).astype(np.float32)
    again = load_judge(tmp_path / "again.onnx")
    assert again is not None
    assert np.allclose(again.forward(patches_), DiceJudge(MODEL_PATH).forward(patches_), atol=1e-4)


def test_averaging_a_file_that_is_no_judge_says_which_and_writes_nothing(tmp_path, capsys):
    pytest.importorskip("onnx")
    train = _training_module(torch_needed=False)
    out = tmp_path / "averaged.onnx"
    # A value reader is a network OpenCV loads, but its rows are no judge's to average.
    for other in (_not_a_network(tmp_path), VALUES_MODEL):
        assert train.main(["--average", str(MODEL_PATH), str(other), "--out", str(out)]) == 2
        assert not out.exists()
        error = capsys.readouterr().err
        assert error.startswith(f"--average: {other}: no judge model") and "train_dice_judge.py" in error


def test_a_network_taught_by_a_judge_trains_on_every_members_frames_less_the_set_it_reads(monkeypatch, tmp_path):
    train = _training_module(torch_needed=False)
    parts = [_marked_part(mark) for mark in range(4)]
    seen = []
    monkeypatch.setattr(train, "train", lambda x, classes, offsets, epochs, taught: seen.append((classes, taught)) or "net")
    written = []
    monkeypatch.setattr(train, "export", lambda net, path: written.append((net, path)))
    out = tmp_path / "student.onnx"
    assert train.trained_student(parts, {("label",): _marked_part(4)}, (0, 1), 1, out, MODEL_PATH, without=train.SETS[0]) == out
    (classes, taught), = seen
    # The first photo set is left out; the desk's frames are in, with the made frames' and the other set's.
    assert sorted(set(classes.tolist())) == [0, 1, 3, 4]
    # The teacher's rows are the shipped judge's own, patch for patch.
    x = np.concatenate([p[h][0] for p in (parts[0], parts[1], _marked_part(4), parts[3]) for h in (0, 1)])
    assert taught.shape == (len(classes), 9)
    assert np.allclose(taught, DiceJudge(MODEL_PATH).forward(x), atol=1e-5)
    assert written == [("net", out)]


def test_training_to_a_teacher_that_is_no_judge_or_across_both_sets_says_what_to_give(tmp_path, capsys):
    train = _training_module(torch_needed=False)
    broken = _not_a_network(tmp_path)
    assert train.main(["--taught-by", str(broken), "--write", "--out", str(tmp_path / "out.onnx")]) == 2
    assert capsys.readouterr().err.startswith(f"--taught-by: {broken}: no judge model")
    # Held out, a teacher must not have seen the set it is read on: one teacher cannot serve both.
    assert train.main(["--taught-by", str(MODEL_PATH), "--across"]) == 2
    assert "name one set" in capsys.readouterr().err
    assert train.main(["--taught-by", str(MODEL_PATH), "--report"]) == 2
    assert "use --across SET or --write" in capsys.readouterr().err
    assert not (tmp_path / "out.onnx").exists()


def test_one_member_trained_alone_learns_its_own_desk_frames_and_is_written_where_asked(monkeypatch, tmp_path):
    train = _training_module(torch_needed=False)
    parts = [_marked_part(mark) for mark in range(4)]
    trained_on, written = [], []
    monkeypatch.setattr(train, "train", lambda x, classes, offsets, epochs: trained_on.append(sorted(set(classes.tolist()))) or "net")
    monkeypatch.setattr(train, "export", lambda net, path: written.append((net, path)))
    out = tmp_path / "member.onnx"
    desk = {("label", "keyboard"): _marked_part(4)}
    assert train.trained_member(parts, desk, (0, 1), 1, out, ("label", "keyboard"), without=train.SETS[1]) == out
    assert train.trained_member(parts, desk, (0, 1), 1, out, ()) == out
    # The desk's frames only for the member taught them; the set left out, out.
    assert trained_on == [[0, 1, 2, 4], [0, 1, 2, 3]]
    assert written == [("net", out), ("net", out)]


@pytest.mark.parametrize("training", [["--write", "--member", "1"], ["--across", "matteop65"], ["--report"],
                                      ["--taught-by", str(MODEL_PATH)]])
def test_averaging_refuses_the_options_that_ask_for_training(tmp_path, capsys, training):
    train = _training_module(torch_needed=False)
    out = tmp_path / "averaged.onnx"
    # --average trains nothing: a member asked for beside it was quietly not trained, the files averaged.
    assert train.main(["--average", str(MODEL_PATH), str(MODEL_PATH), "--out", str(out), *training]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--average: it averages judges already trained and trains nothing")
    assert training[0] in err
    assert not out.exists()


def test_one_member_alone_is_refused_in_the_shipped_judges_place_and_without_write(tmp_path, capsys):
    train = _training_module(torch_needed=False)
    # Written over the shipped file, one member alone would quietly halve the judge.
    assert train.main(["--write", "--member", "1"]) == 2
    assert "give --out PATH" in capsys.readouterr().err
    assert train.main(["--member", "1", "--out", str(tmp_path / "m.onnx")]) == 2
    assert capsys.readouterr().err.startswith("--member: it trains one member for --write")
    assert train.main(["--write", "--member", "0", "--taught-by", str(MODEL_PATH), "--out", str(tmp_path / "m.onnx")]) == 2
    assert capsys.readouterr().err.startswith("--member:")
    assert not (tmp_path / "m.onnx").exists()


def test_a_taught_network_learns_the_teachers_chances_beside_the_labels():
    torch = pytest.importorskip("torch")
    train = _training_module()
    rng = np.random.default_rng(5)
    x = rng.normal(size=(64, 3, PATCH, PATCH)).astype(np.float32)
    classes = np.zeros(64, np.int64)  # every label says no die...
    taught = np.zeros((64, 9), np.float32)
    taught[:, 0] = 8.0  # ...and the teacher is sure of a die
    plain = train.train(x, classes, np.zeros((64, 2), np.float32), epochs=3, seed=1)
    student = train.train(x, classes, np.zeros((64, 2), np.float32), epochs=3, seed=1, taught=taught)
    with torch.no_grad():
        plain_die, taught_die = (float(net(torch.from_numpy(x))[:, 0].mean()) for net in (plain, student))
    # Pulled between the two, the taught network's die logits stand above the labels' alone.
    assert taught_die > plain_die + 0.5

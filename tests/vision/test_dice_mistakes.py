"""The mistakes list: every false die, missed die and wrong value of a labelled folder, with pictures."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import cv2
import pytest

from vision.dice_judge import MODEL_PATH as JUDGE_MODEL
from vision.dice_values import MODEL_PATH as VALUES_MODEL

REPO = Path(__file__).resolve().parents[2]
PHOTOS = REPO.parent / "shared" / "data" / "dice" / "nell-byler-1208"


def _load(name: str):
    """A benchmarks module, loaded by path."""
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reading(x: float, y: float, value: int) -> dict:
    """A reading as read_folder gives it."""
    return {"x": x, "y": y, "size": 40.0, "value": value, "colour": "white", "confidence": 0.9}


ENTRY = {"image": "a.jpg", "ignore": [[500, 500, 540, 540]],
         "dice": [{"box": [0, 0, 40, 40], "value": 3}, {"box": [100, 0, 140, 40], "value": 5},
                  {"box": [200, 0, 240, 40], "value": 2}]}


def test_matching_pairs_each_die_with_the_nearest_reading_in_its_box_once():
    found = _load("dice_benchmark").matched(ENTRY, [_reading(30, 30, 3), _reading(21, 19, 3), _reading(120, 20, 4),
                                                   _reading(400, 20, 1), _reading(520, 520, 6)])
    # The reading nearer the first box's middle takes it; the other is false, as is one far from any
    # box; one in a box to ignore is neither; nothing lies in the third box.
    assert [(d["value"], g["x"]) for d, g in found.pairs] == [(3, 21), (5, 120)]
    assert [g["x"] for g in found.false] == [30, 400]
    assert [d["value"] for d in found.missed] == [2]


def test_the_scorers_copy_counts_what_the_matching_finds():
    score = _load("dice_benchmark").score_copy([ENTRY], [{"image": "a.jpg", "dice": [_reading(21, 19, 3), _reading(120, 20, 4),
                                                                                   _reading(400, 20, 1)]}])
    assert (score["true_dice"], score["found"], score["value_right"], score["false_dice"]) == (3, 2, 1, 1)
    assert score["images_all_right"] == 0.0


def test_mistakes_name_each_false_missed_and_wrong_die():
    found = _load("dice_mistakes").mistakes([ENTRY], [{"image": "a.jpg", "dice": [_reading(21, 19, 3), _reading(120, 20, 4),
                                                                                  _reading(400, 20, 1)]}])
    assert sorted((m.kind, round(m.x)) for m in found) == [("false", 400), ("missed", 220), ("wrong", 120)]
    wrong = next(m for m in found if m.kind == "wrong")
    assert wrong.read.startswith("4 white") and wrong.true == "5" and "wrong" in wrong.line()


@pytest.fixture
def altered_labels(tmp_path: Path) -> Path:
    """A real photo whose labels are altered: one die's value changed, one die left out, a die that is not there added."""
    if not (PHOTOS / "truth.json").exists():
        pytest.skip("the nell-byler-1208 photos are absent")
    entry = json.loads((PHOTOS / "truth.json").read_text())[0]
    (tmp_path / "images").mkdir()
    shutil.copy(PHOTOS / "images" / entry["image"], tmp_path / "images")
    dice = entry["dice"]
    dice[0] = dict(dice[0], value=dice[0]["value"] % 6 + 1)
    entry["dice"] = dice[:-1] + [{"box": [2, 2, 12, 12], "value": 4}]
    (tmp_path / "truth.json").write_text(json.dumps([entry]))
    return tmp_path


def test_the_command_lists_the_mistakes_and_draws_them(altered_labels, tmp_path, capsys):
    picture = tmp_path / "sheet.png"
    assert _load("dice_mistakes").main([str(altered_labels), "--sheet", str(picture)]) == 0
    lines = capsys.readouterr().out.splitlines()
    kinds = [line.split()[1] for line in lines if line.endswith(("-", ")")) or " true " in line]
    assert {"wrong", "missed", "false"} <= set(kinds)
    assert any(line.startswith("1 images") and "missed" in line for line in lines)
    sheet = cv2.imread(str(picture))
    assert sheet is not None and sheet.shape[0] >= 120 and sheet.shape[1] == 8 * 120


def test_the_command_lists_only_the_kinds_asked_for(altered_labels, capsys):
    assert _load("dice_mistakes").main([str(altered_labels), "--kinds", "missed"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].endswith(": 1 missed") and all(" false " not in line and " wrong " not in line for line in lines)


@pytest.mark.parametrize("args, says", [(["--kinds", "odd"], "unknown kinds odd"), (["--scale", "0"], "above 0"),
                                        (["--look", "sepia"], "invalid choice")])
def test_bad_arguments_are_refused_with_a_message(altered_labels, capsys, args, says):
    with pytest.raises(SystemExit):
        _load("dice_mistakes").main([str(altered_labels), *args])
    assert says in capsys.readouterr().err


@pytest.mark.parametrize("labels, says", [(None, "no truth.json"), ("{not json", "not readable JSON"),
                                          ('{"image": "a.jpg"}', "must be a list")])
def test_a_folder_without_usable_labels_is_refused_with_a_message(tmp_path, capsys, labels, says):
    if labels is not None:
        (tmp_path / "truth.json").write_text(labels)
    with pytest.raises(SystemExit):
        _load("dice_mistakes").main([str(tmp_path)])
    assert says in capsys.readouterr().err


def test_a_judge_model_that_cannot_be_loaded_is_refused_with_a_message(altered_labels, tmp_path, capsys):
    broken = tmp_path / "judge.onnx"
    broken.write_bytes(b"not a network")
    # The value reader loads as a network too, but reads no judge's patch.
    for path, why in ((broken, "OpenCV cannot load it"), (tmp_path / "absent.onnx", "no such file"),
                      (VALUES_MODEL, "does not read a 32-pixel patch into 9 numbers")):
        with pytest.raises(SystemExit):
            _load("dice_mistakes").main([str(altered_labels), "--judge", str(path)])
        error = capsys.readouterr().err
        assert f"--judge {path}: no judge model" in error and why in error


def test_a_value_model_that_cannot_be_loaded_is_refused_with_a_message(altered_labels, tmp_path, capsys):
    broken = tmp_path / "values.onnx"
    broken.write_bytes(b"not a network")
    for path, why in ((broken, "OpenCV cannot load it"), (tmp_path / "absent.onnx", "no such file"),
                      (JUDGE_MODEL, "does not read a 40-pixel patch into 6 numbers")):
        with pytest.raises(SystemExit):
            _load("dice_mistakes").main([str(altered_labels), "--values", str(path)])
        error = capsys.readouterr().err
        assert f"--values {path}: no value model" in error and why in error


def test_a_folder_is_read_with_the_value_reader_given_and_the_shipped_one_after(altered_labels, capsys, monkeypatch):
    import benchmarks.dice_benchmark as benchmark
    import vision.dice as dice
    from vision.dice_values import MODEL_PATH, ValueReader

    # A value model given by path is the one asked, and the reader's own stands again after.
    asked = []

    class Counting(ValueReader):
        """The shipped network, counting the dice it is asked about."""

        def read(self, bgr, centres, sides, beside=True):
            asked.append(len(centres))
            return super().read(bgr, centres, sides, beside)

    monkeypatch.setattr(benchmark, "candidate_value_reader", Counting)
    shipped = dice._VALUES
    mistakes = _load("dice_mistakes")
    assert mistakes.main([str(altered_labels)]) == 0
    as_shipped = capsys.readouterr().out
    assert mistakes.main([str(altered_labels), "--values", str(MODEL_PATH)]) == 0
    assert sum(asked) > 0 and dice._VALUES is shipped
    assert capsys.readouterr().out == as_shipped


def test_a_folder_is_read_with_the_judge_given_and_the_shipped_one_after(altered_labels, capsys, monkeypatch):
    import benchmarks.dice_benchmark as benchmark
    import vision.dice as dice
    from vision.dice_judge import MODEL_PATH, DiceJudge

    # A judge file given by path is the one asked (here the shipped file, loaded again, counting its
    # patches), and the reader's own judge stands again once the folder is read.
    asked = []

    class Counting(DiceJudge):
        """The shipped network, counting the patches it is asked about."""

        def judge(self, bgr, centres, sides, turned=False):
            asked.append(len(centres))
            return super().judge(bgr, centres, sides, turned)

    monkeypatch.setattr(benchmark, "candidate_judge", Counting)
    shipped = dice._JUDGE
    mistakes = _load("dice_mistakes")
    assert mistakes.main([str(altered_labels), "--judge", str(MODEL_PATH)]) == 0
    with_file = capsys.readouterr().out
    assert sum(asked) > 0 and dice._JUDGE is shipped
    # The same network lent without the option reads the same (lent, as the run may be testing a
    # candidate: pytest --dice-judge).
    with dice.judged_by(DiceJudge(MODEL_PATH)):
        assert mistakes.main([str(altered_labels)]) == 0
    assert capsys.readouterr().out == with_file


def test_a_folder_is_read_with_no_judge_when_asked(altered_labels, capsys, monkeypatch):
    import vision.dice as dice
    from vision.dice_judge import DiceJudge

    # --judge none: the judge is never asked (a judge that fails when asked would end the run), the
    # reader alone reads what it reads with no judge lent, and the reader's own judge stands after.
    class Failing(DiceJudge):
        """A judge that must not be asked."""

        def judge(self, bgr, centres, sides, turned=False):
            raise AssertionError("the judge was asked")

    mistakes = _load("dice_mistakes")
    with dice.judged_by(None):
        assert mistakes.main([str(altered_labels)]) == 0
    alone = capsys.readouterr().out
    monkeypatch.setattr(dice, "_JUDGE", Failing.__new__(Failing))
    assert mistakes.main([str(altered_labels), "--judge", "none"]) == 0
    assert capsys.readouterr().out == alone
    assert isinstance(dice._JUDGE, Failing)

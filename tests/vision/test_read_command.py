"""`companion read`: tables, JSON lines, annotated images, folders, profiles, and files that are not images."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision.colour import learn


@pytest.fixture
def photos(tmp_path):
    """A folder with two simulator photos (PNG and JPEG) and their truth."""
    simulator = pytest.importorskip("vision.simulator")
    folder = tmp_path / "photos"
    folder.mkdir()
    truths = {}
    for k, name in enumerate(("table.png", "table.jpg")):
        rng = np.random.default_rng(40 + k)
        image, truth = simulator.render_table(
            simulator.random_scene(rng, dice=6, width=960, height=540, die_size=34.0, background="plain",
                                   touching=0.0), rng)
        cv2.imwrite(str(folder / name), image)
        truths[name] = truth
    return folder, truths


def test_json_lines_one_per_image(photos, capsys):
    folder, truths = photos
    assert main(["read", "--json", str(folder / "table.png"), str(folder / "table.jpg")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        record = json.loads(line)
        assert set(record) == {"image", "dice", "ms"}
        assert record["ms"] > 0
        truth = truths[record["image"].rsplit("/", 1)[-1]]
        assert len(record["dice"]) == len(truth["dice"])
        for die in record["dice"]:
            assert {"x", "y", "size", "value", "colour", "confidence"} <= set(die)
        assert sorted(d["value"] for d in record["dice"]) == sorted(d["value"] for d in truth["dice"])


def test_a_folder_is_read_image_by_image(photos, capsys):
    folder, _ = photos
    (folder / "notes.txt").write_text("not a photo")
    assert main(["read", "--json", str(folder)]) == 0
    names = [json.loads(line)["image"] for line in capsys.readouterr().out.strip().splitlines()]
    assert [n.rsplit("/", 1)[-1] for n in names] == ["table.jpg", "table.png"]


def test_table_output_lists_each_die(photos, capsys):
    folder, truths = photos
    assert main(["read", str(folder / "table.png")]) == 0
    out = capsys.readouterr().out
    assert f"table.png: {len(truths['table.png']['dice'])} dice" in out
    assert "confidence" in out


def test_missing_and_non_image_files_get_one_line_each_and_the_rest_are_read(photos, tmp_path, capsys):
    folder, _ = photos
    text = tmp_path / "readme.jpg"
    text.write_text("this is not a JPEG")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    status = main(["read", "--json", str(tmp_path / "nope.png"), str(text), str(empty), str(folder / "table.png")])
    captured = capsys.readouterr()
    assert status == 1
    errors = captured.err.strip().splitlines()
    assert len(errors) == 3
    assert "nope.png: no such file or folder" in errors[0]
    assert all("not an image" in line for line in errors[1:])
    assert "Traceback" not in captured.err
    assert len(captured.out.strip().splitlines()) == 1


def test_annotate_writes_each_image_with_its_readings(photos, tmp_path, capsys):
    folder, _ = photos
    out = tmp_path / "annotated"
    assert main(["read", "--annotate", str(out), str(folder / "table.png")]) == 0
    written = cv2.imread(str(out / "table.annotated.png"))
    original = cv2.imread(str(folder / "table.png"))
    assert written is not None and written.shape == original.shape
    assert np.count_nonzero(np.any(written != original, axis=2)) > 500


def test_profile_file_names_the_colours(photos, tmp_path, capsys):
    folder, _ = photos
    profile = tmp_path / "calibration.json"
    profile.write_text(json.dumps({"colour_profile": learn({"chalk": (236, 238, 238), "slate": (128, 130, 130),
                                                            "coal": (34, 32, 32)}).to_dict()}))
    assert main(["read", "--json", "--profile", str(profile), str(folder / "table.png")]) == 0
    colours = {d["colour"] for d in json.loads(capsys.readouterr().out)["dice"]}
    assert colours and colours <= {"chalk", "slate", "coal"}


@pytest.mark.parametrize("content, words", [
    (None, "no such profile file"),
    ("{not json", "not a readable JSON colour profile"),
    ('{"colours": {"white": [[1, 2]]}}', "three numbers"),
])
def test_bad_profile_file_is_one_clear_line(photos, tmp_path, capsys, content, words):
    folder, _ = photos
    path = tmp_path / "profile.json"
    if content is not None:
        path.write_text(content)
    assert main(["read", "--profile", str(path), str(folder / "table.png")]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1

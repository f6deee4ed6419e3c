"""The readings' fingerprint: the same frames read alike hash alike, and any changed reading shows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]


def _fingerprint():
    """The fingerprint script, loaded by path."""
    spec = importlib.util.spec_from_file_location("readings_hash", REPO / "benchmarks" / "readings_hash.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _table() -> np.ndarray:
    """The benchmark's first simulator frame, shrunk to keep the test quick."""
    frame = next(_fingerprint().sim_frames(1))[1]
    return cv2.resize(frame, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)


def test_the_same_frames_hash_alike_and_a_changed_reading_shows():
    fingerprint, table = _fingerprint(), _table()
    count, digest = fingerprint.digest_of([("table", table)])
    again_count, again = fingerprint.digest_of([("table", table.copy())])
    assert count > 10 and (count, digest.hexdigest()) == (again_count, again.hexdigest())
    # One die painted over in the table's median colour: one reading fewer, another hash.
    die = fingerprint.read_dice(table)[0]
    covered = table.copy()
    x, y, side = int(die.x), int(die.y), int(die.size)
    covered[max(y - side, 0):y + side, max(x - side, 0):x + side] = np.median(table.reshape(-1, 3), axis=0)
    fewer, changed = fingerprint.digest_of([("table", covered)])
    assert fewer < count and changed.hexdigest() != digest.hexdigest()
    # The label counts too: the same readings of another frame are not the same sample.
    assert fingerprint.digest_of([("other", table)])[1].hexdigest() != digest.hexdigest()


def test_a_folder_without_labels_is_named(tmp_path, capsys):
    assert _fingerprint().main([str(tmp_path), "--sim", "0"]) == 2
    assert str(tmp_path) in capsys.readouterr().err

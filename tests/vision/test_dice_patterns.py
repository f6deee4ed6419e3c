"""Patterned tables (a dotted cloth, a perforated tray, a mesh): their marks are not read as dice."""

from __future__ import annotations

import numpy as np
import pytest

from vision import dice
from vision.dice import read_dice
from vision.dice_pips import Pips
from vision.simulator import BODY_COLOURS, PATTERNS, patterned_table, random_scene, render_table


def _pips_at(points, radius: float = 3.0) -> Pips:
    """Alike dark pips at these points."""
    xy = np.asarray(points, np.float32).reshape(-1, 2)
    n = len(xy)
    return Pips(xy=xy, radius=np.full(n, radius, np.float32), polarity=np.zeros(n, np.intp),
                body=np.full((n, 3), 230, np.float32), colour=np.full((n, 3), 30, np.float32),
                contrast=np.full(n, 200, np.float32), roundness=np.ones(n, np.float32), spread=np.zeros(n, np.float32))


def _grid(columns: int, rows: int, step: float, turn: float = 0.3, hexagonal: bool = False) -> np.ndarray:
    """Points of a turned square or hexagonal grid."""
    points = np.array([(c + (0.5 if hexagonal and r % 2 else 0.0), r * (0.866 if hexagonal else 1.0))
                       for r in range(rows) for c in range(columns)]) * step
    c, s = np.cos(turn), np.sin(turn)
    return 200 + points @ np.array([[c, s], [-s, c]])


@pytest.mark.parametrize("hexagonal", [False, True])
def test_the_marks_of_a_dotted_cloth_are_a_lattice(hexagonal):
    points = _grid(8, 6, 14.0, hexagonal=hexagonal)
    jitter = np.random.default_rng(1).normal(0, 0.3, points.shape)  # marks found a little off
    assert _lattice(points + jitter).all()


def test_a_die_table_s_rows_of_pips_are_no_lattice():
    # Three touching sixes side by side: rows of three pips each, the next die's pips off their spacing.
    side, gap = 30.0, 0.27
    sixes = [(x0 + side * dx, side * dy) for x0 in (0.0, 31.0, 62.0) for dx in (-gap, gap) for dy in (-gap, 0, gap)]
    assert not _lattice(np.array(sixes) + 100).any()
    # A single row of many alike marks (a line of ones), and a small grid (a 3 x 3 heap of ones), neither.
    assert not _lattice(_grid(10, 1, 30.0)).any()
    assert not _lattice(np.vstack([_grid(3, 3, 30.0), _grid(10, 1, 30.0, turn=1.2) + 300])).any()


def test_a_lattice_is_found_among_other_pips():
    points = np.vstack([_grid(6, 6, 12.0), [[20, 20], [600, 40], [580, 400]]])
    lattice = _lattice(points)
    assert lattice[:36].all() and not lattice[36:].any()


def test_a_mark_that_three_rows_of_marks_run_on_from_is_a_mark_too():
    # Pip 0 and the steps 0 -> 1 -> 4, 0 -> 2 -> 5, 0 -> 3 -> 6: pips 1-6 are marks of a pattern;
    # pip 0 (its own rows missed by the finder) is one of them once three rows run on from it.
    start = np.array([0, 0, 0, 1, 2, 3])
    end = np.array([1, 2, 3, 4, 5, 6])
    continued = np.array([3, 4, 5, -1, -1, -1])
    marks = np.array([False, True, True, True, True, True, True])
    assert dice._on_lattice_rows(start, end, continued, marks)[0]
    # Two rows are not enough; nor three whose second mark is not a mark.
    assert not dice._on_lattice_rows(start, end, np.array([3, 4, -1, -1, -1, -1]), marks)[0]
    assert not dice._on_lattice_rows(start, end, continued, marks & (np.arange(7) != 6))[0]


def _lattice(points: np.ndarray) -> np.ndarray:
    """Which of these alike pips the reader takes for a patterned table's marks."""
    return dice._lattice_pips(_pips_at(points))


def _patterned_frame(seed: int, kind: str):
    """A seeded 1280x720 frame of 8 dice of every colour on a patterned table, with its truth."""
    rng = np.random.default_rng(seed)
    side = float(rng.uniform(28, 40))
    scene = random_scene(rng, dice=8, width=1280, height=720, die_size=side, colours=tuple(BODY_COLOURS),
                         background=patterned_table(rng, kind, 1280, 720, side))
    return render_table(scene, rng)


def _false_and_right(frames) -> tuple[int, int]:
    """Readings in no die's box, and dice with a reading of their value in their box (each once),
    over (image, truth) frames."""
    false = right = 0
    for image, truth in frames:
        readings = read_dice(image)
        inside = [[r.value for r in readings if x1 <= r.x <= x2 and y1 <= r.y <= y2]
                  for x1, y1, x2, y2 in (t["box"] for t in truth["dice"])]
        false += sum(not any(x1 <= r.x <= x2 and y1 <= r.y <= y2 for x1, y1, x2, y2 in (t["box"] for t in truth["dice"]))
                     for r in readings)
        right += sum(t["value"] in values for t, values in zip(truth["dice"], inside))
    return false, right


def test_dice_on_patterned_tables_are_read_and_the_patterns_not(monkeypatch):
    frames = [_patterned_frame(seed, kind) for seed, kind in zip((3, 4, 6), PATTERNS)]
    false, right = _false_and_right(frames)
    # 24 dice on a dotted cloth, a perforated tray and a mesh: measured 1 false, 24 right (17 right
    # before a die in a hole of the pattern's web of light spots had its pips found).
    assert false <= 4 and right >= 22, (false, right)
    # Read with every mark as a pip, the patterns are a hundred dice and more (measured 172; 1006 with
    # the two-member judge of 2026-12-07, 472 with earlier ones: the judge of 2026-12-09, taught
    # keyboards, rules out most of their places itself); the places that repeat themselves
    # (vision.dice_repeats) are most of them (17 left; 28 and 80 before), the marks in rows the rest.
    monkeypatch.setattr(dice, "LATTICES_DROPPED", False)
    assert 5 < _false_and_right(frames)[0] < 60
    monkeypatch.setattr(dice, "PATTERNS_CHECKED", False)
    assert _false_and_right(frames)[0] > 100


"""A die told from the printing under it: the frame against the empty mat's picture."""

from __future__ import annotations

import cv2
import numpy as np

from vision.printed import PRINT_LIKE, just_print, print_likeness

SIDE = 40  # a die's side in the frame (pixels)


def _print() -> np.ndarray:
    """An empty mat's picture (grey): a dark seat zone below a light paper, with a label in it."""
    printed = np.full((300, 400), 235, np.uint8)
    printed[150:, :] = 90  # the seat zone
    cv2.putText(printed, "SEAT 3", (120, 230), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 150, 3, cv2.LINE_AA)
    return printed


def _camera(printed: np.ndarray, seed: int = 0) -> np.ndarray:
    """The camera's BGR view of a picture: dimmer, warmer, softer, noisy and a pixel out of line."""
    rng = np.random.default_rng(seed)
    grey = np.roll(printed.astype(np.float32) * 0.8 + 20, 1, axis=1)
    bgr = np.dstack([grey * 0.9, grey, grey * 1.1])
    bgr = cv2.GaussianBlur(bgr, (0, 0), 1.0) + rng.normal(0, 3, bgr.shape)
    return np.clip(bgr, 0, 255).astype(np.uint8)


def _with_die(frame: np.ndarray, centre: tuple[int, int], body: int) -> np.ndarray:
    """The frame with a die lying at `centre`: a square body with five pips."""
    out = frame.copy()
    x, y = centre
    cv2.rectangle(out, (x - SIDE // 2, y - SIDE // 2), (x + SIDE // 2, y + SIDE // 2), (body,) * 3, -1)
    pip = 255 - body
    for dx, dy in ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)):
        cv2.circle(out, (x + dx * SIDE // 4, y + dy * SIDE // 4), 4, (pip,) * 3, -1)
    return out


def test_the_print_seen_by_the_camera_is_the_print_and_a_die_on_it_is_not():
    printed = _print()
    frame = _camera(printed)
    on_label, on_edge, on_paper = (150, 218), (200, 155), (300, 60)
    assert print_likeness(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), printed, on_label, SIDE) >= PRINT_LIKE
    assert print_likeness(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), printed, on_paper, SIDE) is None  # plain paper
    # A white die on the label, a black one on the zone's edge: the die hides the print.
    with_dice = _with_die(_with_die(frame, on_label, 240), on_edge, 30)
    assert just_print(with_dice, printed, [(*on_label, SIDE), (*on_edge, SIDE), (*on_paper, SIDE)]) == [False] * 3
    assert just_print(frame, printed, [(*on_label, SIDE), (*on_edge, SIDE), (*on_paper, SIDE)]) == [True, True, False]


def test_nothing_is_print_in_a_frame_of_another_size_or_at_the_edge():
    printed = _print()
    frame = _camera(printed)
    assert just_print(cv2.resize(frame, (200, 150)), printed, [(100.0, 75.0, SIDE)]) == [False]
    assert just_print(frame, printed, [(2.0, 2.0, SIDE)]) == [False]
    assert just_print(frame, printed, []) == []

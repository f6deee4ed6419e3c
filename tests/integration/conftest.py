"""Fixtures for the integration tests: `companion serve`'s table on the simulated mat, and throws that meet a card."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.dice_requirements import Die, match
from tests.support import PIN, OpenedTables, demo_settings, wait_for


def throw_meeting(display: list[dict], card_index: int, seed: int, gray: bool = False) -> list[int]:
    """Values for four white dice, a black one (and the gray one) that meet display card `card_index` only."""
    rng = random.Random(seed)
    for _ in range(200_000):
        values = [rng.randint(1, 6) for _ in range(6 if gray else 5)]
        dice = as_dice_list(values)
        met = [i for i, card in enumerate(display) if match(card["requirement"], dice)]
        if met == [card_index]:
            return values
    raise AssertionError("no such throw")


def as_dice_list(values: list[int]) -> list[Die]:
    """A throw in the simulator's die order: four white, one black, then the gray (if thrown)."""
    colours = ["white"] * 4 + ["black"] + ["gray"] * (len(values) - 5)
    return [Die(colour, value) for colour, value in zip(colours, values)]


def as_dice(values: list[int]) -> Counter:
    """A throw as (colour, value) counts."""
    return Counter((d.colour, d.value) for d in as_dice_list(values))


def seat_dice(state: dict, seat: int) -> Counter:
    """A seat's dice in a snapshot, as (colour, value) counts."""
    return Counter((d["colour"], d["value"]) for d in state["seats"][seat]["dice"])


class Helpers:
    """The helpers above, for the test modules (importlib mode cannot import conftest)."""

    PIN = PIN
    wait_for = staticmethod(wait_for)
    throw_meeting = staticmethod(throw_meeting)
    as_dice = staticmethod(as_dice)
    seat_dice = staticmethod(seat_dice)


@pytest.fixture
def helpers():
    """The helper functions."""
    return Helpers


@pytest.fixture
def open_sim_table(tmp_path):
    """Open `companion serve`'s table on the simulated 3-seat mat (camera, live loop, mock pins); closed after."""
    tables = OpenedTables()

    def open_one(before=None):
        """Open it (calling `before(data_folder)` first, e.g. to put a catalogue there)."""
        data = tmp_path / "data"
        data.mkdir(exist_ok=True)
        if before is not None:
            before(data)
        return tables.open(demo_settings(data, "sim?seats=3&seed=11", countdown_ms=300.0))

    yield open_one
    tables.close()

"""The still table: a live table's frames that show nothing new, after reads that agreed, are not read again."""

from dataclasses import replace

import numpy as np
import pytest

from vision import dice, dice_still
from vision.dice import DiceReader, DieReading
from vision.dice_still import CHANGE_LEVEL, PART_CONTEXT, PART_REACH, READS_AGREEING, StillTable, _inside, same_dice

simulator = pytest.importorskip("vision.simulator")


def _still_frames(count: int, seed: int = 4, die_size: float | None = None):
    """A still simulated 960x540 table (its camera's noise differs frame to frame) and `count` frames
    of it; its dice of `die_size` px (the simulator's own for the frame, ~17 px, where None)."""
    table = simulator.SimTable(seed=seed, dice=8, seats=2, size=(960, 540), roll_every=0, die_size=die_size)
    return table, [table.next_frame()[0] for _ in range(count)]


# Dice big enough to be read in parts (PART_SIDE).
PART_DICE = 40.0


@pytest.fixture
def reads(monkeypatch):
    """The frames the reader really reads (vision.dice._read), counted."""
    seen = []
    real = dice._read
    monkeypatch.setattr(dice, "_read", lambda image, *args: seen.append(image.shape) or real(image, *args))
    return seen


def test_a_still_tables_frames_are_read_until_their_reads_agree_then_known(reads):
    _, frames = _still_frames(READS_AGREEING + 3)
    reader = DiceReader()
    first = [reader(frame) for frame in frames]
    assert len(reads) == READS_AGREEING
    assert len(first[0]) == 8 and all(same_dice(later, first[0]) for later in first[1:])


def test_a_die_turned_to_another_face_is_read_at_once(reads):
    table, frames = _still_frames(READS_AGREEING + 1)
    reader = DiceReader()
    for frame in frames:
        reader(frame)
    die = table.dice[0]
    die.value = die.value % 6 + 1
    reads.clear()
    turned = reader(table.next_frame()[0])
    assert len(reads) == 1
    near = [r for r in turned if np.hypot(r.x - die.x, r.y - die.y) < die.size / 2]
    assert [r.value for r in near] == [die.value]


def test_a_die_pushed_a_few_pixels_is_read_again(reads):
    table, frames = _still_frames(READS_AGREEING + 1)
    reader = DiceReader()
    for frame in frames:
        reader(frame)
    table.dice[3].x += 3.0
    reads.clear()
    reader(table.next_frame()[0])
    assert len(reads) == 1


def test_light_drifting_slowly_is_read_again_once_it_has_drifted_past_the_change_level(reads):
    _, frames = _still_frames(1)
    reader = DiceReader()
    for _ in range(READS_AGREEING):
        reader(frames[0])
    read_at = []
    for step in range(1, CHANGE_LEVEL + 2 + READS_AGREEING):
        reads.clear()
        reader(np.clip(frames[0].astype(np.int16) + step, 0, 255).astype(np.uint8))
        read_at += [step] * len(reads)
    # Within the level the frames are the still table's; past it each is read until the drifted
    # frames' own reads agree again.
    assert read_at == list(range(CHANGE_LEVEL + 1, CHANGE_LEVEL + 1 + READS_AGREEING))


def test_another_colour_profile_or_window_reads_again(reads):
    _, frames = _still_frames(READS_AGREEING + 1)
    reader = DiceReader()
    for frame in frames:
        reader(frame)
    reads.clear()
    reader(frames[-1])
    assert reads == []
    reader(frames[-1], dice.default_profile())  # a profile object, where the reads had none
    reader.window = (0, 0, 900, 500)
    reader(frames[-1])
    assert len(reads) == 2


def test_reads_that_disagree_are_never_taken_as_known():
    die = DieReading(100.0, 100.0, 40.0, 0.0, "white", 3, 0.9)
    table = StillTable()
    frame = np.full((600, 800, 3), 90, np.uint8)
    for k in range(10):
        assert table.known(frame) is None
        table.read([replace(die, value=3 + k % 2)])  # a die read 3, then 4, then 3...


def test_reads_that_agree_are_known_in_alike_frames_only():
    die = DieReading(100.0, 100.0, 40.0, 0.0, "white", 3, 0.9)
    table = StillTable()
    frame = np.full((60, 80, 3), 90, np.uint8)
    for _ in range(READS_AGREEING):
        assert table.known(frame) is None
        table.read([replace(die, x=die.x + 1.0)])  # the same die, a pixel apart
    assert table.known(frame) == [replace(die, x=die.x + 1.0)]
    assert table.known(frame + CHANGE_LEVEL) is not None
    changed = frame.copy()
    changed[20:28, 20:28] = 200  # a pip's worth of light where there was none
    assert table.known(changed) is None


def test_same_dice_asks_each_die_its_place_value_and_colour():
    die = DieReading(100.0, 100.0, 40.0, 0.0, "white", 3, 0.9)
    other = DieReading(300.0, 100.0, 40.0, 0.0, "black", 5, 0.8)
    assert same_dice([die, other], [replace(other, confidence=0.5), die])
    assert not same_dice([die, other], [die])
    assert not same_dice([die], [replace(die, value=4)])
    assert not same_dice([die], [replace(die, colour="gray")])
    assert not same_dice([die], [replace(die, x=115.0)])
    assert not same_dice([die, die], [die, other])


def test_the_still_table_is_left_out_for_a_frame_that_is_no_image():
    reader = DiceReader()
    for _ in range(READS_AGREEING + 1):
        assert reader(np.zeros((0, 0, 3), np.uint8)) == []


def test_frames_of_another_depth_than_8_bits_are_read_every_time(reads):
    # A 16-bit or float frame is scaled to its own range to be read: its levels say nothing of 8-bit changes.
    _, frames = _still_frames(1)
    reader = DiceReader()
    deep = frames[0].astype(np.float32) / 255.0
    for _ in range(READS_AGREEING + 2):
        reader(deep)
    assert len(reads) == READS_AGREEING + 2


# ---- a table changed in part: only that part is read ------------------------------------------


def _settled(reader, frames):
    """Read a still table's frames until its reads agreed."""
    for frame in frames:
        reader(frame)


def _near(readings, x, y, reach):
    """The readings whose centres lie within `reach` pixels of (x, y)."""
    return [r for r in readings if np.hypot(r.x - x, r.y - y) < reach]


def test_a_die_turned_on_a_still_table_is_read_in_a_part_of_the_frame_around_it(reads):
    table, frames = _still_frames(READS_AGREEING + 1, die_size=PART_DICE)
    reader = DiceReader()
    _settled(reader, frames)
    before = reader(frames[-1])
    die = table.dice[0]
    die.value = die.value % 6 + 1
    reads.clear()
    turned = reader(table.next_frame()[0])
    (height, width, _), = reads
    # One crop around the die: at most its reach and context in die sides on each side of it.
    most = 2 * (PART_REACH + PART_CONTEXT + 1) * die.size
    assert height <= most and width <= most
    assert [r.value for r in _near(turned, die.x, die.y, die.size / 2)] == [die.value]
    others = [r for r in before if np.hypot(r.x - die.x, r.y - die.y) >= die.size / 2]
    assert same_dice([r for r in turned if np.hypot(r.x - die.x, r.y - die.y) >= die.size / 2], others)


def test_a_part_reads_as_the_whole_frame_does(reads):
    table, frames = _still_frames(READS_AGREEING + 1, seed=6, die_size=PART_DICE)
    reader = DiceReader()
    _settled(reader, frames)
    for number in (1, 3):  # two dice of one seat
        table.dice[number].value = table.dice[number].value % 6 + 1
    frame = table.next_frame()[0]
    in_part = reader(frame)
    assert reads[-1][:2] != frame.shape[:2]  # read in part
    assert same_dice(in_part, DiceReader(still=False)(frame))


def test_a_die_pushed_from_one_place_to_another_is_read_once_at_its_new_place():
    table, frames = _still_frames(READS_AGREEING + 1, die_size=PART_DICE)
    reader = DiceReader()
    _settled(reader, frames)
    die = table.dice[2]
    old = (die.x, die.y)
    die.x += 1.5 * die.size
    moved = reader(table.next_frame()[0])
    assert len(moved) == 8
    assert not _near(moved, *old, die.size / 3)
    assert [r.value for r in _near(moved, die.x, die.y, die.size / 2)] == [die.value]


def test_a_part_is_read_again_until_its_reads_agree_then_known(reads):
    table, frames = _still_frames(READS_AGREEING + 1, die_size=PART_DICE)
    reader = DiceReader()
    _settled(reader, frames)
    table.dice[5].value = table.dice[5].value % 6 + 1
    still = [table.next_frame()[0] for _ in range(READS_AGREEING + 2)]
    reads.clear()
    _settled(reader, still)
    # The turned die's part, read in each frame until its reads agree: the settler votes over reads.
    assert len(reads) == READS_AGREEING
    assert all(shape[:2] != still[0].shape[:2] for shape in reads)


def test_a_change_over_most_of_the_frame_reads_the_whole_frame(reads):
    _, frames = _still_frames(READS_AGREEING + 1, die_size=PART_DICE)
    reader = DiceReader()
    _settled(reader, frames)
    reads.clear()
    brighter = np.clip(frames[-1].astype(np.int16) + 2 * CHANGE_LEVEL, 0, 255).astype(np.uint8)
    reader(brighter)
    assert [shape[:2] for shape in reads] == [frames[-1].shape[:2]]


@pytest.mark.parametrize("parts_read, die_size", [(True, None), (False, PART_DICE)])
def test_a_changed_table_of_small_dice_or_with_parts_off_is_read_whole(parts_read, die_size, reads, monkeypatch):
    monkeypatch.setattr(dice_still, "PARTS_READ", parts_read)
    table, frames = _still_frames(READS_AGREEING + 1, die_size=die_size)
    if parts_read:  # the simulator's own dice for the frame, ~17 px: under PART_SIDE
        assert max(die.size for die in table.dice) < dice_still.PART_SIDE
    reader = DiceReader()
    _settled(reader, frames)
    table.dice[0].value = table.dice[0].value % 6 + 1
    reads.clear()
    reader(table.next_frame()[0])
    assert [shape[:2] for shape in reads] == [frames[-1].shape[:2]]


def test_a_frame_read_whole_whose_reads_have_not_agreed_is_read_whole_again():
    die = DieReading(100.0, 100.0, 40.0, 0.0, "white", 3, 0.9)
    table = StillTable()
    frame = np.full((400, 400, 3), 90, np.uint8)
    table.known(frame)
    table.read([die])
    changed = frame.copy()
    changed[300:320, 300:320] = 200
    table.known(changed)
    assert table.parts() is None  # the die was read once: the settler must not vote over its copies


def _agreed_table(dice, shape=(400, 400)):
    """A still table whose reads of a plain frame of `shape` (height, width) agreed on `dice`, and the frame."""
    table = StillTable()
    frame = np.full((*shape, 3), 90, np.uint8)
    for _ in range(READS_AGREEING):
        table.known(frame)
        table.read(dice)
    return table, frame


def test_the_dice_of_a_part_are_taken_from_it_and_the_others_kept():
    here = DieReading(100.0, 100.0, 40.0, 0.0, "white", 3, 0.9)
    there = DieReading(300.0, 300.0, 40.0, 0.0, "black", 5, 0.9)
    table, frame = _agreed_table([here, there])
    changed = frame.copy()
    changed[292:308, 292:308] = 200  # the black die turned
    assert table.known(changed) is None
    part, = table.parts()
    x0, y0, x1, y1 = part.inner
    assert x0 <= 292 - PART_REACH * 40 and x1 >= 308 + PART_REACH * 40 and not x0 <= here.x < x1
    assert part.window[:2] <= part.inner[:2] and part.window[2:] >= part.inner[2:]
    # A reading in the part's crop well off its inner box (the white die, at its edge) is not taken twice.
    edge = replace(here, x=x0 - 15.0, y=y0 + 10.0)
    merged = table.read_parts([(part, [replace(there, value=2), edge])])
    assert same_dice(merged, [here, replace(there, value=2)])


def test_a_table_of_no_dice_is_read_whole():
    table, frame = _agreed_table([])
    changed = frame.copy()
    changed[100:120, 100:120] = 200
    table.known(changed)
    assert table.parts() is None  # no die tells how far a change reaches


@pytest.mark.parametrize("old_x, new_x", [(-3.0, 3.0), (3.0, -3.0)])
def test_a_die_read_either_side_of_the_parts_edge_counts_once(old_x, new_x):
    frame = np.full((400, 400, 3), 90, np.uint8)
    changed = frame.copy()
    changed[292:308, 292:308] = 200
    edge = 292 - int(PART_REACH * 40)  # the left edge of the part's inner box, for dice of 40 px
    # The same die, its centre a few pixels outside the part's inner box one read and inside the next.
    near = DieReading(edge + old_x, 300.0, 40.0, 0.0, "white", 3, 0.9)
    table = StillTable()
    for _ in range(READS_AGREEING):
        table.known(frame)
        table.read([near])
    table.known(changed)
    part, = table.parts()
    assert part.inner[0] == edge
    merged = table.read_parts([(part, [replace(near, x=edge + new_x)])])
    assert merged == [replace(near, x=edge + new_x)]


@pytest.mark.parametrize("channels", [1, 3])
def test_the_places_changed_past_the_level_in_any_channel_are_found(channels):
    shape = (15, 20, channels) if channels > 1 else (15, 20)
    seen = np.zeros(shape, np.int16)
    frame = seen + CHANGE_LEVEL  # all within the level
    frame[2, 3] = CHANGE_LEVEL + 1  # a rise in the first channel
    frame[14, 19] = -CHANGE_LEVEL - 1  # a fall
    if channels > 1:
        frame[7, 9, channels - 1] = CHANGE_LEVEL + 1  # a rise in the last channel alone
    changed = dice_still._changed_places(frame, seen)
    assert sorted(zip(*np.nonzero(changed))) == sorted([(2, 3), (14, 19)] + ([(7, 9)] if channels > 1 else []))


def test_parts_far_apart_are_read_apart_and_near_ones_as_one():
    dice = [DieReading(x, y, 40.0, 0.0, "white", 3, 0.9) for x, y in ((100, 100), (700, 500), (180, 100))]
    table, frame = _agreed_table(dice, (600, 800))
    changed = frame.copy()
    for die in dice:  # each die turned: a pip's worth of light at its centre
        changed[int(die.y) - 4:int(die.y) + 4, int(die.x) - 4:int(die.x) + 4] = 200
    assert table.known(changed) is None
    parts = table.parts()
    # The two dice 80 px apart share a crop (their windows overlap), the far one has its own.
    assert len(parts) == 2
    near, far = sorted(parts)
    assert _inside(dice[0], near.inner) and _inside(dice[2], near.inner) and _inside(dice[1], far.inner)
    assert near.inner[2] < far.inner[0] or near.inner[3] < far.inner[1]  # no die is read anew in both
    turned = [replace(die, value=5) for die in dice]
    merged = table.read_parts([(part, [die for die in turned if _inside(die, part.window)]) for part in parts])
    assert same_dice(merged, turned)


def test_a_place_read_again_is_known_once_its_own_reads_agree_while_another_part_changes():
    steady = DieReading(100.0, 100.0, 40.0, 0.0, "white", 3, 0.9)
    rolling = DieReading(600.0, 400.0, 40.0, 0.0, "black", 2, 0.9)
    table, frame = _agreed_table([steady, rolling], (600, 800))
    turned = frame.copy()
    turned[96:104, 96:104] = 200  # the white die turned, then lies still
    for k in range(READS_AGREEING + 2):
        shown = turned.copy()
        shown[395:405, 590 + 5 * k:600 + 5 * k] = 30 + 40 * k  # the black die still rolling
        assert table.known(shown) is None
        parts = table.parts()
        read = [replace(steady, value=4), replace(rolling, x=rolling.x + 5 * k, value=1 + k % 6)]
        table.read_parts([(part, [die for die in read if _inside(die, part.window)]) for part in parts])
        white_read = any(_inside(steady, part.inner) for part in parts)
        # The white die is read until its reads agree (its turn and READS_AGREEING - 1 more).
        assert white_read == (k < READS_AGREEING)

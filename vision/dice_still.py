"""A still table: frames that show nothing new since reads that agreed need not be read again.

The live table reads every camera frame, yet most of a game no die moves. Once READS_AGREEING reads
in a row, of frames alike (no place of the frame, seen shrunk SIGNATURE_SHRINK times, changed by
more than CHANGE_LEVEL levels in any channel since the first of them), gave the same dice, the frames
that stay alike take those readings without being read. The settler still voted over that many
reads of the still dice, each of its own frame; any change (a hand, a die thrown, turned or pushed,
the light) reads the frame again, and reads in a row that disagree are never taken as known.
Comparing costs every frame ~0.7 ms (a 1500x1000 mat window, one core), where reading it costs ~30.

Where only part of the table changed since it was read (one seat's dice thrown while the others'
lie), only that part is read again (`StillTable.part`): the dice near the change are read anew in
a crop around it, the others kept as last read.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import cv2
import numpy as np

from vision.dice_pips import shrunk

# Frames are compared shrunk this many times (each pixel the mean of 4 x 4: a camera's noise averages
# out, a die's pip does not: a die of 20 px turned to another face changes its pixels by 60 levels
# or more seen so; on the simulated table, a still frame's noise moved them by 2 at most).
SIGNATURE_SHRINK = 4
# A frame whose shrunk pixels all lie within this many levels of the still table's first frame shows
# the same table (the simulated table's die pushed 2 px sideways moved them by 44 or more at 8 times
# smaller; light drifting slowly past this reads the frame again, and the drifted frame becomes the
# one compared with).
CHANGE_LEVEL = 12
# Reads in a row of alike frames that must give the same dice before the frames are taken as known.
READS_AGREEING = 3
# Two readings are the same die when their centres lie within this share of the die's size.
SAME_PLACE = 0.25
# Whether a frame that changed in part only since it was read is read in that part alone (else whole).
PARTS_READ = True
# The dice read anew in a part are those whose centres lie within this many die sides of a changed
# place: a die that moved, turned or was covered changed pixels within that reach of its centre.
PART_REACH = 1.0
# The part's crop takes this many die sides more around them: their dice whole, and the table around
# them that the reader weighs a die against.
PART_CONTEXT = 1.0
# A die read in the part's crop whose centre lies this share of its side or less past the box of the
# dice read anew is one of them (by the edge, its centre moves a pixel or two from read to read).
PART_EDGE = 0.25
# A part whose crop covers more than this share of the frame is read as the whole frame.
PART_SHARE = 0.5

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 pixels, the ends excluded


class Part(NamedTuple):
    """The part of a frame to read again: the dice whose centres lie in `inner` are read anew from
    the crop `window` around it (both pixel boxes of the frame); the others are kept. `changed` is
    the box of the shrunk frame whose change asked for it."""

    inner: Box
    window: Box
    changed: Box


class StillTable:
    """The known readings of a table while its frames stay alike: ask `known` for each frame, and
    tell `read` what the frame read when `known` had none."""

    def __init__(self) -> None:
        """A table seen in no frame yet."""
        self._first: np.ndarray | None = None  # the shrunk first frame of the still table
        self._context: tuple[Any, ...] = ()
        self._readings: tuple[Any, ...] = ()
        self._agreeing = 0
        self._asked: tuple[np.ndarray, tuple[Any, ...]] | None = None
        self._shape: tuple[int, ...] = ()  # the last frame's height and width in pixels
        # Per place of the shrunk frame, what it showed when last read, and the dice read over the
        # whole frame then (a part's anew, the rest kept); the part read last (None: the whole).
        self._seen: np.ndarray | None = None
        self._seen_context: tuple[Any, ...] = ()
        self._table: tuple[Any, ...] = ()
        self._last_part: Box | None = None  # the changed places (shrunk) that asked for it

    def known(self, frame: np.ndarray, context: Sequence[Any] = ()) -> list[Any] | None:
        """The dice of this frame when the table is still and its reads agreed, else None (read it,
        then tell `read`); `context` holds what else the readings depend on (a window, a colour
        profile)."""
        self._asked = (signature(frame), tuple(context))
        self._shape = frame.shape[:2]
        if self._agreeing < READS_AGREEING or not self._alike(*self._asked):
            return None
        return list(self._readings)

    def part(self) -> Part | None:
        """After `known` gave none: the part of the frame to read, where the frame changed in part
        only since it was read (or, unchanged, where the last part's reads have yet to agree);
        None to read the whole frame (the first, another context, a table of no dice, a big change)."""
        if not PARTS_READ or self._asked is None or self._seen is None or not self._table:
            return None
        frame, context = self._asked
        if frame.shape != self._seen.shape or not _same_context(context, self._seen_context):
            return None
        cells = _changed_cells(frame, self._seen)
        if self._agreeing < READS_AGREEING:
            # Dice read in the last part (or whole) whose reads have yet to agree are read again too:
            # the settler votes over reads of still dice, each of its own frame, not over copies.
            if self._last_part is None:
                return None
            cells = self._last_part if cells is None else _union(cells, self._last_part)
        if cells is None:
            return None
        side = float(np.median([die.size for die in self._table]))
        inner = _grown(_in_pixels(cells), PART_REACH * side, self._shape)
        window = _grown(inner, PART_CONTEXT * side, self._shape)
        if _area(window) > PART_SHARE * self._shape[0] * self._shape[1]:
            return None
        return Part(inner, window, cells)

    def read(self, readings: Sequence[Any], part: Part | None = None) -> list[Any]:
        """Take the readings of the frame `known` was last asked about (of its `part` alone, where
        given: those whose centres lie in its inner box) and give the frame's dice: the part's
        readings and the dice elsewhere as last read."""
        if self._asked is None:
            return list(readings)
        frame, context = self._asked
        readings = self._seen_now(frame, context, readings, part)
        if self._alike(frame, context) and same_dice(readings, self._readings):
            self._agreeing += 1
            return readings
        self._first, self._context, self._readings, self._agreeing = frame, context, tuple(readings), 1
        return readings

    def _seen_now(self, frame: np.ndarray, context: tuple[Any, ...], readings: Sequence[Any],
                  part: Part | None) -> list[Any]:
        """Mark what the frame showed where it was read, and give its dice over the whole frame."""
        if part is None or self._seen is None:
            self._seen, self._seen_context, self._last_part = frame.copy(), context, None
            self._table = tuple(readings)
            return list(readings)
        x0, y0, x1, y1 = _in_cells(part.inner)
        self._seen[y0:y1, x0:x1] = frame[y0:y1, x0:x1]
        self._last_part = part.changed
        self._table = tuple(_merged(self._table, readings, part.inner))
        return list(self._table)

    def _alike(self, frame: np.ndarray, context: tuple[Any, ...]) -> bool:
        """Whether a shrunk frame, read in this context, shows the still table's first frame."""
        first = self._first
        return (first is not None and frame.shape == first.shape and _same_context(context, self._context)
                and int(np.abs(frame - first).max(initial=0)) <= CHANGE_LEVEL)


def _same_context(these: tuple[Any, ...], those: tuple[Any, ...]) -> bool:
    """Whether readings were read in the same context (window, profile)."""
    return len(these) == len(those) and all(_same(a, b) for a, b in zip(these, those))


def _changed_cells(frame: np.ndarray, seen: np.ndarray) -> Box | None:
    """The box of the shrunk frame's places that changed by more than CHANGE_LEVEL since they were
    seen (in shrunk pixels), or None where none did."""
    # OpenCV's box of a mask's pixels, each row's channels side by side: numpy's any() over the
    # channels took 3.3 ms a full-HD frame's signature, this 0.2 ms.
    changed = cv2.absdiff(frame, seen) > CHANGE_LEVEL
    channels = changed.shape[2] if changed.ndim == 3 else 1
    x, y, width, height = cv2.boundingRect(changed.view(np.uint8).reshape(changed.shape[0], -1))
    if not width:
        return None
    return x // channels, y, (x + width - 1) // channels + 1, y + height


def _union(this: Box, that: Box) -> Box:
    """The smallest box holding two boxes."""
    return min(this[0], that[0]), min(this[1], that[1]), max(this[2], that[2]), max(this[3], that[3])


def _in_pixels(cells: Box) -> Box:
    """A box of the shrunk frame in the frame's pixels."""
    return tuple(SIGNATURE_SHRINK * c for c in cells)


def _in_cells(box: Box) -> Box:
    """The places of the shrunk frame a pixel box covers (its edges' places included)."""
    x0, y0, x1, y1 = box
    return (x0 // SIGNATURE_SHRINK, y0 // SIGNATURE_SHRINK,
            -(-x1 // SIGNATURE_SHRINK), -(-y1 // SIGNATURE_SHRINK))


def _grown(box: Box, by: float, shape: tuple[int, ...]) -> Box:
    """A pixel box grown `by` pixels on every side, within a frame of `shape` (height, width)."""
    reach = int(np.ceil(by))
    x0, y0, x1, y1 = box
    return max(x0 - reach, 0), max(y0 - reach, 0), min(x1 + reach, shape[1]), min(y1 + reach, shape[0])


def _area(box: Box) -> int:
    """A box's pixels."""
    return (box[2] - box[0]) * (box[3] - box[1])


def _merged(table: Sequence[Any], readings: Sequence[Any], inner: Box) -> list[Any]:
    """The table's dice as last read off the `inner` box, and the part's new `readings` in it.

    A die by the box's edge may be read on either side of it, a pixel or two apart from one read to
    the next: a new reading up to PART_EDGE of its side past the edge is taken too, and an old one
    where a new one lies within half a side of it is not kept (never the same die twice, nor none)."""
    new = [die for die in readings if _inside(die, inner, PART_EDGE * die.size)]
    kept = [die for die in table if not _inside(die, inner)
            and not any(np.hypot(die.x - other.x, die.y - other.y) < 0.5 * max(die.size, other.size) for other in new)]
    return kept + new


def _inside(die: Any, box: Box, margin: float = 0.0) -> bool:
    """Whether a die's centre lies in a pixel box (grown by `margin` pixels)."""
    return box[0] - margin <= die.x < box[2] + margin and box[1] - margin <= die.y < box[3] + margin


def _same(a: Any, b: Any) -> bool:
    """Whether two things the readings depend on are the same: a window by its corners, else by identity
    (a colour profile learned anew is another profile, even where its numbers match)."""
    return a is b or (isinstance(a, tuple) and isinstance(b, tuple) and a == b)


def signature(frame: np.ndarray) -> np.ndarray:
    """The frame shrunk SIGNATURE_SHRINK times, as signed integers to subtract."""
    small = shrunk(frame, SIGNATURE_SHRINK) if min(frame.shape[:2]) >= SIGNATURE_SHRINK else frame
    return small.astype(np.int16)


def same_dice(these: Sequence[Any], those: Sequence[Any]) -> bool:
    """Whether two reads found the same dice: as many, each with another's value and colour at its place."""
    if len(these) != len(those):
        return False
    left = list(those)
    for die in these:
        match = next((k for k, other in enumerate(left) if other.value == die.value and other.colour == die.colour
                      and np.hypot(other.x - die.x, other.y - die.y) <= SAME_PLACE * max(die.size, other.size)), None)
        if match is None:
            return False
        del left[match]
    return True

"""A still table: places of the frame that show nothing new since reads that agreed need not be read again.

The live table reads every camera frame, yet most of a game no die moves, and while the players
throw, each throws in their own part of the table. Each place of the frame (seen shrunk
SIGNATURE_SHRINK times) is compared with what it showed when it was last read: once READS_AGREEING
reads in a row of a place that did not change by more than CHANGE_LEVEL levels in any channel gave
the same dice there, it need not be read again until it changes. A frame none of whose places needs
reading takes the last readings without being read; where some do (a die thrown, turned or pushed,
a hand, the light), only the parts around them are read (`StillTable.parts`): the dice near them
read anew in a crop around each, the others kept as last read; where those parts would cover much
of the frame, the whole frame. The settler still votes over that many reads of still dice, each of
its own frame, and dice whose reads in a row disagree are read every frame. Comparing costs every
frame ~0.9 ms (a 1500x1000 mat window, one core), where reading it costs 16-70.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import cv2
import numpy as np

from vision.dice_pips import planes, shrunk

# Frames are compared shrunk this many times (each pixel the mean of 4 x 4: a camera's noise averages
# out, a die's pip does not: a die of 20 px turned to another face changes its pixels by 60 levels
# or more seen so; on the simulated table, a still frame's noise moved them by 2 at most).
SIGNATURE_SHRINK = 4
# A place of the shrunk frame within this many levels of what it showed when last read shows the same
# table (the simulated table's die pushed 2 px sideways moved them by 44 or more at 8 times smaller;
# light drifting slowly past this reads the places again, and what they show then is compared with).
CHANGE_LEVEL = 12
# Reads in a row of an unchanged place that must give the same dice there before it is taken as known.
READS_AGREEING = 3
# Two readings are the same die when their centres lie within this share of the die's size.
SAME_PLACE = 0.25
# Whether a frame whose places need reading in parts only is read in those parts alone (else whole).
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
# Nor is a table of dice smaller than this (their median side, pixels) read in parts: a small die
# alone in a crop lacks the other dice that tell the reader its size, and a one's single pip then
# goes unread. Crops around each die of the simulated mat read as the whole frame did for 120 of 120
# dice of 37 and 46 px, 115 of 120 of 28 px, and (a plain table) 46 of 56 of 17 px.
PART_SIDE = 32.0

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 pixels, the ends excluded


class Part(NamedTuple):
    """A part of a frame to read again: the dice whose centres lie in `inner` are read anew from
    the crop `window` around it (both pixel boxes of the frame); the others are kept."""

    inner: Box
    window: Box


class StillTable:
    """What a table's frames need read: ask `known` for each frame; when it has no readings, read the
    `parts` it names and tell `read_parts` what each read (where it names none, read the whole frame
    and tell `read`)."""

    def __init__(self) -> None:
        """A table seen in no frame yet."""
        self._asked: tuple[np.ndarray, tuple[Any, ...]] | None = None
        self._shape: tuple[int, ...] = ()  # the last frame's height and width in pixels
        # Per place of the shrunk frame, what it showed when last read and how many reads in a row
        # of it unchanged agreed; the context of those reads; the dice over the whole frame.
        self._seen: np.ndarray | None = None
        self._agreed: np.ndarray | None = None
        self._context: tuple[Any, ...] = ()
        self._table: tuple[Any, ...] = ()
        self._changed: np.ndarray | None = None  # the places changed in the frame asked about
        self._needed: np.ndarray | None = None  # the places to read in it

    def known(self, frame: np.ndarray, context: Sequence[Any] = ()) -> list[Any] | None:
        """The dice of this frame when none of its places needs reading, else None (read it and tell
        `read`, or read its `parts` and tell `read_parts`); `context` holds what else the readings
        depend on (a window, a colour profile)."""
        self._asked = (signature(frame), tuple(context))
        self._shape = frame.shape[:2]
        self._changed = self._needed = None
        if not self._comparable(*self._asked):
            return None
        self._changed = _changed_places(self._asked[0], self._seen)
        self._needed = self._changed | (self._agreed < READS_AGREEING)
        return None if self._needed.any() else list(self._table)

    def parts(self) -> list[Part] | None:
        """After `known` gave none: the parts of the frame to read (those around the places that
        need reading), or None to read the whole frame (the first, another context, a table of no
        dice to tell how far a change reaches or dice under PART_SIDE, parts covering more than
        PART_SHARE of it)."""
        if not PARTS_READ or self._needed is None or not self._table:
            return None
        side = float(np.median([die.size for die in self._table]))
        if side < PART_SIDE:
            return None
        # Places within reach and context of each other share a crop; crops apart may overlap at
        # their edges, but each reads anew only the dice in its own inner box, which they do not share.
        reach = PART_REACH * side
        apart = int(np.ceil((PART_REACH + PART_CONTEXT) * side / SIGNATURE_SHRINK))
        needed = self._needed.view(np.uint8)
        grown = cv2.dilate(needed, np.ones((2 * apart + 1, 2 * apart + 1), np.uint8))
        count, labels, boxes, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
        parts = []
        for k, (x, y, width, height, _) in enumerate(boxes[1:count], start=1):
            own = needed[y:y + height, x:x + width] * (labels[y:y + height, x:x + width] == k)
            nx, ny, nw, nh = cv2.boundingRect(own)
            inner = _grown(_in_pixels((x + nx, y + ny, x + nx + nw, y + ny + nh)), reach, self._shape)
            parts.append(Part(inner, _grown(inner, PART_CONTEXT * side, self._shape)))
        if sum(_area(part.window) for part in parts) > PART_SHARE * self._shape[0] * self._shape[1]:
            return None
        return parts

    def read(self, readings: Sequence[Any]) -> list[Any]:
        """Take the readings of the whole frame `known` was last asked about, and give them."""
        if self._asked is None:
            return list(readings)
        frame, context = self._asked
        if self._changed is None:
            self._seen, self._context = frame.copy(), context
            self._agreed = np.ones(frame.shape[:2], np.int32)
        else:
            self._mark_read(frame, (slice(None), slice(None)), unmatched(readings, self._table))
        self._table = tuple(readings)
        return list(readings)

    def read_parts(self, found: Sequence[tuple[Part, Sequence[Any]]]) -> list[Any]:
        """Take the readings of each part (`parts` named them) of the frame `known` was last asked
        about, and give the frame's dice: those whose centres lie in the parts' inner boxes as read
        there, the dice elsewhere as last read."""
        frame, _ = self._asked
        table = self._table
        for part, readings in found:
            table, differing = _merged(table, readings, part.inner)
            x0, y0, x1, y1 = _in_cells(part.inner)
            self._mark_read(frame, (slice(y0, y1), slice(x0, x1)), differing)
        self._table = tuple(table)
        return list(table)

    def _comparable(self, frame: np.ndarray, context: tuple[Any, ...]) -> bool:
        """Whether a shrunk frame read in this context can be compared with the places as last read."""
        return self._seen is not None and frame.shape == self._seen.shape and _same_context(context, self._context)

    def _mark_read(self, frame: np.ndarray, where: tuple[slice, slice], differing: Sequence[Any]) -> None:
        """Mark the places `where` read in the frame: their reads agreed once more where unchanged,
        else (or near a die read otherwise than last time, before or now) once."""
        agreed = self._agreed[where]
        np.minimum(agreed + 1, READS_AGREEING, out=agreed)  # a count that stops where it is enough
        agreed[self._changed[where]] = 1
        for die in differing:
            # Around the die, not over the whole part: the part read again next stays the die's.
            x0, y0, x1, y1 = _in_cells(_grown(_box_of(die), PART_REACH * die.size, self._shape))
            self._agreed[y0:y1, x0:x1] = 1
        self._seen[where] = frame[where]


def _same_context(these: tuple[Any, ...], those: tuple[Any, ...]) -> bool:
    """Whether readings were read in the same context (window, profile)."""
    return len(these) == len(those) and all(_same(a, b) for a, b in zip(these, those))


def _changed_places(frame: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Which places of the shrunk frame changed by more than CHANGE_LEVEL in any channel since seen."""
    difference = cv2.absdiff(frame, seen)
    if difference.ndim == 3:
        # The channels' maximum plane by plane, as spot_map takes it: a full-HD frame's signature
        # 0.1 ms, where numpy's max over the channels took 2.9 ms and cv2.reduce 1.1 ms.
        channels = planes(difference)
        difference = channels[0]
        for channel in channels[1:]:
            difference = cv2.max(difference, channel)
    return difference > CHANGE_LEVEL


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


def _merged(table: Sequence[Any], readings: Sequence[Any], inner: Box) -> tuple[list[Any], list[Any]]:
    """The table's dice as last read off the `inner` box and the part's new `readings` in it, and
    the dice of those and of the ones they replace that the others do not match.

    A die by the box's edge may be read on either side of it, a pixel or two apart from one read to
    the next: a new reading up to PART_EDGE of its side past the edge is taken too, and an old one
    where a new one lies within half a side of it is not kept (never the same die twice, nor none)."""
    new = [die for die in readings if _inside(die, inner, PART_EDGE * die.size)]
    kept, replaced = [], []
    for die in table:
        near = _inside(die, inner) or any(np.hypot(die.x - other.x, die.y - other.y) < 0.5 * max(die.size, other.size)
                                          for other in new)
        (replaced if near else kept).append(die)
    return kept + new, unmatched(new, replaced)


def _box_of(die: Any) -> Box:
    """The pixel box of a die's centre (a point, a pixel wide)."""
    return int(die.x), int(die.y), int(die.x) + 1, int(die.y) + 1


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
    return len(these) == len(those) and not unmatched(these, those)


def unmatched(these: Sequence[Any], those: Sequence[Any]) -> list[Any]:
    """The dice of two reads that the other read has no die of the same value and colour at the place of."""
    left, alone = list(those), []
    for die in these:
        match = next((k for k, other in enumerate(left) if other.value == die.value and other.colour == die.colour
                      and np.hypot(other.x - die.x, other.y - die.y) <= SAME_PLACE * max(die.size, other.size)), None)
        if match is None:
            alone.append(die)
        else:
            del left[match]
    return alone + left

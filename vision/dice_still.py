"""A still table: frames that show nothing new since reads that agreed need not be read again.

The live table reads every camera frame, yet most of a game no die moves. Once READS_AGREEING reads
in a row, of frames alike (no place of the frame, seen shrunk SIGNATURE_SHRINK times, changed by
more than CHANGE_LEVEL levels in any channel since the first of them), gave the same dice, the frames
that stay alike take those readings without being read. The settler still voted over that many
reads of the still dice, each of its own frame; any change (a hand, a die thrown, turned or pushed,
the light) reads the frame again, and reads in a row that disagree are never taken as known.
Comparing costs every frame ~0.7 ms (a 1500x1000 mat window, one core), where reading it costs ~30.
"""

from __future__ import annotations

from typing import Any, Sequence

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

    def known(self, frame: np.ndarray, context: Sequence[Any] = ()) -> list[Any] | None:
        """The dice of this frame when the table is still and its reads agreed, else None (read it,
        then tell `read`); `context` holds what else the readings depend on (a window, a colour
        profile)."""
        self._asked = (signature(frame), tuple(context))
        if self._agreeing < READS_AGREEING or not self._alike(*self._asked):
            return None
        return list(self._readings)

    def read(self, readings: Sequence[Any]) -> None:
        """Take the readings of the frame `known` was last asked about."""
        if self._asked is None:
            return
        frame, context = self._asked
        if self._alike(frame, context) and same_dice(readings, self._readings):
            self._agreeing += 1
            return
        self._first, self._context, self._readings, self._agreeing = frame, context, tuple(readings), 1

    def _alike(self, frame: np.ndarray, context: tuple[Any, ...]) -> bool:
        """Whether a shrunk frame, read in this context, shows the still table's first frame."""
        first = self._first
        return (first is not None and frame.shape == first.shape and len(context) == len(self._context)
                and all(_same(a, b) for a, b in zip(context, self._context))
                and int(np.abs(frame - first).max(initial=0)) <= CHANGE_LEVEL)


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

"""Settling: across frames, report a die only once it has stopped moving, by vote over its still frames.

Feed a `Settler` each frame's readings per zone (a seat): `settler.update(zone, readings, t_ms)`.
Each reading is any object (or dict) with x, y, size, value, colour and confidence, such as
`vision.dice.DieReading`. Dice are followed from frame to frame by position. A die counts as still
once its centre has stayed within a fraction of its size for `still_frames` frames and `still_ms`
milliseconds; its value and colour are then the confidence-weighted majority of the frames it has
been still in, and the reported value changes only when another one clearly wins (hysteresis), so a
still die never flickers. A zone reads "rolling" while any of its dice moves or has not yet settled.
A die no longer seen is kept for `grace_ms` (a hand passing over it), then dropped. Something seen
in one frame only, or in fewer than 3 frames of 5 (a reader's blip), is neither reported nor makes
a zone "rolling"; dice appearing anew in two of the last three frames (tumbling) do. The centre
may wobble by `move_tolerance` of a die's size (a reader that misses a pip shifts it) before the
die counts as moved.
Pure logic: no OpenCV, no clock of its own (times come with the readings).
"""

from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Hashable, Iterable

EMPTY, ROLLING, STILL = "empty", "rolling", "still"


@dataclass(frozen=True)
class SettledDie:
    """A die that has stopped: where, its voted value and colour, and how sure the vote is."""

    x: float
    y: float
    size: float
    value: int
    colour: str
    # Vote share of the reported value and colour times the reader's mean confidence (0-1).
    confidence: float
    # How many frames the vote covers, and since when the die has been still (ms).
    frames: int
    still_since_ms: float
    # A number that stays with the die while it is followed.
    track: int
    # True while the die is not seen but kept within the grace time.
    hidden: bool = False


@dataclass(frozen=True)
class ZoneState:
    """One zone's dice at one moment: "empty", "rolling" or "still", and its settled dice."""

    zone: Hashable
    status: str
    dice: tuple[SettledDie, ...]
    t_ms: float
    # Since when the zone has read "still" with these same dice (None unless still).
    still_since_ms: float | None = None
    # How many dice are seen but not settled yet.
    unsettled: int = 0

    def to_dict(self) -> dict:
        """JSON-able form for the session and the phones."""
        return {
            "zone": self.zone, "status": self.status, "t_ms": self.t_ms,
            "still_since_ms": self.still_since_ms, "unsettled": self.unsettled,
            "dice": [
                {"x": d.x, "y": d.y, "size": d.size, "value": d.value, "colour": d.colour,
                 "confidence": round(d.confidence, 3), "frames": d.frames, "hidden": d.hidden}
                for d in self.dice
            ],
        }


@dataclass
class _Track:
    """A die followed from frame to frame."""

    ident: int
    x: float
    y: float
    size: float
    last_seen_ms: float
    still_since_ms: float
    still_frames: int = 1
    # Frames the die was seen in, and zone updates since it was first seen: something seen in
    # one frame, or only now and then, is a reader's blip and does not make a zone "rolling".
    sightings: int = 1
    updates: int = 1
    # (value, colour, confidence) of each recent frame the die was still in.
    votes: deque = field(default_factory=deque)
    reported: tuple[int, str] | None = None

    def settled(self, still_frames: int, still_ms: float, now_ms: float) -> bool:
        """True once the die has been still long enough, in frames and in time."""
        return self.still_frames >= still_frames and now_ms - self.still_since_ms >= still_ms


def _field(reading: Any, name: str) -> Any:
    """Read a field from a reading object or dict."""
    if isinstance(reading, dict):
        return reading[name]
    return getattr(reading, name)


class Settler:
    """Turns each frame's readings into settled dice per zone (see the module docstring)."""

    def __init__(
        self,
        still_frames: int = 4,
        still_ms: float = 400.0,
        move_tolerance: float = 0.4,
        grace_ms: float = 350.0,
        window: int = 15,
        switch_share: float = 0.6,
        min_confidence: float = 0.0,
    ):
        """Tune: frames and ms a die must stay still, how far (in die sizes) counts as moving, the
        grace before a vanished die is dropped, the vote window, and the share a new value needs to
        replace the reported one. Keep grace_ms <= still_ms, so a die thrown away is forgotten before
        the dice that replaced it settle."""
        if still_frames < 1 or window < 1:
            raise ValueError("still_frames and window must be at least 1")
        if not 0.5 <= switch_share <= 1.0:
            raise ValueError(f"switch_share must be between 0.5 and 1, not {switch_share}")
        self.still_frames = still_frames
        self.still_ms = still_ms
        self.move_tolerance = move_tolerance
        self.grace_ms = grace_ms
        self.window = window
        self.switch_share = switch_share
        self.min_confidence = min_confidence
        self._tracks: dict[Hashable, list[_Track]] = {}
        self._states: dict[Hashable, ZoneState] = {}
        self._fresh: dict[Hashable, deque] = {}
        self._next_ident = 0

    def update(self, zone: Hashable, readings: Iterable[Any], t_ms: float) -> ZoneState:
        """Take one frame's readings of one zone (taken at t_ms) and return the zone's state."""
        tracks = self._tracks.setdefault(zone, [])
        for track in tracks:
            track.updates += 1
        usable = [r for r in readings if float(_field(r, "confidence")) >= self.min_confidence]
        matched = self._match(tracks, usable)
        for track, reading in matched:
            self._follow(track, reading, t_ms)
        claimed = {id(reading) for _, reading in matched}
        fresh = [r for r in usable if id(r) not in claimed]
        for reading in fresh:
            tracks.append(self._new_track(reading, t_ms))
        # Dice appearing anew frame after frame (tumbling, each frame somewhere else) mean rolling,
        # while one appearing in a single frame is a reader's blip.
        self._fresh.setdefault(zone, deque(maxlen=3)).append(bool(fresh))
        tracks[:] = [t for t in tracks if t_ms - t.last_seen_ms <= self.grace_ms]
        state = self._zone_state(zone, tracks, t_ms)
        self._states[zone] = state
        return state

    def update_all(self, readings_by_zone: dict[Hashable, Iterable[Any]], t_ms: float) -> dict[Hashable, ZoneState]:
        """Update every zone named or known; a known zone left out saw no dice in this frame."""
        zones = list(readings_by_zone) + [z for z in self._tracks if z not in readings_by_zone]
        return {zone: self.update(zone, readings_by_zone.get(zone, ()), t_ms) for zone in zones}

    def state(self, zone: Hashable) -> ZoneState:
        """The zone's state after its last update ("empty" if it was never updated)."""
        return self._states.get(zone) or ZoneState(zone, EMPTY, (), 0.0)

    def reset(self, zone: Hashable | None = None) -> None:
        """Forget one zone's dice (or every zone's)."""
        for key in [zone] if zone is not None else list(self._tracks):
            self._tracks.pop(key, None)
            self._states.pop(key, None)
            self._fresh.pop(key, None)

    # ------------------------------------------------------------ following dice

    def _match(self, tracks: list[_Track], readings: list[Any]) -> list[tuple[_Track, Any]]:
        """Pair readings with tracks, nearest first: a moving die within a die size and a half, a
        settled one within half a size (so a reader's stray reading beside a still die, or a
        neighbour touching it, never drags the still die away)."""
        pairs = []
        for track in tracks:
            reach = 0.5 if track.reported is not None else 1.5
            for index, reading in enumerate(readings):
                distance = math.hypot(float(_field(reading, "x")) - track.x, float(_field(reading, "y")) - track.y)
                if distance <= reach * max(track.size, float(_field(reading, "size")), 1.0):
                    pairs.append((distance, track.ident, index, track, reading))
        pairs.sort(key=lambda p: (p[0], p[1], p[2]))
        used_tracks: set[int] = set()
        used_readings: set[int] = set()
        matched = []
        for _, ident, index, track, reading in pairs:
            if ident in used_tracks or index in used_readings:
                continue
            used_tracks.add(ident)
            used_readings.add(index)
            matched.append((track, reading))
        return matched

    def _new_track(self, reading: Any, t_ms: float) -> _Track:
        """Start following a die just seen."""
        self._next_ident += 1
        track = _Track(
            ident=self._next_ident, x=float(_field(reading, "x")), y=float(_field(reading, "y")),
            size=float(_field(reading, "size")), last_seen_ms=t_ms, still_since_ms=t_ms,
            votes=deque(maxlen=self.window),
        )
        track.votes.append(_vote(reading))
        return track

    def _follow(self, track: _Track, reading: Any, t_ms: float) -> None:
        """Update a track with this frame's reading: still (vote) or moved (start over)."""
        x, y = float(_field(reading, "x")), float(_field(reading, "y"))
        size = float(_field(reading, "size"))
        moved = math.hypot(x - track.x, y - track.y) > self.move_tolerance * max(track.size, 1.0)
        track.last_seen_ms = t_ms
        track.sightings += 1
        if moved:
            track.x, track.y, track.size = x, y, size
            track.still_since_ms = t_ms
            track.still_frames = 1
            track.votes.clear()
            track.reported = None
        else:
            # Average the position over the still frames, so slow jitter does not add up to a move.
            n = min(track.still_frames, self.window)
            track.x = (track.x * n + x) / (n + 1)
            track.y = (track.y * n + y) / (n + 1)
            track.size = (track.size * n + size) / (n + 1)
            track.still_frames += 1
        track.votes.append(_vote(reading))

    # ------------------------------------------------------------ voting

    def _decide(self, track: _Track) -> tuple[tuple[int, str], float] | None:
        """The reported (value, colour) with hysteresis and its vote share x mean confidence, or None
        while a die's first value is still undecided."""
        weights: Counter = Counter()
        for value, colour, confidence in track.votes:
            weights[(value, colour)] += max(confidence, 1e-3)
        total = sum(weights.values())
        leader, lead_weight = max(weights.items(), key=lambda item: (item[1], -item[0][0], item[0][1]))
        clear = lead_weight >= self.switch_share * total
        current = track.reported
        if current is None and not clear and len(track.votes) < self.window:
            # A first value is reported only with a clear majority (or once the window is full), so
            # that an early misread does not show and then flip: that would be a flicker.
            return None
        # A reported value that lost all its votes stays until another has a clear majority; its
        # confidence then falls to 0, so the phones show it as unsure rather than flipping.
        if current is None or (leader != current and clear):
            chosen = leader
        else:
            chosen = current
        track.reported = chosen
        mean_confidence = total / len(track.votes)
        return chosen, min(1.0, weights[chosen] / total * mean_confidence)

    def _zone_state(self, zone: Hashable, tracks: list[_Track], t_ms: float) -> ZoneState:
        """Summarise a zone: its settled dice, and whether anything still moves."""
        settled = []
        unsettled = 0
        for track in tracks:
            steady = track.sightings >= 0.6 * track.updates
            if not track.settled(self.still_frames, self.still_ms, t_ms):
                unsettled += track.sightings >= 2 and steady
                continue
            if not steady:
                continue  # seen in fewer than 3 frames of 5: a reader's now-and-then, not a die
            decision = self._decide(track)
            if decision is None:
                unsettled += 1
                continue
            (value, colour), confidence = decision
            settled.append(SettledDie(
                x=round(track.x, 1), y=round(track.y, 1), size=round(track.size, 1), value=value,
                colour=colour, confidence=confidence, frames=len(track.votes),
                still_since_ms=track.still_since_ms, track=track.ident, hidden=track.last_seen_ms < t_ms,
            ))
        settled.sort(key=lambda d: (d.y, d.x))
        churning = sum(self._fresh.get(zone, ())) >= 2
        status = ROLLING if unsettled or churning else (STILL if settled else EMPTY)
        previous = self._states.get(zone)
        still_since = None
        if status == STILL:
            same = previous is not None and previous.status == STILL and _same_dice(previous.dice, settled)
            still_since = previous.still_since_ms if same else t_ms
        return ZoneState(zone, status, tuple(settled), t_ms, still_since, unsettled)


def _vote(reading: Any) -> tuple[int, str, float]:
    """One frame's vote of a die: value, colour, confidence."""
    return int(_field(reading, "value")), str(_field(reading, "colour")), float(_field(reading, "confidence"))


def _same_dice(before: tuple[SettledDie, ...], after: list[SettledDie]) -> bool:
    """True when the same tracked dice show the same values and colours."""
    key = lambda dice: sorted((d.track, d.value, d.colour) for d in dice)  # noqa: E731
    return key(before) == key(list(after))


def assign_zones(readings: Iterable[Any], zones: dict[Hashable, Any]) -> dict[Hashable, list[Any]]:
    """Share readings out among zones by their centre: each zone is a rectangle (x1, y1, x2, y2) or a
    polygon [(x, y), ...] in the readings' pixels. Every zone gets a list (maybe empty); a reading in
    no zone is left out, a reading in overlapping zones goes to the first."""
    shared: dict[Hashable, list[Any]] = {zone: [] for zone in zones}
    for reading in readings:
        x, y = float(_field(reading, "x")), float(_field(reading, "y"))
        for zone, shape in zones.items():
            if _contains(shape, x, y):
                shared[zone].append(reading)
                break
    return shared


def _contains(shape: Any, x: float, y: float) -> bool:
    """True when (x, y) lies in a rectangle (x1, y1, x2, y2) or a polygon of (x, y) points."""
    points = list(shape)
    if len(points) == 4 and all(isinstance(v, (int, float)) for v in points):
        x1, y1, x2, y2 = points
        return min(x1, x2) <= x <= max(x1, x2) and min(y1, y2) <= y <= max(y1, y2)
    inside = False
    for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1]):
        # Count crossings of a ray to the right of the point (even-odd rule).
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            inside = not inside
    return inside

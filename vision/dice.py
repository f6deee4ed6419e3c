"""The dice reader: every pip die in an image, its centre, size, angle, body colour, value and confidence.

How it reads (pip-first, so it works for any body colour with contrasting pips):
1. big frames are first searched at half size for places with pips; only those are searched for
   pips at full size (a table is mostly empty), and their pips are then joined, fitted and judged
   over the whole frame in one pass (per-region passes cost more than the pixel work);
2. find pips: small round spots, darker or lighter than a plain surround, in any colour channel
   (vision/dice_pips.py); a patterned table's marks (rows of evenly spaced alike pips running two
   ways) are left out;
3. join pips that may share a face: alike in size and polarity, near enough, on alike body colour,
   with body colour (not a gap between touching dice) on the path between them;
4. fit die faces to each group: two pips at opposite corners fix a 3x3 grid, and every pip inside
   that face must sit on a grid point in a real layout (vision/dice_layout.py); a lone round pip in
   the middle of a plain patch that ends like a die is a candidate one;
5. a small learned scorer (vision/dice_scorer.py, vision/models/dice_faces.json) judges each
   candidate face (side faces seen at an angle, clutter, mixed-up groups score low); the best
   candidates win over the ones they overlap. Without the model file, hand-made rules decide;
6. body-first (vision/dice_bodies.py): die bodies that differ from the table's local colour and are
   about the size of the faces read so far, but hold no chosen face, are places for the judge
   (without its model file they are read on their own: pips of whichever colour separate best from
   that body, fitted to a real layout); a face read as a two or three whose body shows more pips
   is raised (a six split into a three and a two);
7. a small convolutional judge (vision/dice_judge.py, vision/models/dice_judge.onnx, run by OpenCV's
   dnn module) looks at a patch around each chosen face the scorer is not sure of and each other
   proposed place (unchosen faces, die-sized bodies, fainter die-sized blobs, loose pips of a die's
   pip size that no chosen face holds): it adds the dice it is sure of where no face was chosen
   (clumps, faint pips, ones on swirled bodies, bodies like the table), and its value replaces an
   unsure chosen face's where it is sure of another. Without the model file the pip-first reading stands;
8. a close-up value reader (vision/dice_values.py, vision/models/dice_values.onnx) reads the value
   of every die the reader is not sure of (unsure faces, bodies, the judge's dice) from a patch
   just wider than the die: faint, small or red-on-dark pips that the pip stages miss or misplace.
   Its value replaces the others' where it is sure; without the model file theirs stand;
9. in a frame that shows a patterned table (marks left out, or more pips than dice show), a reading
   whose place repeats itself one step of the pattern away and back, two ways, is the pattern
   (vision/dice_repeats.py);
10. each die is read once: a face straight below another whose pips both look flattened is its
   die's front face seen from a tilted camera, and of two readings nearer than a die allows, the
   surer stands;
11. the body colour around the pips is named by the colour profile, compared with the table
   beside the die when the profile knows the table's colour (vision/colour.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np

from vision.colour import ColourProfile, default_profile
from vision.dice_bodies import (BODY_STEP, FAINT_STEP, SHORT_VALUES, Body, Square, find_bodies, square_owners,
                                squares_by_step, unsized_squares)
from vision.dice_judge import DiceJudge, Verdicts, load_judge
from vision.dice_layout import HALF_SIDE, TOLERANCE, fit_groups
from vision.dice_pips import Pips, find_pips, sample, shrunk, spot_map
from vision.dice_repeats import patterned
from vision.dice_scorer import load_scorer
from vision.dice_still import Box, StillTable
from vision.dice_values import ValueReader, load_value_reader

# The reader works on images no larger than this (longest side, pixels); bigger ones are shrunk.
WORK_SIDE = 2000
# Side of the square that the spot maps close/open with: pips up to about this wide are found.
PIP_KERNEL = 11
# Least colour contrast (spot-map level) of a pip with its surround.
PIP_THRESHOLD = 40.0
# Colour distance (BGR) that marks a die's edge against the table around a one.
EDGE_STEP = 18.0


@dataclass(frozen=True)
class DieReading:
    """One die as read: centre and side in image pixels, angle in degrees, colour, value, confidence."""

    x: float
    y: float
    size: float
    angle: float
    colour: str
    value: int
    confidence: float

    def to_dict(self) -> dict:
        """The reading as JSON-able values, rounded for people."""
        return {
            "x": round(self.x, 1), "y": round(self.y, 1), "size": round(self.size, 1),
            "angle": round(self.angle, 1), "value": self.value, "colour": self.colour,
            "confidence": round(self.confidence, 3),
        }


def read_dice(image: np.ndarray, profile: ColourProfile | None = None) -> list[DieReading]:
    """Read every pip die in a BGR (or gray, or BGRA) image; an empty or blank image has none."""
    return _read(image, profile)[0]


class DiceReader:
    """read_dice for the frames of one table, one after another: the size the table's dice read
    best at is kept from frame to frame, so each frame is read once, at that size (read_dice on
    its own looks at smaller sizes and reads again whenever a frame's pips are out of range); where
    a `window` (x0, y0, x1, y1 pixels) is set, only that part of each frame is read (the mat the
    dice are played on, not the cloth, keyboard or hands around it). Unless not `still`, frames
    of a still table whose reads agreed are not read again, and of a table that changed in parts
    only those parts are read (vision.dice_still)."""

    def __init__(self, still: bool = True) -> None:
        """A reader that has seen no frame yet, and reads the whole of each frame."""
        self.factor: float | None = None
        self.window: tuple[int, int, int, int] | None = None
        self._still = StillTable() if still else None

    def __call__(self, image: np.ndarray, profile: ColourProfile | None = None) -> list[DieReading]:
        """The dice in the next frame of the table (in the frame's pixels, window or not)."""
        x0, y0, x1, y1 = self.window or (0, 0, None, None)
        part = image[y0:y1, x0:x1] if self.window is not None else image
        # Only 8-bit frames (every camera's) are compared: other depths are scaled to their own range to be read.
        still = self._still if isinstance(part, np.ndarray) and part.size and part.dtype == np.uint8 else None
        readings = still.known(part, (self.window, profile)) if still else None
        if readings is None:
            # Only a table whose size is known is read in parts: a part's few dice must not choose it.
            parts = still.parts() if still and self.factor is not None else None
            if parts is not None:
                readings = still.read_parts([(p, self._read_crop(part, profile, p.window)) for p in parts])
            else:
                readings, self.factor = _read(part, profile, self.factor, LIVE_RANGE)
                readings = still.read(readings) if still else readings
        if self.window is not None:
            readings = [replace(r, x=r.x + x0, y=r.y + y0) for r in readings]
        return readings

    def _read_crop(self, frame: np.ndarray, profile: ColourProfile | None, box: Box) -> list[DieReading]:
        """The dice in a box (x0, y0, x1, y1) of the frame, in the frame's pixels."""
        x0, y0, x1, y1 = box
        found, factor = _read(frame[y0:y1, x0:x1], profile, self.factor, LIVE_RANGE)
        self.factor = factor or self.factor
        return [replace(r, x=r.x + x0, y=r.y + y0) for r in found]


# A table's frames whose sure faces have pips within this range of radius are read as they are.
# Up to 5.5 px: shrunk, a full-HD frame falls under REGION_PIXELS and is read whole, slower than by
# regions (the demo table, pips ~4.6 px: 42 ms a frame against 29 ms). From 1.5 px, as photos were
# read until PIP_RANGE's floor rose to 2.0: a table enlarged to PIP_TARGET's 2.4 px measures its
# pips at 1.9-2.2 px, and a frame that falls under the floor was enlarged again, read twice (a
# 960x540 table: ~45 ms a frame against ~20 ms, its dice read alike).
LIVE_RANGE = (1.5, 5.5)


def _read(image: np.ndarray, profile: ColourProfile | None = None, factor: float | None = None,
          bounds: tuple[float, float] | None = None) -> tuple[list[DieReading], float | None]:
    """The dice in an image, read at the size `factor` says (found anew when None), and the factor
    to read the next frame of the same table at (None while no sure face tells it); sure faces
    with pips within `bounds` px (default PIP_RANGE) are read as they are."""
    bgr = _as_bgr(image)
    if bgr is None:
        return [], factor
    profile = profile or default_profile()
    scale = min(1.0, WORK_SIDE / max(bgr.shape[:2]))
    if scale < 1.0:
        bgr = cv2.resize(bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if min(bgr.shape[:2]) < 8:
            return [], factor  # a sliver: nothing die-shaped fits once the long side is brought down
    shown = bgr
    bgr, lift = _prepared(bgr)
    frame, look, factor, following = _sized_look(bgr, factor, bounds)
    faces, candidates, squares, faint = _top_faces(frame, look)
    if _JUDGE is not None:
        faces = _judged_faces(frame, faces, candidates, squares, look.pips, faint)
    if _VALUES is not None:
        faces = _valued_faces(frame, faces, candidates, squares)
    if PATTERNS_CHECKED and look.mark_spacing:
        faces = _off_pattern(frame, faces, look.mark_spacing)
    faces = _without_dice_holding_dice(_each_die_once(_without_front_faces(_in_frame(frame.shape, faces), look.pips)))
    if not faces:
        return [], following
    # Colours are named in the frame as the camera saw it (the profile learned them so); unless it
    # was smoothed, balanced or brightened, that is the frame read (a live table's shrunk frame is
    # not resized twice).
    seen = frame if bgr is shown else shown if factor == 1.0 else _resized(shown, factor)
    names = _colour_names(seen, faces, profile, lift.resized(factor))
    scale *= factor
    return [_rescaled(_reading(face, name, certain), scale) for face, (name, certain) in zip(faces, names)], following


def _sized_look(bgr: np.ndarray, factor: float | None,
                bounds: tuple[float, float] | None) -> tuple[np.ndarray, _Look, float, float | None]:
    """The frame resized to where its pips read best (from the known `factor` of its table unless
    its sure faces overturn it, else found anew), its first look there, the factor used, and the
    factor for the table's next frame (None while no sure face tells it)."""
    known = factor is not None
    factor = factor or 1.0
    frame, look = _looked_at(bgr, factor)
    more = pip_scale(frame, look, probe=not known, bounds=bounds)
    if more != 1.0:
        factor *= more
        frame, look = _looked_at(bgr, factor)
        again = _refined(frame, look) if more >= REFINE_FROM and not known else 1.0
        if again != 1.0:
            factor *= again
            frame, look = _looked_at(bgr, factor)
    sure = _pip_evidence(frame, look)[0] >= SURE_EVIDENCE
    return frame, look, factor, factor if sure or known else None


def _looked_at(bgr: np.ndarray, factor: float) -> tuple[np.ndarray, _Look]:
    """The frame resized by `factor` (itself at 1.0) and its first look."""
    frame = _resized(bgr, factor) if factor != 1.0 else bgr
    return frame, _first_look(frame)


def _refined(frame: np.ndarray, look: _Look) -> float:
    """The further factor for a frame enlarged from tiny pips whose pips, measured again at its new
    size, still fall short of PIP_TARGET's first (at most REFINE_MAX, never past WORK_SIDE); 1.0
    when they do not, or too few sure faces tell."""
    # A pip of a pixel or so measures bigger than it is (its blurred spot fills its few pixels), so
    # the first enlargement falls short; at the new size the same pips measure truer.
    evidence, radius = _pip_evidence(frame, look)
    if evidence < REFINE_EVIDENCE or not radius or radius >= PIP_TARGET[0]:
        return 1.0
    return float(min(PIP_TARGET[0] / radius, REFINE_MAX, WORK_SIDE / max(frame.shape[:2])))


# A frame enlarged at least REFINE_FROM times (pips of 1.6 px or less) is measured again, where its
# faces weigh at least REFINE_EVIDENCE, and enlarged at most REFINE_MAX times more. nell-byler at
# x0.4 / x0.5 / x0.75: 938 / 1018 / 1024 -> 958 / 1034 / 1023 dice read (false dice 22 / 11 / 9 ->
# 23 / 12 / 9; the half-size photos had been enlarged 1.4-1.8 times where 2.0-2.5 read them as at
# their own size); matteop65 x0.4 1182 -> 1174 (false 49 -> 41), x0.5 and x0.75 the same; both sets
# at their own size the same, and under the eight looks within two dice.
# From every enlargement on (the photos' own enlargements of 1.2-1.5 too), x0.75 read 4 dice more
# but nell-byler's looks 11 fewer.
REFINE_FROM, REFINE_EVIDENCE, REFINE_MAX = 1.5, 1.0, 1.6


def _prepared(bgr: np.ndarray) -> tuple[np.ndarray, Lift]:
    """The frame as the reader reads it: smoothed where the sensor's noise is grainy, balanced where
    the light's colour casts it, brightened where it is dim or veiled, and where part of it lies in
    shadow; and how its colours were changed. The frame itself where none of these is needed."""
    bgr = denoised(bgr) if DENOISED else bgr
    bgr, balance = balanced(bgr) if BALANCED else (bgr, None)
    bgr, lift = lit(bgr)
    lift = lift if balance is None else lift.after(balance)
    return shaded(bgr, lift) if SHADE_LIFTED else (bgr, lift)


def denoised(bgr: np.ndarray) -> np.ndarray:
    """The frame smoothed where its sensor's noise is grainier than GRAINY (a small camera in a dim
    room): an edge-keeping filter that leaves pips their edges; else the frame itself."""
    if pixel_noise(bgr, every=GRAIN_ROWS) <= GRAINY:
        return bgr
    return cv2.bilateralFilter(bgr, 3, SMOOTHED_COLOUR, 2)


def balanced(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The frame with its channels brought to one level where the light's colour casts it (its
    brightest parts, mostly white dice, pips and mats, well off gray), and each channel's gain;
    None for a frame near enough to gray, as cameras that balance their own colour give."""
    # Every eighth pixel each way, as one contiguous array (a strided view costs the mean a copy).
    small = cv2.resize(bgr, (max(1, bgr.shape[1] // 8), max(1, bgr.shape[0] // 8)), interpolation=cv2.INTER_NEAREST)
    planes = cv2.split(small)
    brightest = cv2.max(cv2.max(planes[0], planes[1]), planes[2])
    level = float(_ranked(brightest, BRIGHTEST))
    white = np.maximum(np.array(cv2.mean(small, mask=cv2.compare(brightest, level, cv2.CMP_GE))[:3]), 1.0)
    if white.max() / white.min() < BALANCE_FROM:
        return bgr, None
    # Nothing may saturate that did not: a channel already at its top is left as it is.
    top = np.maximum(np.array([cv2.minMaxLoc(plane)[1] for plane in planes]), 1.0)
    gains = np.minimum(np.minimum(white.max() / white, MAX_BALANCE), np.maximum(255.0 / top, 1.0))
    if gains.max() < BALANCE_FROM:
        return bgr, None
    # One diagonal colour transform: ~1.2 ms a full-HD frame, where a lookup table over three
    # interleaved planes costs ~7.5 ms and one per plane, split and merged, ~6 ms.
    return cv2.transform(bgr, np.diag(gains).astype(np.float32)), gains


# A frame is balanced where the mean colour of its brightest pixels (those over the BRIGHTEST
# quantile of their brightest channel) has one channel BALANCE_FROM times another; no channel is
# raised more than MAX_BALANCE times. The photo sets as shot (their cameras balance themselves)
# measure 1.00-1.16 (nell-byler) and 1.01-1.25 (matteop65) and are never balanced; under the
# benchmark's warm and cool looks 1.40-1.92. Balanced, those looks read nell-byler 1032 / 1032 ->
# 1042 / 1043 dice (false dice 16 / 8 -> 10 / 9) and matteop65 1175 / 1182 -> 1189 / 1191 (false
# 30 / 33 -> 19 / 22): unbalanced, white dice fade into pale wood under a lamp and the lone pips of
# their ones went unread. Every other size and look read the same dice (matteop65 x0.4 3 false dice
# more); the simulator the same (its warm frames are balanced), no colour error in 7,240 dice; its
# things 11 -> 13 false on 400. It costs ~0.05 ms a 640 photo, ~0.4 ms a full-HD frame, and the
# transform ~1.2 ms more where it balances one.
BALANCED = True
BALANCE_FROM, MAX_BALANCE, BRIGHTEST = 1.25, 2.0, 0.99
# Frames of noise over GRAINY (as pixel_noise measures it) are smoothed, by a bilateral filter of 3 px
# and this colour sigma (~1.6 ms a 640 photo, ~7 ms a full-HD frame). Photos' JPEG smoothing leaves
# them 0-0.35, the simulator's raw frames 1.1-1.9, the benchmark's noisy look (8 grey levels)
# 3.5-3.9: smoothed, that look reads nell-byler 1032 -> 1042 dice (false dice 19 -> 8) and matteop65
# 1190 -> 1193 (25 -> 22); everything else is never smoothed. A 5 px filter read the same within a
# die or two at four times the cost; a Gaussian blur of 0.7 px 1039 and 1196 dice, but 10 and 28
# false dice; a 3 px median 1039 / 1192, 12 / 37 false.
DENOISED = True
GRAINY, SMOOTHED_COLOUR = 2.5, 40.0
# The grain is measured on every GRAIN_ROWS-th row: as well as on every eighth, at half the cost
# (~0.1 ms a full-HD frame). Calibration's grain check measures it so too.
GRAIN_ROWS = 16


def lit(bgr: np.ndarray) -> tuple[np.ndarray, Lift]:
    """The frame brightened so that its brightest parts reach LIT_LEVEL when they fall short (a dim
    room, an underexposed photo: the pip finder's contrast threshold is in grey levels), its black
    brought down to black where a veil lifts it (haze, glare on a cover, a cheap lens), and how;
    never so far that the sensor's noise grows into pip-sized specks."""
    # Its own sample (every eighth pixel from the first), not balanced's: a frame whose sides are no
    # multiple of 8 samples other pixels by a resize, and reads a little otherwise.
    sampled = bgr[::8, ::8]
    brightest = cv2.max(cv2.max(sampled[..., 0], sampled[..., 1]), sampled[..., 2])
    level = float(_ranked(brightest, 0.99))
    black = _veil(sampled, level)
    # Nothing may saturate: the colours found in the brightened frame are scaled back for naming.
    gain = min(MAX_GAIN, LIT_LEVEL / max(level - black, 1.0), 255.0 / max(float(brightest.max()) - black, 1.0))
    if gain < MIN_GAIN:
        return bgr, Lift()  # most frames: no need to measure the noise (~0.5 ms a full-HD frame)
    gain = min(gain, NOISE_ROOM / max(pixel_noise(bgr), 0.1))
    if gain < MIN_GAIN:
        return bgr, Lift()
    # A lookup table over the frame seen as one plane is ~4 times faster than scaling every pixel
    # (a full-HD frame: ~2 ms against 8.5 ms; the same table on three interleaved planes: 3-10 ms).
    table = np.clip(np.rint((np.arange(256) - black) * gain), 0, 255).astype(np.uint8)
    plane = np.ascontiguousarray(bgr).reshape(bgr.shape[0], -1)
    return cv2.LUT(plane, table).reshape(bgr.shape), Lift(gain, black)


def _veil(sampled: np.ndarray, level: float) -> float:
    """The grey level a veil of light lifts a frame's black to (its darkest sampled pixel, in its
    darkest channel), or 0 where its darkest pixel is near black or it shows too little range."""
    black = float(cv2.min(cv2.min(sampled[..., 0], sampled[..., 1]), sampled[..., 2]).min())
    return black if black >= VEILED_FROM and level - black >= VEILED_RANGE else 0.0


class Lift(NamedTuple):
    """How the reader's frame was made from the camera's: `black` taken off, then times `gain` (per
    channel where it was balanced too), then its shaded places brightened by a `shade`."""

    gain: float | np.ndarray = 1.0
    black: float | np.ndarray = 0.0
    shade: "Shade | None" = None

    def undone(self, colours: np.ndarray, places: np.ndarray | None = None) -> np.ndarray:
        """Colours (n, 3) found in the reader's frame as the camera saw them; `places` (n, 2), in
        the frame's pixels, tell where (needed where it was brightened place by place)."""
        if self.shade is not None:
            if places is None:
                raise ValueError("a frame brightened place by place gives its colours back only at their places")
            colours = colours / self.shade.at(places)[:, None]
        return colours / self.gain + self.black

    def after(self, balance: np.ndarray) -> "Lift":
        """This lift of a frame first balanced by these per-channel gains, as one lift."""
        return self._replace(gain=balance * self.gain, black=self.black / balance)

    def resized(self, factor: float) -> "Lift":
        """This lift of the frame resized by `factor` (its shade's places move with it)."""
        return self if self.shade is None else self._replace(shade=self.shade.resized(factor))


@dataclass(frozen=True, eq=False)  # compared as one object: its gains are an array
class Shade:
    """How much a frame's places were brightened where part of it lies in shadow: gains (float32,
    at least 1) at every `every`-th pixel of the frame, grid point k at its pixel k * every."""

    gains: np.ndarray
    every: float

    def at(self, places: np.ndarray) -> np.ndarray:
        """The gains at places (n, 2) of the frame, x, y in its pixels, linear between grid points
        (as `over` gives them)."""
        grid = np.asarray(places, np.float32).reshape(-1, 1, 2) / np.float32(self.every)
        return cv2.remap(self.gains, grid, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(-1)

    def over(self, width: int, height: int) -> np.ndarray:
        """The gains over the whole frame (height, width), linear between grid points."""
        scale = 1.0 / self.every
        warp = np.array([[scale, 0.0, 0.0], [0.0, scale, 0.0]])
        return cv2.warpAffine(self.gains, warp, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)

    def lift(self, bgr: np.ndarray) -> np.ndarray:
        """The frame (BGR) brightened by these gains."""
        # In 8-bit fixed point (gains in 1/64 steps): three times faster than float gains (a 960x540
        # frame 0.5 ms against 1.7 ms), within two levels of them.
        gains = cv2.convertScaleAbs(self.over(bgr.shape[1], bgr.shape[0]), alpha=LIFT_ONE)
        return cv2.multiply(bgr, cv2.merge([gains] * 3), scale=1.0 / LIFT_ONE)

    def resized(self, factor: float) -> "Shade":
        """The same gains over the frame resized by `factor`."""
        return Shade(self.gains, self.every * factor)


# A gain of 1 in Shade.lift's fixed point (gains up to 255 / LIFT_ONE, about 4).
LIFT_ONE = 64


def shaded(bgr: np.ndarray, lift: Lift) -> tuple[np.ndarray, Lift]:
    """The frame with its shaded places brightened to the light of most of it (someone leaning over
    the table, a lamp to one side), and the lift that made it; the frame itself where its light is
    about even."""
    shade = shade_of(bgr)
    return (bgr, lift) if shade is None else (shade.lift(bgr), lift._replace(shade=shade))


def shade_of(bgr: np.ndarray) -> Shade | None:
    """The gains that bring each place of a frame up to the light of most of it, measured by the
    white nearby (a die, the mat); None where its light is about even."""
    h, w = bgr.shape[:2]
    # Every SHADE_EVERY-th pixel, by OpenCV: numpy's strided copy costs ~0.3 ms a full-HD frame.
    sampled = cv2.resize(bgr, (max(1, w // SHADE_EVERY), max(1, h // SHADE_EVERY)), interpolation=cv2.INTER_NEAREST)
    brightest = cv2.max(cv2.max(sampled[..., 0], sampled[..., 1]), sampled[..., 2])
    side = max(3, int(SHADE_SPAN * max(brightest.shape)) | 1)
    # The light a place gets, as the brightest thing within a span shows it (smoothed over as much).
    white = cv2.dilate(brightest, cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)))
    white = cv2.blur(white, (side, side))
    lowest, typical = _ranked(white, 0.05), _ranked(white, SHADE_REFERENCE)
    if lowest >= SHADED * typical:
        return None
    # A frame's grain is brightened to NOISE_ROOM at most, as lit() brightens a dim frame.
    most = min(SHADE_GAIN, NOISE_ROOM / max(pixel_noise(bgr), 0.1))
    if most < MIN_GAIN:
        return None
    return Shade(np.clip(typical / np.maximum(white.astype(np.float32), 1.0), 1.0, most), SHADE_EVERY)


def _ranked(values: np.ndarray, share: float) -> int:
    """The value `share` of the way up a 2-D 8-bit array's values in order (the one np.partition
    puts at that rank), counted from its histogram: ~0.02 ms for a full-HD frame's sample, where
    the partition costs ~0.17 ms."""
    rank = int(share * (values.size - 1))
    counts = cv2.calcHist([values], [0], None, [256], [0, 256]).ravel()
    return int(np.searchsorted(np.cumsum(counts), rank + 1))


def pixel_noise(bgr: np.ndarray, every: int = 8) -> float:
    """The frame's pixel noise: the mean of the smaller half of the steps between neighbouring
    green pixels (of every `every`th row), which lie on plain surfaces, not on edges."""
    rows = np.ascontiguousarray(bgr[::every, :, 1])
    # Counted by OpenCV's histogram: numpy's bincount costs ~4 times more on a full-HD frame's rows.
    counts = cv2.calcHist([cv2.absdiff(rows[:, 1:], rows[:, :-1])], [0], None, [256], [0, 256]).ravel().astype(np.int64)
    half = counts.sum() // 2
    if not half:
        return 0.0
    # The smaller half's mean from the steps' histogram (a partition of all steps costs ten times more).
    below = np.minimum(counts, np.maximum(half - np.concatenate([[0], np.cumsum(counts)[:-1]]), 0))
    return float(np.dot(below, np.arange(256)) / half)


# The 99th percentile of a frame's brightest channel that the reader expects (both photo sets:
# 187-217 in nine photos of ten), and the least and most a dim frame is brightened. nell-byler's
# photos darkened to 0.75, 0.6 and 0.45 of their light: 94.9, 92.7 and 85.9 % end to end as they
# are, 95.8, 95.3 and 94.9 % brightened (95.8 % at their own light).
LIT_LEVEL, MIN_GAIN, MAX_GAIN = 190.0, 1.2, 3.0
# A frame's noise (as pixel_noise measures it) is brightened to at most this. Photos' JPEG smoothing
# leaves them 0-0.3, a camera's raw frames (the simulator's) 1.1-1.9: brightened 2.8 times, those
# held ~1,500 specks read as pips (0.5 s a frame), and 1.5-1.9 times they were read no better
# (519 -> 518 of 520 dice) and 1.5 ms slower; a camera that exposes itself needs no brightening.
NOISE_ROOM = 2.0
# A frame whose darkest pixel (every eighth, in its darkest channel) is VEILED_FROM or more, and whose
# brightest parts stand VEILED_RANGE or more above it, is veiled (haze, glare on a camera's cover,
# a cheap lens): its black is taken off before it is brightened, as a photo editor's levels do.
# The benchmark's flat look (half the contrast, black lifted to 64) read nell-byler 96.43 -> 99.44 %
# end to end (1025 -> 1057 dice; false dice 5 -> 6) and matteop65 98.09 -> 99.09 % (1183 -> 1195;
# false 8 -> 10): its pips had half their contrast, under the pip finder's threshold, where a dim
# frame's is brightened back. Summed over six sizes and eight looks nell 14,583 -> 14,617 dice (false
# 137 the same), matteop 16,646 -> 16,659 (258 -> 260); both sets as shot, the simulator, its colours
# and its things the same. Photos as shot measure 0-11 (nell-byler) and 0-58 (matteop65, 9 of 396
# at 24 or more, read the same), the flat look 64-104; an even frame shows no range and is left.
VEILED_FROM, VEILED_RANGE = 24.0, 32.0

# A frame is brightened place by place where the white near its darkest places (5 %) is under
# SHADED of the white near most of it (SHADE_REFERENCE: its 75th percentile), each place measured
# from every SHADE_EVERY-th pixel by the brightest within SHADE_SPAN of the frame's long side; each
# place up to that white, by SHADE_GAIN at most. The whole reader reads the brightened frame (pips,
# bodies, the judge's and value reader's patches); colours are named as the camera saw them. The
# benchmark's shadowed look (the left half at 45 % of the light) read nell-byler 96.61 -> 98.49 %
# (1027 -> 1047 dice, false dice 5 -> 7) and matteop65 97.43 -> 98.51 % (1175 -> 1188, false 9 -> 6);
# both sets' six sizes and eight looks the same dice and false dice, and the simulator's dice,
# colours (none wrong in 18,057) and things the same; the other new looks the same but matteop65
# sharpened (16 -> 17 false dice). Both sets as shot measure a median 0.80-0.91 (one matteop65
# photo under 0.5: a dark cloth by the table), vignetted 0.65-0.71 (one under 0.5), shadowed
# 0.40-0.46; a third of the simulator's frames (uneven light over a dark mat) 0.37-0.6.
# Tried: only the pip finder looking at the brightened frame (faces fitted, bodies and patches in
# the frame as it is): shadowed 97.74 / 98.26 %, matteop65 14 false dice; and that form from 0.6 of
# the white: a gray two's darker side face, brightened, joined its top face and was named black (1
# colour error in 18,060 dice), and matteop65's sharpened, vignetted and grey looks read 1-2 false
# dice more.
# Measured against the brightest white (the 95th percentile), the dice themselves were the frame's
# white and the table between them shade: matteop65 enlarged 3 times read 4 dice fewer and 8 false
# more. Measured by the table's own level (a median, not the brightest), the simulator's dark mats
# no longer counted as shade, but matteop65's dark hubs and clothes did: its sharpened and grey looks
# 16 -> 26 and 14 -> 30 false dice, and fewer of the shadow's dice found.
SHADE_LIFTED = True
SHADE_EVERY, SHADE_SPAN, SHADED, SHADE_REFERENCE, SHADE_GAIN = 8, 0.15, 0.5, 0.75, 2.0


@dataclass(frozen=True)
class _Look:
    """The pip-first reading of a frame: whether it covered the whole frame, its pips, every
    candidate face, the faces chosen among them, and the spacing of the marks of the patterned
    table it shows (0 where it shows none)."""

    whole: bool
    pips: Pips
    candidates: list
    chosen: list
    mark_spacing: float = 0.0


def _first_look(bgr: np.ndarray) -> _Look:
    """Pips found, candidate faces fitted and the likely top faces chosen, over a BGR frame."""
    regions = _regions(bgr)
    whole = regions == [(0, 0, bgr.shape[1], bgr.shape[0])]
    # Pips are found region by region, but faces are fitted and judged over the whole frame at once:
    # one pass costs far less than one per region, and the frame's typical die size is surer.
    pips, mark_spacing = _find_all_pips(bgr, regions)
    candidates = _candidate_faces(bgr, pips, every_one=_SCORER is not None)
    if _SCORER is not None:
        candidates = [f for f in candidates if f.value > 1 or not _cut_off(bgr.shape, f)]
        probability = _SCORER.probability(face_features(bgr, pips, candidates))
        chosen = _chosen_faces(candidates, probability)
        chosen = _without_side_faces(_without_specks(_twos_not_ones(chosen, candidates, probability)))
    else:
        plain = _plain_shares(bgr, candidates) >= PLAIN_SHARE
        chosen = _frontal_faces(pips, [f for f, ok in zip(candidates, plain) if ok])
    return _Look(whole, pips, candidates, chosen, mark_spacing)


def _lattice_pips(pips: Pips) -> np.ndarray:
    """Which pips lie in rows of LATTICE_RUN or more alike pips, evenly spaced, running two ways or
    more: the marks of a patterned table (a dotted cloth, a perforated tray, a mesh). No die shows
    such rows: a face's rows hold three pips at most, and the next die's pips lie off their spacing
    (the two borders between them are wider than a pip gap)."""
    lattice = np.zeros(len(pips), bool)
    if len(pips) < LATTICE_LEAST:
        return lattice
    start, end = _nearest_alike(pips, LATTICE_NEIGHBOURS)
    if len(start) < LATTICE_MARKS:
        return lattice
    step = pips.xy[end] - pips.xy[start]
    continued = _continued_steps(start, end, step, len(pips))
    # Chains of LATTICE_RUN - 1 steps, each continuing the one before: rows of LATTICE_RUN pips.
    chain = [np.flatnonzero(continued >= 0)]
    for _ in range(LATTICE_RUN - 2):
        onward = continued[chain[-1]]
        chain = [c[onward >= 0] for c in chain] + [onward[onward >= 0]]
    if len(chain[0]) < LATTICE_MARKS:
        return lattice
    rows = np.stack([start[chain[0]]] + [end[c] for c in chain], axis=1)
    # Each row's direction as a doubled angle: a row and its reverse agree, rows across each other cancel.
    x, y = step[chain[0]].T
    length = x * x + y * y
    held = rows.ravel()
    rows_held = np.bincount(held, minlength=len(pips))
    cos = np.bincount(held, np.repeat((x * x - y * y) / length, LATTICE_RUN), minlength=len(pips))
    sin = np.bincount(held, np.repeat(2 * x * y / length, LATTICE_RUN), minlength=len(pips))
    lattice = (rows_held > 0) & (np.hypot(cos, sin) < LATTICE_ONE_WAY * rows_held)
    # A table's pattern holds many marks; a few dice touching in a row or a heap may line up a few.
    a, b = rows[:, :-1].ravel(), rows[:, 1:].ravel()
    joined = lattice[a] & lattice[b]
    for part in _components(len(pips), a[joined], b[joined]):
        if len(part) < LATTICE_MARKS:
            lattice[part] = False
    return lattice | _on_lattice_rows(start, end, continued, lattice)


def _on_lattice_rows(start: np.ndarray, end: np.ndarray, continued: np.ndarray, lattice: np.ndarray) -> np.ndarray:
    """Pips that LATTICE_MET rows of marks or more run on from: each row two marks that go on from
    the pip evenly spaced (a mark of the pattern whose neighbours the finder missed, so that it
    starts no row of its own)."""
    row = (continued >= 0) & lattice[end]
    row[row] = lattice[end[continued[row]]]
    return np.bincount(start[row], minlength=len(lattice)) >= LATTICE_MET


def _nearest_alike(pips: Pips, most: int) -> tuple[np.ndarray, np.ndarray]:
    """Steps (start, end; in order of start) from each pip to its `most` nearest alike pips (one
    polarity, radii within LATTICE_ALIKE times), at most LATTICE_REACH of either's radius away."""
    reach = LATTICE_REACH * pips.radius
    # Pairs are looked for in a grid of cells as wide as most pips' reach, or, where marks are
    # crowded (thousands of a fine mesh), a few times their mean spacing: pairs grow with the square
    # of the marks a cell holds.
    span = np.ptp(pips.xy, axis=0) + 1.0
    cell = min(float(np.percentile(reach, 75)), LATTICE_CROWDED * float(np.sqrt(span[0] * span[1] / len(pips))))
    i, j = _pairs_within(pips.xy, cell)
    gap = np.hypot(*(pips.xy[i] - pips.xy[j]).T)
    r_i, r_j = pips.radius[i], pips.radius[j]
    ok = ((pips.polarity[i] == pips.polarity[j]) & (np.maximum(r_i, r_j) < LATTICE_ALIKE * np.minimum(r_i, r_j))
          & (gap < np.minimum(np.minimum(reach[i], reach[j]), cell)))
    start, end, gap = np.r_[i[ok], j[ok]], np.r_[j[ok], i[ok]], np.r_[gap[ok], gap[ok]]
    # Each pip's partners ranked by distance.
    order = np.lexsort((gap, start))
    start, end = start[order], end[order]
    near = np.arange(len(start)) - np.searchsorted(start, start) < most
    return start[near], end[near]


def _pairs_within(xy: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j) of points in the same or neighbouring cells of a grid of `cell` pixels,
    each pair once: every pair nearer than `cell`, among a few farther ones."""
    column = (xy[:, 0] // cell).astype(np.intp) + 1
    row = (xy[:, 1] // cell).astype(np.intp)
    # Columns start at 1 and the grid is two wider than the last, so a cell's neighbours never wrap.
    width = int(column.max()) + 2
    key = row * width + column
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    # The cell itself and the four neighbours after it: each pair of cells is visited once.
    target = (key[:, None] + np.array([0, 1, width - 1, width, width + 1])).ravel()
    low = np.searchsorted(sorted_keys, target, side="left")
    count = np.searchsorted(sorted_keys, target, side="right") - low
    first = np.repeat(np.arange(len(target)) // 5, count)
    second = order[_runs_of(low, count)]
    # Within one cell, each pair once and no point with itself.
    same = np.repeat(np.arange(len(target)) % 5 == 0, count)
    keep = ~same | (first < second)
    return first[keep], second[keep]


def _runs_of(low: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The indices low[k], low[k] + 1, ... (count[k] of them) for every k, one run after another."""
    return np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count) + np.repeat(low, count)


def _continued_steps(start: np.ndarray, end: np.ndarray, step: np.ndarray, n: int) -> np.ndarray:
    """For each step between pips (in order of start), the step from its end that goes on the same
    way and as far (within LATTICE_SLACK of its length); -1 where none does."""
    first = np.searchsorted(start, np.arange(n))
    leaving = np.bincount(start, minlength=n)[end]
    each = np.repeat(np.arange(len(start)), leaving)
    onward = _runs_of(first[end], leaving)
    miss = step[onward] - step[each]
    length = step[each]
    same_way = (miss * miss).sum(axis=1) < LATTICE_SLACK ** 2 * (length * length).sum(axis=1)
    continued = np.full(len(start), -1)
    continued[each[same_way]] = onward[same_way]
    return continued


# A pip in rows of LATTICE_RUN evenly spaced alike pips (each step within LATTICE_SLACK of the
# last's length of it), whose rows' directions (doubled angles) average under LATTICE_ONE_WAY, runs
# two ways: it is a patterned table's mark, not a die's pip, and is left out of the reading.
LATTICE_RUN, LATTICE_SLACK, LATTICE_ONE_WAY = 4, 0.16, 0.9
# Marks of one pattern (joined by their rows) number at least this many.
LATTICE_MARKS = 12
# Rows are followed between each pip and its LATTICE_NEIGHBOURS nearest alike pips (one polarity,
# radii within LATTICE_ALIKE times), at most LATTICE_REACH of its radii away (a sparse cloth's dots
# lie farther apart than a die's pips ever do), in frames of LATTICE_LEAST pips or more.
LATTICE_NEIGHBOURS, LATTICE_ALIKE, LATTICE_REACH, LATTICE_LEAST = 6, 1.5, 30.0, 24
# Where marks crowd, pairs are looked for within this many times their mean spacing.
LATTICE_CROWDED = 3.0
# A pip that rows of marks run on from in this many ways is a mark too: at the size a perforated
# tray's holes are read, the finder misses many, and those left alone were read as dice (patterned
# benchmark: holes 61 -> 10 false dice, dots 5 -> 4, dice right the same; dice on a cloth of dots
# 0.25 of their side apart: 1,160 false dice in two frames -> 5). At 2, two dice fewer were read.
LATTICE_MET = 3
LATTICES_DROPPED = True


def _in_frame(shape: tuple[int, ...], faces: list["_Face"]) -> list["_Face"]:
    """The faces whose centre lies in the frame: a die is read where the camera sees it, and a
    place off the frame (the judge's, moved past a patterned frame's edge) shows under half a die."""
    h, w = shape[:2]
    return [f for f in faces if 0.0 <= f.centre[0] < w and 0.0 <= f.centre[1] < h]


def _off_pattern(bgr: np.ndarray, faces: list["_Face"], mark_spacing: float) -> list["_Face"]:
    """The faces that do not lie on a repeating pattern (vision.dice_repeats), in a frame whose
    marks `mark_spacing` px apart showed a patterned table."""
    on_pattern = patterned(bgr, [f.centre for f in faces], [f.size for f in faces], mark_spacing)
    return [f for f, repeating in zip(faces, on_pattern) if not repeating]


# In a frame that shows a patterned table (marks in rows: _lattice_pips, or more pips than a full
# table of dice: CROWDED_PIPS), a reading whose place repeats itself one step of a pattern away and
# back, two ways, is the pattern (the judge, shown no mesh in training, took many of a mesh's places
# for dice). Other frames (the simulator's tables of 26 dice, nearly every photo of both sets) are
# not checked: it costs ~0.4 ms a reading for each patch width tried (TEMPLATES_TRIED).
PATTERNS_CHECKED = True


def _strongest(pips: Pips, most: int) -> Pips:
    """At most `most` pips, those of the highest contrast, in their order: pairing pips costs memory
    and time with the square of their number, and a frame holding thousands (noise, a dotted
    cloth) must still be read in time."""
    if len(pips) <= most:
        return pips
    return pips.take(np.sort(np.argsort(-pips.contrast, kind="stable")[:most]))


# The most pips a frame is read with (a full table of 26 dice shows ~100, with specks ~200-300).
MAX_PIPS = 1500
# A frame of this many pips or more shows a pattern (a table of 26 dice in the simulator: at most
# 212; photos of both sets at x1: at most 209, at x2 270). At 400, a fine mesh whose holes were
# found as 288 pips went unchecked: the mesh frames of the tests' seeds 0-23, 36 -> 22 false dice.
CROWDED_PIPS = 250


def _without_specks(chosen: list["_Face"]) -> list["_Face"]:
    """The chosen faces less the ones far smaller than the frame's sure faces of several pips, or
    whose pip is far smaller than their pips: a one's pip is bigger than the other faces' pips, and
    specks of dust on a mat, in a close or sharp photo, pass for pips."""
    sizes = [f.size for f in chosen if f.value > 1 and f.certainty >= 0.5]
    least = SMALL_ONE * _middle(sizes) if len(sizes) >= SPECK_FACES else 0.0
    # A speck's round spot is also far smaller than the sure faces' pips (a one's pip is bigger).
    sure = _sure_pip_radius(chosen)
    smallest = SPECK_PIP * sure if sure < np.inf else 0.0
    return [f for f in chosen if f.value > 1 or (f.size >= least and not (f.pips and f.radius < smallest))]


# A one whose face is under this share of the median sure face of several pips is a speck, where
# at least SPECK_FACES such faces tell the dice's size.
SMALL_ONE, SPECK_FACES = 0.5, 2
# So is a one whose pip's radius is under this share of the median pip of the faces of several pips
# the scorer is SETTLED sure of: in a close photo of a plain mat, dust passes for ones (nell-byler
# x1.5 / x2 / x3, false dice 31 / 36 / 37 -> 25 / 31 / 29, one die fewer read at x1.5 and at x3;
# fully held out, nell-byler 13 -> 11; at their own size matteop65 13 -> 12, nell-byler the same).
SPECK_PIP = 0.75


def _twos_not_ones(chosen: list["_Face"], candidates: list["_Face"], probability: np.ndarray) -> list["_Face"]:
    """The chosen faces with each one read as a candidate two (the path between its pips plain body
    colour: one face) that holds its pip and a pip no chosen face holds, where the scorer finds the
    two likely and its pips alike in size (TWO_PIPS); not a two over SIZE_RANGE's top times the
    SETTLED faces of several pips (two dice's pips)."""
    # A face scorer that has not seen a camera's twos may take one pip for a one and the other for
    # nothing: with the scorer trained on the other half of each set (fully held out), matteop65
    # 1134 -> 1145 dice read, 47 -> 39 false dice (with the rules after it); in sample and held out
    # the same. Two chosen ones were once read as a two as well: touching dice showing ones in the
    # simulator's full tables were then lost (19 of 18,200 dice).
    ones = {f.pips[0]: k for k, f in enumerate(chosen) if f.value == 1 and f.pips}
    held = {q for f in chosen for q in f.pips}
    measured = [f.size for f in chosen if f.value > 1 and f.certainty >= SETTLED]
    largest = SIZE_RANGE[1] * _middle(measured) if measured else np.inf
    out = list(chosen)
    for two, p in zip(candidates, probability):
        if two.value != 2 or len(two.pips) != 2 or two.size > largest or p < _SCORER.threshold:
            continue
        mine = [ones[q] for q in two.pips if q in ones]
        if len(mine) != 1 or sum(q in held for q in two.pips) != 1:
            continue
        one = out[mine[0]]
        # The other pip's radius from the two's mean: a pip of the one's side face is smaller.
        other = 2.0 * two.radius - one.radius
        if one.value == 1 and max(one.radius, other) <= TWO_PIPS * min(one.radius, other):
            out[mine[0]] = replace(two, certainty=float(p))
    return out


# A two's pips differ in radius by at most this factor (in small photos, a one's pip and the pip of
# its die's front face differ by 1.3-1.4: matteop65 at half size lost 3 dice to such twos).
TWO_PIPS = 1.25


def _without_side_faces(chosen: list["_Face"]) -> list["_Face"]:
    """The chosen faces less the unsure faces of several pips that lie within ONE_SIDES face sides
    of a SURE_ONE sure one and whose pips are under 1/SIDE_PIPS of its pip: that die's side faces,
    seen edge-on."""
    ones = [f for f in chosen if f.value == 1 and f.pips and f.certainty >= SURE_ONE]
    if not ones:
        return chosen
    centres = np.array([f.centre for f in ones], np.float64)
    reach = ONE_SIDES * np.array([f.size for f in ones])
    radius = np.array([f.radius for f in ones])
    return [f for f in chosen if f.value == 1 or f.certainty >= SETTLED
            or not ((_gaps(np.array([f.centre]), centres)[0] < reach) & (SIDE_PIPS * f.radius < radius)).any()]


# A one the scorer is this sure of has side faces within this many of its face sides (a one's face
# size, from its pip, is half or less of its die's side in matteop65's close photos). Measured with
# SIDE_PIPS' rule in _pip_evidence: matteop65 in sample 1192 -> 1193 dice read, held out (two-fold)
# 1180 -> 1181; resized x1.5 / x2 / x3, +2 / +5 / +4 dice, false dice +1 / -1 / 0 (most of x3's
# from _pip_evidence's rule); nell-byler the same at every size but x3, one false die more; fully
# held out, the simulator and its clutter frames the same.
SURE_ONE, ONE_SIDES = 0.9, 2.5


class TopFaces(NamedTuple):
    """The pip-first reading of a frame: chosen faces, every candidate face weighed, the die-sized
    body squares, and fainter squares off them for the judge to look at (FAINT_BODIES)."""

    chosen: list["_Face"]
    candidates: list["_Face"]
    squares: list[Square]
    faint: list[Square]


def _top_faces(bgr: np.ndarray, look: _Look | None = None) -> TopFaces:
    """The top faces of the dice in a BGR image, in its pixels; every candidate face weighed; and
    the die-sized body squares, plain and faint (none unless the whole image was read, not only regions)."""
    look = look or _first_look(bgr)
    if BODY_FIRST and look.whole:
        # Only a whole image shows enough table around the dice to tell a body from the table.
        chosen, squares, faint = _body_faces(bgr, look.chosen)
        return TopFaces(chosen, look.candidates, squares, faint)
    return TopFaces(look.chosen, look.candidates, [], [])


def pip_scale(bgr: np.ndarray, look: _Look, probe: bool = True, bounds: tuple[float, float] | None = None) -> float:
    """The factor to resize a frame by so that its dice's pips are of the size the reader reads
    best (PIP_TARGET pixels of radius); 1.0 when they already are, or nothing tells their size.
    When to `probe`, a small frame (short side under SMALL_FRAME) that its own and smaller sizes
    would not enlarge is also looked at twice as big: its pips may be too small for the pip finder
    at its own size (and small dark dice side by side pass for a two of big pips); so is a bigger
    frame that shows no face at all (_unsure_of_tiny)."""
    factor = _sized_by_pips(bgr, look, probe, bounds)
    if probe and factor <= 1.0 and min(bgr.shape[:2]) < SMALL_FRAME:
        return _finer_factor(bgr, look, factor)
    if probe and _unsure_of_tiny(bgr, look, factor):
        # Only as big as WORK_SIDE allows, and only for a look FINER_LEAST sure in faces the judge
        # finds dice at: a close photo of big dice whose pips it did not find is not enlarged for specks.
        looks = tuple(times for times in FINER_LOOKS if times * max(bgr.shape[:2]) <= WORK_SIDE)
        return _finer_factor(bgr, look, factor, looks=looks, least=FINER_LEAST, judged=True)
    return factor


def _unsure_of_tiny(bgr: np.ndarray, look: _Look, factor: float) -> bool:
    """Whether a frame too big for SMALL_FRAME may still hold dice whose pips are too small to be
    found at its own size: it shows no face at all, its smaller sizes would not enlarge it, and
    twice as big it is no bigger than WORK_SIDE."""
    if not UNSURE_LOOKS_FINER or factor > 1.0 or 2 * max(bgr.shape[:2]) > WORK_SIDE:
        return False
    return _pip_evidence(bgr, look)[0] < BLIND_EVIDENCE


# A frame too big for SMALL_FRAME whose own size shows no face at all (sure faces' evidence under
# BLIND_EVIDENCE) and that its smaller sizes would not enlarge is looked at twice (and, where that
# stays within WORK_SIDE, three times) as big too; the bigger look wins where it is at least
# FINER_LEAST sure in faces the judge finds dice at (_judged_telling). A photo taken twice as far
# off, its dice ~15 px and their pips a pixel, found nothing to size it by: nell-byler's photos at
# half size on a table twice as big (scripts of 2026-12-08) 71.7 -> 88.8 % read (false dice 50 ->
# 27); simulated tables of 8 dice of 17 px at 960x540, 30 seeds, 194 -> 221 of 240 read, of 6 dice
# of 11 px at 640x480 57 -> 91 of 180. Both photo sets at their six sizes and eight looks, the
# simulator, things, desk and patterned tables read the same. Counting faces unjudged, nell-byler's
# close photos of one or two big dice, their own size blind, were enlarged for JPEG's specks (its
# jpeg look 3 dice fewer, 5 false more); from any sure look (not only FINER_LEAST), 1 die fewer as shot.
UNSURE_LOOKS_FINER = True
BLIND_EVIDENCE = 0.5
FINER_LEAST = 1.0


def _finer_factor(bgr: np.ndarray, look: _Look, factor: float, looks: tuple[float, ...] | None = None,
                  least: float = 0.0, judged: bool = False) -> float:
    """The factor to enlarge a small frame by when a look at twice its size (or, its pips still too
    small there, three times: `looks`) finds far surer faces, at least `least` sure (and, where
    `judged`, only those the judge finds dice at), of pips too small for its own size; else
    `factor` (what its own and smaller sizes said)."""
    # Even a frame sure of its own size is looked at twice as big: in a small frame, dice of a few
    # pixels side by side pass for the big pips of sure faces (nell-byler at x0.4: a photo of 25
    # dice read 5 of them at its own size, 23 twice as big).
    evidence, _ = _pip_evidence(bgr, look)
    best: tuple[float, float, float] | None = None  # evidence, pip radius, how much bigger
    fine_radius = 0.0
    for times in looks or FINER_LOOKS:
        # A bigger look only where the last one was unsure and its pips still under the floor (or none).
        if (best is not None and best[0] >= SURE_EVIDENCE) or fine_radius >= PIP_RANGE[0]:
            break
        bigger = _resized(bgr, times)
        faces = _telling_faces(bigger, _first_look(bigger))
        faces = _judged_telling(bigger, faces) if judged else faces
        fine, fine_radius = _certainty(faces), _pip_radius(faces)
        radius = fine_radius / times
        if (fine > COARSER_GAIN * evidence + 0.5 and fine >= least and radius < FINE_RADIUS
                and (best is None or fine > best[0])):
            best = (fine, radius, times)
    if best is None:
        return factor
    return float(min(max(PIP_TARGET[0] / best[1], 1.0), best[2]))


def _sized_by_pips(bgr: np.ndarray, look: _Look, probe: bool = True, bounds: tuple[float, float] | None = None) -> float:
    """pip_scale's factor from the frame's own size and (when to `probe`) its half and quarter sizes.

    The pip finder's kernel and every other pixel measure of the reader are fixed: pips much bigger
    than the kernel are not found at all, and tiny ones blur into the table. A frame whose sure
    faces are few or out of range is also looked at in half and quarter size (unless not to
    `probe`: a frame already at the size its table's dice read best), where pips too big for the
    kernel at full size are found; the size with the most sure faces tells the pip size. Sure
    faces with pips within `bounds` px (default PIP_RANGE) are read as they are, unless a half-size
    look finds the pips of those near the top bigger still (_halved_factor)."""
    own = _telling_faces(bgr, look)
    if SMALL_ONES_CHECKED and own and all(f.value < 3 for f in own) and _pip_radius(own) < PIP_RANGE[0]:
        own = _telling_faces(bgr, look, coarse=True)
    own = _judged_telling(bgr, own) if probe else own
    evidence, radius = _certainty(own), _pip_radius(own)
    in_range = PIP_RANGE[0] <= radius <= PIP_RANGE[1]
    bottom, top = bounds or PIP_RANGE
    if evidence >= SURE_EVIDENCE and bottom <= radius <= top:
        # Pips wider than the finder's kernel are measured too small: near the range's top, a look
        # at half size tells whether they are bigger still (a live table that reads bigger pips
        # as they are, up to its own `top`, is not looked at again).
        halve = probe and radius > NEAR_TOP and top <= PIP_RANGE[1]
        return _halved_factor(bgr, evidence) if halve else 1.0
    if not probe and evidence < SURE_EVIDENCE:
        return 1.0  # a known size, which a few faces (dice rolling) do not overturn
    level = 1.0
    # Where the frame's own faces are all half sure (texture and specks in a close photo of big
    # pips), the sizes are weighed by their sure faces; where it shows none at all, a smaller
    # size's sure one or two on its die's body tells the size too (a close photo of one die).
    weighed = _weighed(own)
    faint = weighed < FAINT_EVIDENCE
    # Nor does a frame whose faint faces include none of several pips that is OUTRIGHT sure
    # outweigh a smaller size's face of three or more pips that is (a close photo of one die).
    doubtful = faint and not any(f.certainty >= OUTRIGHT and f.value >= 2 for f in own)
    smaller = bgr
    # Sure faces of pips under the range (not faint ones) need no smaller look: a smaller size only
    # tells of pips too big for this one, and it never outweighed them (SURE_SMALL_SETTLES).
    settled = SURE_SMALL_SETTLES and evidence >= SURE_EVIDENCE and radius < bottom and not faint
    while probe and not settled and min(bgr.shape[:2]) * level / 2.0 >= PROBE_SIDE:
        # Each size halves the last: OpenCV averages 2x2 blocks fast (a 640x640 photo's quarter
        # size 0.03 ms from its half, 0.5 ms from the photo itself).
        level /= 2.0
        smaller = shrunk(smaller, 2)
        faces = _judged_telling(smaller, _telling_faces(smaller, _first_look(smaller), coarse=True,
                                                        lone=faint if LONE_WHEN_FAINT else not own))
        coarse, coarse_radius, strong = _certainty(faces), _pip_radius(faces), _weighed(faces)
        # A smaller size only tells of pips too big for the larger one: of small pips it sees
        # specks and texture as readily as dice.
        outright = doubtful and any(f.certainty >= OUTRIGHT and f.value >= 3 for f in faces)
        if coarse_radius >= COARSE_RADIUS and (coarse > COARSER_GAIN * evidence + 0.5 or outright
                                               or (faint and strong > COARSER_GAIN * weighed + 0.5)):
            evidence, radius, weighed, in_range = coarse, coarse_radius / level, strong, False
            doubtful = False  # a smaller size still must outweigh this one
    if not evidence or in_range:
        return 1.0
    factor = PIP_TARGET[0 if radius < PIP_RANGE[0] else 1] / radius
    # A frame is never read larger than WORK_SIDE: tiny dice in a big frame cost too much to enlarge.
    return float(min(factor, WORK_SIDE / max(bgr.shape[:2]), MAX_ENLARGE))


def _judged_telling(bgr: np.ndarray, faces: list["_Face"]) -> list["_Face"]:
    """The faces telling a large frame's pip size that the judge finds a die at; in a smaller
    frame (short side under JUDGED_SIDE), or without the judge, the faces as they are."""
    if JUDGED_SIDE is None or _JUDGE is None or not faces or min(bgr.shape[:2]) < JUDGED_SIDE:
        return faces
    order = sorted(range(len(faces)), key=lambda k: -faces[k].certainty)
    # Surest first: where the fewest faces that could make the frame sure are all dice, the others
    # count as they are (a table of 26 dice costs a few patches, not one a die).
    enough = int(np.searchsorted(np.cumsum([faces[k].certainty for k in order]), SURE_EVIDENCE)) + 1
    surest, rest = order[:enough], order[enough:]
    held = _held_dice(bgr, [faces[k] for k in surest])
    if all(held) and rest:
        return faces
    kept = {k for k, ok in zip(surest + rest, held + _held_dice(bgr, [faces[k] for k in rest])) if ok}
    return [f for k, f in enumerate(faces) if k in kept]


def _held_dice(bgr: np.ndarray, faces: list["_Face"]) -> list[bool]:
    """For each face, whether the judge finds a die at it (TELLING_DIE sure) showing the face's
    value (TELLING_VALUE sure)."""
    if not faces:
        return []
    verdict = _JUDGE.judge(bgr, np.array([f.centre for f in faces], np.float64),
                           np.array([DIE_PER_FACE * f.size for f in faces]), turned=TURNED)
    shown = verdict.values[np.arange(len(faces)), [f.value - 1 for f in faces]]
    return [bool(p >= TELLING_DIE and v >= TELLING_VALUE) for p, v in zip(verdict.die, shown)]


# Frames whose short side is at least this long count only the faces the judge finds dice at when
# they choose the size to read at: a big photo shows texture (wood grain, a cable's sleeve, print)
# at the scale of small pips, whose faces the scorer may be sure of, while the dice's own big pips
# show only at a smaller size (matteop65's four_17 enlarged 3 times: its two fours read as ones).
# Enlarged x1.5 / x2 / x3, nell-byler 1054 / 1037 / 1033 -> 1053 / 1038 / 1042 dice read (false
# dice 13 / 15 / 17 -> 13 / 15 / 11), matteop65 1185 / 1181 / 1180 -> 1186 / 1187 / 1183 (false
# 16 / 22 / 43 -> 17 / 14 / 37); the simulator's frames and things the same. At x4, a size not
# measured while choosing: matteop65 1175 -> 1181 (false 44 -> 32), nell-byler the same (11 -> 9).
# Judging every telling face (not the surest first) read nell-byler 5 dice more (2 false fewer) and
# matteop65 1 more (5 false more), at a patch a die on a table of dice (~3 ms a full-HD frame of
# 26). Smaller frames are left as they are: both sets at their own size read alike, and a photo
# pays no patch for it.
# From 400 px (both sets at their own size judged too), over each set's six sizes and eight looks
# nell-byler read 7 dice more (as shot 2 false dice fewer), matteop65 as many, 4 false dice more
# (as shot 1 more); from 200 px, matteop65 9 dice fewer.
JUDGED_SIDE: int | None = 700
# How sure of a die the judge must be at a face for it to tell a big frame's size: at 0.5 the
# enlarged sets read the same; at 0.98, 4 dice more of 6,807 and 1 false die fewer.
TELLING_DIE = 0.9
# How sure the judge must be that the die it finds at a face shows the face's value: a speaker
# grille's or a speck's twos where it sees a six or the part of a big die told the size (matteop65's
# two_7 enlarged 3 times: its grille read as 18 dice, its die missed). Over each set's six sizes and
# eight looks, matteop65 16,681 -> 16,682 dice, 225 -> 208 false; nell-byler 14,625 both, 126 -> 127
# false; as shot, the simulator, its colours, things and patterned tables the same (2026-12-06).
# With the judge trained that day, which finds dice at parts of big dice (0.999 sure at specks' twos
# in nell-byler's 111650 enlarged 3 times, where it sees threes and fives), it keeps that photo shrunk.
TELLING_VALUE = 0.5


def _halved_factor(bgr: np.ndarray, evidence: float) -> float:
    """The factor that brings a frame's pips to PIP_TARGET's top where a look at half its size finds
    faces at least as sure as its own (`evidence`) of pips over PIP_RANGE's top at its own size;
    else 1.0 (its own size, which its sure faces chose)."""
    half = shrunk(bgr, 2)
    faces = _telling_faces(half, _first_look(half), coarse=True)
    radius = 2.0 * _pip_radius(faces)
    if _certainty(faces) >= evidence and radius > PIP_RANGE[1]:
        return float(PIP_TARGET[1] / radius)
    return 1.0


def _pip_evidence(bgr: np.ndarray, look: _Look, coarse: bool = False) -> tuple[float, float]:
    """How much a look's chosen faces say about pip size (the sum of the scorer's certainty over the
    faces that tell it, _telling_faces) and the radius of their pips (_pip_radius); 0 with none."""
    faces = _telling_faces(bgr, look, coarse)
    return _certainty(faces), _pip_radius(faces)


def _certainty(faces: list["_Face"]) -> float:
    """The sum of the scorer's certainty over faces."""
    return float(sum(f.certainty for f in faces))


def _weighed(faces: list["_Face"]) -> float:
    """The faces' evidence counting each by how much surer than half the scorer is (0 at half, 1
    when certain): many half-sure faces weigh less than a few sure ones."""
    return float(sum(max(2.0 * f.certainty - 1.0, 0.0) for f in faces))


def _telling_faces(bgr: np.ndarray, look: _Look, coarse: bool = False, lone: bool = False) -> list["_Face"]:
    """The chosen faces that tell the pip size: those the scorer is at least half sure of, no bigger
    than a die in the frame can be. A `coarse` look (at a smaller size than the frame's) counts
    faces of three or more pips, and of one or two pips only where surely dice (_dice_on_bodies);
    where the frame itself showed none (`lone`), a single such die of a LONE_SURE face will do.
    Where only ones and twos tell a frame's own pips too big for it, they too count only as dice
    on their bodies (BIG_ONES_CHECKED). Where the look shows a patterned table, faces on its
    pattern tell nothing (_off_pattern)."""
    biggest = MAX_FACE_SHARE * min(bgr.shape[:2])
    sure = [f for f in look.chosen if f.certainty >= 0.5 and f.pips and f.size <= biggest]
    if PATTERNS_CHECKED and look.mark_spacing and sure:
        # A mesh's holes fitted as faces tell the holes' size: a frame of dice on a mesh was read at
        # 0.42 of its size, where 1 of its 8 dice could be read.
        sure = _off_pattern(bgr, sure, look.mark_spacing)
    if not coarse and not (BIG_ONES_CHECKED and sure and all(f.value < 3 for f in sure) and _pip_radius(sure) > PIP_RANGE[1]):
        return sure
    # (At the frame's own size too: in a small photo, a small dark die is a sure one's big pip.)
    # Seen small, a dark die on a light table looks like a one's pip, and two such dice (or two
    # rivets on a binder) like a two: ones and twos tell of big pips only when surely dice.
    found = _dice_on_bodies(bgr, [f for f in sure if f.value < 3], least=1 if lone else FEW_LEAST)
    alone = [f for f in found if f.certainty >= LONE_SURE] if lone else []
    return [f for f in sure if f.value >= 3] + (alone or (found if len(found) >= FEW_LEAST else []))


def _pip_radius(sure: list["_Face"]) -> float:
    """The median radius of the pips of the faces that tell the pip size (of faces of two or more
    pips where there are any: a one's pip is bigger, and a dark die on a light table can pass for
    one; not of twos of pips over BODY_AS_PIP times those of the faces of three or more; of the
    surest faces alone where they find pips over BIG_PIPS times too big); 0 with none."""
    if not sure:
        return 0.0
    # In a photo of small dice, two dark dice side by side pass for a sure two of big pips: a two
    # whose pips are far bigger than those of the faces of three or more pips does not count
    # (nell-byler at half size: 61.3 -> 71.3 % read; at x0.75 +1 die; at its own size, x1.5 and x2
    # the same; matteop65 the same but x3, 4 of 1206 dice fewer).
    many = [f.radius for f in sure if f.value >= 3]
    most = BODY_AS_PIP * _middle(many) if many else np.inf
    several = [f for f in sure if f.value > 1 and f.radius <= most]
    if not several:
        return _middle([ONE_PIP * f.radius for f in sure])
    # A sure one's pip says more than far smaller pips, of half-sure faces that weigh less: its die's
    # side faces seen edge-on (a photo of one die showing a one was enlarged until its pip was too
    # big to find; matteop65 x3, 4 dice more read).
    ones = [f for f in sure if f.value == 1]
    if (ones and sum(f.certainty for f in ones) > sum(f.certainty for f in several)
            and max(f.certainty for f in several) < SETTLED
            and SIDE_PIPS * _middle([f.radius for f in several]) < _middle([f.radius for f in ones])):
        return _middle([ONE_PIP * f.radius for f in ones])
    # In a close photo, specks and bits of side faces make half-sure faces of small pips that pull
    # the median into range: pips the surest faces find too big are believed (nell-byler enlarged 3
    # times: 88.9 -> 92.6 % read, false dice 68 -> 38; x2 and matteop65 x1.5-3 a die or more each
    # and fewer false dice; at their own size and smaller, the same).
    surest = [f.radius for f in several if f.certainty >= SETTLED]
    if surest and _middle(surest) > BIG_PIPS * PIP_RANGE[1]:
        return _middle(surest)
    return _middle([f.radius for f in several])


def _dice_on_bodies(bgr: np.ndarray, faces: list["_Face"], least: int | None = None) -> list["_Face"]:
    """The faces (of a look at a smaller size than the frame's) that the judge finds a die at, each
    on a body that stands out from the table, when at least `least` (default FEW_LEAST) of them
    are; else none. A one is tried at ONE_SIDES_TRIED shares of the side its pip guesses too."""
    least = least or FEW_LEAST
    # The rings first: a few samples each, where the judge costs a network pass a face.
    tries = [(k, DIE_PER_FACE * f.size * share) for k, f in enumerate(faces)
             for share in (ONE_SIDES_TRIED if f.value == 1 and f.certainty >= SURE_ONE else (1.0,))]
    tries = [(k, side) for k, side in tries if _on_own_body(bgr, faces[k].centre, side)]
    if _JUDGE is None or len({k for k, _ in tries}) < least:
        return []
    chance = _JUDGE.judge(bgr, np.array([faces[k].centre for k, _ in tries], np.float64),
                          np.array([side for _, side in tries])).die
    held = sorted({k for (k, _), p in zip(tries, chance) if p >= FEW_DIE})
    return [faces[k] for k in held] if len(held) >= least else []


# A one the scorer is SURE_ONE sure of is also looked for on a die of these shares of the side its
# pip guesses: some dice's ones have pips half again as big as others' (matteop65's), and at the
# side guessed both body rings lay on the table. Photos of dice showing ones, enlarged, were read
# unshrunk: matteop65 x2 / x3 1158 / 1161 -> 1171 / 1172 dice read (false dice 51 / 57 -> 50 /
# 60); at their own size and smaller, x1.5, nell-byler at every size, the simulator the same. For
# ones of any certainty, matteop65 lost a die at its own size (a half-sure one of a three, at half size).
ONE_SIDES_TRIED = (1.0, 0.65, 0.45)


def _on_own_body(bgr: np.ndarray, centre_xy: tuple[float, float], side: float) -> bool:
    """Whether a die body of this side stands out from the table: the colour around its centre,
    within the die, differs from the colour just beyond the die (a small dark die or a blank cube
    taken for a one's pip has table both ways)."""
    centre = np.array(centre_xy, np.float32)
    body = _median(sample(bgr, centre + _RING16 * (BODY_RINGS[0] * side)))
    table = _median(sample(bgr, centre + _RING16 * (BODY_RINGS[1] * side)))
    return float(np.linalg.norm(body - table)) >= BODY_STANDS_OUT


# In a look at a smaller size, ones and twos tell the pip size when the judge is FEW_DIE sure of a
# die at each, each lies on a body that stands out from the table by BODY_STANDS_OUT (colour
# distance between rings of BODY_RINGS die sides about its centre), and FEW_LEAST of them are.
# matteop65 enlarged 2 / 3 times (its photos of ones and twos were read unshrunk): 82.5 -> 93.0 %
# and 75.1 -> 91.3 % read; the photo sets at their own size and nell-byler resized, the same or
# better. The judge alone passed nell-byler's small dark dice on a white table (shrunk 3-5 times,
# read as ones and twos) and a grey round button on a white tray. Over 40 simulator frames of
# things and no dice, pip-less cubes, tokens and cards passed for ones and set the size: 54 false
# dice with the judge alone, 24 with two or more faces, 5 with the rings, none with both (as
# before: none). A one's die side comes from its pip: matteop65's ones have big pips, their sides
# come out about three times too big, and both rings lie on the table, beside the die and farther
# off; they pass where those differ (shadow, uneven light or cloth) and are refused on an even
# table, where the frame is read as before.
FEW_DIE, FEW_LEAST = 0.9, 2
# Where a frame shows no face at its own size, one die on its body at a smaller size, of a face
# the scorer is LONE_SURE of, tells the pip size (a close photo of a single die showing a one or a
# two; two such dice were needed before). Where a frame's own faces weigh (_weighed) under
# FAINT_EVIDENCE, a smaller size whose faces outweigh them tells it too. matteop65 enlarged
# 1.5 / 2 / 3 times: 1169 / 1131 / 1122 -> 1185 / 1151 / 1156 dice read, false dice 59 / 59 / 92 ->
# 54 / 58 / 67; nell-byler at every size, both sets at their own size and smaller, the simulator's
# tables and its things, the same. Without the body rings, nell-byler's small dark dice on a white
# table were read as a one and a two of big pips (3 dice lost at its own size); at FAINT_EVIDENCE
# 2.5, nell-byler enlarged 3 times had 3 false dice more.
LONE_SURE, FAINT_EVIDENCE = 0.95, 2.0
# Such a lone die counts wherever the frame's own faces are faint (weigh under FAINT_EVIDENCE), not
# only where it shows none: in a close photo of one die, the wood's half-sure faces of small pips
# kept a sure two at half size from counting, and the photo was read unshrunk (matteop65 x1.5 46 ->
# 22 false dice, +1 die; x2 +1 die, 4 false dice more; x3 +2 dice; nell-byler x2 a die fewer; at their
# own size and smaller, the same).
LONE_WHEN_FAINT = True
# A frame sure of pips over NEAR_TOP px is also looked at in half size (_halved_factor): a pip
# wider than the kernel is measured too small. nell-byler enlarged 2.5 / 3 / 4 times: 977 / 994 /
# 1022 -> 993 / 1003 / 1026 dice read, false dice 44 / 38 / 18 -> 32 / 36 / 14; the sets at other
# sizes and the simulator read the same dice (x2: a false die fewer on nell-byler, one more on
# matteop65), and a live table is not looked at again. It costs a half-size look on 133 more of matteop65's 396
# photos (its pips are 2.9-4.6 px): about 0.5 ms on their median. At 3.0, nell-byler x2.5 read 3
# dice more for 26 more such looks.
NEAR_TOP = 3.3
# (So once was a frame whose settled faces of three or more pips had pips over NEAR_TOP while
# half-sure faces of specks pulled the median under it; since big photos are sized by the faces the
# judge finds dice at, every photo of both sets at seven sizes read the same without that rule.)
# A smaller size's face of three or more pips the scorer is this sure of tells the pip size where a
# frame's own faces are faint and none of them of two or more pips is as sure (a close photo of a
# single die, where a half-sure face of the wood or of the pips' specks stood against it); a still
# smaller size must then outweigh it. Resized x1.5 / x2 / x2.5 / x3 / x4: matteop65 1185 / 1151 /
# 1152 / 1156 / 1156 -> 1187 / 1159 / 1158 / 1161 / 1163 dice read, false dice 54 / 59 / 92 / 67 /
# 67 -> 46 / 51 / 82 / 57 / 57; nell-byler x2 / x2.5 / x3 / x4 1025 / 993 / 1003 / 1026 -> 1028 /
# 996 / 1004 / 1030. At their own size and smaller, the simulator's tables, its things and 80
# close frames of 1-4 dice of 70-200 px, the same dice (nell x0.5 one more).
OUTRIGHT = 0.95
BODY_RINGS, BODY_STANDS_OUT = (0.36, 0.85), 30.0


# Ones and twos alone that tell a frame's own pips too big for it (it would be shrunk) must be dice on
# their bodies, as in a smaller look: nell-byler's photos at half size, where each small dark die
# on the white mat is a sure one's pip, were shrunk further and none of their dice read (987 ->
# 1008 dice read, false dice 17 -> 12; x3 one die fewer). Where faces of three or more pips are
# sure too, their pips outweigh the twos' already (BODY_AS_PIP): checked there as well, nell-byler
# x3 lost 6 dice. (This rule, ONE_SIDES_TRIED and LONE_WHEN_FAINT together: the simulator's things
# 14 -> 11 false dice on 400, its tables the same.)
BIG_ONES_CHECKED = True
# So must ones and twos alone that tell a frame's own pips too small for it (it would be enlarged),
# at its own size (_sized_by_pips; a look at twice a small frame's size counts them as they are):
# beside a die, a laptop's key symbols passed for sure ones and enlarged the photo, whose speaker
# grille then read as dice (matteop65 x2: 1169 -> 1172 dice read, false dice 64 -> 42; x0.5 2 dice
# and 2 false dice fewer, x0.75 4 false dice more; nell-byler x0.75 2 dice fewer, a photo of a one
# and a two of pips under 1.5 px read as it is, x1.5 a die and a false die more; the rest the same).
SMALL_ONES_CHECKED = True


# A die's face takes at most this share of the frame's short side (two round marks far apart on
# a binder are no die's two).
MAX_FACE_SHARE = 0.35
# A one's pip is about this much bigger than the pips of the other faces of the same die.
ONE_PIP = 0.75
# Pips the surest faces find this many times the top of PIP_RANGE or bigger are believed over the
# other sure faces' (at 1.0, matteop65 held out lost a die whose pips are 4.3-4.6 px).
BIG_PIPS = 1.1
# A two whose pips are over this many times the radius of the sure faces of three or more pips is
# two dice seen as pips (2.5 and 3 read the photo sets alike, resized or not).
BODY_AS_PIP = 3.0
# Pips under 1/SIDE_PIPS of a sure one's pip are of its die's side faces (a one's own pip is only a
# third or so bigger than the other faces' pips).
SIDE_PIPS = 2.5


# Frames whose pips' radius (pixels) lies within PIP_RANGE are read as they are; smaller pips are
# enlarged to the first PIP_TARGET, bigger ones shrunk to the second. The photo sets at their own
# size: nell-byler's pips 1.6-3.0 px, matteop65's 2.9-4.6 px. The floor from 1.5 px to 2.0:
# nell-byler at x0.5 / x0.75 1008 / 1000 -> 1018 / 1026 dice read (false dice 12 / 13 -> 11 / 9),
# matteop65 at x0.5 1179 -> 1190 (47 -> 34 false); at its own size nell-byler 1046 -> 1047 dice,
# 7 -> 9 false (34 of its 121 photos enlarged 1.2-1.5 times; over the eight looks, +10 dice and +12
# false dice); matteop65 x0.75 / x1.5 / x2 3 / 1 / 2 dice fewer, false dice -4 / -6 / +10; the
# simulator the same, its things 12 -> 11 false dice. (FINE_RADIUS follows the floor.) Shrunk to
# 2.6 px rather than 3.0 (the pip finder measures big pips short, and the sets read best at
# 2.3-3.5): nell-byler x1.5 / x2 / x3 1040 / 1024 / 1004 -> 1039 / 1028 / 1008 dice read (false dice
# 15 / 20 / 34 -> 16 / 20 / 23), matteop65 1184 / 1172 / 1174 -> 1184 / 1175 / 1177 (false 16 / 42 /
# 60 -> 24 / 35 / 43); at their own size the same, matteop65's warm, cool and dark looks 3 false
# dice more each (cool a die fewer).
PIP_RANGE, PIP_TARGET = (2.0, 4.3), (2.4, 2.6)
# This much certainty (about three sure faces) at full size makes looking at smaller sizes needless.
SURE_EVIDENCE = 2.5
# A smaller size is believed over a larger one when its sure faces weigh this much more.
COARSER_GAIN = 1.3
# Frames are looked at in half size while their short side stays at least this long.
PROBE_SIDE = 160
# A frame whose own faces are sure (SURE_EVIDENCE, and not faint) of pips under PIP_RANGE is not
# looked at in half and quarter size before it is enlarged: over both photo sets at seven sizes
# (x0.4-x3) and four looks, 604 frames were so, and in none did a smaller size outweigh their own
# faces, so every reading stays as it was (readings_hash the same). It saves two looks on 27 of
# nell-byler's photos as shot (whose pips are small) and on most photos shrunk to half size.
SURE_SMALL_SETTLES = True
# Pips found in a smaller size count only when at least this big there (pixels of radius). At 2.2,
# ones judged dice in a quarter-size look (their pips 1.4-1.6 px, as a one's pip is taken at 0.75)
# did not count: at 1.5, matteop65 x2 / x3 93.0 -> 93.7 % and 91.3 -> 92.4 %, nell-byler x3 +1 die
# (+1 false); at their own size, matteop65 held out -1 die, fully held out +2 (and 1 false fewer);
# the other sizes, nell-byler held out and clutter-only frames, the same.
COARSE_RADIUS = 1.5
# A frame with tiny pips is enlarged at most this much by what its own and smaller sizes show (a small
# frame's bigger looks, FINER_LOOKS, at most as much as the look that found its pips).
MAX_ENLARGE = 2.0
# A small frame is looked at these many times bigger in turn (_finer_factor), and enlarged at most as
# much as the look that found its pips. Three times, where twice left it unsure with pips still
# under PIP_RANGE's floor: nell-byler at x0.4 (256 px, dice of ~16 px and pips of ~0.6 px radius)
# 1004 -> 1023 dice read (false dice 20 -> 18), at x0.5 1042 -> 1043 (14 -> 13); matteop65 at x0.4,
# x0.5 and x0.75 the same dice and false dice, at about the same time a photo. Three times wherever
# twice was unsure: nell-byler x0.4 1032 dice (15 false), matteop65 x0.4 3 false dice more, and its
# small photos of ones (unsure at any size) took twice as long.
FINER_LOOKS = (2.0, 3.0)
# A frame whose short side is under this many pixels, which its own and smaller sizes would not
# enlarge, is looked at twice as big too. At first only where no face was sure or it would be
# shrunk: nell-byler's photos at half size (320 px) 71.3 -> 92.3 % read (false dice 44 -> 22),
# matteop65's 97.0 -> 97.6 % (+1 false die); nell-byler's photos at their own size (640 px) lost
# 2 dice to it. Where its own faces are sure too: nell-byler at x0.4 (256 px) 91.9 -> 94.5 %
# (false dice 24 -> 21), matteop65 at x0.4 97.8 -> 98.3 %; every other size and look, the
# simulator and the things the same.
SMALL_FRAME = 400
# Pips found in a look at twice the size count when under this radius (pixels) at the frame's own.
FINE_RADIUS = 1.3 * PIP_RANGE[0]


def _resized(bgr: np.ndarray, factor: float) -> np.ndarray:
    """The frame resized by `factor` (area-averaged when shrunk, bicubic when enlarged)."""
    size = (max(8, round(bgr.shape[1] * factor)), max(8, round(bgr.shape[0] * factor)))
    return cv2.resize(bgr, size, interpolation=cv2.INTER_AREA if factor < 1.0 else cv2.INTER_CUBIC)


def _cut_off(shape: tuple[int, ...], face: "_Face") -> bool:
    """True when a face's square runs off the image: a lone spot there (a key's symbol, a screw)
    shows no face around it to tell it from a one."""
    reach = ONE_MARGIN * face.size
    x, y = face.centre
    return not (reach <= x <= shape[1] - reach and reach <= y <= shape[0] - reach)


# A one's centre lies at least this many face sides inside the image.
ONE_MARGIN = 0.5


# Also look for die bodies that no pip-first face covers, and for pips that a face missed (faint
# pips: red on black, swirls, gloss).
BODY_FIRST = True
# A chosen face the scorer is this sure of keeps its value whatever its body shows.
CERTAIN = 0.99
# A blob of touching dice that erosion cannot part is split at its deepest points where it holds a
# chosen face the scorer is at least this sure of: a heap of dice shows a die read already. Split so,
# nell-byler as shot read 1051 -> 1055 dice (swirled ones and a gold three in heaps), over its sizes
# and looks 14,401 -> 14,482, the same false dice but 4 (152 -> 156, before NEW_BODY rose); every
# heap split, 1056 as shot, but matteop65's cable labels printed with text, each one blob with its
# cable, were 3 false dice more. At 0.8-0.9 the same false dice and a die fewer: a label's text
# makes a face the scorer is sure of.
HEAP_SURE = 0.5
# How sure the reader is of a die found by its body (its pips formed a real layout in its square).
BODY_CERTAINTY = 0.5


def _body_faces(bgr: np.ndarray, chosen: list["_Face"]) -> tuple[list["_Face"], list[Square], list[Square]]:
    """The chosen faces, with a higher value where their die's body shows more pips, and the faces
    of the die bodies that they miss, at the chosen faces' typical size (with a judge, it reads
    those bodies itself: _fallen_back); all body squares; and the fainter squares off them, for
    the judge (FAINT_BODIES)."""
    measured = [f.size for f in chosen if f.value > 1]
    if not measured:
        # No sure die size to look for: the judge looks at every strictly square blob at its own
        # size (a lone die whose pips the pip finder missed, red on a dark body; dice showing ones).
        return chosen, unsized_squares(bgr) if _JUDGE is not None else [], []
    typical = _middle(measured)
    # Faces the scorer is half sure of mark the heaps of touching dice (a heap of things mostly holds none).
    sure = np.array([f.centre for f in chosen if f.certainty >= HEAP_SURE], np.float64).reshape(-1, 2)
    faint_too = FAINT_BODIES and _JUDGE is not None
    squares, *faint = squares_by_step(bgr, typical, (BODY_STEP, FAINT_STEP) if faint_too else (BODY_STEP,), dice=sure)
    # With the judge at hand, a body that holds no chosen face is left to it: it tells a die from
    # a blob better than the body's own pips do (held out, two-fold: nell-byler 94.5 -> 95.0 % end
    # to end, with the face scorer held out too 93.8 -> 94.5 %), and faster (nell-byler's median
    # 15.2 -> 12.6 ms a photo, one core).
    # A face the scorer is all but certain of shows all its die's pips: its body is not read again
    # (a third of nell-byler's body reads, ~0.6 ms each; held out, every die read the same).
    certain = frozenset(k for k, f in enumerate(chosen) if f.certainty >= CERTAIN)
    bodies, more = find_bodies(bgr, typical, [(f.centre, f.value) for f in chosen], squares,
                               missed=_JUDGE is None, settled=certain, upgrade=_VALUES is None)
    out = [replace(f, value=more[k]) if k in more else f for k, f in enumerate(chosen)]
    if _VALUES is not None:
        out = _upgraded(bgr, out, squares, typical, certain)
    return out + [_body_face(bgr, body) for body in bodies], squares, _off_bodies(faint[0], squares) if faint else []


def _body_face(bgr: np.ndarray, body: Body) -> "_Face":
    """The face of a die found by its body: the value its pips show, its colour from a ring inside it."""
    turn = np.radians(body.angle + np.arange(0.0, 360.0, 45.0))
    ring = np.stack([np.cos(turn), np.sin(turn)], axis=1) * (0.4 * body.side)
    colour = _median(sample(bgr, np.array(body.centre, np.float32) + ring))
    return _Face((), body.value, body.centre, body.side / (2.0 * HALF_SIDE), body.angle, body.error,
                 tuple(float(v) for v in colour), certainty=BODY_CERTAINTY)


# The judge also looks at die-sized blobs fainter than a body (dice_bodies.FAINT_STEP) where no body
# square lies, and takes a die there only as surely as one at pips alone (NEW_DIE): matteop65's
# ivory dice on light wood, their pips streaked by motion, showed no pip and no body. Nell-byler as
# shot 1059 -> 1060 dice, matteop65 1197 -> 1199, the same false dice; over each set's six sizes and
# eight looks nell 14,640 -> 14,641 (132 false both), matteop 16,659 -> 16,691 (243 -> 241 false).
# Taken as bodies (NEW_BODY), matteop 16,706 but 248 false; at a step of 25 or 35 (not 30), as shot
# the same and a die fewer.
FAINT_BODIES = True
# Where the judge kept and added its dice, it falls back on the body squares no die holds: a body
# whose own pips read a value, apart from every die kept, where the judge over its patch's four
# quarter turns finds a die at least VETO likely (its first look alone can be sure of none 0.1 px
# from a place where it is unsure: a dark swirled die, 0.009 there and 0.76 turned). A judge that
# has not seen a set's dice is surest of their absence: trained without nell-byler (48 epochs, the
# training of 2026-12-06) it read that set 1006 -> 1032 dice (12 false both), x0.5 1011 -> 1031,
# x1.5 1004 -> 1034, as JPEG 941 -> 989, dark 1009 -> 1038, no false die more; the reader with no
# judge at all reads 1007. With the shipped judge nell-byler as shot 1060 -> 1061 (a red swirled
# one), matteop65 the same; over each set's six sizes and eight looks nell 14,641 -> 14,649 dice
# (132 -> 134 false), matteop 16,691 -> 16,692 (241 -> 250 false: a keyboard's keys, a cable's
# label, a laptop's edge whose marks read as pips); a bar of 0.2 or 0.4, not VETO, kept 7 and 15
# fewer of the unseen set's dice.
BODY_FALLBACK = True
# Only body squares where the judge's first look found a die at least this likely are read (a body
# read costs ~0.3 ms: at 0 nell-byler's photos read 3.6 a photo, 1.2 ms; at 0.0001 0.35); at 0.001
# a die fewer of the unseen set's.
FALLBACK_FLOOR = 0.0001


def _off_bodies(faint: list[Square], squares: list[Square]) -> list[Square]:
    """The faint squares whose centre lies over half a side (theirs or the body's) from every body square."""
    return [(centre, side, angle) for centre, side, angle in faint
            if all(np.hypot(centre[0] - x, centre[1] - y) > 0.5 * max(side, other) for (x, y), other, _ in squares)]


def _upgraded(bgr: np.ndarray, faces: list["_Face"], squares: list[Square], typical: float,
              settled: frozenset[int]) -> list["_Face"]:
    """The faces, each of a value often short of pips (SHORT_VALUES) and not `settled` (indices)
    with the higher value that the value reader, at least UPGRADE_SURE sure, reads on its die's
    body square: a six whose pips were fitted as a three reads as a six at its body's middle."""
    owners = square_owners(squares, [f.centre for f in faces], typical)
    asked = [(k, centre) for (centre, _, _), k in zip(squares, owners)
             if k >= 0 and faces[k].value in SHORT_VALUES and k not in settled]
    if not asked:
        return faces
    # One look at each body: looks beside an unsure one (ValueReader.read) raised no value more in
    # either photo set at any size or look, and cost ~0.4 ms a nell-byler photo.
    centres = np.array([centre for _, centre in asked], np.float64)
    chances = _VALUES.read(bgr, centres, DIE_PER_FACE * typical, beside=False)
    out = list(faces)
    for (k, _), chance in zip(asked, chances):
        value = int(chance.argmax()) + 1
        if value > out[k].value and chance.max() >= UPGRADE_SURE:
            out[k] = replace(out[k], value=value)
    return out


# A short face's value is raised to the value reader's when it reads a higher one this sure on the
# face's body. It used to be raised by the body's own pips (dice_bodies.find_bodies), which the reader
# still does without the value reader: a body read took ~0.4 ms (1.4 a nell-byler photo), a value
# read ~0.13. Nell-byler and matteop65 as shot the same dice (nell's six fitted as a three in
# IMG_20191208_112332 still raised); over each set's six sizes and eight looks nell 14,568 -> 14,574
# dice, matteop the same, no false die more; the simulator, its colours and its things the same. At
# 0.7, a die fewer (bright). Nell-byler's median photo ~1 ms faster.
UPGRADE_SURE = 0.5


def _colour_names(bgr: np.ndarray, faces: list["_Face"], profile: ColourProfile,
                  lift: Lift = Lift()) -> list[tuple[str, float]]:
    """Each face's colour name and its confidence, beside the table when the profile knows it;
    `lift` is how the frame was brightened when the faces' own colours were taken."""
    tables = None
    if profile.table is not None:
        tables = tables_beside(bgr, [(f.centre, f.size) for f in faces])
    return profile.classify_many(_body_colours(bgr, faces, lift), tables)


def _body_colours(bgr: np.ndarray, faces: list["_Face"], lift: Lift = Lift()) -> np.ndarray:
    """Each face's body colour (n, 3): for a fitted face, the median of eight points half a grid
    step around its centre, which lie between the pips of every layout and well inside the die
    (the rings around its pips reach a touching die's body); for a face the judge moved, of a ring
    around its new centre; otherwise the colour found with it (in a frame brightened by `lift`)."""
    places = np.array([f.centre for f in faces], np.float32).reshape(-1, 2)
    out = lift.undone(np.array([f.body for f in faces], np.float32).reshape(-1, 3), places).astype(np.float32)
    fitted = [k for k, f in enumerate(faces) if len(f.pips) > 1 and not f.moved]
    if fitted:
        turn = np.radians([faces[k].angle for k in fitted])
        e1 = np.stack([np.cos(turn), np.sin(turn)], axis=1)
        e2 = np.stack([-e1[:, 1], e1[:, 0]], axis=1)
        steps = np.array([faces[k].step for k in fitted], np.float32)[:, None, None]
        centres = np.array([faces[k].centre for k in fitted], np.float32)[:, None, :]
        points = centres + steps * (_INNER_BODY[None, :, :1] * e1[:, None, :] + _INNER_BODY[None, :, 1:] * e2[:, None, :])
        out[fitted] = _median(sample(bgr, points), axis=1)
    # A face the judge moved has neither its grid (from its old centre, it samples the die's pips: a
    # black three, moved off two of its pips, was named gray) nor its pips' colour to go by (a two
    # fitted across a black one and the white die it touched, moved onto the one, was named gray).
    moved = [k for k, f in enumerate(faces) if f.moved]
    if moved and MOVED_RING:
        centres = np.array([faces[k].centre for k in moved], np.float32)[:, None, :]
        reach = MOVED_RING * np.array([faces[k].size for k in moved], np.float32)[:, None, None]
        out[moved] = _median(sample(bgr, centres + reach * _RING16[None]), axis=1)
    return out


# A moved face's colour is the median of 16 points this share of its side around its centre: inside
# its die, mostly between its pips (a few of a five's or six's pips it touches do not move the median).
# With the simulator's eighth lighting the five colour sets' frames changed, and one such black one
# was named gray (1 error in 20,599 dice); with the ring, none.
MOVED_RING = 0.3


# Points between the pips of every layout, in grid steps from the face's centre.
_INNER_BODY = np.array([(0.5, 0.5), (0.5, -0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, 0.0), (-0.5, 0.0), (0.0, 0.5),
                        (0.0, -0.5)], np.float32)


def tables_beside(bgr: np.ndarray, dice: list[tuple[tuple[float, float], float]]) -> np.ndarray:
    """The table's colour (BGR) just beside each die (centre, face size): the median of rings of
    points around it that fall on no die, so a shadow or a dark corner on one side counts for little;
    the table field where too few such points are left (a die in a crowd)."""
    centres = np.array([c for c, _ in dice], np.float32).reshape(-1, 2)
    sides = DIE_PER_FACE * np.array([size for _, size in dice], np.float32)
    points = centres[:, None, :] + sides[:, None, None] * _TABLE_RINGS[None]  # (n, points, 2)
    h, w = bgr.shape[:2]
    gaps = np.hypot(points[:, :, None, 0] - centres[None, None, :, 0], points[:, :, None, 1] - centres[None, None, :, 1])
    free = (gaps >= TABLE_CLEAR * sides[None, None, :]).all(axis=2)
    free &= (points[..., 0] >= 0) & (points[..., 0] < w) & (points[..., 1] >= 0) & (points[..., 1] < h)
    colours = sample(bgr, points)
    out = np.empty((len(dice), 3), np.float32)
    field = None
    for k in range(len(dice)):
        if free[k].sum() >= TABLE_POINTS:
            out[k] = _median(colours[k][free[k]])
        else:
            field = table_field(bgr, dice) if field is None else field
            out[k] = _table_at(field, bgr.shape, tuple(centres[k]))
    return out


# Rings of points around a die (in die sides) where the table is sampled, and how far from every
# die's centre (in that die's sides) a point must lie to count as table; at least TABLE_POINTS must.
# Simulator, three sets of 28 frames with a learned profile (~10,800 dice): rings at 0.9-1.5 sides
# named 4 gray dice white (shadows and side faces reach that far), at 1.4-2.2 none, at 1.6-2.4 two.
_RING_TURNS = np.radians(np.arange(0.0, 360.0, 15.0))
# Each ring is turned by its radius in radians, so that the three rings' points do not line up.
_TABLE_RINGS = np.concatenate([np.stack([np.cos(_RING_TURNS + r), np.sin(_RING_TURNS + r)], axis=1) * r
                               for r in (1.4, 1.8, 2.2)]).astype(np.float32)
TABLE_CLEAR = 1.0
TABLE_POINTS = 12


# The learned judge of candidate faces (None: the hand-made rules below decide).
_SCORER = load_scorer()
# The convolutional judge of die places (None: the pip-first reading stands).
_JUDGE = load_judge()
# The close-up value reader of unsure dice (None: the other stages' values stand).
_VALUES = load_value_reader()


def judged_by(judge: DiceJudge | None) -> AbstractContextManager[None]:
    """Read with this judge of die places (None: none) inside the block, and with the one before after it."""
    # For the benchmarks and the judge's training, which score a judge that is not shipped (one
    # trained without a photo set, a candidate) by the same reader; the table never swaps it.
    return _network_swapped("_JUDGE", judge)


def valued_by(reader: ValueReader | None) -> AbstractContextManager[None]:
    """Read with this value reader (None: none) inside the block, and with the one before after it."""
    # For the benchmarks, which score a value reader that is not shipped (one trained without a
    # photo set) by the same reader, so that a set both networks have not seen can be read.
    return _network_swapped("_VALUES", reader)


@contextmanager
def _network_swapped(name: str, network) -> Iterator[None]:
    """The module's network of this name set to `network` inside the block, the one before after it."""
    before = globals()[name]
    globals()[name] = network
    try:
        yield
    finally:
        globals()[name] = before


# Places nearer than this share of the typical face size are judged once; nearer than CHOSEN_REACH
# to a face the pip-first reader chose, they are left to that face.
PROPOSAL_SPACING, CHOSEN_REACH = 0.2, 0.8
# Places the judge finds likelier than this to hold a die are judged again at the centre it found.
RECHECK = 0.2
# A die the judge finds lies at least this share of a die side from every other.
DIE_SPACING = 0.6


def judge_proposals(chosen: list["_Face"], candidates: list["_Face"], squares: list[Square],
                    settled: np.ndarray | None = None, pips: Pips | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """The places worth judging (n x 2, at least PROPOSAL_SPACING typical face sizes apart), the
    die side expected at each, and the typical die side; no places when no face tells the size.
    Chosen faces that `settled` marks (one flag a face; none without it) are not judged (but still
    keep other places off them). With the frame's `pips`, the pips of a die's size that no chosen face
    holds are places too."""
    return _proposals(chosen, candidates, squares, settled, pips)[:3]


def _proposals(chosen: list["_Face"], candidates: list["_Face"], squares: list[Square],
               settled: np.ndarray | None = None, pips: Pips | None = None) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """judge_proposals' places, sides and typical die side, and which places are loose pips."""
    typical = _typical_face(chosen, candidates, squares)
    if not typical:
        return np.zeros((0, 2)), np.zeros(0), 0.0, np.zeros(0, bool)
    faces = chosen + candidates
    places = [f.centre for f in faces]
    # A fitted layout of two or more pips tells its own die's size (dice nearer an angled camera
    # look bigger); a lone pip does not, and takes the typical size; nor does a body, unless no
    # chosen face told the size that its square was looked for at (unsized_squares).
    sizes = [f.size if f.value > 1 and f.pips else typical for f in faces]
    places += [centre for centre, _, _ in squares]
    told = _size_told(chosen)
    sizes += [typical if told else side / DIE_PER_FACE for _, side, _ in squares]
    placed = len(places)
    places += _loose_pips(chosen, pips)
    sizes += [typical] * (len(places) - len(sizes))
    # Other places near a chosen face are mostly other fits of that die's pips: judging the face once
    # is enough (and the judge's time grows with every place).
    reach = np.full(len(places), PROPOSAL_SPACING * typical)
    reach[:len(chosen)] = CHOSEN_REACH * typical
    keep = _spread_out(np.array(places, np.float64).reshape(-1, 2), reach)
    if settled is not None:
        keep = keep[[k >= len(chosen) or not settled[k] for k in keep]]
    sides = DIE_PER_FACE * np.clip(np.array(sizes)[keep], SIZE_RANGE[0] * typical, SIZE_RANGE[1] * typical)
    return np.array(places, np.float64).reshape(-1, 2)[keep], sides, DIE_PER_FACE * typical, keep >= placed


def _loose_pips(chosen: list["_Face"], pips: Pips | None) -> list[tuple[float, float]]:
    """The centres of the clear, round pips of about the chosen faces' pip size that lie beyond every
    chosen face: a die whose other pips were missed (faint, on a swirled body), or a one whose face
    the lone-pip rules doubted, shows at least one. Where only ones are chosen, of about their pips' size."""
    # With only ones chosen, their pips tell the size: a photo of ones shows a blurred one's pip that
    # no lone-pip rule took (matteop65 in sample 1193 -> 1194 dice read; resized x0.5 / x0.75 / x3 +1
    # die each, x2 2 false dice more; held out and nell-byler at every size the same).
    sized = [f.radius for f in chosen if f.value > 1 and f.pips] or [f.radius for f in chosen if f.pips]
    if pips is None or not len(pips) or not sized:
        return []
    radius = _middle(sized)
    clear = ((pips.radius >= LOOSE_RADIUS[0] * radius) & (pips.radius <= LOOSE_RADIUS[1] * radius)
             & (pips.contrast >= PIP_THRESHOLD) & (pips.roundness >= LOOSE_ROUNDNESS))
    xy = pips.xy[clear]
    centres = np.array([f.centre for f in chosen], np.float64)
    sizes = np.array([f.size for f in chosen], np.float64)
    # Within a face side of a chosen face's centre lie its own pips and its die's side faces' pips.
    beyond = (_gaps(xy, centres) >= LOOSE_CLEAR * sizes[None, :]).all(axis=1)
    return [(float(x), float(y)) for x, y in xy[beyond]]


# Pips no chosen face holds are judged when their radius lies in this range of the chosen faces'
# (a one's pip is a third or so bigger) and they are at least this round. Held out (two-fold,
# nell-byler): 92.6 -> 94.4 % end to end, no more false dice; rounder than 0.6, matteop65's blurred
# pips add 2-3. Up to 2.5 times, the pips of dice far bigger than the frame's others (photos
# enlarged 3x) were judged ones: matteop65 x3 102 -> 111 false dice, the same read at own size.
LOOSE_RADIUS, LOOSE_ROUNDNESS = (0.6, 1.8), 0.6
# A loose pip lies at least this many face sides from every chosen face's centre: the simulator's
# side-face pips took a third of its frames' judging (12.0 -> 8.8 patches a frame, ~0.7 ms); held
# out, the same dice were read (in sample, nell-byler lost 3 of 1063 in two clumps).
LOOSE_CLEAR = 1.0


# A die's side is about this many times the side of its pips' grid (the face size a fit measures):
# 1.0-1.9 as dice makers place pips nearer the edges or the middle; the judge learns that spread.
DIE_PER_FACE = 1.4
# A place's own face size counts only within this share of the typical size.
SIZE_RANGE = (0.7, 1.45)


def _size_told(chosen: list["_Face"]) -> bool:
    """True when a chosen face of two or more pips tells the dice's size (a one's size is a guess from its pip)."""
    return any(f.value > 1 for f in chosen)


def _typical_face(chosen: list["_Face"], candidates: list["_Face"], squares: list[Square] = ()) -> float:
    """The median side of the chosen faces of two or more pips; with no face chosen at all, the
    face of the median body square; else of the chosen ones (whose size their pip guesses), else of
    the candidate faces of two or more pips; 0 with none."""
    measured = [f.size for f in chosen if f.value > 1]
    if not measured and not chosen and squares:
        # A candidate face that no die holds (two dice's pips, side-face pips) tells a wrong size
        # more often than a body does: held out, nell-byler's few-dice photos +4 dice.
        measured = [side / DIE_PER_FACE for _, side, _ in squares]
    # With only ones chosen, the candidates of several pips are mostly their dice's side faces, of far
    # smaller pips: the ones' guess is nearer (matteop65 held out 1181 -> 1188 dice, 23 -> 25 false
    # dice, in sample +1, fully held out +2; simulator frames of only ones 70 -> 77 of 90 read).
    measured = measured or [f.size for f in chosen] or [f.size for f in candidates if f.value > 1]
    return _middle(measured) if measured else 0.0


def _valued_faces(bgr: np.ndarray, faces: list["_Face"], candidates: list["_Face"], squares: list[Square] = ()) -> list["_Face"]:
    """The faces, each face the reader is not sure of with the value reader's value where the value
    reader is sure of it (faint, small or red-on-dark pips that the pip stages miss or misplace),
    each face the scorer is SETTLED but not RECHECKED sure of with its value where the value reader
    is OVERRULED sure of another, and each die found by its body with the value reader's value; all
    read at the frame's die side, or the body `squares`' where bigger (_value_read_side)."""
    unsure = [k for k, f in enumerate(faces) if (f.certainty < RECHECKED or not f.pips) and not f.value_read]
    typical = _typical_face(faces, candidates)
    if not unsure or not typical:
        return faces
    side = _value_read_side(DIE_PER_FACE * typical, faces, squares)
    chances = _VALUES.read(bgr, np.array([faces[k].centre for k in unsure], np.float64), side)
    out = list(faces)
    for k, chance in zip(unsure, chances):
        # A die found by its body takes the value reader's value however unsure: held out, the body
        # reader's own pips were right less often (nell 92.47 -> 92.57 % end to end; recompressed
        # as JPEG of quality 50, where faint pips break up, 84.20 -> 85.42 %; matteop unchanged).
        bar = OVERRULED if faces[k].pips and faces[k].certainty >= SETTLED else VALUE_SURE
        if chance.max() >= bar or not faces[k].pips:
            out[k] = replace(out[k], value=int(chance.argmax()) + 1)
    return out


# The value reader's value replaces an unsure face's when the reader is this sure of it. Held out
# (two-fold by halves, nell): of 199 unsure pip faces 176 were right before, 186 after; of 179
# bodies 130 before, 155 after; faces the face scorer was sure of were left alone (602 of 610 right;
# the value reader would have made it 598).
VALUE_SURE = 0.7
# Faces the scorer is SETTLED but less than RECHECKED sure of are read by the value reader too, and
# take its value where it is OVERRULED sure of another (a pip missed or one too many, mostly 4s and
# 5s): nell-byler as shot 1048 -> 1049 dice read (a white six read as a three), resized x0.5 /
# x0.75 / x1.5 / x2 +3 / +5 / +3 / +1, summed over its six sizes and eight looks 14,316 -> 14,352;
# matteop65 +3 summed, the same as shot; the simulator's frames (which the value reader was not
# trained on) 515 -> 516 of 520, no colour error, its things the same; no false die more anywhere.
# It reads 1.2 more patches a nell-byler photo, 2.7 a 26-dice simulator frame (~0.37 ms each). All
# SETTLED faces, at this bar: x0.75 +8, but ~20 more patches a full table.
OVERRULED, RECHECKED = 0.85, 0.99


def _without_front_faces(faces: list["_Face"], pips: Pips) -> list["_Face"]:
    """The faces less each one that a camera tilted over the table shows as the front face of the die
    above it: straight below another face and nearer to it than FRONT_REACH of the dice's face side,
    of a value the same die can show beside it, where the two faces' pips look flattened."""
    typical = _fitted_face_side(faces)
    if len(faces) < 2 or not typical or not len(pips):
        return faces
    centres = np.array([f.centre for f in faces], np.float64)
    values = np.array([f.value for f in faces])
    # [k, m]: how far face m lies right of and below face k.
    right = centres[None, :, 0] - centres[:, None, 0]
    below = centres[None, :, 1] - centres[:, None, 1]
    # One die shows each value once, and never two opposite faces (they sum to seven).
    one_die = (values[:, None] != values[None, :]) & (values[:, None] + values[None, :] != 7)
    front = ((below > 0) & (np.abs(right) < FRONT_SLANT * below) & (np.hypot(right, below) < FRONT_REACH * typical)
             & one_die)
    if not front.any():
        return faces
    near = _pips_near(pips, centres, FRONT_PIPS * typical)
    for k, m in zip(*np.nonzero(front)):
        held = near[k] | near[m]
        # Seen straight from above, round pips look round (0.83 or more in such pairs of touching
        # dice in the simulator's tables); a tilted camera flattens them (0.61-0.68 in matteop65's).
        front[k, m] = held.any() and float(pips.roundness[held].mean()) < FLAT_PIPS
    return [f for m, f in enumerate(faces) if not front[:, m].any()]


def _pips_near(pips: Pips, centres: np.ndarray, reach: float) -> np.ndarray:
    """For each centre, which pips lie within `reach` of it and are of the polarity of the pip nearest it."""
    gaps = _gaps(centres, pips.xy)
    nearest = pips.polarity[gaps.argmin(axis=1)]
    return (gaps < reach) & (pips.polarity[None, :] == nearest[:, None])


# A face straight below another (leaning by at most FRONT_SLANT of its drop), within FRONT_REACH of
# the dice's face side of it, whose pips and the other's measure under FLAT_PIPS of roundness
# (minor over major axis, the pips within FRONT_PIPS face sides of each centre) is the front face
# of the other's die, seen from a camera tilted toward it. matteop65's angled webcam showed such
# faces 0.74-1.03 face sides below their top faces: 8 of its 14 false dice, 6 of them dropped here
# (one front face holds a pip of its top face; one lies among ones, which tell no face side).
# Touching dice seen from above lie as near (1.0-1.05 in the simulator's tables), but their pips
# are round. A camera's tilt points each front face away from where the camera looks straight down,
# so off the frame's middle it leans sideways too: a slant of 0.65 of the drop rather than 0.5 over
# both photo sets' fifteen readings (as shot, six sizes, eight looks) dropped 6 false dice more
# (one front face, matteop65's dice_46, in six of them), every die read as before, the simulator's
# tables and things the same; at a reach of 1.2 or 1.3 face sides, 3 and 10 of nell-byler's dice
# were lost. Judging by the flattest face's pips rather than both faces' together (a top face's
# pips stay rounder) dropped 10 false dice more but lost 3 of the simulator's touching dice, whose
# single faces' pips measure as flat (0.54-0.75).
FRONT_REACH, FRONT_SLANT, FRONT_PIPS, FLAT_PIPS = 1.1, 0.65, 0.6, 0.76


def _each_die_once(faces: list["_Face"]) -> list["_Face"]:
    """The faces less each one nearer than ONE_DIE of the dice's face side to a surer one: two dice
    never overlap, so the two are one die read twice (a fitted face and the judge's die beside it)."""
    typical = _fitted_face_side(faces)
    if len(faces) < 2 or not typical:
        return faces
    surest_first = np.argsort([-f.certainty for f in faces], kind="stable")
    centres = np.array([faces[k].centre for k in surest_first], np.float64)
    kept = surest_first[_spread_out(centres, np.full(len(faces), ONE_DIE * typical))]
    return [faces[k] for k in sorted(kept.tolist())]


# Readings nearer than this many face sides are one die's. nell-byler's IMG_20191208_111457: a
# fitted four (0.78 sure; the die shows a three) and the judge's three 0.6 face sides from it, both
# read (as shot 1049 -> 1050 dice right, false dice 9 -> 8); the next nearest readings in both sets
# lie 0.8 face sides apart or more (touching dice, and front faces before _without_front_faces).
ONE_DIE = 0.7


def _without_dice_holding_dice(faces: list["_Face"]) -> list["_Face"]:
    """The faces less each one whose top face would hold HELD_DICE or more smaller dice read apart
    from it: dice lie beside each other, never on a die's top face, so such a face is made of the
    other dice's pips (the middle pips of two fives side by side fit one big diagonal two)."""
    if len(faces) <= HELD_DICE:
        return faces
    centres = np.array([f.centre for f in faces], np.float64)
    sides = np.array([f.size for f in faces], np.float64)
    # [k, m]: face m is centred within face k's top (the circle inside its square, however turned)
    # and is far smaller than it.
    held = (_gaps(centres, centres) < 0.5 * sides[:, None]) & (sides[None, :] < HELD_SMALLER * sides[:, None])
    return [f for f, count in zip(faces, held.sum(axis=1)) if count < HELD_DICE]


# A reading centred over this many others, each under HELD_SMALLER of its side, is no die. Over both
# photo sets' fifteen readings (as shot, six sizes, eight looks) such readings were 13 of 407 false
# dice (a two 3.5 face sides wide across the middle pips of two fives, a one across a six and a
# four) and none of the 33,737 readings of labelled dice, for shares 0.6-0.8 and the top's reach
# 0.4-0.55 sides alike; over one smaller reading they would be 8 dice read right (a real two
# holding a false three) and no more false dice.
HELD_DICE, HELD_SMALLER = 2, 0.7


def _fitted_face_side(faces: list["_Face"]) -> float:
    """The median side of the faces fitted to two or more pips, 0 with none (the judge's dice and
    bodies take the frame's size, and a one's is a guess from its pip)."""
    measured = [f.size for f in faces if f.value > 1 and f.pips]
    return _middle(measured) if measured else 0.0


def _spread_out(points: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """Indices of the points in order, each dropped when it lies within the reach of one kept before it."""
    gaps = _gaps(points, points)
    dropped = np.zeros(len(points), bool)
    kept = []
    for k in range(len(points)):
        if not dropped[k]:
            kept.append(k)
            dropped |= gaps[k] < reach[k]
    return np.array(kept, np.intp)


def _judged_faces(bgr: np.ndarray, chosen: list["_Face"], candidates: list["_Face"],
                  squares: list[Square], pips: Pips | None = None, faint: list[Square] = ()) -> list["_Face"]:
    """The pip-first reader's faces that the judge does not reject, the dice the judge is sure of
    where the pip-first reader chose nothing (looked for also at the frame's loose `pips` and at
    `faint` blobs, which are not bodies: FAINT_BODIES), and the dice whose bodies' pips read a value
    where it found none and is not sure there is none (BODY_FALLBACK)."""
    bead_like = _bead_like(chosen, candidates)
    settled = _settled(chosen, bead_like)
    places, sides, typical, loose = _proposals(chosen, candidates, list(squares) + list(faint), settled=settled, pips=pips)
    if not len(places):
        return chosen
    # The loose pips are looked at last, and only beyond the dice the other places found: there, a
    # loose pip is mostly another pip of that die.
    early = _looked(bgr, places[~loose], sides[~loose])
    found = early.centres[early.verdict.die >= NEW_DIE]
    ask = loose.copy()
    if len(found) and ask.any():
        ask[loose] = _gaps(places[loose], found).min(axis=1) >= LOOSE_FOUND * typical
    first, likely, centres, verdict = early.then(_looked(bgr, places[ask], sides[ask]))
    places, sides = places[~loose | ask], sides[~loose | ask]
    sides = sides[likely]
    # Settled faces keep their value too: the judge's look at a place beside one (a loose pip of the
    # next die) may come to rest on it and read it less well than its fitted pips did.
    settled_at = np.array([f.centre for f, sure in zip(chosen, settled) if sure], np.float64).reshape(-1, 2)
    kept = [f if sure else _revalued(f, centres, sides, verdict) for f, sure, bead in zip(chosen, settled, bead_like)
            if sure or (_die_chance(f, places, first.die, centres, verdict.die, typical) >= (BEAD_VETO if bead else VETO)
                        and not _judged_onto(f, places[likely], centres, settled_at, typical))]
    if RECENTRED and _size_told(chosen):
        kept = _recentred(bgr, kept, typical)
    # A place on a die-sized body is a die on less of the judge's word than a place with pips alone.
    needed = np.where(_on_bodies(places[likely], squares, typical), NEW_BODY, NEW_DIE)
    new = [k for k in np.argsort(-verdict.die).tolist() if verdict.die[k] >= needed[k]]
    pips_alone = needed == NEW_DIE
    new = _steady_when_turned(bgr, new, pips_alone & _apart_from_pips(centres, kept, typical), centres, sides)
    if _VALUES is None:
        new = [k for k in new if verdict.values[k].max() >= NEW_VALUE]  # the judge's value must be sure
    added = _spaced(new, centres, sides, [(np.array(f.centre), _own_side(f)) for f in kept])
    # The value reader reads a die closer and better than the judge (held out, nell: 92.6 % of dice
    # at their labelled centres against 84.2 %): its best value is taken, however sure, so it reads
    # only the dice that are added. It reads them at the frame's die side, as it reads unsure faces,
    # where a chosen face measured that (or the side of their bodies, where bigger: BODIES_SIZE):
    # a place's own side comes from a candidate face, often a
    # few pips of the die (in sample, 8 of nell's 15 wrong values were dice added at 0.5-0.8 of
    # their side; held out, nell 1023 -> 1027 dice right, matteop unchanged).
    # The added die takes that side too: its body colour is read within it and the table's beside it
    # (a gray die in dim light, added at 0.7 of its side, had the table sampled on its touching
    # neighbours and was named white: simulator colour sets, judges retrained today, 2 -> 1 and
    # 1 -> 0 errors in 18,090 dice; the shipped judge and both photo sets read the same).
    read_sides = np.full(len(added), _value_read_side(typical, chosen, squares)) if _size_told(chosen) else sides[added]
    chances = verdict.values[added] if _VALUES is None else _VALUES.read(bgr, centres[added], read_sides)
    for k, side, chance in zip(added, read_sides, chances):
        if pips_alone[k] and chance.max() < PIPS_ALONE_VALUE:
            continue  # a die at pips alone must show a value plainly (not a key's letter, a die's side face)
        if (SLANTED_SIDES_DROPPED and pips is not None and pips_alone[k] and chance.argmax() > 0
                and _slanted_side(centres[k], kept, pips, typical)):
            continue  # beside a kept die, its side face (a one's place holds its body's swirls, not flat pips)
        sure = float(verdict.die[k] * chance.max())
        kept.append(_judged_face(bgr, centres[k], int(chance.argmax()) + 1, sure, side, _VALUES is not None))
    if not BODY_FALLBACK:
        return kept
    # Only squares the judge's first look did not all but rule out are read (a body read costs ~0.3 ms).
    doubted = [square for square in squares
               if _die_chance_at(square[0], places, first.die, typical) >= FALLBACK_FLOOR]
    return kept + _fallen_back(bgr, chosen, kept, doubted, typical)


def _value_read_side(die_side: float, chosen: list["_Face"], squares: list[Square]) -> float:
    """The die side to read values at: the one the chosen faces' pips tell, or the side of the body
    squares that hold them where those are bigger (BODIES_SIZE)."""
    return max(die_side, _bodies_side(chosen, squares)) if BODIES_SIZE else die_side


# Some dice have their pips close together (a three fitted at 7 px on a die of 22 px): the die side
# their pips tell is too small, and a value read there sees too little of the die. Where the body
# squares around the chosen faces are bigger, values are read at their side. Measured: the photos'
# median ratio of body to pip-told side is 0.94 on nell-byler, 0.85 on matteop65; it passes 1.2 on
# 3 of nell's 121 photos. nell-byler as shot 1057 -> 1058 dice right (a blue five beside a purple
# one, added at pips alone, read 0.52 sure at 17.6 px, 0.96 at 24 px); over six sizes and eight
# looks 14,629 -> 14,637 right, 116 -> 117 false (a die held in a hand that its labels leave out);
# matteop65, the simulator, things, desk and patterned tables read the same.
BODIES_SIZE = True


def _bodies_side(chosen: list["_Face"], squares: list[Square]) -> float:
    """The median side of the body squares that hold a chosen face of two or more pips (0 where none does)."""
    held = np.array([f.centre for f in chosen if f.value > 1], np.float64).reshape(-1, 2)
    if not len(held) or not squares:
        return 0.0
    centres = np.array([centre for centre, _, _ in squares], np.float64)
    sides = np.array([side for _, side, _ in squares], np.float64)
    holding = _gaps(centres, held).min(axis=1) < BODY_REACH * sides
    return float(np.median(sides[holding])) if holding.any() else 0.0


def _die_chance_at(point: tuple[float, float], places: np.ndarray, chances: np.ndarray, die_side: float) -> float:
    """The highest of the judge's first-look die `chances` at `places` within half a die side of a
    point (1 where none lies so near)."""
    near = np.hypot(*(places - np.array(point)).T) < 0.5 * die_side
    return float(chances[near].max()) if near.any() else 1.0


def _fallen_back(bgr: np.ndarray, chosen: list["_Face"], kept: list["_Face"], squares: list[Square],
                 die_side: float) -> list["_Face"]:
    """The dice on body squares that no `kept` die holds, whose pips read a value (at the `chosen`
    faces' typical size), spaced from every kept die as the judge's own dice are (_spaced), and
    where the judge, over its patch's four quarter turns, finds a die at least VETO likely."""
    measured = [f.size for f in chosen if f.value > 1]
    if not squares or not measured:
        return []
    bodies, _ = find_bodies(bgr, _middle(measured), [(f.centre, f.value) for f in kept], squares, upgrade=False)
    if not bodies:
        return []
    centres = np.array([b.centre for b in bodies], np.float64)
    taken = [(np.array(f.centre), _own_side(f)) for f in kept]
    spaced = _spaced(list(range(len(bodies))), centres, np.full(len(bodies), die_side), taken)
    apart = [_body_face(bgr, bodies[k]) for k in spaced]
    if not apart:
        return []
    chance = _JUDGE.turned_die(bgr, np.array([b.centre for b in apart], np.float64), np.full(len(apart), die_side))
    return [b for b, c in zip(apart, chance) if c >= VETO]


def _apart_from_pips(centres: np.ndarray, kept: list["_Face"], die_side: float) -> np.ndarray:
    """For each centre: True when it lies TURNS_FROM die sides or more from every kept face of fitted pips."""
    pipped = np.array([f.centre for f in kept if f.pips], np.float64).reshape(-1, 2)
    if not len(pipped) or not len(centres):
        return np.ones(len(centres), bool)
    return _gaps(centres, pipped).min(axis=1) >= TURNS_FROM * die_side


def _slanted_side(centre: np.ndarray, kept: list["_Face"], pips: Pips, die_side: float) -> bool:
    """True when a die the judge found at pips alone is the side face of a kept die beside it: within
    SLANT_REACH die sides of a kept face of fitted pips, its own pips (those within SLANT_PIPS die
    sides of its centre) flatter than SLANT_FLAT and than SLANT_FLATTER times that face's pips."""
    pipped = [f for f in kept if f.pips]
    if not pipped or not len(pips):
        return False
    gaps = np.hypot(*(np.array([f.centre for f in pipped], np.float64) - centre).T)
    nearest = int(gaps.argmin())
    own = np.hypot(*(pips.xy - centre).T) < SLANT_PIPS * die_side
    if gaps[nearest] >= SLANT_REACH * die_side or not own.any():
        return False
    flat = float(pips.roundness[own].mean())
    top = float(pips.roundness[list(pipped[nearest].pips)].mean())
    return flat < SLANT_FLAT and flat < SLANT_FLATTER * top


# A camera at a slant sees a die's side face beside its top face, its pips flattened more than the
# top face's (a side face is foreshortened by the sine of the tilt, the top by its cosine: so at
# moderate tilts). A judge that has not seen a set's dice finds dice on such side faces at pips
# alone: trained without matteop65 (its angled webcam), about 20 of its 108 false dice there lay
# within 1.5 die sides of a kept face, their pips 0.41-0.60 round against 0.63-0.88 for that face's.
# Seen from above, touching dice show round pips; the dice the judge found at pips alone beside a
# die, in either set, had pips at least 0.51 round and at least 0.66 times as round as their
# neighbour's. A one is left alone: its place holds one pip and its body's swirls, which measure
# flat (two swirled ones of nell-byler, as a JPEG and at x2, were dropped when it was not). Asked
# after the dice are spaced, so that no other place takes a dropped one's. Trained without
# matteop65, that set 108 -> 100 false dice as shot, x0.5 130 -> 126, x2 113 both, the same dice
# right (1180, 1164, 1160); trained without nell-byler, that set as shot, x0.5 and x2 read the same
# (1044, 1032, 1012 right). With the shipped judge readings_hash is the same, but nell-byler at x0.4
# reads a die fewer (a dark swirled three of a few pixels, its swirls flat).
# A rule that also dropped dice added off the dice where the judge all but ruled out the value
# reader's value took matteop65's held-out false dice 102 -> 78, but lost 13 of nell-byler's dice
# enlarged x2 to a judge that had not seen them, sure of wrong values: not kept (2026-12-07).
SLANTED_SIDES_DROPPED = True
SLANT_REACH, SLANT_PIPS, SLANT_FLAT, SLANT_FLATTER = 1.5, 0.4, 0.55, 0.7


def _steady_when_turned(bgr: np.ndarray, new: list[int], asked_for: np.ndarray, centres: np.ndarray,
                        sides: np.ndarray) -> list[int]:
    """The places in `new` (indices) less those `asked_for` where the judge, in any other quarter
    turn of the die's patch, finds a die under TURNS_SURE likely."""
    asked = [k for k in new if asked_for[k]]
    if not TURNS_SURE or not asked:
        return new
    least = _JUDGE.turned_dice(bgr, centres[asked], sides[asked]).min(axis=1)
    doubted = {k for k, chance in zip(asked, least) if chance < TURNS_SURE}
    return [k for k in new if k not in doubted]


# A die turned is the same die: where the judge, sure of a die at pips alone as the patch stands,
# finds none in one of its other quarter turns, the place is no die. A judge that has not seen a
# set's table is sure of dice on its clutter (keys, labels, a cable: trained without matteop65, 137
# false dice there against the reader's 22 with no judge at all); this takes 138 -> 122 of them (1176
# dice read right either way), and trained without nell-byler 12 -> 11 (1032 right either way).
# Only places TURNS_FROM die sides or more from every kept face of fitted pips are asked: the clutter
# lies off the dice (asking every such place: 120 false, but a 26-dice simulator frame asked ~4.5
# places, 13 patches, ~2.2 ms; so ~0.4 ms). With the shipped judge both sets as shot the same. It costs
# three patches a die asked (nell-byler ~0.7 ms a photo). With all four turns (the patch as it stands
# again at the die's centre) 119 false; at 0.73 (all places), 108 but a matteop65 die fewer.
TURNS_SURE, TURNS_FROM = 0.5, 1.5


def _judged_onto(face: "_Face", looked: np.ndarray, centres: np.ndarray, settled_at: np.ndarray, die_side: float) -> bool:
    """True when the judge, looking at an unsure face's place (one of `looked`, whose die `centres`
    it found), found the die centred on a settled face's centre and well off the unsure face: the
    unsure face is that die's side face. (A face's place is its own centre, unless another chosen
    face's place lay too near it to look at it.)"""
    at = np.flatnonzero((looked[:, 0] == face.centre[0]) & (looked[:, 1] == face.centre[1])) if len(looked) else []
    if not len(at) or not len(settled_at):
        return False
    found = centres[at[0]]
    reach = ONTO_SETTLED * die_side
    return bool(np.hypot(*(found - np.array(face.centre))) > reach and (_gaps(found[None], settled_at)[0] < reach).any())


# Within this share of a die side of a settled face's centre, the die the judge found is that face's:
# the side faces of nell-byler's swirled dice, fitted as a half-sure three, read as dice (held out,
# two-fold: nell-byler 7 -> 5 false dice; in sample 8 -> 7; resized, 1-2 false dice fewer at three
# of ten sizes, the same dice read; fully held out and the simulator the same).
ONTO_SETTLED = 0.35


class _Looks(NamedTuple):
    """The judge's first verdicts at some places, which of them are likely dice (over RECHECK), the
    centres it found at those, and its verdicts there (_second_look)."""

    first: Verdicts
    likely: np.ndarray
    centres: np.ndarray
    verdict: Verdicts

    def then(self, later: "_Looks") -> "_Looks":
        """These looks followed by later ones (at places after these)."""
        return _Looks(self.first.joined(later.first), np.concatenate([self.likely, later.likely]),
                      np.concatenate([self.centres, later.centres]), self.verdict.joined(later.verdict))


def _looked(bgr: np.ndarray, places: np.ndarray, sides: np.ndarray) -> _Looks:
    """The judge's looks at these places: a first look at each, a second where it found a die off centre."""
    if not len(places):
        none = Verdicts(np.zeros(0), np.zeros((0, 6)), np.zeros((0, 2)))
        return _Looks(none, np.zeros(0, bool), np.zeros((0, 2)), none)
    first = _JUDGE.judge(bgr, places, sides, turned=TURNED)
    likely = first.die > RECHECK
    centres = places[likely] + first.offsets[likely] * sides[likely, None]
    verdict = _second_look(bgr, centres, sides[likely], first, likely)
    return _Looks(first, likely, centres + verdict.offsets * sides[likely, None], verdict)


# The judge's looks at the places worth judging take an unsure patch's four quarter turns
# (vision.dice_judge.UNSURE_LOGITS); the look that tells ones on bodies apart when sizing a frame
# (_dice_on_bodies) takes the patch as it stands: its rules were measured so, and with the turns
# there matteop65's close photos of ones, enlarged twice, were sized wrong (x2 4 dice fewer).
TURNED = True


# A loose pip within this share of a die side of a die the other places found (NEW_DIE sure) is
# not looked at: nell-byler's photos 21.8 -> 15.6 judge patches, median 11.8 -> 10.8 ms (one core);
# the same dice read in sample; held out, fully held out and resized x0.5-x3, 2 dice fewer of
# 10,000 and the same false dice; the simulator's colour sets 2 of 18,200 fewer. At 0.35, 3 fewer.
LOOSE_FOUND = 0.5


def _settled(chosen: list["_Face"], bead_like: np.ndarray) -> np.ndarray:
    """Which chosen faces the judge leaves as they are: those the face scorer is SETTLED sure of,
    except a `bead_like` one (_bead_like), where the scorer cannot tell a one from a round spot."""
    # A bead among dice (simulator frames of 10 dice and 8 things: 10 beads read as ones -> 1).
    return np.array([f.certainty >= SETTLED for f in chosen], bool) & ~bead_like


def _bead_like(chosen: list["_Face"], candidates: list["_Face"]) -> np.ndarray:
    """Which chosen faces are ones that may be a round spot: every one where no layout of two or
    more pips tells the dice's size, else those whose pip is far bigger than the sure faces' pips (a
    one's pip is a third or so bigger than the others', a bead's round spot twice as big or more,
    though some dice have a one's pip that big: nell-byler's show a few, which the judge is sure of)."""
    if not any(f.value > 1 for f in chosen + candidates):
        # Beads on a wooden table, seen as ones, stood on the scorer's word: clutter-only simulator
        # frames (40 of them), 22 false dice -> 0; the photo sets read the same. They are held to
        # BEAD_VETO too: a judge trained with marked things gave two such beads 0.053 and 0.069.
        return np.array([f.value == 1 for f in chosen], bool)
    biggest = BIG_ONE * _sure_pip_radius(chosen)
    return np.array([f.value == 1 and f.radius > biggest for f in chosen], bool)


def _sure_pip_radius(chosen: list["_Face"]) -> float:
    """The median pip radius of the faces of two or more pips the scorer is SETTLED sure of (inf with none)."""
    sized = [f.radius for f in chosen if f.value >= 2 and f.pips and f.certainty >= SETTLED]
    return _middle(sized) if sized else np.inf


# A one whose pip's radius is over this many times the sure faces' pips' is judged however sure,
# and dropped unless the judge finds a die there at least BEAD_VETO likely (of beads read as ones
# in 60 simulator frames with things among the dice: 4 -> 1; real big ones it finds all but certain).
BIG_ONE, BEAD_VETO = 1.7, 0.2


def _on_bodies(places: np.ndarray, squares: list[Square], die_side: float) -> np.ndarray:
    """For each place: True when a body square's centre lies within BODY_REACH die sides of it."""
    if not len(squares) or not len(places):
        return np.zeros(len(places), bool)
    centres = np.array([centre for centre, _, _ in squares], np.float64)
    return _gaps(places, centres).min(axis=1) < BODY_REACH * die_side


# A place this near a body square's centre (in die sides; a place near one may have been judged in
# its stead) is on that body.
BODY_REACH = 0.25


def _spaced(order: list[int], centres: np.ndarray, sides: np.ndarray,
            taken: list[tuple[np.ndarray, float]]) -> list[int]:
    """The places in `order`, each dropped when it lies within DIE_SPACING of its side (or of the
    taken die's side, when bigger) of a taken die (centre, side), or of a place kept before it."""
    if not order:
        return []
    # All distances at once: a pair at a time cost ~0.25 ms a photo of nine dice.
    at = centres[order]
    reach = DIE_SPACING * sides[order]
    taken_at = np.array([centre for centre, _ in taken], np.float64).reshape(-1, 2)
    taken_reach = DIE_SPACING * np.array([side for _, side in taken], np.float64)
    near_taken = (_gaps(at, taken_at) < np.maximum(reach[:, None], taken_reach[None, :])).any(axis=1)
    gaps = _gaps(at, at)
    kept: list[int] = []
    for n in np.flatnonzero(~near_taken).tolist():
        if not (gaps[n, kept] < reach[n]).any():
            kept.append(n)
    return [order[n] for n in kept]


def _own_side(face: "_Face") -> float:
    """The side of a chosen face's die as its fitted pips tell it, where the face scorer is sure of
    them (else 0: a one, a body, an unsure fit, whose size says little). A die nearer the camera
    than the others is bigger: a place on its edge is no second die (held out, nell-byler's false
    dice 9 -> 7: four of the nine were a second die on a big one, and five are real dice its labels
    leave out; unsure fits counted too, its photos at half size lost 16 of 1063 dice)."""
    return DIE_PER_FACE * face.size if face.pips and face.value > 1 and face.certainty >= SETTLED else 0.0


def _second_look(bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray, first: Verdicts,
                 likely: np.ndarray) -> Verdicts:
    """The judge's verdicts at the centres its first look found: looked at again where the first
    look was off by more than RECENTRE of a side (the value is read best with the die centred)."""
    offsets = first.offsets[likely]
    values = first.values[likely].copy()
    die = first.die[likely].copy()
    off = np.hypot(offsets[:, 0], offsets[:, 1]) > RECENTRE
    moved = np.zeros_like(offsets)
    if off.any():
        again = _JUDGE.judge(bgr, centres[off], sides[off], turned=TURNED)
        values[off], die[off], moved[off] = again.values, again.die, again.offsets
    return Verdicts(die, values, moved)


# Chosen faces the face scorer is at least this sure of are left as they are: judging them costs
# time (a full table holds 26 dice) and, on held-out photos, changed almost none of them.
SETTLED = 0.95
# A first look this near (in die sides) to the die's centre is not repeated.
RECENTRE = 0.08


def _die_chance(face: "_Face", places: np.ndarray, first: np.ndarray, centres: np.ndarray, second: np.ndarray,
                typical: float) -> float:
    """The judge's highest chance of a die at or near a chosen face, over both looks."""
    point = np.array(face.centre)
    near_place = np.hypot(*(places - point).T) < 0.5 * typical
    near_centre = np.hypot(*(centres - point).T) < 0.5 * typical if len(centres) else np.zeros(0, bool)
    return max([0.0, *first[near_place].tolist(), *second[near_centre].tolist()])


def _revalued(face: "_Face", centres: np.ndarray, sides: np.ndarray, verdict: Verdicts) -> "_Face":
    """The face with the judge's value when the judge, at the die nearest it, is sure of another;
    moved to that die's centre when the judge is sure of the die and found it MOVED_FROM off."""
    gaps = np.hypot(*(centres - np.array(face.centre)).T) if len(centres) else np.zeros(0)
    if not len(gaps):
        return face
    k = int(gaps.argmin())
    sure_die = verdict.die[k] >= NEW_DIE
    off_middle = MOVED_FROM * sides[k] <= gaps[k] <= MOVED_REACH * sides[k]
    if MOVED and sure_die and off_middle and not _top_face_above(face, centres[k], int(verdict.value[k])):
        face = replace(face, centre=(float(centres[k, 0]), float(centres[k, 1])), moved=True)
    elif gaps[k] > 0.35 * sides[k]:
        return face
    if verdict.values[k].max() >= VALUE_OVERRIDE and sure_die:
        return replace(face, value=int(verdict.value[k]))
    return face


def _top_face_above(face: "_Face", die_centre: np.ndarray, die_value: int) -> bool:
    """Whether the face is the top face of the die the judge centres below it (TOP_FACES_STAY): the
    judge reads the face's own value there, and its pips look flattened."""
    dx, dy = die_centre - np.array(face.centre)
    return TOP_FACES_STAY and dy > abs(dx) and die_value == face.value and face.roundness < FLAT_PIPS


def _recentred(bgr: np.ndarray, faces: list["_Face"], die_side: float) -> list["_Face"]:
    """The faces, each the judge moved given the frame's `die_side`; one fitted MISFIT times bigger
    or smaller than the frame's faces also moved to the centre the judge finds at its new place
    with that side, where the judge is NEW_DIE sure of a die there."""
    face_side = die_side / DIE_PER_FACE
    step = face_side / (2.0 * HALF_SIDE)
    moved = [k for k, f in enumerate(faces) if f.moved]
    misfit = [k for k in moved if not 1.0 / MISFIT <= faces[k].size / face_side <= MISFIT]
    out = [replace(f, step=step) if f.moved else f for f in faces]
    if not misfit:
        return out
    centres = np.array([faces[k].centre for k in misfit], np.float64)
    again = _JUDGE.judge(bgr, centres, np.full(len(misfit), die_side), turned=TURNED)
    for k, centre, die, offset in zip(misfit, centres, again.die, again.offsets):
        if die >= NEW_DIE:
            x, y = centre + offset * die_side
            out[k] = replace(out[k], centre=(float(x), float(y)))
    return out


# A face the judge moved was looked at through a patch of its own fitted side (within SIZE_RANGE of
# the frame's): the judge reads a die's centre less surely in a patch of the wrong scale. Its
# colour is named within the die it was moved to, so it takes the frame's side; and one fitted
# more than MISFIT times bigger or smaller than the frame's faces (a two fitted as two pips along an
# edge, 1.4 times its side, across a gray die and the white one it touched) is looked at again there.
# With the judge trained from 2026-12-04's recipe, the simulator's colour sets 2 -> 0 errors of
# 20,582 dice (both such twos, now read at the white die, one of them a two where it had read a
# five); every re-look (not only the misfits') lost a black two of the simulator's 20 frames to
# the four it touched (517 -> 516 of 520). With the judge shipped before it, the photo sets, the
# simulator, its colour sets and its things read the same; its patterned tables 5 -> 6 false dice.
RECENTRED = True
MISFIT = 1.2


# A chosen face the scorer is unsure of is moved to the centre of the die the judge finds near it,
# where the judge is NEW_DIE sure of that die and finds it MOVED_FROM to MOVED_REACH of a die side
# off the face: pips fitted off a die's middle (a front face seen at an angle, a few pips of the
# top face) are read where the die is, and its value there. nell-byler's gold die showing a one,
# whose front face's three pips were fitted below it, read as a two (twice). Nell-byler as shot
# 1055 -> 1057 dice, matteop65 1195 -> 1196; over each set's six sizes and eight looks nell 14,479
# -> 14,503 (false dice 152 -> 144), matteop 16,594 -> 16,606 (317 -> 310); the simulator 516 ->
# 517 of 520, its crowded tables (touching 0.8) 397 -> 398 of 416; things the same. MOVED_FROM 0.15
# and 0.3 read within two dice of 0.2 at three sizes and two looks.
MOVED = True
MOVED_FROM, MOVED_REACH = 0.2, 0.5
# But a face the judge finds a die below (in the frame: toward the camera, whose tilt shows a die's
# front face below its top face, as the front-face rule takes it), reads the face's own value at,
# and whose pips look flattened (under FLAT_PIPS round: a camera at an angle) is that die's top
# face, and keeps its centre: a die seen from an angle is centred below its top face, on its body,
# which the labels leave out (matteop65 boxes only top faces). A die below it reading another value
# still takes the face (a one's pip above the die of a two), and a face the judge finds a die above
# (a front face) is moved as before. With the judge of 2026-12-09: matteop65 as shot 1196 -> 1197
# dice, 8 -> 7 false (a two in two_29.jpg read 12 px below its top face, outside its flat box);
# over its six sizes and eight looks 16,616 -> 16,619, 224 -> 221 false; nell-byler the same.
# Skipping every downward move lost a one read as its die's two in two_35.jpg; every move where the
# judge reads the face's value, nell-byler's gold one, whose fitted front face the judge reads as
# the same wrong two; without the flat pips, a white two of the simulator fitted off its die's
# middle was coloured gray where it stood (1 colour error in 20,576 dice).
TOP_FACES_STAY = True


# The judge's value replaces a chosen face's when the judge is this sure of it (and of the die).
VALUE_OVERRIDE = 0.98
# A die the pip-first reader missed is added when the judge is this sure of it and of its value
# (held-out photos: surer adds miss real dice, less sure ones add keyboard keys).
NEW_DIE, NEW_VALUE = 0.995, 0.8
# A die added at pips alone (on no die-sized body) is kept only where the value reader reads its
# value this sure, as the judge's own value must be (NEW_VALUE) where no value reader is shipped:
# keys with light letters, a cable's label, a basket's weave and the side faces of an angled
# webcam's dice show no die's value plainly. First asked only off the dice (TURNS_FROM die sides
# or more from every face of fitted pips): with the judge trained without matteop65 (the nearest
# here to another camera and table) its false dice 122 -> 95 at the same 1176 dice right; with
# both networks trained without it 124 -> 101, 1174 -> 1171 right; as shot, nell-byler 7 -> 6
# false dice; over the six sizes and eight looks nell 14,648 -> 14,625 dice (134 -> 126 false),
# matteop 16,690 -> 16,681 (247 -> 225 false). Asked beside the dice too (2026-12-07, the judge of
# 2026-12-06 retrained without matteop65: 94 false dice there, 1177 right), its side faces and the
# keys beside a die go: 94 -> 75 false dice at the same 1177 right (resized x0.5 115 -> 98, x2
# 119 -> 97, the same dice right); with the shipped judge, as shot nell-byler 1058 -> 1057 dice
# (a five in a crowd read 0.61 sure), matteop65 the same; over the six sizes and eight looks nell
# 14,642 -> 14,629 dice (110 -> 103 false), matteop 16,662 both (212 -> 208 false); the simulator's
# colour sets 20,581 -> 20,571 dice (no colour error either way), patterned tables 5 -> 4 false,
# its 26-dice frames and things the same; trained without nell-byler, that set 1037 -> 1036 dice
# right, 9 false both. Beside the dice at 0.6 or 0.7 (off them 0.8): 84 or 82 false there, and
# nell-byler's five still lost. Asking every die added at pips alone its other quarter turns
# instead (TURNS_SURE 0.7 / 0.9 beside the dice as off them): without matteop65 79 / 69 false
# dice, without nell-byler 1035 / 1033 right, and the shipped judge's matteop65 over the sizes and
# looks 11 / 22 dice fewer, at three patches a die asked (a 26-dice frame ~9 more).
PIPS_ALONE_VALUE = 0.8
# A die-sized body that holds no chosen face is a die when the judge is this sure (it was near
# certain or near sure of none at every body: 0.25, 0.5 and 0.9 added the same dice, held out).
# Since heaps are split (HEAP_SURE), more squares lie on things: 0.5 -> 0.7 read the same dice as
# shot and 7 fewer over nell-byler's sizes and looks (14,482 -> 14,475), 2 false dice fewer
# (156 -> 154), matteop65's the same dice and 4 false fewer (324 -> 320), the things that are not
# dice 15 -> 11 false on 400; at 0.8 and 0.9, nell-byler as shot lost 1 and 2 dice.
NEW_BODY = 0.7
# A chosen face the scorer is unsure of is dropped when the judge finds a die near it less likely
# than this. Held out (two-fold): false dice 20 -> 10 on nell at the same accuracy, 37 -> 17 on
# matteop for 7 real dice of 1206 lost.
VETO = 0.05


def _judged_face(bgr: np.ndarray, centre: np.ndarray, value: int, sure: float, die_side: float,
                 value_read: bool = False) -> "_Face":
    """A face found by the judge alone: its place's size, no turn, body colour from two rings."""
    # Well inside the die whatever its maker's pip spacing (the table and shadow lie beyond half a
    # side); the median of 16 points passes over the few that fall on pips.
    die_side = float(die_side)
    colour = _median(sample(bgr, centre.astype(np.float32) + _RINGS * die_side))
    return _Face((), value, (float(centre[0]), float(centre[1])), die_side / (DIE_PER_FACE * 2.0 * HALF_SIDE), 0.0, 0.0,
                 tuple(float(v) for v in colour), certainty=sure, value_read=value_read)


_TURNS = np.radians(np.arange(0.0, 360.0, 45.0) + 22.5)
_RINGS = np.concatenate([np.stack([np.cos(_TURNS), np.sin(_TURNS)], axis=1) * r for r in (0.12, 0.22)]).astype(np.float32)


def candidate_faces(image: np.ndarray) -> list[tuple["_Face", np.ndarray]]:
    """Every candidate face of an image with its scorer features, in the image's pixels (for training)."""
    bgr = _as_bgr(image)
    if bgr is None:
        return []
    regions = _regions(bgr)
    pips, _ = _find_all_pips(bgr, regions)
    candidates = _candidate_faces(bgr, pips, every_one=True)
    return list(zip(candidates, face_features(bgr, pips, candidates)))


# Frames larger than this (pixels) are first searched at half size for places with pips, and only
# those places are read at full size: a table is mostly empty, and full HD must take under 20 ms.
REGION_PIXELS = 1_200_000


def _regions(bgr: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x, y, w, h) of the frame worth reading: the whole of a small image, or around spots."""
    h, w = bgr.shape[:2]
    if h * w <= REGION_PIXELS:
        return [(0, 0, w, h)]
    half = shrunk(bgr, 2)
    dark, light = spot_map(half, PIP_KERNEL // 2 | 1)
    _, mask = cv2.threshold(cv2.max(dark, light), 30, 255, cv2.THRESH_BINARY)
    # Grow each spot by about a die's side (~60 px full size) so whole dice fall inside a box.
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (REGION_MARGIN, REGION_MARGIN)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes = [tuple(2 * v for v in cv2.boundingRect(c)) for c in contours]
    if sum(bw * bh for _, _, bw, bh in boxes) > 0.5 * h * w:
        return [(0, 0, w, h)]
    return [(x, y, min(bw, w - x), min(bh, h - y)) for x, y, bw, bh in _merged(boxes)]


def _merged(boxes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Boxes joined where one box around two costs little more than the two (fewer, larger reads)."""
    boxes = list(boxes)
    joined = True
    while joined:
        joined = False
        for a in range(len(boxes)):
            for b in range(a + 1, len(boxes)):
                (x1, y1, w1, h1), (x2, y2, w2, h2) = boxes[a], boxes[b]
                x, y = min(x1, x2), min(y1, y2)
                w, h = max(x1 + w1, x2 + w2) - x, max(y1 + h1, y2 + h2) - y
                if w * h <= 1.3 * (w1 * h1 + w2 * h2):
                    boxes[a] = (x, y, w, h)
                    del boxes[b]
                    joined = True
                    break
            if joined:
                break
    return boxes


REGION_MARGIN = 41


def _as_bgr(image: np.ndarray) -> np.ndarray | None:
    """The image as 8-bit BGR, or None when there is nothing to read."""
    if not isinstance(image, np.ndarray) or image.size == 0 or image.ndim not in (2, 3):
        return None
    if min(image.shape[:2]) < 8:
        return None
    if image.dtype != np.uint8:
        finite = np.nan_to_num(image.astype(np.float32), nan=0.0, posinf=0.0, neginf=0.0)
        image = cv2.normalize(finite, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    channels = image.shape[2]
    if channels == 1:
        return cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    if channels == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if channels == 3:
        return np.ascontiguousarray(image)
    return None


def _find_all_pips(bgr: np.ndarray, regions: list[tuple[int, int, int, int]] | None = None) -> tuple[Pips, float]:
    """Pip candidates of 1.3-15 px radius (dice of about 15-90 px), in the frame's pixels, only
    inside `regions` (x, y, w, h) when given; at most MAX_PIPS of them, and none of a patterned
    table's marks (_lattice_pips); and the spacing of the table's pattern (0 where it shows none)."""
    found = find_pips(bgr, kernel=PIP_KERNEL, threshold=PIP_THRESHOLD, min_area=5, max_area=700, regions=regions)
    # A patterned table's marks go first: kept among the strongest, they would crowd out the dice's pips.
    marks = _lattice_pips(found) if LATTICES_DROPPED else np.zeros(0, bool)
    if marks.any():
        return _strongest(found.take(~marks), MAX_PIPS), _mark_spacing(found.take(marks))
    # More pips than a full table of dice shows are a pattern's marks too, found too scattered for rows.
    return _strongest(found, MAX_PIPS), _mark_spacing(found) if len(found) >= CROWDED_PIPS else 0.0


def _mark_spacing(marks: Pips) -> float:
    """The typical distance (px) from a patterned table's mark to the nearest other mark."""
    start, end = _nearest_alike(marks, 1)
    if not len(start):
        return 0.0
    return float(np.median(np.hypot(*(marks.xy[start] - marks.xy[end]).T)))


def _faces(bgr: np.ndarray, pips: Pips) -> list[np.ndarray]:
    """Groups of pip indices joined by pairs that lie on one face (connected components)."""
    n = len(pips)
    if n == 0:
        return []
    i, j = _candidate_pairs(pips)
    joined = _same_face(bgr, pips, i, j)
    return _components(n, i[joined], j[joined])


def _components(n: int, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """The connected components of n nodes joined by edges a-b, each as its nodes in order, the
    components in order of their first node."""
    labels = np.arange(n)
    # Every node takes the least label among its neighbours, then its label's label, until nothing
    # changes: a few numpy passes, where a Python union-find cost a call per pip.
    while True:
        low = np.minimum(labels[a], labels[b])
        new = labels.copy()
        np.minimum.at(new, a, low)
        np.minimum.at(new, b, low)
        new = new[new]
        if np.array_equal(new, labels):
            break
        labels = new
    order = np.argsort(labels, kind="stable")
    starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
    return np.split(order, starts[1:])


def _candidate_pairs(pips: Pips) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of pips close enough, alike enough in size and polarity, to share a face."""
    xy, r = pips.xy, pips.radius
    i, j = _near_pairs(xy[:, 0], 6.0 * (r + (r.max() if len(r) else 0.0)))
    d = np.linalg.norm(xy[i] - xy[j], axis=1)
    rmean = (r[i] + r[j]) / 2
    ratio = np.maximum(r[i], r[j]) / np.minimum(r[i], r[j])
    # Opposite corners of a face are 2.8 grid steps apart; a step is at most ~4.5 pip radii.
    ok = (pips.polarity[i] == pips.polarity[j]) & (d < 12.0 * rmean) & (ratio < 1.8) & (d > 2.0 * rmean)
    i, j = i[ok], j[ok]
    order = np.lexsort((j, i))
    return i[order], j[order]


def _near_pairs(x: np.ndarray, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i < j) of points whose x lie less than the first's `reach` apart (in order of x
    from it): every pair of pips close enough to share a face, without the full n x n table (a
    full-HD table of ~200 pips: 1.0 -> 0.16 ms)."""
    n = len(x)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    start = np.arange(1, n + 1)
    counts = np.maximum(np.searchsorted(xs, xs + reach[order], side="left") - start, 0)
    first = np.repeat(np.arange(n), counts)
    # The k-th partner of each point is the k-th point after it in order of x.
    second = _runs_of(start, counts)
    a, b = order[first], order[second]
    return np.minimum(a, b), np.maximum(a, b)


_PATH = np.linspace(0.0, 1.0, 9, dtype=np.float32)[None, :, None]


def _same_face(bgr: np.ndarray, pips: Pips, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """For each pair: True when only body colour lies on the straight path between the two pips."""
    if len(i) == 0:
        return np.zeros(0, bool)
    contrast = np.minimum(pips.contrast[i], pips.contrast[j])
    body = (pips.body[i] + pips.body[j]) / 2
    alike = np.linalg.norm(pips.body[i] - pips.body[j], axis=1) <= 0.6 * contrast
    a, b = pips.xy[i], pips.xy[j]
    unit = (b - a) / np.linalg.norm(b - a, axis=1)[:, None]
    start = a + unit * (1.5 * pips.radius[i] + 0.5)[:, None]
    end = b - unit * (1.5 * pips.radius[j] + 0.5)[:, None]
    values = sample(bgr, start[:, None, :] + _PATH * (end - start)[:, None, :])
    worst = np.linalg.norm(values - body[:, None, :], axis=2).max(axis=1)
    # Pips so close that nothing lies between their rims are joined when their bodies agree.
    touching = np.sum((end - start) * unit, axis=1) <= 0
    return alike & (touching | (worst < np.clip(0.8 * contrast, 20.0, 200.0)))


@dataclass(frozen=True)
class _Face:
    """A face found: its pips (indices into the image's pips), value, centre, grid step, turn, fit error."""

    pips: tuple[int, ...]
    value: int
    centre: tuple[float, float]
    step: float
    angle: float
    error: float
    # The face's body colour (BGR, median around its pips) and its pips' mean roundness and radius.
    body: tuple[float, float, float] = (0.0, 0.0, 0.0)
    roundness: float = 1.0
    radius: float = 0.0
    contrast: float = 0.0
    # How sure the face scorer is that this is a die's top face (1 when no scorer is used).
    certainty: float = 1.0
    # True when the value reader gave the value already.
    value_read: bool = False
    # True when the judge moved the face to its die's centre, off its fitted pips (_revalued): its
    # step and turn no longer place points between its pips.
    moved: bool = False

    @property
    def size(self) -> float:
        """The face's side in pixels."""
        return 2.0 * HALF_SIDE * self.step


def _candidate_faces(bgr: np.ndarray, pips: Pips, every_one: bool = False) -> list[_Face]:
    """Every face the pip groups hold: fitted layouts of 2-6 pips, and lone pips that look like ones
    (with `every_one`, also pips already in a layout, for the face scorer to choose between)."""
    faces: list[_Face] = []
    lone: list[int] = []
    shapes = _PipShapes.of(pips)
    groups = _faces(bgr, pips)
    # A group of more pips than a heap of dice shows is a pattern (a dotted cloth, a perforated
    # board): its pips are neither fitted (the fitting grows with the cube of a group's size) nor ones.
    pattern = np.zeros(len(pips), bool)
    big = [group for group in groups if len(group) > MAX_GROUP]
    if big:
        pattern[np.concatenate(big)] = True
        groups = [group for group in groups if len(group) <= MAX_GROUP]
    for group, (fits, left) in zip(groups, fit_groups(pips.xy, pips.radius, pips.roundness, groups)):
        for fit in fits:
            members = tuple(int(group[m]) for m in fit.members)
            faces.append(_face(shapes, members, fit.value, fit.centre, fit.step, fit.angle, fit.error))
        lone.extend(int(group[m]) for m in left)
    steps = [f.step / f.radius for f in faces]
    # A one's pip is usually bigger than the others; its face is ~2.9 of its radius per grid step.
    ratio = _middle(steps) * 0.8 if steps else 2.9
    lone_ = np.flatnonzero(~pattern) if every_one else np.array(lone, np.intp)
    alone = np.isin(lone_, np.array(lone, np.intp))
    for k in lone_[_lone_pips_are_dice(bgr, pips, lone_, alone)].tolist():
        x, y = pips.xy[k]
        faces.append(_face(shapes, (k,), 1, (float(x), float(y)), float(pips.radius[k]) * ratio, 0.0, 0.2))
    return faces


# Most pips one group of touching dice holds (a dozen dice in a heap, all fives and sixes).
MAX_GROUP = 72


# Points of a face that no pip covers, in grid steps: between the pips and towards the edges.
_GAPS = np.array([(0.5, 0.5), (0.5, -0.5), (-0.5, 0.5), (-0.5, -0.5), (1.5, 0.5), (1.5, -0.5), (-1.5, 0.5),
                  (-1.5, -0.5), (0.5, 1.5), (-0.5, 1.5), (0.5, -1.5), (-0.5, -1.5)], np.float32)
# A one's turn is unknown and its step guessed: stay nearer its centre.
_GAPS_ONE = np.array([(0.5, 0.5), (0.5, -0.5), (-0.5, 0.5), (-0.5, -0.5), (1.1, 0.0), (-1.1, 0.0), (0.0, 1.1),
                      (0.0, -1.1), (0.8, 0.8), (-0.8, 0.8), (0.8, -0.8), (-0.8, -0.8)], np.float32)
# Share of those points that must show the face's body colour (gloss and swirls may cover some).
PLAIN_SHARE = 0.5


def _plain_shares(bgr: np.ndarray, faces: list[_Face]) -> np.ndarray:
    """For each face, the share of points between and around its pips that show its body colour:
    high for a die's face; low for a key with a letter, unrelated spots, or a top and a side mixed."""
    if not faces:
        return np.zeros(0)
    turn = np.radians([f.angle for f in faces])
    e1 = np.stack([np.cos(turn), np.sin(turn)], axis=1)
    e2 = np.stack([-e1[:, 1], e1[:, 0]], axis=1)
    gaps = np.stack([_GAPS_ONE if f.value == 1 else _GAPS for f in faces])
    steps = np.array([f.step for f in faces], np.float32)[:, None, None]
    centres = np.array([f.centre for f in faces], np.float32)[:, None, :]
    points = centres + steps * (gaps[..., :1] * e1[:, None, :] + gaps[..., 1:] * e2[:, None, :])
    bodies = np.array([f.body for f in faces], np.float32)[:, None, :]
    off = np.linalg.norm(sample(bgr, points) - bodies, axis=2)
    tolerance = np.clip(0.35 * np.array([f.contrast for f in faces], np.float32), 25.0, 70.0)[:, None]
    return np.mean(off < tolerance, axis=1)


def face_features(bgr: np.ndarray, pips: Pips, faces: list[_Face]) -> np.ndarray:
    """The numbers the face scorer judges each candidate face by (see vision/dice_scorer.FEATURES)."""
    n = len(faces)
    if n == 0:
        return np.zeros((0, 23))
    # Members as a padded (faces, 6) index table, so every per-face statistic is one numpy call.
    members = np.full((n, 6), -1, np.intp)
    for k, f in enumerate(faces):
        members[k, :len(f.pips)] = f.pips
    used = members >= 0
    safe = np.where(used, members, 0)
    value = np.array([f.value for f in faces])
    centres = np.array([f.centre for f in faces])
    sizes = np.array([f.size for f in faces])
    steps = np.array([f.step for f in faces])
    measured = sizes[value > 1] if (value > 1).any() else sizes
    typical = _middle(measured.tolist())
    radius = np.array([f.radius for f in faces])
    roundness = np.array([f.roundness for f in faces])
    bodies = np.array([f.body for f in faces])
    # Brightness is left out on purpose: a gray die beside a white one must not look like a side face.
    saturation = (bodies.max(axis=1) - bodies.min(axis=1)) / np.maximum(bodies.max(axis=1), 1.0)
    distance = _gaps(centres, centres)
    np.fill_diagonal(distance, np.inf)
    near = distance < 1.4 * typical
    neighbour_round = np.where(near, roundness[None, :], -1.0).max(axis=1)
    neighbour_radius = np.where(near, radius[None, :], 0.0).max(axis=1)
    polarity = pips.polarity[safe[:, 0]]
    # Pips of each face's kind relative to it: inside its square (strays) or within three steps.
    turn = np.radians([f.angle for f in faces])
    rel = pips.xy[None, :, :] - centres[:, None, :]
    u = np.abs(rel[..., 0] * np.cos(turn)[:, None] + rel[..., 1] * np.sin(turn)[:, None]) / steps[:, None]
    v = np.abs(-rel[..., 0] * np.sin(turn)[:, None] + rel[..., 1] * np.cos(turn)[:, None]) / steps[:, None]
    own = np.zeros((n, len(pips)), bool)
    np.put_along_axis(own, safe, used, axis=1)
    kind = (pips.polarity[None, :] == polarity[:, None]) & ~own
    stray = (kind & (np.maximum(u, v) < HALF_SIDE * 0.9)).sum(axis=1)
    ratio = pips.radius[None, :] / radius[:, None]
    partners = (kind & (np.hypot(u, v) < 3.0) & (ratio > 1 / 1.45) & (ratio < 1.45)).sum(axis=1)
    count = used.sum(axis=1)
    features = np.zeros((n, 23))
    features[np.arange(n), value - 1] = 1.0
    features[:, 6] = [f.error / TOLERANCE for f in faces]
    features[:, 7] = roundness
    features[:, 8] = np.where(used, pips.roundness[safe], np.inf).min(axis=1)
    features[:, 9] = radius / _middle(radius.tolist())
    features[:, 10] = sizes / typical
    features[:, 11] = np.array([f.contrast for f in faces]) / 255.0
    features[:, 12] = _plain_shares(bgr, faces)
    features[:, 13] = saturation
    features[:, 14] = np.where(neighbour_round >= 0, roundness - neighbour_round, 0.0)
    features[:, 15] = (distance < 0.85 * typical).sum(axis=1)
    features[:, 16] = polarity == 0
    features[:, 17] = steps / np.maximum(radius, 0.5)
    features[:, 18] = np.where(used, pips.spread[safe], 0.0).sum(axis=1) / count
    features[:, 19] = np.minimum(3.0, distance.min(axis=1) / typical) if n > 1 else 3.0
    features[:, 20] = stray
    features[:, 21] = np.where(neighbour_radius > 0, radius / np.maximum(neighbour_radius, 1e-6), 1.0)
    features[:, 22] = partners
    return features


def _chosen_faces(faces: list[_Face], probability: np.ndarray) -> list[_Face]:
    """The likely top faces, best first, each dropping the candidates it overlaps or shares pips with
    (overlaps measured in the median size of the likely faces of several pips)."""
    # The typical size is of the faces the scorer finds likely: small side-face fits and specks, many
    # in a close photo, once shrank it until a die's front face lay beyond a top face's reach
    # (nell-byler x1.5: 25 -> 13 false dice and 3 dice more read; x0.5 +4 dice; x2 -2 dice and 4
    # false fewer; in sample 19 -> 17 false dice; held out the same; fully held out 4 false fewer).
    likely = probability >= _SCORER.threshold
    measured = ([f.size for f, sure in zip(faces, likely) if f.value > 1 and sure]
                or [f.size for f in faces if f.value > 1] or [f.size for f in faces])
    typical = _middle(measured) if measured else 0.0
    kept: list[_Face] = []
    # The kept faces' pips, centres and sizes, so that a face is checked against all of them in one
    # numpy call (a call per pair of faces cost ~2 ms a full-HD frame of 26 dice).
    taken: set[int] = set()
    centres, sizes = np.empty((len(faces), 2)), np.empty(len(faces))
    for k in np.argsort(-probability).tolist():
        face = faces[k]
        if probability[k] < _SCORER.threshold:
            break
        if not taken.isdisjoint(face.pips) or _clashes(face, centres[:len(kept)], sizes[:len(kept)], typical):
            continue
        centres[len(kept)], sizes[len(kept)] = face.centre, face.size
        taken.update(face.pips)
        kept.append(replace(face, certainty=float(probability[k])))
    return kept


# Two top faces lie about a typical face side apart at least (dice touching, seen from above)...
CLASH_REACH = 0.9
# ...and a face this much smaller than the typical one, this near a surer face, is that die's side face.
SMALL_FACE, SIDE_REACH = 0.75, 1.3


def _clashes(face: _Face, centres: np.ndarray, sizes: np.ndarray, typical: float) -> bool:
    """True when a face lies so near a surer chosen face (of these centres and sizes) that it counts
    as part of the same die."""
    if not len(centres):
        return False
    gaps = np.hypot(face.centre[0] - centres[:, 0], face.centre[1] - centres[:, 1])
    if face.value > 1 and face.size < SMALL_FACE * typical:
        return bool((gaps < np.where(sizes > face.size, SIDE_REACH * typical, CLASH_REACH * typical)).any())
    return bool((gaps < CLASH_REACH * typical).any())


def _gaps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distances (n x m) from each of n points (n x 2) to each of m points (m x 2)."""
    return np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])


def _middle(values: list[float]) -> float:
    """The median of a short list (numpy's median costs ~50 us a call)."""
    ordered = sorted(values)
    n = len(ordered)
    return 0.5 * (ordered[(n - 1) // 2] + ordered[n // 2])


def _median(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """np.median along an axis, the same numbers by a sort: ~6 us a call on the few points of a
    die's rings, where np.median's checks cost ~19 us (about ten calls a photo)."""
    n = values.shape[axis]
    return np.take(np.sort(values, axis=axis), [(n - 1) // 2, n // 2], axis=axis).mean(axis=axis)


@dataclass(frozen=True)
class _PipShapes:
    """The pips' body colours, roundness, radius and contrast as Python lists: a face is made of a
    few pips, and plain Python on a few numbers is ~10 times faster than a numpy call."""

    body: list
    roundness: list
    radius: list
    contrast: list

    @classmethod
    def of(cls, pips: Pips) -> "_PipShapes":
        """The lists of a set of pips."""
        return cls(pips.body.tolist(), pips.roundness.tolist(), pips.radius.tolist(), pips.contrast.tolist())


def _face(shapes: _PipShapes, members: tuple[int, ...], value: int, centre: tuple[float, float], step: float,
          angle: float, error: float) -> _Face:
    """A face with the colour and shape of its pips filled in."""
    n = len(members)
    # The median body colour channel by channel (the upper one of an even count).
    body = tuple(sorted(channel)[n // 2] for channel in zip(*(shapes.body[k] for k in members)))
    return _Face(members, value, centre, step, angle, error, body,
                 sum(shapes.roundness[k] for k in members) / n, sum(shapes.radius[k] for k in members) / n,
                 min(shapes.contrast[k] for k in members))


def _frontal_faces(pips: Pips, faces: list[_Face]) -> list[_Face]:
    """Drop faces that are side faces of a die next to them (seen at an angle), or that overlap one."""
    # Sizes measured from several pips are better than a one's (guessed from its pip).
    measured = [f.size for f in faces if f.value > 1] or [f.size for f in faces]
    typical = _middle(measured) if measured else 0.0
    # Side faces are foreshortened: their pips are flatter than the top face's. Under light from
    # above the top face is also the brightest; the roundness of small pips is noise, so
    # brightness decides more between faces of small pips.
    def frontal(f: _Face) -> float:
        """How much a face looks like a top face seen from above."""
        luma = float(np.dot(f.body, _LUMA)) / 255.0
        return f.roundness + luma * float(np.clip((4.5 - f.radius) / 3.0, 0.0, 0.5))

    order = sorted(range(len(faces)), key=lambda k: -frontal(faces[k]))
    kept: list[int] = []
    for k in order:
        if all(not _side_of(faces[k], faces[m], typical) for m in kept):
            kept.append(k)
    return [faces[k] for k in sorted(kept)]


_LUMA = np.array([0.114, 0.587, 0.299], np.float32)


def _side_of(face: _Face, top: _Face, typical: float) -> bool:
    """True when `face` cannot be a die's top face next to the (more frontal) face `top`."""
    reach = typical or max(face.size, top.size)
    wide = max(reach, face.size, top.size)
    distance = float(np.hypot(face.centre[0] - top.centre[0], face.centre[1] - top.centre[1]))
    # Top faces of two dice lie a die's side apart at least; a side face is nearer, and flatter.
    return distance < 0.85 * reach or (distance < 1.4 * wide and face.roundness < top.roundness - 0.15)


def _lone_pips_are_dice(bgr: np.ndarray, pips: Pips, ks: np.ndarray, alone: np.ndarray | None = None) -> np.ndarray:
    """For each pip with no partner: True when it sits in the middle of a plain face (a one);
    `alone` marks the pips that no fitted face of 2-6 pips took (default: all)."""
    if len(ks) == 0:
        return np.zeros(0, bool)
    xy, r, body = pips.xy[ks], pips.radius[ks], pips.body[ks]
    tolerance = np.clip(0.3 * pips.contrast[ks], 20.0, 60.0)
    inner = sample(bgr, xy[:, None, :] + _RING16[None] * (2.5 * r + 1.5)[:, None, None])
    # 85th percentile of 16 samples: the 14th smallest.
    plain = np.sort(np.linalg.norm(inner - body[:, None, :], axis=2), axis=1)[:, 13] < tolerance
    # A one's face ends about 5 pip radii out; a dot on a wide plain surface is no die.
    edged = _edged(bgr, xy, r, body, *_ONE_EDGES[0])
    likely = (pips.roundness[ks] >= 0.6) & plain
    # Motion blur stretches a pip: a flatter one still counts when it is no member of a fitted face
    # (a side face's pips are flat too), is not a speck, and its face is plain well beyond it.
    alone = np.ones(len(ks), bool) if alone is None else alone
    blurred = np.flatnonzero(alone & plain & ~likely & (pips.roundness[ks] >= BLURRED_ROUNDNESS)
                             & (r >= BLURRED_RADIUS))
    likely[blurred] = _plain_out_to(bgr, xy[blurred], r[blurred], body[blurred], tolerance[blurred])
    # A close-up die (or one with a small pip) ends farther out: wider rings count too, but only
    # where the face is still plain well beyond the pip (a letter among letters is not).
    for near, far in _ONE_EDGES[1:]:
        left = np.flatnonzero(likely & ~edged)
        if len(left) == 0:
            break
        still = _plain_out_to(bgr, xy[left], r[left], body[left], tolerance[left])
        edged[left] = still & _edged(bgr, xy[left], r[left], body[left], near, far)
    return likely & edged


def _plain_out_to(bgr: np.ndarray, xy: np.ndarray, r: np.ndarray, body: np.ndarray,
                  tolerance: np.ndarray) -> np.ndarray:
    """True where a ring WIDE_PLAIN pip radii out still shows the face's body colour (85% of it)."""
    wide = sample(bgr, xy[:, None, :] + _RING16[None] * (WIDE_PLAIN * r + 1.5)[:, None, None])
    return np.sort(np.linalg.norm(wide - body[:, None, :], axis=2), axis=1)[:, 13] < tolerance


def _edged(bgr: np.ndarray, xy: np.ndarray, r: np.ndarray, body: np.ndarray, near: float, far: float) -> np.ndarray:
    """True where a quarter of two rings, `near` and `far` pip radii out, differ from the face's body."""
    rings = np.concatenate([_RING16[None] * (f * r + 2.0)[:, None, None] for f in (near, far)], axis=1)
    outer = sample(bgr, xy[:, None, :] + rings)
    return np.mean(np.linalg.norm(outer - body[:, None, :], axis=2) > EDGE_STEP, axis=1) > 0.25


# Pairs of rings (in pip radii) where a one's face may end: usual, close-up, closer still.
_ONE_EDGES = ((6.0, 7.5), (9.0, 11.0), (12.0, 14.5))
# Beyond the usual face, a one counts only if its face is still plain this many pip radii out.
WIDE_PLAIN = 5.0
# A pip no member of a fitted face may be this flat (motion blur) and still be a one, if it is this
# big (pixels of radius): the outline of a smaller blob says little about its shape.
BLURRED_ROUNDNESS, BLURRED_RADIUS = 0.45, 2.5

_RING16 = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)], np.float32)


def _reading(face: _Face, colour: str, colour_confidence: float) -> DieReading:
    """The die reading of one face; its confidence is the reader's certainty of the die and its value,
    less where its colour lies all but halfway between two of the profile's colours."""
    colour_share = min(1.0, colour_confidence / AMBIGUOUS_COLOUR)
    confidence = face.certainty * (1.0 - COLOUR_DOUBT * (1.0 - colour_share))
    return DieReading(
        x=face.centre[0], y=face.centre[1], size=face.size, angle=face.angle,
        colour=colour, value=face.value, confidence=float(np.clip(confidence, 0.0, 1.0)),
    )


# A reading's confidence tells right readings from wrong and false ones. Over both photo sets'
# fifteen readings (as shot, six sizes, eight looks: 33,552 dice read right, 185 wrong values, 388
# false dice), the chance that a right reading is surer than a mistake (AUROC) rose from 0.72 to
# 0.86 when the layout fit's error and the colour's margin no longer scaled it (nell-byler 0.75 ->
# 0.80, matteop65 0.69 -> 0.92): right readings fit their grids no better than false ones, and the
# colour margin of a swirled or ivory die says nothing of its value. The colour still counts where
# its margin (ColourProfile.classify_many, 0 halfway between two colours) is under AMBIGUOUS_COLOUR:
# there the die's colour is as likely the other, and it loses up to COLOUR_DOUBT.
AMBIGUOUS_COLOUR, COLOUR_DOUBT = 0.1, 0.4


def die_colours(image: np.ndarray, die: DieReading,
                dice: list[DieReading] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The BGR body colour of a die read in `image` and of the table just around it (for calibration);
    `dice` are all the dice read there, left out of the table's colour (default: this die only)."""
    bgr = _as_bgr(image)
    if bgr is None:
        raise ValueError("die_colours needs a non-empty colour or gray image.")
    if die.value == 1:
        # A one's turn is unknown: a ring outside its pip, inside the face whatever the turn.
        turn = np.radians(np.arange(0.0, 360.0, 45.0))
        spokes = np.stack([np.cos(turn), np.sin(turn)], axis=1) * (0.3 * die.size)
    else:
        turn = np.radians(die.angle + np.array([0.0, 90.0, 180.0, 270.0]))
        # Between the edge pips and the face's edge (pips sit ~0.26 of the side from the centre).
        spokes = np.stack([np.cos(turn), np.sin(turn)], axis=1) * (0.43 * die.size)
    body = np.median(sample(bgr, np.array([die.x, die.y], np.float32) + spokes), axis=0)
    others = [((d.x, d.y), d.size) for d in (dice or [die]) if d is not die]
    return body, tables_beside(bgr, [((die.x, die.y), die.size)] + others)[0]


# The table field is worked out on the frame shrunk this many times.
FIELD_SHRINK = 4
# The table beside a die is taken beyond this many die sides from any die's centre.
FIELD_CLEAR = 1.1


def table_field(bgr: np.ndarray, dice: list[tuple[tuple[float, float], float]]) -> np.ndarray:
    """The table's colour around each point, from the table alone: the mean over ~3 die sides of
    the pixels that are no die (nor its shadow), so a die is compared with the light beside it."""
    h, w = bgr.shape[:2]
    size = (max(1, w // FIELD_SHRINK), max(1, h // FIELD_SHRINK))
    small = cv2.resize(bgr, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    free = np.ones(small.shape[:2], np.float32)
    sides = [side for _, side in dice] or [40.0]
    for (x, y), side in dice:
        cv2.circle(free, (int(x / FIELD_SHRINK), int(y / FIELD_SHRINK)), int(FIELD_CLEAR * side / FIELD_SHRINK) + 1, 0.0, -1)
    window = int(3.0 * float(np.median(sides)) / FIELD_SHRINK) | 1
    total = cv2.boxFilter(small * free[..., None], -1, (window, window), normalize=False)
    weight = cv2.boxFilter(free, -1, (window, window), normalize=False)
    field = total / np.maximum(weight, 1e-3)[..., None]
    # Where dice cover the whole window (a crowd), the table of the whole frame stands in: a black
    # "table" there would make every die in the crowd look white.
    crowded = weight < 0.5
    if crowded.any():
        field[crowded] = small[free > 0].mean(axis=0) if free.any() else small.reshape(-1, 3).mean(axis=0)
    return field


def _table_at(field: np.ndarray, shape: tuple[int, ...], centre: tuple[float, float]) -> np.ndarray:
    """The table's colour at a point of the frame, from the table field."""
    fh, fw = field.shape[:2]
    x = int(np.clip(centre[0] * fw / shape[1], 0, fw - 1))
    y = int(np.clip(centre[1] * fh / shape[0], 0, fh - 1))
    return field[y, x].astype(np.float32)


def _rescaled(reading: DieReading, scale: float) -> DieReading:
    """The reading in the pixels of the original image."""
    if scale == 1.0:
        return reading
    return DieReading(
        x=reading.x / scale, y=reading.y / scale, size=reading.size / scale, angle=reading.angle,
        colour=reading.colour, value=reading.value, confidence=reading.confidence,
    )

"""Body-first reading: die bodies that the pip-first search missed, found by colour against the table.

Pip-first finding misses dice whose pips are faint (red pips on black, swirled plastic, gloss). Their
bodies still stand out from the table. A body is a roughly square blob, about the size of the dice
already read in the same image, that differs from the table's local colour (a wide median of the
image); dice touching each other are parted by erosion. Inside the body's rectified square, pips are
the peaks of the spot maps that stand out most from that body (its colour distance, or one channel
darker or lighter: pips may be white, black or red); they must be round and sit on a 3x3 grid in a
real layout, or else the layout templates of 1-6 must fit the spot map with a clear margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice_layout import TOLERANCE
from vision.dice_pips import shrunk

# The table's colour is a median over this many die sides (wider than any die, so dice vanish from it).
TABLE_SIDES = 2.5
# Least colour difference (largest over B, G, R) of a body pixel from the table beside it.
BODY_STEP = 45
# A fainter body (an ivory die on light wood stands 30-45 grey levels off it) is still a place for
# the judge to look at, though not a body to read or to part heaps by: vision.dice.FAINT_BODIES.
FAINT_STEP = 30
# A body's area, in squares of the typical top face's side (from its pips): dice with pips far
# out (~0.8) or near the middle (~1.3), seen from above, to a leaning die showing sides (~2.5).
AREA_RANGE = (0.5, 3.2)
# With no read die's body to compare, a body must be at least this big (in typical faces' squares).
LONE_AREA = 0.75
# A body's side next to the bodies of dice already read (a leaning die shows more of its sides).
BODY_RATIO = (0.7, 1.5)
# The bodies of faces that pip-first finding read with these values are read again (a six split
# into a three and a two, a five read as a two): the values most often short of pips.
SHORT_VALUES = (2, 3)
# A missed body whose square shows no layout is read again in a square this much larger.
REREAD_GROWN = 1.3
# Rectified patch side (pixels) that pips are looked for in.
PATCH = 40
# Least spot strength (grey levels) of a pip in its best map.
PIP_STEP = 30


@dataclass(frozen=True)
class Body:
    """A die body found by colour: centre, side (pixels), turn (degrees), value read from its pips."""

    centre: tuple[float, float]
    side: float
    angle: float
    value: int
    error: float


# A die-sized blob: its centre, side and turn (degrees), in the image's pixels.
Square = tuple[tuple[float, float], float, float]


def find_bodies(bgr: np.ndarray, typical: float, taken: list[tuple[tuple[float, float], int]],
                squares: list[Square] | None = None, missed: bool = True,
                settled: frozenset[int] = frozenset(), upgrade: bool = True) -> tuple[list[Body], dict[int, int]]:
    """Die bodies of about `typical` side that the `taken` faces (centre, value) miss, each with the
    value its pips show (none unless `missed`); and (when to `upgrade`), by index into `taken`, a
    higher value that a taken face's body shows (pip-first finding loses faint pips, so a six split
    into a three and a two reads as a three); not of the `settled` ones (indices into `taken`),
    whose value stands. `squares` are the image's body squares when already found (body_squares)."""
    if typical < 12 or min(bgr.shape[:2]) < 3 * typical:
        return [], {}
    if squares is None:
        squares = body_squares(bgr, typical)
    owners = square_owners(squares, [centre for centre, _ in taken], typical)
    sides = sorted(side for (_, side, _), k in zip(squares, owners) if k >= 0)
    bodies, more = [], {}
    for ((cx, cy), side, angle), k in zip(squares, owners):
        if k >= 0 and not (upgrade and taken[k][1] in SHORT_VALUES and k not in settled):
            continue  # a one may be a big pip alone; a six holds every pip already
        if k < 0 and (not missed or not _die_sized(side, sides, typical) or _clipped(bgr.shape, (cx, cy), side)):
            continue
        body = _read_body(bgr, (cx, cy), side, angle)
        if body is None and k < 0 and REREAD_GROWN:
            # A swirled or dark body may stand out from the table only in part: its square then
            # cuts off the outer pips.
            body = _read_body(bgr, (cx, cy), REREAD_GROWN * side, angle)
        if body is None:
            continue
        if k < 0:
            bodies.append(body)
        elif body.value > taken[k][1] and body.value > 1:
            more[k] = body.value
    return bodies, more


# A body is square when its long side is at most this many times its short side (a leaning die
# shows a side face or two).
SQUARE_RATIO = 1.45
# With no face to tell the dice's size, the typical face is guessed at these shares of the image's
# short side (each guess finds bodies of 0.8-1.8 times it: together, dice of about 2.5 to 11 % of
# the short side), and only blobs this square count: a card (1.4 times as long as it is wide) with
# one round picture, on its own, is a big one to the judge (clutter-only simulator frames: 10 false
# dice at 1.45, 1 at 1.3, none at 1.2).
UNSIZED_GUESSES = (1 / 16, 1 / 32)
UNSIZED_RATIO = 1.2


def body_squares(bgr: np.ndarray, typical: float, ratio: float = SQUARE_RATIO,
                 dice: np.ndarray | None = None) -> list[Square]:
    """Every die-sized square blob that stands out from the table (centre, side, turn), read or not:
    places where a die may lie whose pips the pip-first reader could not join. A blob is square
    when its long side is at most `ratio` times its short side. A heap that erosion cannot part is
    split at its deepest points where it holds one of the `dice` read already (centres, n x 2)."""
    return squares_by_step(bgr, typical, (BODY_STEP,), ratio, dice)[0]


def squares_by_step(bgr: np.ndarray, typical: float, steps: tuple[int, ...], ratio: float = SQUARE_RATIO,
                    dice: np.ndarray | None = None) -> list[list[Square]]:
    """body_squares for each least colour difference from the table in `steps` (BODY_STEP finds
    bodies, FAINT_STEP fainter ones too), the difference measured once."""
    if typical < 12 or min(bgr.shape[:2]) < 3 * typical:
        return [[] for _ in steps]
    difference, shrink = _table_difference(bgr, typical)
    return [_squares(_body_mask(difference, typical, shrink, least), shrink, typical, ratio, dice) for least in steps]


def unsized_squares(bgr: np.ndarray) -> list[Square]:
    """The square blobs that stand out from the table when no read face tells the dice's size: found
    at each of UNSIZED_GUESSES and strictly square (UNSIZED_RATIO), each with its own side."""
    out: list[Square] = []
    for guess in UNSIZED_GUESSES:
        for square in body_squares(bgr, min(bgr.shape[:2]) * guess, UNSIZED_RATIO):
            (x, y), side, _ = square
            if all(np.hypot(x - cx, y - cy) > 0.5 * max(side, other) for (cx, cy), other, _ in out):
                out.append(square)
    return out


def square_owners(squares: list[Square], centres: list[tuple[float, float]], typical: float) -> list[int]:
    """For each body square, the index of the face (one of `centres`) read on it already, or -1."""
    near = np.array(centres, np.float32).reshape(-1, 2)
    return [_owner(near, centre, side, typical) for centre, side, _ in squares]


def _owner(near: np.ndarray, centre: tuple[float, float], side: float, typical: float) -> int:
    """The index of the face read already on this body, or -1 when none is."""
    if not len(near):
        return -1
    distance = np.hypot(near[:, 0] - centre[0], near[:, 1] - centre[1])
    k = int(np.argmin(distance))
    # A leaning die's body holds its side faces too: its top face may sit off the body's middle.
    return k if float(distance[k]) < max(0.8 * typical, 0.6 * side) else -1


def _clipped(shape: tuple[int, ...], centre: tuple[float, float], side: float) -> bool:
    """True when a body runs off the image: its square is not the whole die (labels, keys, a cup)."""
    reach = 0.6 * side
    return not (reach <= centre[0] <= shape[1] - reach and reach <= centre[1] <= shape[0] - reach)


def _die_sized(side: float, sides: list[float], typical: float) -> bool:
    """True when a body is about as big as the bodies of the dice read already (or, with none of
    those, big enough for the faces read: pips sit well inside a die's face)."""
    if sides:
        middle = sides[len(sides) // 2]
        return BODY_RATIO[0] * middle <= side <= BODY_RATIO[1] * middle
    return 0.85 * side * side >= LONE_AREA * typical ** 2


def _squares(mask: np.ndarray, shrink: int, typical: float, ratio: float = SQUARE_RATIO,
             dice: np.ndarray | None = None) -> list[tuple[tuple[float, float], float, float]]:
    """Die-sized, roughly square blobs of the mask (centre, side, turn in full-size pixels; at most
    `ratio` times as long as wide); a blob too big for one die (dice touching) is eroded apart and
    each part grown back."""
    out = []
    # Every component's outer boundary, also those inside another's hole (dice in a tray whose
    # rim differs from its floor): only the outermost ones would miss every die in the tray.
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    outer = [c for c, h in zip(contours, hierarchy[0]) if h[3] < 0] if contours else []
    for contour in outer:
        area = cv2.contourArea(contour) * shrink ** 2
        if area >= HEAP_AREA * typical ** 2:
            continue  # a tray, a board, a cloth: more than any heap of dice on a table
        touching = area > AREA_RANGE[1] * typical ** 2
        if not touching:
            square = _square(contour, shrink, typical, 0.0, ratio)
            if square is not None:
                out.append(square)
                continue
            touching = area >= SPLIT_FROM * typical ** 2 and _filled(contour, SPLIT_FILL)
        if touching:
            out.extend(_split(mask, contour, shrink, typical, ratio, _holds(contour, shrink, dice)))
    return out


# A blob that is not one die's square, at least SPLIT_FROM big (in typical faces' squares) and
# filling at least SPLIT_FILL of its turned box, is tried as dice touching too: two dice whose
# bodies stand out only in part make a blob smaller than AREA_RANGE's top. Two dice side by side
# fill 0.6-0.8 of their box as the second sits off the first; wood grain (0.27) or a laptop's
# keys standing out in part (0.53-0.57) fill less. The judge reads each half: nell-byler as shot
# 1050 -> 1051 dice (a blue die touching a red five), over its six sizes and eight looks 14,382 ->
# 14,401, turned / mirrored 1046 / 1045 -> 1049 / 1048, the same false dice; the simulator's frames
# the same (516 of 520); matteop65 +1 die and 2 false dice more over its sizes and looks (a cable's
# crossing, 316 -> 318), the same as shot; things that are not dice 13 -> 15 false on 400. Without
# SPLIT_FILL, matteop65's wood grain and a laptop key made 3 false dice more.
SPLIT_FROM, SPLIT_FILL = 1.5, 0.6
# A blob this big (in typical faces' squares) or bigger is no die nor dice touching.
HEAP_AREA = 12


def _filled(contour: np.ndarray, share: float) -> bool:
    """True when a blob fills at least `share` of its smallest turned box."""
    _, (w, h), _ = cv2.minAreaRect(contour)
    return cv2.contourArea(contour) >= share * w * h


def _in_frame(x: float, y: float, shrink: int) -> tuple[float, float]:
    """A point of the mask, shrunk `shrink` times, in the frame's pixels: mask pixel x covers frame
    pixels shrink * x to shrink * x + shrink - 1."""
    return x * shrink + (shrink - 1) / 2.0, y * shrink + (shrink - 1) / 2.0


def _in_mask(x: float, y: float, shrink: int) -> tuple[float, float]:
    """A point of the frame in the mask's pixels (_in_frame turned back)."""
    return (x - (shrink - 1) / 2.0) / shrink, (y - (shrink - 1) / 2.0) / shrink


def _square(contour: np.ndarray, shrink: int, typical: float, grown: float,
            ratio: float = SQUARE_RATIO) -> tuple | None:
    """The contour's square (centre, side, turn) in full-size pixels when die-sized, filled and at
    most `ratio` times as long as wide, else None."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
    area = cv2.contourArea(contour)
    w, h = (w + 2 * grown) * shrink, (h + 2 * grown) * shrink
    if not AREA_RANGE[0] * typical ** 2 <= w * h * 0.85 <= AREA_RANGE[1] * typical ** 2:
        return None
    if max(w, h) > ratio * min(w, h) or area * shrink ** 2 < 0.7 * (w - 2 * grown * shrink) * (h - 2 * grown * shrink):
        return None  # not square, or not filled: a shadow, a stain, two dice
    return (_in_frame(cx, cy, shrink), min(w, h), angle)


def _split(mask: np.ndarray, contour: np.ndarray, shrink: int, typical: float,
           ratio: float = SQUARE_RATIO, heap: bool = False) -> list[tuple]:
    """Squares of the dice in a blob of touching dice: the blob eroded until the dice part, each part
    grown back; in a `heap` of dice that erosion cannot part, squares at its deepest points."""
    x, y, w, h = cv2.boundingRect(contour)
    pad = 2
    local = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    cv2.drawContours(local, [contour - np.array([x - pad, y - pad])], -1, 255, -1)
    out = []
    for depth in (0.15, 0.25):
        r = max(1, int(depth * typical / shrink))
        parts = cv2.erode(local, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
        pieces, _ = cv2.findContours(parts, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        squares = [_square(p + np.array([x - pad, y - pad]), shrink, typical, r, ratio) for p in pieces]
        found = [q for q in squares if q is not None]
        if len(found) >= 2:
            return found
        out = found
    if heap:
        inner = _heap_squares(local, shrink, typical, (x - pad, y - pad))
        if len(inner) >= 2:
            return inner
    return out or _halves(contour, shrink, typical)


def _holds(contour: np.ndarray, shrink: int, dice: np.ndarray | None) -> bool:
    """True when a blob (its outline in the shrunk mask's pixels) holds one of these die centres."""
    if dice is None or not len(dice):
        return False
    inside = (cv2.pointPolygonTest(contour, _in_mask(x, y, shrink), False) for x, y in np.asarray(dice, np.float64).tolist())
    return any(v >= 0 for v in inside)


def _heap_squares(local: np.ndarray, shrink: int, typical: float, offset: tuple[int, int]) -> list[tuple]:
    """Squares at the dice in a blob that erosion cannot part (dice touching corner to edge, in a
    heap): the peaks of its distance to the table, each as deep inside as a die's middle lies and a
    die's side from every deeper one. Their turn is not known (0): they are places for the judge;
    a chosen face's body read again in one (find_bodies) raised no value in either photo set."""
    depth = cv2.distanceTransform(local, cv2.DIST_L2, 5)
    # A peak is the deepest point within a die's half side about it.
    reach = max(1, int(PEAK_SPACING * typical / shrink / 2))
    ridge = cv2.dilate(depth, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1)))
    ys, xs = np.nonzero((depth >= ridge) & (depth >= PEAK_DEPTH * typical / shrink))
    order = np.argsort(-depth[ys, xs], kind="stable")
    apart = PEAK_SPACING * typical / shrink
    kept: list[tuple[int, int]] = []
    # A ridge's pixels tie for deepest: tens of them, each compared with the few kept (plain floats).
    for y, x in zip(ys[order].tolist(), xs[order].tolist()):
        if all(math.hypot(x - kx, y - ky) >= apart for kx, ky in kept):
            kept.append((x, y))
    side = PEAK_SIDE * typical
    return [(_in_frame(x + offset[0], y + offset[1], shrink), side, 0.0) for x, y in kept]


# Dice in a heap are found at the peaks of the blob's depth: at least PEAK_DEPTH typical faces deep
# (a die's middle lies about half its side, ~0.55, inside it), PEAK_SPACING apart, each a square of
# PEAK_SIDE typical faces.
PEAK_DEPTH, PEAK_SPACING, PEAK_SIDE = 0.35, 0.9, 1.2


def _halves(contour: np.ndarray, shrink: int, typical: float) -> list[tuple]:
    """Two dice side by side, edge to edge (erosion cannot part them): the two halves of a filled
    rectangle twice as long as it is wide."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
    long_side, short_side = max(w, h), min(w, h)
    if not 1.6 <= long_side / max(short_side, 1e-6) <= 2.4 or cv2.contourArea(contour) < 0.75 * w * h:
        return []
    turn = np.radians(angle if w >= h else angle + 90.0)
    offset = np.array([np.cos(turn), np.sin(turn)]) * long_side / 4
    out = []
    for sign in (-1.0, 1.0):
        x, y = _in_frame(cx + sign * offset[0], cy + sign * offset[1], shrink)
        side = min(short_side, long_side / 2) * shrink
        if AREA_RANGE[0] * typical ** 2 <= side * side * 0.85 <= AREA_RANGE[1] * typical ** 2:
            out.append(((x, y), side, angle))
    return out


def _table_difference(bgr: np.ndarray, typical: float) -> tuple[np.ndarray, int]:
    """Each pixel's colour difference from the table's local colour (largest over B, G, R), on the
    image shrunk (for speed) by the factor returned."""
    shrink = 2 if typical < 60 else 4
    half = shrunk(bgr, shrink)
    # The table's colour from an eighth-size image made from the half-size one: three times faster
    # than from the frame (0.1 ms against 0.3 for 640x640), the same up to rounding.
    tiny = shrunk(half, 8 // shrink)
    k = max(3, int(TABLE_SIDES * typical / 8) | 1)
    table = cv2.resize(cv2.medianBlur(tiny, min(k, 255)), half.shape[1::-1], interpolation=cv2.INTER_LINEAR)
    diff = cv2.split(cv2.absdiff(half, table))
    return cv2.max(cv2.max(diff[0], diff[1]), diff[2]), shrink


def _body_mask(difference: np.ndarray, typical: float, shrink: int, least: int) -> np.ndarray:
    """The pixels of a table difference map (_table_difference) of `least` or more, cleaned of
    specks and thin lines."""
    _, mask = cv2.threshold(difference, least, 255, cv2.THRESH_BINARY)
    r = max(1, int(typical / (12 * shrink)))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    # Close the pips and gloss inside a body, then cut thin bridges between touching things.
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)


def _read_body(bgr: np.ndarray, centre: tuple[float, float], side: float, angle: float) -> Body | None:
    """The value shown by the pips inside a body's square, or None when they form no real layout."""
    scale = PATCH / side
    turn = cv2.getRotationMatrix2D(centre, angle, scale)
    turn[:, 2] += np.array([PATCH / 2, PATCH / 2]) - np.array(centre)
    patch = cv2.warpAffine(bgr, turn, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    face = _first_layout(patch)
    if face is None:
        return None
    value, error, mid = face
    back = cv2.invertAffineTransform(turn)
    x, y = back @ np.array([mid[0], mid[1], 1.0])
    return Body((float(x), float(y)), side, float(angle), value, float(error))


def _first_layout(patch: np.ndarray) -> tuple[int, float, np.ndarray] | None:
    """The first real layout that the pips of the strongest spot maps form, trying thresholds in turn."""
    maps = _spot_maps(patch)
    tried: set[bytes] = set()
    for spots in maps:
        for share in PIP_SHARES:
            xy = _peaks(spots, share)
            if xy is None or xy.tobytes() in tried:
                continue  # the same pips as a threshold already tried
            tried.add(xy.tobytes())
            face = _layout(xy)
            if face is not None:
                return face if _round(spots, xy) else None
    best = max(((spots, _template_layout(spots)) for spots in maps), key=lambda f: f[1][1], default=None)
    if best is None or best[1][1] < TEMPLATE_MARGIN or not _round(best[0], best[1][3]):
        return None
    return best[1][0], 0.2, best[1][2]


def _round(spots: np.ndarray, xy: np.ndarray) -> bool:
    """True when each pip standing alone is a round spot (letters and grain are strokes)."""
    x = np.clip(np.rint(xy[:, 0]).astype(np.intp), 0, PATCH - 1)
    y = np.clip(np.rint(xy[:, 1]).astype(np.intp), 0, PATCH - 1)
    level = 0.5 * float(spots[y, x].min())
    if level <= 0:
        return False
    _, labels, stats, _ = cv2.connectedComponentsWithStats((spots >= level).astype(np.uint8))
    mine = labels[y, x]
    for label in mine[np.bincount(mine)[mine] == 1]:  # components that hold one pip only
        w, h, area = stats[label, cv2.CC_STAT_WIDTH], stats[label, cv2.CC_STAT_HEIGHT], stats[label, cv2.CC_STAT_AREA]
        if max(w, h) > ROUND_ASPECT * min(w, h) or area < ROUND_FILL * w * h:
            return False
    return True


# A lone pip's spot is at most this much longer than wide, and fills at least this share of its box.
ROUND_ASPECT, ROUND_FILL = 2.2, 0.35


def _layout(xy: np.ndarray) -> tuple[int, float, np.ndarray] | None:
    """Value, fit error and centre of pips that form exactly one real face layout, else None."""
    if len(xy) == 1:
        if float(np.hypot(*(xy[0] - PATCH / 2))) > 0.2 * PATCH:
            return None  # a one's pip sits in the middle of its face
        return 1, 0.2, xy[0]
    return _snapped(xy)


def _snapped(xy: np.ndarray) -> tuple[int, float, np.ndarray] | None:
    """Value, error and centre of pips on a 3x3 grid square with the body (every layout is symmetric
    about its centre, so the pips' mean is the face's centre); None when they form no layout."""
    centre = xy.mean(axis=0)
    offset = xy - centre
    step = float(np.abs(offset).max())
    if not STEP_RANGE[0] * PATCH <= step <= STEP_RANGE[1] * PATCH:
        return None
    grid = np.rint(offset / step)
    error = float(np.abs(offset / step - grid).max())
    points = frozenset((int(gx), int(gy)) for gx, gy in grid)
    if error > TOLERANCE or len(points) != len(xy) or points not in _SNAP_LAYOUTS:
        return None
    return _SNAP_LAYOUTS[points], error, centre


# Shares of the strongest spot that a pip must reach, tried in turn until the pips form a layout.
PIP_SHARES = (0.5, 0.35, 0.65)
_INNER = slice(PATCH // 8, PATCH - PATCH // 8)
_INNER_MASK = np.zeros((PATCH, PATCH), bool)
_INNER_MASK[_INNER, _INNER] = True
_SPOT_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3 * PATCH // 8 | 1, 3 * PATCH // 8 | 1))
# Peaks closer than this (patch pixels) are one pip.
_PEAK_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (PATCH // 6 | 1, PATCH // 6 | 1))
# A face's grid step as a share of the body's side: a top face filling the body (~0.26) down to a top
# face beside two side faces; two spots of one glossy pip are far nearer.
STEP_RANGE = (0.15, 0.32)


# How many of the strongest spot maps are tried.
MAPS = 2


def _spot_maps(patch: np.ndarray) -> list[np.ndarray]:
    """Maps of small spots that stand out from a body, strongest first: the colour distance from
    the body's median, and each channel darker or lighter (pips may be white, black or red)."""
    pixels = patch[_INNER, _INNER].reshape(-1, 3)
    body = np.partition(pixels, len(pixels) // 2, axis=0)[len(pixels) // 2].astype(np.float32)
    distance = np.sqrt(np.sum((patch.astype(np.float32) - body) ** 2, axis=2))
    maps = [cv2.morphologyEx(distance, cv2.MORPH_TOPHAT, _SPOT_KERNEL)]
    for op in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT):
        maps.extend(cv2.split(cv2.morphologyEx(patch, op, _SPOT_KERNEL).astype(np.float32)))
    inner = np.stack([m[_INNER, _INNER].ravel() for m in maps])
    k = int(0.97 * inner.shape[1])
    peaks = np.partition(inner, k, axis=1)[:, k]
    order = np.argsort(peaks)[::-1]
    return [cv2.GaussianBlur(maps[k], (5, 5), 0) for k in order[:MAPS] if peaks[k] >= PIP_STEP]


def _peaks(spots: np.ndarray, share: float) -> np.ndarray | None:
    """Pips as the peaks of a spot map at least a pip apart (touching pips of a six stay apart)."""
    top = float(spots[_INNER, _INNER].max())
    peaks = (spots == cv2.dilate(spots, _PEAK_KERNEL)) & (spots >= max(PIP_STEP, share * top)) & _INNER_MASK
    ys, xs = np.nonzero(peaks)
    return np.stack([xs, ys], axis=1).astype(np.float32) if 1 <= len(xs) <= 6 else None


# Least margin (share of the strongest spot) between the weakest pip of a layout and the strongest
# grid point it leaves empty.
TEMPLATE_MARGIN = 0.15
# The grid points of each value in the patch's frame (x, y in steps), one row per layout: a body's
# square is turned like the die, so a two, three or six may lie either way.
_GRID = np.array([(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)], np.float32)
_TEMPLATES = [
    (1, {4}), (2, {0, 8}), (2, {2, 6}), (3, {0, 4, 8}), (3, {2, 4, 6}), (4, {0, 2, 6, 8}),
    (5, {0, 2, 4, 6, 8}), (6, {0, 2, 3, 5, 6, 8}), (6, {0, 1, 2, 6, 7, 8}),
]
_MASKS = np.array([[k in points for k in range(9)] for _, points in _TEMPLATES])
_VALUES = np.array([v for v, _ in _TEMPLATES])
# The same layouts as sets of grid points (x, y in steps) for pips snapped to the grid.
_SNAP_LAYOUTS = {frozenset((k % 3 - 1, k // 3 - 1) for k in points): value for value, points in _TEMPLATES}
# Grid placements tried: centre offsets (the top face sits off the body's middle when the die leans)
# and steps, in shares of the patch side.
_OFFSETS = (-0.12, -0.06, 0.0, 0.06, 0.12)
_PLACES = np.array([(dx, dy, st) for dx in _OFFSETS for dy in _OFFSETS for st in (0.16, 0.19, 0.22, 0.25, 0.28)],
                   np.float32) * PATCH


def _template_layout(spots: np.ndarray) -> tuple[int, float, np.ndarray, np.ndarray]:
    """The best value for a spot map by layout templates: (value, margin as a share of the strongest
    spot, face centre in the patch, its pips' places)."""
    # Each grid point takes the strongest spot within a pixel or two (pips are not exactly on the grid).
    pooled = cv2.dilate(spots, _POOL)
    points = PATCH / 2 + _PLACES[:, None, :2] + _PLACES[:, None, 2:] * _GRID[None]
    xs = np.clip(np.rint(points[..., 0]).astype(np.intp), 0, PATCH - 1)
    ys = np.clip(np.rint(points[..., 1]).astype(np.intp), 0, PATCH - 1)
    grid = pooled[ys, xs] / max(float(spots.max()), 1e-6)  # (places, 9)
    # (places, templates): the weakest pip of each layout less the strongest point it leaves empty.
    margin = (np.where(_MASKS, grid[:, None, :], np.inf).min(axis=2)
              - np.where(_MASKS, -np.inf, grid[:, None, :]).max(axis=2))
    place, template = np.unravel_index(int(np.argmax(margin)), margin.shape)
    centre = PATCH / 2 + _PLACES[place, :2]
    return int(_VALUES[template]), float(margin[place, template]), centre, points[place][_MASKS[template]]


_POOL = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))

"""Rescue Animals dice requirements as text, and the matcher that checks dice against them.

Text form (tokens separated by spaces, case does not matter):
  ``B2`` a black die showing 2, ``W3`` a white die showing 3, ``W*`` any white die (``B*`` any black);
  or one of the five special cards' names, alone: ``PANDA`` (three whites equal), ``FINWHALE``
  (three whites summing 10), ``BAWEAN`` (B3 W3 + two other whites summing 8), ``TAMARIN`` (two
  whites whose sum equals the sum of two different whites), ``REDWOLF`` (B5 W5 + two other whites
  equal).
Each die meets one symbol. A gray die counts as white: only its holder has it among their dice,
which the rules engine checks before asking this module.

Pure: imports nothing of ours but `companion.errors`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from companion.errors import IllegalAction, RequirementError

COLOURS = ("white", "black", "gray")
_COLOUR_LETTER = {"white": "W", "black": "B", "gray": "G"}
_LETTER_COLOUR = {"W": "white", "B": "black", "G": "gray"}


class BadDice(IllegalAction):
    """Dice that cannot be on the table: an unknown colour, a value outside 1-6, a wrong set."""


@dataclass(frozen=True)
class Die:
    """One die as it lies on the table: its colour and the value on top."""

    colour: str
    value: int

    def __post_init__(self) -> None:
        """Refuse colours and values that no die of the game has."""
        if self.colour not in COLOURS:
            raise BadDice(f"a die's colour must be one of {', '.join(COLOURS)}, not {self.colour!r}")
        if isinstance(self.value, bool) or not isinstance(self.value, int) or not 1 <= self.value <= 6:
            raise BadDice(f"a {self.colour} die shows 1 to 6, not {self.value!r}")

    @property
    def is_white(self) -> bool:
        """True for white dice and the gray die (the gray die counts as white)."""
        return self.colour != "black"

    @property
    def text(self) -> str:
        """Short form such as ``W3``, ``B5`` or ``G2``."""
        return f"{_COLOUR_LETTER[self.colour]}{self.value}"

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {"colour": self.colour, "value": self.value}

    @classmethod
    def from_dict(cls, d: object) -> Die:
        """Read a die from ``{"colour": "white", "value": 3}``, with a clear error if malformed."""
        if not isinstance(d, dict) or set(d) != {"colour", "value"}:
            raise BadDice(f"a die is written as {{'colour': 'white', 'value': 3}}, not {d!r}")
        colour = "gray" if d["colour"] == "grey" else d["colour"]  # both spellings are common
        return cls(colour, d["value"])


def dice_from_text(text: str) -> tuple[Die, ...]:
    """Dice from a short form like ``"B2 W3 W3 W5 W6 G1"`` (handy in tests and on the command line)."""
    dice = []
    for token in text.split():
        letter, digits = token[:1].upper(), token[1:]
        if letter not in _LETTER_COLOUR or not digits.isdigit():
            raise BadDice(f"{token!r} is not a die; write a colour letter W, B or G and a value, like W3")
        dice.append(Die(_LETTER_COLOUR[letter], int(digits)))
    return tuple(dice)


def dice_text(dice: Iterable[Die]) -> str:
    """The short form of some dice, e.g. ``B2 W3 W3 W5 W6``."""
    return " ".join(die.text for die in dice)


@dataclass(frozen=True)
class Symbol:
    """One die symbol on a card: a colour and a value (None means any value)."""

    colour: str  # "black" or "white"
    value: int | None
    label: str  # what the player sees, e.g. "B2", "W*", "sum 8"


@dataclass(frozen=True)
class Requirement:
    """A parsed dice requirement: fixed symbols, plus a constraint over a group of white dice."""

    text: str  # canonical text form
    symbols: tuple[Symbol, ...]  # the fixed symbols, then the group's white slots
    group: str | None = None  # "equal", "sum" or "pairsum" over the last `group_size` symbols
    group_size: int = 0
    group_total: int = 0  # for "sum"
    special: str | None = None  # PANDA, FINWHALE, BAWEAN, TAMARIN, REDWOLF

    @property
    def fixed(self) -> tuple[Symbol, ...]:
        """The symbols that do not belong to the special group."""
        return self.symbols[: len(self.symbols) - self.group_size]


def _group(label: str, size: int) -> tuple[Symbol, ...]:
    """The white slots of a special group, all labelled alike."""
    return tuple(Symbol("white", None, label) for _ in range(size))


def _special(name: str) -> Requirement:
    """The five special requirements, worded as in the rulebook."""
    if name == "PANDA":
        return Requirement(name, _group("same number", 3), "equal", 3, special=name)
    if name == "FINWHALE":
        return Requirement(name, _group("sum 10", 3), "sum", 3, 10, special=name)
    if name == "BAWEAN":
        fixed = (Symbol("black", 3, "B3"), Symbol("white", 3, "W3"))
        return Requirement(name, fixed + _group("sum 8", 2), "sum", 2, 8, special=name)
    if name == "REDWOLF":
        fixed = (Symbol("black", 5, "B5"), Symbol("white", 5, "W5"))
        return Requirement(name, fixed + _group("same number", 2), "equal", 2, special=name)
    pairs = (Symbol("white", None, "pair A"),) * 2 + (Symbol("white", None, "pair B"),) * 2
    return Requirement(name, pairs, "pairsum", 4, special=name)


SPECIALS = ("PANDA", "FINWHALE", "BAWEAN", "TAMARIN", "REDWOLF")
SPECIAL_WORDS = {
    "PANDA": "three white dice of the same number",
    "FINWHALE": "three white dice adding up to exactly 10",
    "BAWEAN": "a black 3 and a white 3, and two other white dice adding up to exactly 8",
    "TAMARIN": "two white dice whose sum equals the sum of two different white dice",
    "REDWOLF": "a black 5 and a white 5, and two other white dice of the same number",
}


def parse_requirement(text: str) -> Requirement:
    """Parse the text form (``"B2 W3 W6 W*"`` or a special name); raise RequirementError if wrong."""
    if not isinstance(text, str):
        raise RequirementError(
            f"a dice requirement is text like 'B2 W3 W6 W*' or one of {', '.join(SPECIALS)}, not {text!r}"
        )
    return _parse(text)


@lru_cache(maxsize=512)
def _parse(text: str) -> Requirement:
    """parse_requirement for text, cached (cards are checked on every roll)."""
    if not text.split():
        raise RequirementError(
            f"a dice requirement is tokens like 'B2 W3 W6 W*' or one of {', '.join(SPECIALS)}, not {text!r}"
        )
    tokens = [token.upper() for token in text.split()]
    names = [token for token in tokens if token in SPECIALS]
    if names:
        if len(tokens) != 1:
            raise RequirementError(f"{names[0]} is a whole requirement on its own; {text!r} adds other tokens")
        return _special(names[0])
    symbols = tuple(_symbol(token) for token in tokens)
    order = sorted(symbols, key=lambda s: (s.colour != "black", s.value is None, s.value or 0))
    if len(order) > 6:
        raise RequirementError(f"{text!r} asks for {len(order)} dice; a seat has at most 6")
    return Requirement(" ".join(s.label for s in order), tuple(order))


def _symbol(token: str) -> Symbol:
    """One plain token: B1-B6, W1-W6, W* or B*."""
    letter, rest = token[:1], token[1:]
    if letter not in ("B", "W") or not (rest == "*" or (rest.isdigit() and 1 <= int(rest) <= 6)):
        raise RequirementError(
            f"{token!r} is not a die symbol; write B1-B6 (black), W1-W6 (white), W* (any white) "
            f"or one of {', '.join(SPECIALS)}"
        )
    colour = "black" if letter == "B" else "white"
    return Symbol(colour, None if rest == "*" else int(rest), token)


def requirement_words(requirement: Requirement | str) -> str:
    """The requirement in words, for the phone page and error messages."""
    req = parse_requirement(requirement) if isinstance(requirement, str) else requirement
    if req.special:
        return SPECIAL_WORDS[req.special]
    parts = []
    for s in req.symbols:
        colour = "black" if s.colour == "black" else "white"
        parts.append(f"any {colour} die" if s.value is None else f"a {colour} {s.value}")
    return ", ".join(parts)


@dataclass(frozen=True)
class Match:
    """Which die meets which symbol: (symbol label, index into the dice) for every symbol."""

    uses: tuple[tuple[str, int], ...]

    @property
    def dice(self) -> tuple[int, ...]:
        """The indices of the dice used, in symbol order."""
        return tuple(index for _, index in self.uses)


@dataclass(frozen=True)
class Hint:
    """How close some dice are to a requirement.

    `missing` is the fewest dice that still have to change (0 means satisfied); None means these
    dice can never meet it (too few dice of a colour). `keep` are the indices of the dice to set
    aside; `open` are the labels of the symbols still to roll for.
    """

    missing: int | None
    keep: tuple[int, ...]
    open: tuple[str, ...]

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {"missing": self.missing, "keep": list(self.keep), "open": list(self.open)}


def _fits(symbol: Symbol, die: Die) -> bool:
    """Whether `die` can stand for `symbol` as it lies (colour and value)."""
    colour_ok = die.is_white if symbol.colour == "white" else die.colour == "black"
    return colour_ok and (symbol.value is None or symbol.value == die.value)


def _colour_ok(symbol: Symbol, die: Die) -> bool:
    """Whether `die` has the colour `symbol` asks for (its value may still be rerolled)."""
    return die.is_white if symbol.colour == "white" else die.colour == "black"


def _group_feasible(req: Requirement, kept: Sequence[int | None]) -> bool:
    """Whether the group's kept values (None = die still to roll) can be completed."""
    values = [v for v in kept if v is not None]
    free = len(kept) - len(values)
    if req.group == "equal":
        return len(set(values)) <= 1
    if req.group == "sum":
        rest = req.group_total - sum(values)
        return free <= rest <= 6 * free
    if req.group == "pairsum":
        ranges = [_pair_range(kept[0], kept[1]), _pair_range(kept[2], kept[3])]
        return max(r[0] for r in ranges) <= min(r[1] for r in ranges)
    return True


def _pair_range(a: int | None, b: int | None) -> tuple[int, int]:
    """The sums a pair of white dice can still reach, given the values already kept."""
    low = (a if a is not None else 1) + (b if b is not None else 1)
    high = (a if a is not None else 6) + (b if b is not None else 6)
    return low, high


def match(requirement: Requirement | str, dice: Sequence[Die]) -> Match | None:
    """An assignment of dice to the requirement's symbols (each die used once), or None."""
    req = parse_requirement(requirement) if isinstance(requirement, str) else requirement
    if req.group is None:
        return _match_plain(req, dice)
    best = _search(req, tuple(dice), complete_only=True)
    if best is None:
        return None
    return Match(tuple((s.label, i) for s, i in zip(req.symbols, best[1])))


def _match_plain(req: Requirement, dice: Sequence[Die]) -> Match | None:
    """Greedy match for plain symbols: exact values first (any such die will do), then wildcards."""
    used: set[int] = set()
    uses = []
    for symbol in req.symbols:  # parse order puts exact values before wildcards
        index = next((i for i, d in enumerate(dice) if i not in used and _fits(symbol, d)), None)
        if index is None:
            return None
        used.add(index)
        uses.append((symbol.label, index))
    return Match(tuple(uses))


def closeness(requirement: Requirement | str, dice: Sequence[Die]) -> Hint:
    """How many dice are still missing at best, and which of these dice to keep (set aside)."""
    req = parse_requirement(requirement) if isinstance(requirement, str) else requirement
    dice = tuple(dice)
    if req.group is None:
        return _closeness_plain(req, dice)
    best = _search(req, dice)
    if best is None:
        return Hint(None, (), tuple(s.label for s in req.symbols))
    kept, assignment = best
    keep = tuple(i for i in assignment if i is not None)
    still = tuple(s.label for s, i in zip(req.symbols, assignment) if i is None)
    return Hint(len(req.symbols) - kept, keep, still)


def _closeness_plain(req: Requirement, dice: tuple[Die, ...]) -> Hint:
    """Greedy for plain symbols: keep dice that already show an exact value, then any for wildcards."""
    for colour in ("black", "white"):
        needed = sum(1 for s in req.symbols if s.colour == colour)
        have = sum(1 for d in dice if (d.is_white if colour == "white" else d.colour == "black"))
        if needed > have:
            return Hint(None, (), tuple(s.label for s in req.symbols))
    used: set[int] = set()
    keep, still = [], []
    for symbol in req.symbols:
        index = next((i for i, d in enumerate(dice) if i not in used and _fits(symbol, d)), None)
        if index is None:
            still.append(symbol.label)
        else:
            used.add(index)
            keep.append(index)
    return Hint(len(still), tuple(keep), tuple(still))


def _search(
    req: Requirement, dice: tuple[Die, ...], complete_only: bool = False
) -> tuple[int, tuple[int | None, ...]] | None:
    """Best partial assignment (most dice kept as they are) that can still be completed, or None.

    With `complete_only`, only full assignments count (that is `match`; much faster).
    """
    best: list = [None]
    symbols = req.symbols
    n_fixed = len(req.fixed)

    def complete_ok(assignment: tuple[int | None, ...]) -> bool:
        """Free slots need unused dice of their colour, and the group must stay reachable."""
        used = {i for i in assignment if i is not None}
        for colour in ("black", "white"):
            free = sum(1 for s, i in zip(symbols, assignment) if i is None and s.colour == colour)
            spare = sum(1 for j, d in enumerate(dice) if j not in used and _colour_ok(Symbol(colour, None, ""), d))
            if free > spare:
                return False
        group = [None if i is None else dice[i].value for i in assignment[n_fixed:]]
        return _group_feasible(req, group)

    def walk(k: int, assignment: tuple[int | None, ...], kept: int) -> None:
        """Try every die (or none) for symbol k, depth first; remember the best completion."""
        if best[0] is not None and kept + (len(symbols) - k) <= best[0][0]:
            return  # cannot beat what we have
        if k == len(symbols):
            if complete_ok(assignment):
                best[0] = (kept, assignment)
            return
        symbol = symbols[k]
        tried: set[tuple[bool, int]] = set()
        for i, die in enumerate(dice):
            face = (die.is_white, die.value)
            if i not in assignment and face not in tried and _fits(symbol, die):
                tried.add(face)  # dice that look alike are interchangeable: try one of them
                walk(k + 1, assignment + (i,), kept + 1)
        if not complete_only:
            walk(k + 1, assignment + (None,), kept)

    walk(0, (), 0)
    return best[0]

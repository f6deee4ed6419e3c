"""Property tests: `match` and `closeness` against a brute-force oracle that enumerates everything.

The oracle is written from the rulebook's wording, independently of the matcher: it tries every
assignment of dice to symbols (each die used once), and for closeness every way of rerolling
every subset of dice.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.dice_requirements import Die, closeness, match, parse_requirement

WHITE = ("white", "gray")


def _whites(dice: tuple[Die, ...]) -> list[int]:
    """Indices of the dice that count as white."""
    return [i for i, d in enumerate(dice) if d.colour in WHITE]


def _blacks(dice: tuple[Die, ...], value: int) -> list[int]:
    """Indices of black dice showing `value`."""
    return [i for i, d in enumerate(dice) if d.colour == "black" and d.value == value]


def _special_ok(name: str, dice: tuple[Die, ...]) -> bool:
    """The five special cards, straight from the rulebook's sentences."""
    whites = _whites(dice)
    v = [d.value for d in dice]
    if name == "PANDA":
        return any(v[a] == v[b] == v[c] for a, b, c in itertools.combinations(whites, 3))
    if name == "FINWHALE":
        return any(v[a] + v[b] + v[c] == 10 for a, b, c in itertools.combinations(whites, 3))
    if name == "TAMARIN":
        return any(
            v[a] + v[b] == v[c] + v[d]
            for a, b, c, d in itertools.permutations(whites, 4)
        )
    black, white, rule = (3, 3, "sum8") if name == "BAWEAN" else (5, 5, "equal")
    for k in _blacks(dice, black):
        for w in whites:
            if v[w] != white:
                continue
            for a, b in itertools.combinations([x for x in whites if x != w], 2):
                if (rule == "sum8" and v[a] + v[b] == 8) or (rule == "equal" and v[a] == v[b]):
                    return True
    return False


def _plain_ok(tokens: tuple[str, ...], dice: tuple[Die, ...]) -> bool:
    """Every assignment of distinct dice to the symbols."""
    for perm in itertools.permutations(range(len(dice)), len(tokens)):
        if all(_token_fits(t, dice[i]) for t, i in zip(tokens, perm)):
            return True
    return False


def _token_fits(token: str, die: Die) -> bool:
    """One symbol against one die: colour (gray as white) and value."""
    colour_ok = die.colour in WHITE if token[0] == "W" else die.colour == "black"
    return colour_ok and (token[1] == "*" or int(token[1]) == die.value)


@lru_cache(maxsize=200_000)
def oracle_ok(text: str, signature: tuple[tuple[str, int], ...]) -> bool:
    """Whether these dice (sorted, as a hashable signature) satisfy the requirement text."""
    dice = tuple(Die(c, v) for c, v in signature)
    tokens = tuple(text.split())
    if len(tokens) == 1 and not tokens[0][1:].isdigit() and tokens[0] not in ("W*", "B*"):
        return _special_ok(tokens[0], dice)
    return _plain_ok(tokens, dice)


def _ok(text: str, dice) -> bool:
    """oracle_ok on any dice sequence."""
    return oracle_ok(text, tuple(sorted((d.colour, d.value) for d in dice)))


def oracle_missing(text: str, dice: tuple[Die, ...], fixed: frozenset[int] = frozenset()) -> int | None:
    """Fewest dice (outside `fixed`) whose values must change to satisfy the requirement; None if never."""
    free = [i for i in range(len(dice)) if i not in fixed]
    for r in range(len(free) + 1):
        for subset in itertools.combinations(free, r):
            for values in itertools.product(range(1, 7), repeat=r):
                changed = list(dice)
                for i, value in zip(subset, values):
                    changed[i] = Die(dice[i].colour, value)
                if _ok(text, changed):
                    return r
    return None


symbol = st.sampled_from(["W*", "W1", "W2", "W3", "W4", "W5", "W6"])
plain = st.tuples(
    st.sampled_from(["", "B*", "B1", "B2", "B3", "B4", "B5", "B6"]),
    st.lists(symbol, min_size=1, max_size=4),
).map(lambda t: " ".join(([t[0]] if t[0] else []) + t[1]))
requirements = st.one_of(plain, st.sampled_from(["PANDA", "FINWHALE", "BAWEAN", "TAMARIN", "REDWOLF"]))
face = st.integers(1, 6)
dice_sets = st.tuples(face, st.lists(face, min_size=4, max_size=4), st.one_of(st.none(), face)).map(
    lambda t: tuple([Die("black", t[0])] + [Die("white", v) for v in t[1]] + ([Die("gray", t[2])] if t[2] else []))
).flatmap(lambda dice: st.permutations(dice).map(tuple))


@settings(max_examples=300, deadline=None)
@given(requirements, dice_sets)
def test_match_agrees_with_the_oracle(text: str, dice: tuple[Die, ...]) -> None:
    """`match` finds an assignment exactly when one exists; the one it finds is valid."""
    found = match(text, dice)
    assert (found is not None) == _ok(text, dice)
    if found is not None:
        req = parse_requirement(text)
        assert len(set(found.dice)) == len(found.dice) == len(req.symbols)
        for (label, index), sym in zip(found.uses, req.symbols):
            assert label == sym.label
            die = dice[index]
            assert (die.colour in WHITE) if sym.colour == "white" else die.colour == "black"
            if sym.value is not None:
                assert die.value == sym.value


@settings(max_examples=120, deadline=None)
@given(requirements, dice_sets)
def test_closeness_agrees_with_the_oracle(text: str, dice: tuple[Die, ...]) -> None:
    """`closeness` says the fewest dice to change, and keeping its dice still leaves that many to roll."""
    hint = closeness(text, dice)
    expected = oracle_missing(text, dice)
    assert hint.missing == expected
    if expected is None:
        return
    req = parse_requirement(text)
    assert len(set(hint.keep)) == len(hint.keep) == len(req.symbols) - expected
    assert len(hint.open) == expected
    # keeping the set-aside dice as they are, rerolling `missing` of the others can still succeed
    assert oracle_missing(text, dice, frozenset(hint.keep)) == expected

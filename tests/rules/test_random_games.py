"""Seeded random games of 2-5 players played to the end, with the rules' invariants checked throughout.

Players behave like players: each rolls towards a display card, sets aside the dice the keep hint
names, rerolls the rest, and presses "Rescuing!" at a random moment when its dice satisfy a card.
Presses go through the race arbiter; illegal actions are tried now and then and must be refused.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.catalogue import load_sample
from companion.dice_requirements import Die
from companion.errors import IllegalAction
from companion.games.rescue_animals import (
    Claim,
    Go,
    Rescue,
    Reveal,
    Roll,
    Setup,
    action_for_winner,
    apply,
    claim_refusal,
    demo_deck,
    is_over,
    keep_hint,
    legal_actions,
    new_game,
    rules_for,
    satisfied_cards,
    scores,
)
from companion.race import Press, settle
from companion.settings import RaceSettings

EXPECTED_ROUNDS = {2: 15, 3: 22, 4: 15, 5: 11}
CATALOGUE = load_sample()


def _roll(rng: random.Random, state, seat: int) -> tuple[Die, ...]:
    """Reroll the dice the keep hint does not set aside, aiming at one display card."""
    old = state.dice[seat]
    colours = ["black"] + ["white"] * 4 + (["gray"] if state.gray_holder == seat else [])
    if len(old) != len(colours):
        return tuple(Die(c, rng.randint(1, 6)) for c in colours)
    target = rng.choice(state.display)
    keep = set(keep_hint(state, seat, target).keep or ()) if rng.random() < 0.9 else set()
    return tuple(d if i in keep else Die(d.colour, rng.randint(1, 6)) for i, d in enumerate(old))


def _try_illegal(rng: random.Random, state) -> None:
    """Some action the rules must refuse, with an IllegalAction and a message."""
    n = len(state.players)
    candidates = [Roll(n, ()), Rescue(0, "no-such-card")]
    if state.phase != "ready":
        candidates.append(Go())
    if state.phase != "reveal":
        candidates.append(Reveal(("giant-panda",)))
    for seat in range(n):
        if claim_refusal(state, seat) is not None and state.display and state.phase != "choosing":
            candidates.append(Rescue(seat, state.display[0]))
    action = rng.choice(candidates)
    with pytest.raises(IllegalAction) as caught:
        apply(state, action)
    assert str(caught.value)


def _check_invariants(state, start_deck: int) -> None:
    """Cards conserved; quotas kept; one gray die taker a round; Leader clockwise."""
    rescued = sum(len(r) for r in state.rescued)
    assert rescued + len(state.display) + state.deck_left == start_deck
    seen = Counter(state.seen)
    assert all(seen[c.id] <= c.copies for c in state.cards)
    assert Counter(c for r in state.rescued for c in r) + Counter(state.display) == seen
    quota = state.rules.rescues_per_seat
    n = len(state.players)
    for record in state.rounds:
        per_seat = Counter(seat for seat, _ in record.rescues)
        assert all(count <= quota for count in per_seat.values())
        assert len(record.rescues) == len(record.display)
        short = [s for s in range(n) if per_seat[s] < quota]
        assert short == [record.gray_taker]  # exactly one taker: the seat left short
        assert record.leader == (state.first_leader + record.number - 1) % n
    assert all(len(t) <= quota for t in state.this_round)


def play(players: int, seed: int, known_deck: bool) -> None:
    """Play one seeded game to the end, checking everything on the way."""
    rng = random.Random(seed)
    table_deck = list(demo_deck(CATALOGUE, players, seed))  # the physical deck on the table
    leader = rng.randrange(players)
    setup = Setup(tuple(f"P{i}" for i in range(players)), leader, tuple(table_deck) if known_deck else None, True)
    state = new_game(setup, CATALOGUE)
    start_deck = state.deck_left
    assert start_deck == 54 - rules_for(players).returned
    assert state.rounds_total == EXPECTED_ROUNDS[players]
    t_ms = 0.0
    for _step in range(200_000):
        if is_over(state):
            break
        if rng.random() < 0.02:
            _try_illegal(rng, state)
        if state.phase == "reveal":
            size = min(rules_for(players).display, len(table_deck))
            shown, table_deck = tuple(table_deck[:size]), table_deck[size:]
            state = apply(state, Reveal(shown))
        elif state.phase == "ready":
            state = apply(state, Go())
        elif state.phase == "choosing":
            state = apply(state, rng.choice(legal_actions(state)))
        else:
            if rng.random() < 0.05:
                for action in legal_actions(state):  # every listed decision is accepted
                    apply(state, action)
            state = _race_tick(rng, state, t_ms)
            t_ms += 1000.0
        _check_invariants(state, start_deck)
    assert is_over(state), "the game did not end"
    assert len(state.rounds) == EXPECTED_ROUNDS[players]
    assert state.leader == (leader + EXPECTED_ROUNDS[players] - 1) % players
    _check_scores(state)


def _race_tick(rng: random.Random, state, t_ms: float):
    """Everyone still racing rerolls; those whose dice satisfy a card may press; the arbiter decides."""
    for seat in range(len(state.players)):
        if len(state.this_round[seat]) < state.rules.rescues_per_seat:
            state = apply(state, Roll(seat, _roll(rng, state, seat)))
    presses = [Press(s, t_ms + rng.uniform(0, 60), rng.choice(["gpio", "phone"])) for s in range(len(state.players)) if rng.random() < 0.7]
    result = settle(presses, state, RaceSettings())
    for seat, _reason in result.refused:
        assert claim_refusal(state, seat) is not None
    if result.winner is None:
        return state
    assert satisfied_cards(state, result.winner)
    action = action_for_winner(state, result.winner, None, result.record())
    before = sum(len(r) for r in state.rescued)
    state = apply(state, action)
    if isinstance(action, Claim):
        assert state.phase == "choosing"
    else:
        assert sum(len(r) for r in state.rescued) == before + 1
    return state


def _check_scores(state) -> None:
    """Totals add up from the cards; the gray die's 2 points go to its holder; the winner ranks first."""
    board = scores(state)
    assert board.final
    grand = 0
    for seat in board.seats:
        cards = state.rescued[seat.seat]
        protection = sum(state.card(c).protection for c in cards)
        bonus = sum(state.card(c).bonus * (n // 2) for c, n in Counter(cards).items())
        gray = 2 if seat.seat == state.gray_holder else 0
        assert (seat.protection, seat.pair_bonus, seat.gray_bonus) == (protection, bonus, gray)
        assert seat.total == protection + bonus + gray and seat.animals == len(cards)
        grand += seat.total
    assert sum(s.animals for s in board.seats) == 54 - state.rules.returned
    assert grand == sum(state.card(c).protection for r in state.rescued for c in r) + sum(s.pair_bonus for s in board.seats) + 2
    assert board.winner == board.ranking[0]
    best = max(s.total for s in board.seats)
    assert board.seats[board.winner].total == best


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_game_with_a_known_deck(players: int, seed: int) -> None:
    """The demo table: the deck is known, and reveals must follow it."""
    play(players, seed, known_deck=True)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_game_with_an_unseen_deck(players: int) -> None:
    """The real table: the companion only learns the cards as they are revealed."""
    play(players, 100 + players, known_deck=False)

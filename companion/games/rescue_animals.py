"""Rescue Animals (Strawberry Studio), the rules as a pure function: apply(state, action) -> state.

State: the seats (names), the display (card ids face up), how many cards are left in the Animal
Deck (and, for the demo table, which ones, top first), the cards seen so far, the round, the
Conservation Leader, who holds the gray die (None in round 1: it lies beside the deck), each seat's
dice as last read, what each seat rescued (in total and this round), a pending claim, the last
race, and one record per finished round. All tuples; nothing is mutated.

Phases, in the order they come:
  "reveal"   the round's display is awaited: `Reveal(cards)` (a chance action: by camera, by a
             phone, or from the known demo deck via `next_reveal`);
  "ready"    the Leader's (or last rescuer's) "Ready, Set, Go!" is under way; presses are refused;
             `Go()` opens the race;
  "open"     seats roll (`Roll`, a chance action, allowed in every phase but "over") and press;
             the race winner takes a card: `Rescue(seat, card, dice, race)` at once when their
             dice satisfy one display card, or `Claim(seat, dice, race)` when several;
  "choosing" the claimant picks: `Rescue(seat, card)` (checked against the claim's dice);
  "over"     the deck was empty at the end of a round; `scores(state)` is final.
After a rescue the phase returns to "ready" (the rescuer calls "Ready, Set, Go!"); when the display
is empty, the seat left without its rescue (2 players: the one who missed its second) takes the
gray die, and either the game ends (deck empty) or the Leader passes clockwise and a new round
begins with "reveal". The last round hands the gray die over too, so its 2 points at the end go
to the player left out last (the rulebook gives it to whoever "has the gray die at the end").

Chance enters as actions (Reveal, Roll); the first Leader, chosen or drawn at random, comes in
`Setup.leader`; so the engine is deterministic. Errors are `IllegalAction` subclasses whose
messages name the values involved.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, fields, replace
from typing import Any, Iterable, Sequence

from companion.dice_requirements import (
    BadDice,
    Die,
    Hint,
    closeness,
    dice_text,
    match,
    parse_requirement,
)
from companion.errors import IllegalAction

__all__ = [
    "Die", "Card", "Setup", "State", "RaceRecord", "RoundRecord", "SeatScore", "Scoreboard",
    "Reveal", "Roll", "Go", "Claim", "Rescue", "ACTIONS", "action_from_dict",
    "new_game", "legal_actions", "apply", "is_over", "scores", "satisfied_cards", "claim_refusal",
    "keep_hint", "tie_order", "next_reveal", "action_for_winner", "PHASES", "demo_deck", "rules_for", "Rules",
    "WrongPhase", "BadSetup", "BadDice", "BadReveal", "UnknownCard", "NotSatisfied",
    "QuotaReached", "NotTheClaimant", "MalformedAction",
]

# --- constants (from the rulebook) ----------------------------------------------------------------

PHASES = ("reveal", "ready", "open", "choosing", "over")
RETURNED_TO_BOX = {2: 9, 3: 10, 4: 9, 5: 10}
DISPLAY_PER_ROUND = {2: 3, 3: 2, 4: 3, 5: 4}
WHITE_DICE_PER_SEAT = 4
BLACK_DICE_PER_SEAT = 1
GRAY_DIE_POINTS = 2


@dataclass(frozen=True)
class Rules:
    """The numbers the rulebook gives for a player count."""

    players: int
    returned: int  # cards returned to the box unseen
    display: int  # cards displayed a round
    rescues_per_seat: int  # a round's quota per seat (two in the 2-player game)


def rules_for(players: int) -> Rules:
    """The rulebook's numbers for 2-5 players."""
    if players not in RETURNED_TO_BOX:
        raise BadSetup(f"Rescue Animals is for 2 to 5 players, not {players}")
    return Rules(players, RETURNED_TO_BOX[players], DISPLAY_PER_ROUND[players], 2 if players == 2 else 1)


# --- errors ---------------------------------------------------------------------------------------


class WrongPhase(IllegalAction):
    """The action does not fit the phase of the round (e.g. a rescue before Go)."""


class BadSetup(IllegalAction):
    """The game cannot start with this setup (player count, names, Leader, deck)."""


class BadReveal(IllegalAction):
    """The revealed display does not fit: wrong count, copies used up, not the deck's top cards."""


class UnknownCard(IllegalAction):
    """A card id that is not in the catalogue, or not on display."""


class NotSatisfied(IllegalAction):
    """The seat's dice do not meet the card's requirement (or any display card's)."""


class QuotaReached(IllegalAction):
    """The seat has already rescued all it may this round."""


class NotTheClaimant(IllegalAction):
    """Another seat is choosing its card."""


class MalformedAction(IllegalAction):
    """An action's dict (from the event log or the JSON API) is not well formed."""


# --- data -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Card:
    """An Endangered Animal card; copies of one card share the id."""

    id: str
    name: str
    latin: str
    area: str
    copies: int
    protection: int
    bonus: int
    requirement: str  # the text form of companion.dice_requirements

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class RaceRecord:
    """The JSON-able record of a settled "Rescuing!" race (see companion.race.settle)."""

    winner: int | None
    tied: tuple[int, ...] = ()
    gap_ms: float | None = None
    decided_by: str = "first press"
    refused: tuple[tuple[int, str], ...] = ()
    presses: tuple[tuple[int, float, str], ...] = ()  # (seat, t_ms, source), as received

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {
            "winner": self.winner,
            "tied": list(self.tied),
            "gap_ms": self.gap_ms,
            "decided_by": self.decided_by,
            "refused": [[seat, reason] for seat, reason in self.refused],
            "presses": [[seat, t, source] for seat, t, source in self.presses],
        }

    @classmethod
    def from_dict(cls, d: Any) -> RaceRecord:
        """Read a record written by to_dict."""
        try:
            return cls(
                winner=None if d["winner"] is None else int(d["winner"]),
                tied=tuple(int(s) for s in d.get("tied", ())),
                gap_ms=None if d.get("gap_ms") is None else float(d["gap_ms"]),
                decided_by=str(d.get("decided_by", "first press")),
                refused=tuple((int(s), str(r)) for s, r in d.get("refused", ())),
                presses=tuple((int(s), float(t), str(src)) for s, t, src in d.get("presses", ())),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise MalformedAction(
                f"a race record needs winner, tied, gap_ms, decided_by, refused; got {d!r} ({error})"
            ) from None


@dataclass(frozen=True)
class Setup:
    """How a game starts.

    players: names in seat order, clockwise. leader: the first Conservation Leader's seat (chosen
    at the table, or drawn at random by the session: then `leader_drawn=True`, for the record).
    deck: the Animal Deck, top first, AFTER the cards went back to the box, when it is known (the
    demo table; see `demo_deck`); None for a real, unseen physical deck, whose display cards come in
    by `Reveal` and whose size is the catalogue's count minus the cards returned to the box.
    """

    players: tuple[str, ...]
    leader: int = 0
    deck: tuple[str, ...] | None = None
    leader_drawn: bool = False

    def to_dict(self) -> dict:
        """JSON-able form (for the event log)."""
        return {
            "players": list(self.players),
            "leader": self.leader,
            "deck": None if self.deck is None else list(self.deck),
            "leader_drawn": self.leader_drawn,
        }

    @classmethod
    def from_dict(cls, d: Any) -> Setup:
        """Read a setup written by to_dict, with a clear error if malformed."""
        if not isinstance(d, dict) or not isinstance(d.get("players"), (list, tuple)):
            raise BadSetup(f"a setup needs 'players' (a list of names in seat order); got {d!r}")
        unknown = set(d) - {"players", "leader", "deck", "leader_drawn"}
        if unknown:
            raise BadSetup(f"a setup has players, leader, deck, leader_drawn; not {', '.join(sorted(unknown))}")
        deck = d.get("deck")
        if deck is not None and not (isinstance(deck, (list, tuple)) and all(isinstance(c, str) for c in deck)):
            raise BadSetup(f"the setup's deck must be a list of card ids, not {deck!r}")
        leader = d.get("leader", 0)
        if isinstance(leader, bool) or not isinstance(leader, int):
            raise BadSetup(f"the setup's leader must be a seat number, not {leader!r}")
        return cls(tuple(d["players"]), leader, None if deck is None else tuple(deck), bool(d.get("leader_drawn", False)))


@dataclass(frozen=True)
class RoundRecord:
    """What happened in a finished round."""

    number: int
    leader: int
    display: tuple[str, ...]
    rescues: tuple[tuple[int, str], ...]  # (seat, card id) in order
    gray_taker: int | None  # who took the gray die at the end of it (None: it did not move)


# --- actions --------------------------------------------------------------------------------------


def _dice_list(dice: tuple[Die, ...] | None) -> list | None:
    """Dice as a JSON list (None stays None)."""
    return None if dice is None else [d.to_dict() for d in dice]


@dataclass(frozen=True)
class Reveal:
    """Chance: the round's display cards, by card id."""

    kind = "reveal"
    cards: tuple[str, ...]

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {"kind": self.kind, "cards": list(self.cards)}


@dataclass(frozen=True)
class Roll:
    """Chance: a seat's dice as read by camera or tapped on a phone."""

    kind = "roll"
    seat: int
    dice: tuple[Die, ...]

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {"kind": self.kind, "seat": self.seat, "dice": _dice_list(self.dice)}


@dataclass(frozen=True)
class Go:
    """The "Ready, Set, Go!" call has finished; the race is open."""

    kind = "go"

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {"kind": self.kind}


@dataclass(frozen=True)
class Claim:
    """The race winner's dice (as at the press) satisfy several display cards: it must choose."""

    kind = "claim"
    seat: int
    dice: tuple[Die, ...] | None = None
    race: RaceRecord | None = None

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {
            "kind": self.kind,
            "seat": self.seat,
            "dice": _dice_list(self.dice),
            "race": None if self.race is None else self.race.to_dict(),
        }


@dataclass(frozen=True)
class Rescue:
    """The seat takes that card; checked against `dice` (the dice at the press), else its dice in the state."""

    kind = "rescue"
    seat: int
    card: str
    race: RaceRecord | None = None
    dice: tuple[Die, ...] | None = None

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {
            "kind": self.kind,
            "seat": self.seat,
            "card": self.card,
            "dice": _dice_list(self.dice),
            "race": None if self.race is None else self.race.to_dict(),
        }


Action = Reveal | Roll | Go | Claim | Rescue
ACTIONS = {cls.kind: cls for cls in (Reveal, Roll, Go, Claim, Rescue)}


def action_from_dict(d: Any) -> Action:
    """Rebuild an action from its to_dict form (event log, JSON API); MalformedAction if wrong."""
    if not isinstance(d, dict) or d.get("kind") not in ACTIONS:
        raise MalformedAction(f"an action is a dict with 'kind' one of {', '.join(ACTIONS)}; got {d!r}")
    kind = d["kind"]
    allowed = {"kind"} | {f.name for f in fields(ACTIONS[kind])}
    unknown = set(d) - allowed
    if unknown:
        raise MalformedAction(f"a {kind!r} action has fields {', '.join(sorted(allowed))}; not {', '.join(sorted(unknown))}")
    if kind == "go":
        return Go()
    if kind == "reveal":
        cards = d.get("cards")
        if not isinstance(cards, (list, tuple)) or not all(isinstance(c, str) for c in cards):
            raise MalformedAction(f"a reveal needs 'cards', a list of card ids; got {cards!r}")
        return Reveal(tuple(cards))
    seat = _seat_field(d)
    if kind == "roll":
        dice = _dice_field(d, required=True)
        return Roll(seat, dice)
    race = None if d.get("race") is None else RaceRecord.from_dict(d["race"])
    dice = _dice_field(d, required=False)
    if kind == "claim":
        return Claim(seat, dice, race)
    card = d.get("card")
    if not isinstance(card, str) or not card:
        raise MalformedAction(f"a rescue needs 'card', a card id; got {card!r}")
    return Rescue(seat, card, race, dice)


def _seat_field(d: dict) -> int:
    """The 'seat' of an action dict, which must be a whole number."""
    seat = d.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise MalformedAction(f"a {d['kind']!r} action needs 'seat', a seat number; got {seat!r}")
    return seat


def _dice_field(d: dict, required: bool) -> tuple[Die, ...] | None:
    """The 'dice' of an action dict: a list of {colour, value}."""
    dice = d.get("dice")
    if dice is None and not required:
        return None
    if not isinstance(dice, (list, tuple)):
        raise MalformedAction(f"a {d['kind']!r} action needs 'dice', a list of {{colour, value}}; got {dice!r}")
    return tuple(Die.from_dict(x) for x in dice)


# --- state ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A moment of a game of Rescue Animals. Frozen; tuples only."""

    players: tuple[str, ...]
    cards: tuple[Card, ...]  # the catalogue the game started with, one entry per card id
    rules: Rules
    phase: str
    round: int  # 1-based
    leader: int
    gray_holder: int | None  # None: beside the deck
    deck_left: int
    known_deck: tuple[str, ...] | None  # the rest of a known deck, top first
    seen: tuple[str, ...]  # every card id revealed so far
    display: tuple[str, ...]
    dice: tuple[tuple[Die, ...], ...]  # per seat, as last read; () = not read yet
    rescued: tuple[tuple[str, ...], ...]  # per seat, card ids in the order rescued
    round_display: tuple[str, ...] = ()  # the cards this round displayed
    round_rescues: tuple[tuple[int, str], ...] = ()  # (seat, card id) this round, in order
    claim: Claim | None = None  # pending while phase == "choosing"
    last_race: RaceRecord | None = None
    rounds: tuple[RoundRecord, ...] = ()
    first_leader: int = 0
    leader_drawn: bool = False

    @property
    def rounds_total(self) -> int:
        """How many rounds the game has in all (15/22/15/11 for 2/3/4/5 players with 54 cards)."""
        later = -(-self.deck_left // self.rules.display)
        current = 1 if self.phase in ("ready", "open", "choosing") else 0
        return len(self.rounds) + current + later

    @property
    def this_round(self) -> tuple[tuple[str, ...], ...]:
        """Per seat, the card ids it rescued this round."""
        return tuple(tuple(c for s, c in self.round_rescues if s == seat) for seat in range(len(self.players)))

    def card(self, card_id: str) -> Card:
        """The catalogue entry of a card id (UnknownCard if there is none)."""
        for card in self.cards:
            if card.id == card_id:
                return card
        raise UnknownCard(f"there is no card {card_id!r} in the catalogue; known ids: {', '.join(c.id for c in self.cards)}")

    def name(self, seat: int) -> str:
        """A seat's player name, for messages."""
        return f"seat {seat + 1} ({self.players[seat]})"  # people count seats from 1, like the mat

    def to_dict(self) -> dict:
        """A JSON-able view of the state (the per-seat live answers come from the functions below)."""
        return {
            "players": list(self.players),
            "phase": self.phase,
            "round": self.round,
            "rounds_total": self.rounds_total,
            "leader": self.leader,
            "gray_holder": self.gray_holder,
            "deck_left": self.deck_left,
            "display": list(self.display),
            "dice": [[d.to_dict() for d in dice] for dice in self.dice],
            "rescued": [list(r) for r in self.rescued],
            "this_round": [list(r) for r in self.this_round],
            "rescues_per_seat": self.rules.rescues_per_seat,
            "claim": None if self.claim is None else self.claim.to_dict(),
            "last_race": None if self.last_race is None else self.last_race.to_dict(),
            "rounds": [
                {"number": r.number, "leader": r.leader, "display": list(r.display),
                 "rescues": [[s, c] for s, c in r.rescues], "gray_taker": r.gray_taker}
                for r in self.rounds
            ],
        }


def _check_catalogue(cards: Iterable[Any]) -> tuple[Card, ...]:
    """The cards as Card entries, ids unique and requirements parseable."""
    result = []
    for card in cards:
        if isinstance(card, dict):
            card = Card(**{f.name: card[f.name] for f in fields(Card)})
        elif not isinstance(card, Card):
            card = Card(**{f.name: getattr(card, f.name) for f in fields(Card)})
        parse_requirement(card.requirement)
        result.append(card)
    ids = Counter(c.id for c in result)
    twice = [i for i, n in ids.items() if n > 1]
    if twice:
        raise BadSetup(f"the catalogue lists card ids more than once: {', '.join(twice)}")
    if not result:
        raise BadSetup("the catalogue has no cards")
    return tuple(result)


def new_game(setup: Setup, catalogue: Any) -> State:
    """A new game for the setup; `catalogue` is a companion.catalogue.Catalogue or a sequence of Card."""
    cards = _check_catalogue(getattr(catalogue, "cards", catalogue))
    players = tuple(setup.players)
    rules = rules_for(len(players))
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise BadSetup(f"every player needs a name; got {list(players)!r}")
    if len(set(n.strip().casefold() for n in players)) != len(players):
        raise BadSetup(f"two players have the same name in {list(players)!r}; give each a different one")
    if isinstance(setup.leader, bool) or not isinstance(setup.leader, int) or not 0 <= setup.leader < len(players):
        raise BadSetup(f"the first Conservation Leader must be one of seats 1-{len(players)} (index 0-{len(players) - 1}), not index {setup.leader!r}")
    total = sum(c.copies for c in cards)
    if setup.deck is None:
        deck_left = total - rules.returned
        if deck_left <= 0:
            raise BadSetup(
                f"the catalogue holds {total} cards; {len(players)} players return {rules.returned} "
                "to the box, which leaves none to play"
            )
    else:
        _check_deck(setup.deck, cards)
        deck_left = len(setup.deck)
    n = len(players)
    return State(
        players=players, cards=cards, rules=rules, phase="reveal", round=1, leader=setup.leader,
        gray_holder=None, deck_left=deck_left,
        known_deck=None if setup.deck is None else tuple(setup.deck), seen=(), display=(),
        dice=((),) * n, rescued=((),) * n,
        first_leader=setup.leader, leader_drawn=setup.leader_drawn,
    )


def _check_deck(deck: Sequence[str], cards: tuple[Card, ...]) -> None:
    """A known deck holds only catalogue ids, no more copies than printed, and at least one card."""
    copies = {c.id: c.copies for c in cards}
    if not deck:
        raise BadSetup("the known deck is empty")
    for card_id, count in Counter(deck).items():
        if card_id not in copies:
            raise BadSetup(f"the deck holds card {card_id!r}, which is not in the catalogue")
        if count > copies[card_id]:
            raise BadSetup(f"the deck holds {count} copies of {card_id!r}; the catalogue says there are {copies[card_id]}")


def demo_deck(catalogue: Any, players: int, seed: int) -> tuple[str, ...]:
    """A shuffled known deck (seeded, so deterministic) with the rulebook's cards returned to the box."""
    cards = _check_catalogue(getattr(catalogue, "cards", catalogue))
    full = [c.id for c in cards for _ in range(c.copies)]
    random.Random(seed).shuffle(full)
    return tuple(full[rules_for(players).returned:])


# --- questions about a state ----------------------------------------------------------------------


def is_over(state: State) -> bool:
    """Whether the game has ended (the deck was empty at the end of a round)."""
    return state.phase == "over"


def next_reveal(state: State) -> Reveal | None:
    """The Reveal that the known deck dictates now, or None (unknown deck, or not revealing)."""
    if state.phase != "reveal" or state.known_deck is None:
        return None
    return Reveal(state.known_deck[: _display_size(state)])


def _display_size(state: State) -> int:
    """Cards to draw this round: the rulebook's number, or what is left."""
    return min(state.rules.display, state.deck_left)


def _check_seat(state: State, seat: Any) -> int:
    """A valid seat number, or IllegalAction naming it."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state.players):
        raise IllegalAction(f"there is no seat index {seat!r}; the seats are 1-{len(state.players)} (index 0-{len(state.players) - 1})")
    return seat


def _quota_left(state: State, seat: int) -> int:
    """How many more cards this seat may rescue this round."""
    return state.rules.rescues_per_seat - len(state.this_round[seat])


def satisfied_cards(state: State, seat: int, dice: Sequence[Die] | None = None) -> tuple[str, ...]:
    """The display card ids (each once) that the seat's dice (or `dice`) satisfy."""
    _check_seat(state, seat)
    dice = state.dice[seat] if dice is None else tuple(dice)
    if not dice:
        return ()
    ids = dict.fromkeys(state.display)
    return tuple(i for i in ids if match(state.card(i).requirement, dice) is not None)


def claim_refusal(state: State, seat: int, dice: Sequence[Die] | None = None) -> str | None:
    """Why this seat may not claim now (with `dice`, or its dice in the state), in words; None if it may."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state.players):
        return f"there is no seat index {seat!r}"
    if state.phase == "over":
        return "the game is over"
    if state.phase == "reveal":
        return "the race is not open yet: this round's cards are not on display"
    if state.phase == "ready":
        return "the race is not open yet: wait for Go!"
    if state.phase == "choosing" and state.claim is not None:
        return f"{state.players[state.claim.seat]} is choosing a card; wait for the next Go!"
    if _quota_left(state, seat) <= 0:
        if state.rules.rescues_per_seat == 2:
            return f"{state.players[seat]} has already rescued two animals this round"
        return f"{state.players[seat]} has already rescued an animal this round"
    dice = state.dice[seat] if dice is None else tuple(dice)
    if not dice:
        return f"{state.players[seat]}'s dice have not been read yet"
    problem = _dice_problem(state, seat, dice)
    if problem:
        return problem
    if not satisfied_cards(state, seat, dice):
        return f"{state.players[seat]}'s dice ({dice_text(dice)}) satisfy none of the cards on display"
    return None


def keep_hint(state: State, seat: int, card_id: str) -> Hint | None:
    """How many dice the seat still misses for a card and which to set aside; None before its dice are read."""
    _check_seat(state, seat)
    if not state.dice[seat]:
        return None
    return closeness(state.card(card_id).requirement, state.dice[seat])


def tie_order(state: State, seats: Iterable[int]) -> tuple[int, ...]:
    """Tied race seats in the rulebook's order: the gray die user first, then clockwise from the Leader."""
    n = len(state.players)
    unique = set(seats)
    order = sorted(unique, key=lambda s: (s != state.gray_holder, (s - state.leader) % n))
    return tuple(order)


def action_for_winner(
    state: State, seat: int, dice: Sequence[Die] | None = None, race: RaceRecord | None = None
) -> Rescue | Claim:
    """What the race winner's press becomes: Rescue when its dice satisfy one display card, else Claim.

    Raises the IllegalAction that says why, when the seat may not claim (see claim_refusal).
    """
    seat = _check_seat(state, seat)
    dice = None if dice is None else tuple(dice)
    reason = claim_refusal(state, seat, dice)
    if reason is not None:
        error = WrongPhase if state.phase != "open" else QuotaReached if _quota_left(state, seat) <= 0 else NotSatisfied
        raise error(f"{state.name(seat)} cannot claim: {reason}")
    cards = satisfied_cards(state, seat, dice)
    if len(cards) == 1:
        return Rescue(seat, cards[0], race, dice)
    return Claim(seat, dice, race)


def legal_actions(state: State) -> list:
    """The decisions open now (Go, Claim, Rescue; Reveal from a known deck).

    Roll and the Reveal of an unknown deck are chance actions: any well-formed one is accepted by
    `apply`, so they are not listed.
    """
    if state.phase == "reveal":
        reveal = next_reveal(state)
        return [reveal] if reveal else []
    if state.phase == "ready":
        return [Go()]
    if state.phase == "choosing" and state.claim is not None:
        claim = state.claim
        return [Rescue(claim.seat, c, claim.race, claim.dice) for c in satisfied_cards(state, claim.seat, claim.dice)]
    if state.phase != "open":
        return []
    actions: list = []
    for seat in range(len(state.players)):
        if claim_refusal(state, seat) is None:
            cards = satisfied_cards(state, seat)
            actions.extend(Rescue(seat, c) for c in cards)
            if len(cards) > 1:
                actions.append(Claim(seat))
    return actions


# --- apply ----------------------------------------------------------------------------------------


def apply(state: State, action: Action) -> State:
    """The state after `action`; raises an IllegalAction subclass naming the values if it is not allowed."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise MalformedAction(f"{action!r} is not a Rescue Animals action; use one of {', '.join(ACTIONS)}")
    if state.phase == "over":
        raise WrongPhase(f"the game is over; no more {action.kind} actions")
    return handler(state, action)


def _apply_reveal(state: State, action: Reveal) -> State:
    """Put the round's cards on display."""
    if state.phase != "reveal":
        raise WrongPhase(
            f"cards are revealed at the start of a round; now the phase is {state.phase!r} "
            f"and the display is {list(state.display)}"
        )
    cards = tuple(action.cards)
    size = _display_size(state)
    if len(cards) != size:
        cards_word = "card" if size == 1 else "cards"
        raise BadReveal(
            f"round {state.round} displays {size} {cards_word} for {len(state.players)} players; "
            f"got {len(cards)}: {list(cards)}"
        )
    for card_id in cards:
        state.card(card_id)
    seen = Counter(state.seen) + Counter(cards)
    for card_id, count in seen.items():
        copies = state.card(card_id).copies
        if count > copies:
            raise BadReveal(
                f"{card_id!r} would be seen {count} times, but the deck has only {copies} "
                f"{'copy' if copies == 1 else 'copies'}; check the cards on display"
            )
    known = state.known_deck
    if known is not None:
        top = known[:size]
        if Counter(top) != Counter(cards):
            raise BadReveal(f"the known deck's top cards are {list(top)}, not {list(cards)}")
        known = known[size:]
    return replace(
        state, phase="ready", display=cards, round_display=cards, seen=state.seen + cards,
        deck_left=state.deck_left - size, known_deck=known,
    )


def _dice_problem(state: State, seat: int, dice: Sequence[Die]) -> str | None:
    """What is wrong with a seat's dice (a wrong set, a gray die it does not hold), or None."""
    count = Counter(d.colour for d in dice)
    holds_gray = state.gray_holder == seat
    if count["gray"] and not holds_gray:
        where = "is still beside the deck" if state.gray_holder is None else f"is held by {state.name(state.gray_holder)}"
        return f"{state.name(seat)} has a gray die among its dice, but the gray die {where}"
    want_gray = 1 if holds_gray else 0
    if count["white"] != WHITE_DICE_PER_SEAT or count["black"] != BLACK_DICE_PER_SEAT or count["gray"] != want_gray:
        want = f"{WHITE_DICE_PER_SEAT} white and {BLACK_DICE_PER_SEAT} black" + (" and the gray" if holds_gray else "")
        got = ", ".join(f"{count[c]} {c}" for c in ("white", "black", "gray") if count[c]) or "no dice"
        return f"{state.name(seat)} rolls {want} dice; got {got} ({dice_text(dice)})"
    return None


def _apply_roll(state: State, action: Roll) -> State:
    """Record a seat's dice as read."""
    seat = _check_seat(state, action.seat)
    dice = tuple(action.dice)
    if not all(isinstance(d, Die) for d in dice):
        raise BadDice(f"a roll is a tuple of Die; got {dice!r}")
    problem = _dice_problem(state, seat, dice)
    if problem:
        raise BadDice(problem)
    return replace(state, dice=_set(state.dice, seat, dice))


def _apply_go(state: State, action: Go) -> State:
    """Open the race."""
    if state.phase != "ready":
        raise WrongPhase(f"Go! ends the 'Ready, Set, Go!' call; the phase is {state.phase!r}, not 'ready'")
    return replace(state, phase="open")


def _claim_dice(state: State, seat: int, dice: tuple[Die, ...] | None) -> tuple[Die, ...]:
    """The dice a claim is checked against: those given (validated), else the seat's dice in the state."""
    if dice is None:
        return state.dice[seat]
    dice = tuple(dice)
    problem = _dice_problem(state, seat, dice)
    if problem:
        raise BadDice(problem)
    return dice


def _check_can_claim(state: State, seat: int, dice: tuple[Die, ...]) -> None:
    """Raise the error that says why `seat` may not claim in the open race with these dice."""
    if state.phase != "open":
        raise WrongPhase(f"{state.name(seat)} cannot claim now: {claim_refusal(state, seat, dice)}")
    if _quota_left(state, seat) <= 0:
        raise QuotaReached(f"{claim_refusal(state, seat, dice)} (rescued {list(state.this_round[seat])})")
    if not dice:
        raise NotSatisfied(f"{state.name(seat)}'s dice have not been read yet")


def _apply_claim(state: State, action: Claim) -> State:
    """The race winner must choose among several cards its dice satisfy."""
    seat = _check_seat(state, action.seat)
    dice = _claim_dice(state, seat, action.dice)
    _check_can_claim(state, seat, dice)
    if not satisfied_cards(state, seat, dice):
        raise NotSatisfied(
            f"{state.name(seat)}'s dice ({dice_text(dice)}) satisfy none of the display cards {list(state.display)}"
        )
    claim = Claim(seat, dice, action.race)
    return replace(state, phase="choosing", claim=claim, last_race=action.race)


def _apply_rescue(state: State, action: Rescue) -> State:
    """The seat takes a display card its dice satisfy; the round may end."""
    seat = _check_seat(state, action.seat)
    race = action.race
    if state.phase == "choosing" and state.claim is not None:
        if seat != state.claim.seat:
            raise NotTheClaimant(
                f"{state.name(state.claim.seat)} won the race and is choosing; {state.name(seat)} cannot rescue now"
            )
        dice = state.claim.dice
        if action.dice is not None and tuple(action.dice) != dice:
            raise NotSatisfied(f"the claim was made with {dice_text(dice)}, not {dice_text(action.dice)}")
        race = race or state.claim.race
    else:
        dice = _claim_dice(state, seat, action.dice)
        _check_can_claim(state, seat, dice)
    if action.card not in state.display:
        state.card(action.card)  # UnknownCard if it is no card at all
        raise UnknownCard(f"{action.card!r} is not on display; the display is {list(state.display)}")
    card = state.card(action.card)
    if match(card.requirement, dice) is None:
        hint = closeness(card.requirement, dice)
        short = f"{hint.missing} dice short ({', '.join(hint.open)})"
        missing = "cannot be met with these dice" if hint.missing is None else short
        raise NotSatisfied(
            f"{state.name(seat)}'s dice ({dice_text(dice)}) do not meet {card.name} ({card.requirement}): {missing}"
        )
    display = list(state.display)
    display.remove(card.id)
    state = replace(
        state, display=tuple(display), rescued=_set(state.rescued, seat, state.rescued[seat] + (card.id,)),
        round_rescues=state.round_rescues + ((seat, card.id),),
        claim=None, last_race=race, phase="ready",
    )
    return _end_round(state) if not display else state


def _end_round(state: State) -> State:
    """Hand the gray die to the seat left without its rescue; pass the Leader or end the game."""
    short = [s for s in range(len(state.players)) if _quota_left(state, s) > 0]
    taker = short[0] if len(short) == 1 else None  # more than one only in a short last round
    gray = state.gray_holder if taker is None else taker
    record = RoundRecord(state.round, state.leader, state.round_display, state.round_rescues, taker)
    n = len(state.players)
    state = replace(
        state, gray_holder=gray, rounds=state.rounds + (record,), round_rescues=(), round_display=(),
        dice=((),) * n, display=(),
    )
    if state.deck_left == 0:
        return replace(state, phase="over")
    return replace(state, phase="reveal", round=state.round + 1, leader=(state.leader + 1) % n)


def _set(items: tuple, index: int, value: Any) -> tuple:
    """A copy of a tuple with one item replaced."""
    return items[:index] + (value,) + items[index + 1:]


_HANDLERS = {Reveal: _apply_reveal, Roll: _apply_roll, Go: _apply_go, Claim: _apply_claim, Rescue: _apply_rescue}


# --- scoring --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatScore:
    """One seat's points."""

    seat: int
    name: str
    protection: int
    pair_bonus: int
    gray_bonus: int
    total: int
    animals: int
    pairs: tuple[tuple[str, int], ...] = ()  # (card id, pairs) for cards with at least one pair

    def to_dict(self) -> dict:
        """JSON-able form."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["pairs"] = [[c, n] for c, n in self.pairs]
        return d


@dataclass(frozen=True)
class Scoreboard:
    """Points per seat, the ranking with the rulebook's tie-breaks, and which one decided, in words."""

    seats: tuple[SeatScore, ...]
    ranking: tuple[int, ...]  # seats, best first
    winner: int | None  # None before any points are scored
    decided_by: str
    final: bool

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {
            "seats": [s.to_dict() for s in self.seats],
            "ranking": list(self.ranking),
            "winner": self.winner,
            "decided_by": self.decided_by,
            "final": self.final,
        }


def _seat_score(state: State, seat: int) -> SeatScore:
    """Protection Points, Bonus Points per pair of identical animals, 2 for the gray die at the end."""
    rescued = state.rescued[seat]
    protection = sum(state.card(c).protection for c in rescued)
    pairs = tuple((c, n // 2) for c, n in sorted(Counter(rescued).items()) if n >= 2)
    pair_bonus = sum(state.card(c).bonus * p for c, p in pairs)
    gray = GRAY_DIE_POINTS if state.phase == "over" and state.gray_holder == seat else 0
    total = protection + pair_bonus + gray
    return SeatScore(seat, state.players[seat], protection, pair_bonus, gray, total, len(rescued), pairs)


def scores(state: State) -> Scoreboard:
    """The scoreboard (final once the game is over; the standings so far before)."""
    seats = tuple(_seat_score(state, s) for s in range(len(state.players)))
    n = len(seats)

    def key(s: SeatScore) -> tuple:
        """Most points, then most animals, then the gray die, then clockwise from the Leader."""
        return (-s.total, -s.animals, s.seat != state.gray_holder, (s.seat - state.leader) % n)

    ranking = tuple(s.seat for s in sorted(seats, key=key))
    top = seats[ranking[0]]
    tied = [s for s in seats if s.total == top.total]
    if top.total == 0 and not top.animals:
        return Scoreboard(seats, ranking, None, "no points scored yet", state.phase == "over")
    return Scoreboard(seats, ranking, top.seat, _decided_by(state, top, tied), state.phase == "over")


def _decided_by(state: State, top: SeatScore, tied: list[SeatScore]) -> str:
    """Which rule made `top` the winner, in words."""
    if len(tied) == 1:
        return "most points"
    names = ", ".join(s.name for s in tied)
    most = [s for s in tied if s.animals == top.animals]
    if len(most) == 1:
        return f"tie on {top.total} points ({names}): {top.name} rescued the most animals ({top.animals})"
    names = ", ".join(s.name for s in most)
    animals = f"{top.animals} animal{'s' if top.animals != 1 else ''}"
    if state.gray_holder in {s.seat for s in most}:
        return f"tie on {top.total} points and {animals} ({names}): {top.name} has the gray die"
    leader = state.players[state.leader]
    return (
        f"tie on {top.total} points and {animals} ({names}): {top.name} is first "
        f"clockwise from the Conservation Leader ({leader})"
    )

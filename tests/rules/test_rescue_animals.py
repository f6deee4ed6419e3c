"""The Rescue Animals engine on the rulebook: setup, the round, the race phases, the gray die, 2 players."""

from __future__ import annotations

import re

import pytest

from companion.dice_requirements import dice_from_text as D
from companion.games.rescue_animals import (
    BadDice,
    BadReveal,
    BadSetup,
    Claim,
    Go,
    MalformedAction,
    NotSatisfied,
    NotTheClaimant,
    QuotaReached,
    RaceRecord,
    Rescue,
    Reveal,
    Roll,
    Setup,
    UnknownCard,
    WrongPhase,
    action_for_winner,
    action_from_dict,
    apply,
    claim_refusal,
    demo_deck,
    is_over,
    keep_hint,
    legal_actions,
    new_game,
    next_reveal,
    rules_for,
    satisfied_cards,
    tie_order,
)
from companion.errors import IllegalAction

LEOPARD = "B2 W3 W6 W1 W1"  # meets amur-leopard (B2 W3 W6) and kakapo (W*)
PANDA = "B4 W5 W5 W5 W1"  # meets giant-panda and kakapo
NOTHING = "B1 W2 W2 W4 W4"  # meets kakapo only (W*)


# --- setup ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players, returned, display, quota, rounds", [(2, 9, 3, 2, 15), (3, 10, 2, 1, 22), (4, 9, 3, 1, 15), (5, 10, 4, 1, 11)])
def test_setup_numbers_from_the_rulebook(sample, players, returned, display, quota, rounds) -> None:
    """54 cards minus those returned to the box; display size and rounds by player count."""
    rules = rules_for(players)
    assert (rules.returned, rules.display, rules.rescues_per_seat) == (returned, display, quota)
    state = new_game(Setup(tuple("ABCDE"[:players]), 0), sample)
    assert state.deck_left == 54 - returned
    assert state.rounds_total == rounds
    assert state.gray_holder is None  # the gray die lies beside the deck
    assert state.phase == "reveal" and state.round == 1


def test_demo_deck_returns_the_right_number_to_the_box(sample) -> None:
    """A seeded known deck holds 54 minus the returned cards, and the same seed gives the same deck."""
    deck = demo_deck(sample, 3, seed=7)
    assert len(deck) == 44 and deck == demo_deck(sample, 3, seed=7) != demo_deck(sample, 3, seed=8)


@pytest.mark.parametrize(
    "players, leader, words",
    [
        (("A",), 0, "2 to 5 players, not 1"),
        (tuple("ABCDEF"), 0, "2 to 5 players, not 6"),
        (("A", "a"), 0, "the same name"),
        (("A", " "), 0, "every player needs a name"),
        (("A", "B"), 2, "seats 1-2 (index 0-1), not index 2"),
        (("A", "B"), -1, "seats 1-2 (index 0-1), not index -1"),
    ],
)
def test_bad_setup_is_named(cards, players, leader, words) -> None:
    """Setup errors say what is wrong."""
    with pytest.raises(BadSetup, match=re.escape(words)):
        new_game(Setup(players, leader), cards)


def test_known_deck_must_fit_the_catalogue(cards) -> None:
    """A known deck cannot hold unknown cards or more copies than exist."""
    with pytest.raises(BadSetup, match="'dodo'"):
        new_game(Setup(("A", "B"), 0, ("dodo",)), cards)
    with pytest.raises(BadSetup, match="3 copies of 'giant-panda'.* 2"):
        new_game(Setup(("A", "B"), 0, ("giant-panda",) * 3), cards)


def test_leader_drawn_at_random_is_an_input(cards) -> None:
    """The session draws the first Leader; the engine records it and stays deterministic."""
    state = new_game(Setup(("A", "B", "C"), 2, leader_drawn=True), cards)
    assert state.leader == 2 and state.leader_drawn


# --- the round: reveal, Ready-Set-Go, race, rescue ------------------------------------------------


def test_reveal_checks_count_ids_and_copies(start) -> None:
    """The display size follows the player count; ids must exist; copies cannot run out."""
    state = start(3)
    with pytest.raises(BadReveal, match="displays 2 cards for 3 players; got 3"):
        apply(state, Reveal(("kakapo", "kakapo", "kakapo")))
    with pytest.raises(UnknownCard, match="'dodo'"):
        apply(state, Reveal(("kakapo", "dodo")))
    with pytest.raises(BadReveal, match="'giant-panda' would be seen 3 times, but the deck has only 2"):
        state2 = apply(state, Reveal(("giant-panda", "giant-panda")))
        state2 = _finish_round(state2)
        apply(state2, Reveal(("giant-panda", "kakapo")))


def _finish_round(state):
    """Let seats rescue the display's cards with made-to-fit dice until the round ends (3 players)."""
    fits = {"giant-panda": PANDA, "amur-leopard": LEOPARD, "kakapo": NOTHING, "vaquita": "B6 W1 W1 W3 W2"}
    seat = 0
    while state.display:
        if state.phase == "ready":
            state = apply(state, Go())
        card = state.display[0]
        while claim_refusal(state, seat, D(fits[card])) is not None and state.this_round[seat]:
            seat = (seat + 1) % len(state.players)
        dice = D(fits[card]) if state.gray_holder != seat else D(fits[card] + " G1")
        state = apply(state, Rescue(seat, card, dice=dice))
        seat = (seat + 1) % len(state.players)
    return state


def test_known_deck_reveals_its_top_cards(cards) -> None:
    """With a known deck the session reveals from it; anything else is refused."""
    deck = ("kakapo", "vaquita", "giant-panda", "kakapo")
    state = new_game(Setup(("A", "B", "C"), 0, deck), cards)
    assert next_reveal(state) == Reveal(("kakapo", "vaquita")) == legal_actions(state)[0]
    with pytest.raises(BadReveal, match=r"top cards are \['kakapo', 'vaquita'\], not \['kakapo', 'giant-panda'\]"):
        apply(state, Reveal(("kakapo", "giant-panda")))
    state = apply(state, Reveal(("kakapo", "vaquita")))
    assert state.known_deck == ("giant-panda", "kakapo") and state.deck_left == 2


def test_presses_before_go_are_refused(start) -> None:
    """During "Ready, Set, Go!" nobody may claim, whatever their dice."""
    state = apply(start(3), Reveal(("amur-leopard", "giant-panda")))
    state = apply(state, Roll(0, D(LEOPARD)))
    assert claim_refusal(state, 0) == "the race is not open yet: wait for Go!"
    with pytest.raises(WrongPhase, match="wait for Go!"):
        apply(state, Rescue(0, "amur-leopard"))
    assert legal_actions(state) == [Go()]


def test_claim_is_checked_against_the_dice_at_the_press(start, open_round) -> None:
    """The Rescue's dice (as at the press) decide, not what the seat rolled afterwards."""
    state = open_round(start(3), ("amur-leopard", "giant-panda"), {0: LEOPARD})
    state = apply(state, Roll(0, D(NOTHING)))  # rerolled after pressing
    after = apply(state, Rescue(0, "amur-leopard", dice=D(LEOPARD)))
    assert after.rescued[0] == ("amur-leopard",)
    with pytest.raises(NotSatisfied, match=r"seat 1 \(A\)'s dice \(B1 W2 W2 W4 W4\) do not meet Amur Leopard \(B2 W3 W6\): 3 dice short \(B2, W3, W6\)"):
        apply(state, Rescue(0, "amur-leopard"))


def test_refusals_say_why(start, open_round) -> None:
    """No dice yet, dice that satisfy nothing, a rescue already made."""
    state = open_round(start(3), ("amur-leopard", "giant-panda"), {0: LEOPARD, 1: "B1 W2 W2 W4 W3"})
    assert claim_refusal(state, 2) == "C's dice have not been read yet"
    assert claim_refusal(state, 1) == "B's dice (B1 W2 W2 W4 W3) satisfy none of the cards on display"
    assert claim_refusal(state, 0) is None
    state = apply(state, Rescue(0, "amur-leopard"))
    state = apply(state, Go())
    assert claim_refusal(state, 0) == "A has already rescued an animal this round"
    with pytest.raises(QuotaReached, match=r"already rescued an animal this round \(rescued \['amur-leopard'\]\)"):
        apply(state, Rescue(0, "giant-panda", dice=D(PANDA)))
    assert claim_refusal(state, 7) == "there is no seat index 7"


def test_the_race_reopens_only_after_go(start, open_round) -> None:
    """After a rescue the phase is "ready" until the next Go."""
    state = open_round(start(3), ("amur-leopard", "giant-panda"), {0: LEOPARD, 1: PANDA})
    state = apply(state, Rescue(0, "amur-leopard"))
    assert state.phase == "ready"
    assert claim_refusal(state, 1) == "the race is not open yet: wait for Go!"
    state = apply(state, Go())
    assert claim_refusal(state, 1) is None


def test_several_cards_satisfied_means_choosing(start, open_round) -> None:
    """A winner whose dice meet two cards claims, then picks; only the claimant may pick."""
    state = open_round(start(3), ("amur-leopard", "kakapo"), {0: LEOPARD, 1: NOTHING})
    race = RaceRecord(winner=0, tied=(0, 1), gap_ms=12.5, decided_by="tie: clockwise from the Conservation Leader")
    action = action_for_winner(state, 0, race=race)
    assert action == Claim(0, None, race)
    state = apply(state, action)
    assert state.phase == "choosing"
    assert claim_refusal(state, 1) == "A is choosing a card; wait for the next Go!"
    assert {a.card for a in legal_actions(state)} == {"amur-leopard", "kakapo"}
    with pytest.raises(NotTheClaimant, match=r"seat 1 \(A\) won the race and is choosing; seat 2 \(B\) cannot rescue now"):
        apply(state, Rescue(1, "kakapo"))
    state = apply(state, Rescue(0, "kakapo"))
    assert state.rescued[0] == ("kakapo",) and state.last_race == race and state.phase == "ready"


def test_a_single_satisfied_card_is_rescued_at_once(start, open_round) -> None:
    """action_for_winner gives a Rescue when the dice meet exactly one display card."""
    state = open_round(start(3), ("amur-leopard", "giant-panda"), {1: PANDA})
    assert action_for_winner(state, 1) == Rescue(1, "giant-panda")


def test_rescue_of_a_card_not_on_display(start, open_round) -> None:
    """The error lists the display."""
    state = open_round(start(3), ("amur-leopard", "giant-panda"), {0: LEOPARD})
    with pytest.raises(UnknownCard, match=r"'kakapo' is not on display; the display is \['amur-leopard', 'giant-panda'\]"):
        apply(state, Rescue(0, "kakapo"))


# --- dice -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dice, words",
    [
        ("B2 W3 W6 W1", "rolls 4 white and 1 black dice; got 3 white, 1 black"),
        ("B2 B3 W6 W1 W1", "got 3 white, 2 black"),
        ("B2 W3 W6 W1 W1 G3", r"has a gray die among its dice, but the gray die is still beside the deck"),
    ],
)
def test_roll_checks_the_set_of_dice(start, dice, words) -> None:
    """Four white and one black a seat; the gray only for its holder."""
    with pytest.raises(BadDice, match=words):
        apply(start(3), Roll(1, D(dice)))


def test_gray_die_belongs_to_its_holder_only(start) -> None:
    """Once held, the gray die is in the holder's roll and in nobody else's, and counts as white."""
    state = _finish_round(open_round_state := apply(start(3), Reveal(("kakapo", "kakapo"))))
    del open_round_state
    holder = state.gray_holder
    other = (holder + 1) % 3
    with pytest.raises(BadDice, match=rf"seat {other + 1} \(\w\) has a gray die among its dice, but the gray die is held by seat {holder + 1}"):
        apply(state, Roll(other, D("B1 W1 W1 W1 W1 G3")))
    with pytest.raises(BadDice, match="4 white and 1 black and the gray dice"):
        apply(state, Roll(holder, D("B1 W1 W1 W1 W1")))
    state = apply(state, Reveal(("giant-panda", "vaquita")))
    state = apply(state, Roll(holder, D("B1 W5 W5 W1 W2 G5")))
    assert satisfied_cards(state, holder) == ("giant-panda",)


def test_keep_hint(start) -> None:
    """The hint says how many dice are missing and which to set aside; None before dice are read."""
    state = apply(start(3), Reveal(("amur-leopard", "giant-panda")))
    assert keep_hint(state, 0, "amur-leopard") is None
    state = apply(state, Roll(0, D("B2 W3 W1 W1 W1")))
    hint = keep_hint(state, 0, "amur-leopard")
    assert hint.missing == 1 and hint.keep[:2] == (0, 1) and hint.open == ("W6",)


# --- end of round: gray die, Leader, end of game --------------------------------------------------


def test_three_players_the_one_left_out_takes_the_gray_die(start, open_round) -> None:
    """Round ends when the display is empty; the seat without a rescue takes the gray die; Leader passes."""
    state = open_round(start(3, leader=1), ("amur-leopard", "giant-panda"), {0: LEOPARD, 2: PANDA})
    state = apply(state, Rescue(2, "giant-panda"))
    state = apply(state, Go())
    state = apply(state, Rescue(0, "amur-leopard"))
    assert state.gray_holder == 1
    assert state.leader == 2 and state.round == 2 and state.phase == "reveal"
    assert state.rounds[-1].gray_taker == 1
    assert state.rounds[-1].rescues == ((2, "giant-panda"), (0, "amur-leopard"))
    assert state.dice == ((), (), ())  # everyone rolls afresh


def test_two_players_rescue_two_each_and_the_one_short_takes_the_gray(start, open_round) -> None:
    """2-player game: three cards a round, up to two rescues each; whoever missed the second takes the gray."""
    state = open_round(start(2), ("kakapo", "kakapo", "giant-panda"), {0: PANDA, 1: NOTHING})
    state = apply(state, Rescue(0, "kakapo"))
    state = apply(state, Go())
    assert claim_refusal(state, 0) is None  # a second rescue is allowed with 2 players
    state = apply(state, Rescue(0, "giant-panda"))
    state = apply(state, Go())
    assert claim_refusal(state, 0) == "A has already rescued two animals this round"
    state = apply(state, Rescue(1, "kakapo"))
    assert state.gray_holder == 1 and state.leader == 1


def test_the_gray_die_moves_each_round_to_the_seat_left_out(start, open_round) -> None:
    """The holder may lose it again: the next round's left-out seat takes it."""
    state = open_round(start(3), ("kakapo", "kakapo"), {0: NOTHING, 1: NOTHING})
    state = apply(apply(apply(state, Rescue(0, "kakapo")), Go()), Rescue(1, "kakapo"))
    assert state.gray_holder == 2
    state = open_round(state, ("kakapo", "vaquita"), {2: "B6 W1 W1 W3 W2 G4", 0: NOTHING})
    state = apply(state, Rescue(2, "vaquita"))
    state = apply(apply(state, Go()), Rescue(0, "kakapo"))
    assert state.gray_holder == 1
    with pytest.raises(BadDice, match="held by seat 2"):
        apply(state, Roll(2, D("B6 W1 W1 W3 W2 G4")))


def test_the_game_ends_when_the_deck_is_empty(cards) -> None:
    """A known 4-card deck with 3 players is two rounds; then the game is over and the Leader stays."""
    deck = ("kakapo", "kakapo", "kakapo", "kakapo")
    state = new_game(Setup(("A", "B", "C"), 0, deck), cards)
    assert state.rounds_total == 2
    for _ in range(2):
        state = apply(state, next_reveal(state))
        state = _finish_round(state)
    assert is_over(state) and state.round == 2 and state.leader == 1 and state.deck_left == 0
    assert legal_actions(state) == []
    with pytest.raises(WrongPhase, match="the game is over"):
        apply(state, Go())


def test_tie_order_gray_first_then_clockwise_from_the_leader(start) -> None:
    """The rulebook's race tie order."""
    state = start(5, leader=3)
    assert tie_order(state, [0, 4, 1]) == (4, 0, 1)
    from dataclasses import replace

    assert tie_order(replace(state, gray_holder=1), [0, 4, 1]) == (1, 4, 0)


# --- actions as dicts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        Reveal(("kakapo", "vaquita")),
        Roll(2, D("B1 W2 W3 W4 W5 G6")),
        Go(),
        Claim(1, D("B1 W2 W3 W4 W5"), RaceRecord(1, (1, 2), 3.5, "tie: gray die", ((0, "no dice"),), ((1, 10.0, "gpio"),))),
        Claim(1),
        Rescue(0, "kakapo"),
        Rescue(0, "kakapo", RaceRecord(0, gap_ms=None), D("B1 W2 W3 W4 W5")),
    ],
)
def test_actions_round_trip_through_dicts(action) -> None:
    """to_dict / action_from_dict give back the same action (event log, JSON API)."""
    assert action_from_dict(action.to_dict()) == action


@pytest.mark.parametrize(
    "d, words",
    [
        (None, "an action is a dict with 'kind'"),
        ({"kind": "jump"}, "'kind' one of reveal, roll, go, claim, rescue"),
        ({"kind": "roll", "seat": "1", "dice": []}, "needs 'seat', a seat number; got '1'"),
        ({"kind": "roll", "seat": 1}, "needs 'dice'"),
        ({"kind": "roll", "seat": 1, "dice": [{"colour": "pink", "value": 2}]}, "not 'pink'"),
        ({"kind": "roll", "seat": 1, "dice": [{"colour": "white", "value": 9}]}, "1 to 6, not 9"),
        ({"kind": "rescue", "seat": 1}, "needs 'card'"),
        ({"kind": "go", "extra": 1}, "not extra"),
        ({"kind": "reveal", "cards": "kakapo"}, "a list of card ids"),
        ({"kind": "claim", "seat": 0, "race": {"tied": []}}, "a race record needs winner"),
    ],
)
def test_malformed_action_dicts_are_named(d, words) -> None:
    """Hostile or broken input raises an IllegalAction with a sentence, never a KeyError."""
    with pytest.raises(IllegalAction, match=words):
        action_from_dict(d)


def test_apply_refuses_non_actions(start) -> None:
    """Anything that is not an action is named."""
    with pytest.raises(MalformedAction, match="'hello' is not a Rescue Animals action"):
        apply(start(2), "hello")  # type: ignore[arg-type]


def test_seat_out_of_range(start) -> None:
    """The error names the seat and the valid range."""
    with pytest.raises(IllegalAction, match=r"there is no seat index 3; the seats are 1-3 \(index 0-2\)"):
        apply(start(3), Roll(3, D(NOTHING)))


def test_setup_round_trips(cards) -> None:
    """The setup goes into the event log as a dict and comes back the same."""
    setup = Setup(("A", "B"), 1, ("kakapo",), True)
    assert Setup.from_dict(setup.to_dict()) == setup
    with pytest.raises(BadSetup, match="not colour"):
        Setup.from_dict({"players": ["A", "B"], "colour": 1})


def test_state_to_dict_is_plain(start, open_round) -> None:
    """The state's dict view holds only JSON types."""
    import json

    state = open_round(start(3), ("amur-leopard", "giant-panda"), {0: LEOPARD})
    view = json.loads(json.dumps(state.to_dict()))
    assert view["display"] == ["amur-leopard", "giant-panda"] and view["phase"] == "open"


# --- every illegal action: the named error, with the values in the message -----------------------


def _states(start, open_round):
    """Named states to try illegal actions on."""
    reveal = start(3)
    ready = apply(reveal, Reveal(("amur-leopard", "kakapo")))
    opened = open_round(start(3), ("amur-leopard", "kakapo"), {0: LEOPARD, 1: NOTHING, 2: "B5 W1 W1 W1 W1"})
    choosing = apply(opened, Claim(0))
    return {"reveal": reveal, "ready": ready, "open": opened, "choosing": choosing}


@pytest.mark.parametrize(
    "where, action, error, words",
    [
        ("reveal", Go(), WrongPhase, "the phase is 'reveal', not 'ready'"),
        ("reveal", Rescue(0, "kakapo"), WrongPhase, "this round's cards are not on display"),
        ("ready", Reveal(("kakapo", "kakapo")), WrongPhase, r"the phase is 'ready' and the display is \['amur-leopard', 'kakapo'\]"),
        ("ready", Claim(0), WrongPhase, "wait for Go!"),
        ("open", Go(), WrongPhase, "the phase is 'open'"),
        ("open", Rescue(2, "amur-leopard"), NotSatisfied, r"\(B5 W1 W1 W1 W1\) do not meet Amur Leopard \(B2 W3 W6\)"),
        ("open", Rescue(0, "giant-panda"), UnknownCard, "'giant-panda' is not on display"),
        ("open", Rescue(0, "dodo"), UnknownCard, "no card 'dodo' in the catalogue"),
        ("open", Rescue(0, "kakapo", dice=D("B2 W3 W6 W1 G1")), BadDice, "gray die is still beside the deck"),
        ("open", Claim(1, D("B2 W3 W6 W1")), BadDice, "got 3 white, 1 black"),
        ("open", Roll(-1, D(NOTHING)), IllegalAction, "there is no seat index -1"),
        ("choosing", Rescue(1, "kakapo"), NotTheClaimant, r"seat 2 \(B\) cannot rescue now"),
        ("choosing", Rescue(0, "kakapo", dice=D(NOTHING)), NotSatisfied, r"the claim was made with B2 W3 W6 W1 W1, not B1 W2 W2 W4 W4"),
        ("choosing", Claim(1), WrongPhase, "A is choosing a card"),
        ("choosing", Go(), WrongPhase, "the phase is 'choosing'"),
    ],
)
def test_illegal_actions_raise_named_errors(start, open_round, where, action, error, words) -> None:
    """Each illegal action raises its own IllegalAction subclass; the message names the values."""
    state = _states(start, open_round)[where]
    with pytest.raises(error, match=words):
        apply(state, action)


def test_dice_dicts_accept_grey_spelling() -> None:
    """The camera's colour names may say grey; it is the gray die."""
    from companion.dice_requirements import Die

    assert Die.from_dict({"colour": "grey", "value": 2}) == Die("gray", 2)

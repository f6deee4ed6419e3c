"""The game's JSON API: state, start, act (press, roll, choose, reveal), undo, PIN check."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from web.context import table
from web.errors import ApiError, answer
from web.inputs import field, json_body, require_pin, seat_field

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_DICE = 6


@bp.get("/state")
def state() -> Any:
    """The snapshot every phone shows."""
    return jsonify(table().session.snapshot())


@bp.post("/pin")
def check_pin() -> Any:
    """Tell a phone whether the PIN it was given is right (so it can remember it)."""
    require_pin(json_body())
    return jsonify(ok=True)


@bp.post("/start")
def start() -> Any:
    """Start a new game: players in seat order, the Leader (or random), demo deck or real cards."""
    body = json_body()
    require_pin(body)
    players = field(body, "players", list)
    if not 2 <= len(players) <= 5:
        raise ApiError(400, f"Rescue Animals is for 2 to 5 players, not {len(players)}; add or remove a name.")
    leader = field(body, "leader", int, required=False)
    demo = field(body, "demo", bool, required=False, default=True)
    seed = field(body, "seed", int, required=False)
    game = field(body, "game", str, required=False, default="rescue_animals")
    if game != "rescue_animals":
        raise ApiError(400, f"the companion plays rescue_animals for now, not {game[:40]!r}.")
    if leader is not None and not 0 <= leader < len(players):
        raise ApiError(400, f"the Leader is one of seats 1 to {len(players)} (index 0 to {len(players) - 1}), not index {leader}.")
    return jsonify(table().session.start(players, leader=leader, demo=demo, seed=seed))


@bp.post("/act")
def act() -> Any:
    """One thing a phone does: press, roll, roll_random, choose, reveal."""
    body = json_body()
    kind = field(body, "kind", str)
    handler = ACTIONS.get(kind)
    if handler is None:
        raise ApiError(400, f"unknown kind {kind[:30]!r}; use one of {', '.join(sorted(ACTIONS))}.")
    return handler(body)


def _press(body: dict[str, Any]) -> Any:
    """A "Rescuing!" press of one seat: taken into the race or refused (409) with the reason."""
    seat = seat_field(body)
    outcome = table().press_from_phone(seat)
    if not outcome.accepted:
        return answer(409, outcome.reason)
    return jsonify(outcome.to_dict())


def _roll(body: dict[str, Any]) -> Any:
    """The dice of one seat as tapped on a phone."""
    seat = seat_field(body)
    return jsonify(table().session.roll(seat, dice_field(body), source="phone"))


def _roll_random(body: dict[str, Any]) -> Any:
    """Roll one seat's dice at random, keeping the ones worth setting aside (demo).

    On the simulated table the simulated seat throws its dice; they reach the game through the camera.
    """
    seat = seat_field(body)
    camera = table().camera
    if camera is not None and camera.roll_for_me(seat):
        return jsonify({**table().session.snapshot(), "note": "the dice are thrown: the camera reads them when they stop."})
    return jsonify(table().session.roll_random(seat, source="demo"))


def _correct(body: dict[str, Any]) -> Any:
    """The host corrects a seat's dice as read (needs the PIN); logged as a roll with source "correction"."""
    require_pin(body)
    seat = seat_field(body)
    return jsonify(table().session.roll(seat, dice_field(body), source="correction"))


def dice_field(body: dict[str, Any]) -> list[Any]:
    """The body's "dice": a list of 1 to MAX_DICE dice (each die is checked by the session)."""
    dice = field(body, "dice", list)
    if not 1 <= len(dice) <= MAX_DICE:
        raise ApiError(400, f"a seat has 1 to {MAX_DICE} dice, not {len(dice)}.")
    return dice


def _choose(body: dict[str, Any]) -> Any:
    """The race winner picks a card."""
    seat = seat_field(body)
    card = field(body, "card", str)
    return jsonify(table().session.choose(seat, card[:80], source="phone"))


def _reveal(body: dict[str, Any]) -> Any:
    """The host says which cards were laid out (real deck; needs the PIN)."""
    require_pin(body)
    cards = field(body, "cards", list)
    if not cards or len(cards) > 6 or not all(isinstance(c, str) for c in cards):
        raise ApiError(400, "'cards' should be a list of 1 to 6 card ids (text) from the catalogue.")
    return jsonify(table().session.reveal(cards, source="host"))


ACTIONS = {"press": _press, "roll": _roll, "roll_random": _roll_random, "choose": _choose, "reveal": _reveal,
           "correct": _correct}


@bp.post("/undo")
def undo() -> Any:
    """Cancel the last thing a person did (needs the PIN)."""
    require_pin(json_body())
    return jsonify(table().session.undo(source="host"))


@bp.get("/sound")
def sound() -> Any:
    """Whether the table has a buzzer board, and whether it is muted."""
    board = table().board
    return jsonify(board=board is not None, muted=bool(getattr(board, "muted", False)))


@bp.post("/sound")
def set_sound() -> Any:
    """Mute or unmute the "Ready, Set, Go!" buzzer (needs the PIN)."""
    body = json_body()
    require_pin(body)
    muted = field(body, "muted", bool)
    board = table().board
    if board is None:
        raise ApiError(409, "this table has no buttons or buzzer attached, so there is nothing to mute.")
    board.muted = muted
    return jsonify(board=True, muted=muted)

"""What the seats' LEDs and the buzzer should do, as pure functions of the session snapshot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

# The snapshot is the session's JSON-able view (companion/session.py); only these few keys are read
# here, all through the helpers at the bottom, so a renamed key is a one-line change.


@dataclass(frozen=True)
class LedPattern:
    """One LED's look: "off", "steady", "fast_blink" (race winner), "pulse" (game winner), "glow"."""

    kind: str
    brightness: float = 1.0


OFF = LedPattern("off", 0.0)
STEADY = LedPattern("steady", 1.0)
FAST_BLINK = LedPattern("fast_blink", 1.0)
PULSE = LedPattern("pulse", 1.0)
GLOW = LedPattern("glow", 0.15)

# The "no" blink for a refused press, as (brightness, seconds) steps: dark, two short flashes,
# dark; it starts dark so that it reads as "no" on a lit LED too.
NO_BLINK = ((0.0, 0.12), (1.0, 0.08), (0.0, 0.08), (1.0, 0.08), (0.0, 0.12))
FAST_BLINK_TIMES = (0.1, 0.1)
PULSE_TIMES = (0.5, 0.5)


@dataclass(frozen=True)
class Beep:
    """One buzzer beep: when it starts (session ms) and how long it lasts (ms)."""

    start_ms: float
    length_ms: float


SHORT_BEEP_MS = 120.0
LONG_BEEP_MS = 600.0


def seat_patterns(snapshot: Mapping[str, Any] | None, seats: int) -> tuple[LedPattern, ...]:
    """The pattern each of `seats` LEDs shows for this snapshot (seats beyond the game are off)."""
    if not snapshot:
        return (OFF,) * seats
    phase = _phase(snapshot)
    if phase == "over":
        winners = _game_winners(snapshot)
        return tuple(PULSE if seat in winners else GLOW if seat < _seat_count(snapshot) else OFF
                     for seat in range(seats))
    race_winner = _race_winner(snapshot) if phase in ("ready", "choosing") else None
    return tuple(_one_seat(snapshot, seat, phase, race_winner) for seat in range(seats))


def _one_seat(snapshot: Mapping[str, Any], seat: int, phase: str | None, race_winner: int | None) -> LedPattern:
    """The pattern of one seat while the game runs."""
    if seat == race_winner:
        return FAST_BLINK
    if phase != "open":
        return OFF
    info = _seat(snapshot, seat)
    if info and info.get("can_claim") and info.get("satisfied"):
        return STEADY
    return OFF


def countdown_beeps(countdown_end_ms: float, countdown_ms: float) -> tuple[Beep, ...]:
    """The "Ready, Set, Go!" call: three short beeps, then one long beep that starts at Go."""
    step = countdown_ms / 3.0
    shorts = tuple(Beep(countdown_end_ms - countdown_ms + i * step, SHORT_BEEP_MS) for i in range(3))
    return shorts + (Beep(countdown_end_ms, LONG_BEEP_MS),)


def countdown_end(snapshot: Mapping[str, Any] | None, now_ms: float) -> tuple[float, float] | None:
    """(end in session ms, length in ms) of the running countdown, or None when there is none.

    The session's snapshot gives the time left when it was built ("ends_in_ms"); the board gets it
    at once through subscribe, so `now_ms` plus that is the end. "ends_at_ms", when given, wins.
    """
    if not snapshot or _phase(snapshot) != "ready":
        return None
    countdown = snapshot.get("countdown") or {}
    total = countdown.get("total_ms")
    total = float(total) if _is_number(total) else 3000.0
    if _is_number(countdown.get("ends_at_ms")):
        return float(countdown["ends_at_ms"]), total
    if _is_number(countdown.get("ends_in_ms")):
        return now_ms + float(countdown["ends_in_ms"]), total
    return None


def new_refusals(before: Mapping[str, Any] | None, now: Mapping[str, Any] | None) -> tuple[int, ...]:
    """Seats with a refused press in `now` that `before` did not show (each refusal blinks once).

    The session marks a seat's last refused press (reason and time) in its snapshot until the next
    accepted action; a press refused again gets a new mark, so it blinks again.
    """
    seats_before = (before or {}).get("seats") or ()
    fresh = []
    for seat, info in enumerate((now or {}).get("seats") or ()):
        refusal = info.get("refusal") if isinstance(info, Mapping) else None
        old = seats_before[seat].get("refusal") if seat < len(seats_before) and isinstance(seats_before[seat], Mapping) else None
        if refusal and refusal != old:
            fresh.append(seat)
    return tuple(fresh)


def _is_number(value: Any) -> bool:
    """Whether `value` is a real number (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _phase(snapshot: Mapping[str, Any]) -> str | None:
    """The game phase: "ready", "open", "choosing", "over", or "idle" with no game."""
    return snapshot.get("phase")


def _seat(snapshot: Mapping[str, Any], seat: int) -> Mapping[str, Any] | None:
    """The snapshot's entry for `seat`, or None when the game has fewer seats."""
    seats = snapshot.get("seats") or ()
    return seats[seat] if 0 <= seat < len(seats) else None


def _seat_count(snapshot: Mapping[str, Any]) -> int:
    """How many seats play this game."""
    return len(snapshot.get("seats") or ())


def _race_winner(snapshot: Mapping[str, Any]) -> int | None:
    """The seat that won the last race, if any."""
    race = snapshot.get("last_race") or {}
    winner = race.get("winner")
    return int(winner) if isinstance(winner, int) else None


def _game_winners(snapshot: Mapping[str, Any]) -> frozenset[int]:
    """The seat(s) that won the game, from the scoreboard."""
    scores = snapshot.get("scores") or {}
    winner = scores.get("winner")
    if isinstance(winner, int):
        return frozenset({winner})
    if isinstance(winner, (list, tuple)):
        return frozenset(int(w) for w in winner)
    return frozenset()

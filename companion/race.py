"""The "Rescuing!" race arbiter: a pure function of timestamped presses and the game state.

Every press (arcade button edge, phone tap, keyboard) becomes a `Press(seat, t_ms, source)`. The
session collects the presses of an open race, waits until `tie_window_ms` after the first valid
press (`RaceResult.window_end_ms`), and calls `settle`. A press whose seat may not claim (already
rescued, dice satisfy nothing, race not open) is refused with the rules' reason; refused presses
never win and never open the tie window. Valid presses within the window of the first are a tie,
resolved as the rulebook says: the gray die user wins, else the first tied seat clockwise from the
Conservation Leader.

The tie window (RaceSettings.tie_window_ms, default 30 ms), why 30: the rulebook's "at the same
time" means the table could not tell who called first. People need about 20-40 ms between two
sounds or taps to judge their order (the temporal-order threshold, Hirsh & Sherrick 1961), so
presses closer than 30 ms are honestly simultaneous, while a player who is faster by a visible
margin (a 50 ms reaction lead is common between players) still wins outright. The GPIO edge
timestamps are good to about a millisecond, so the window is not eaten by measurement noise; the
phones' taps arrive with network jitter larger than the window, which is why the buttons are the
fair way to race and the phones the fallback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from companion.dice_requirements import Die
from companion.games.rescue_animals import RaceRecord, State, claim_refusal, tie_order
from companion.settings import RaceSettings

__all__ = ["Press", "RaceResult", "RaceRecord", "settle", "lockout_filter"]


@dataclass(frozen=True)
class Press:
    """One "Rescuing!" press: the seat, when (ms, monotonic), from where; optionally the dice at that moment."""

    seat: int
    t_ms: float
    source: str = "phone"
    dice: tuple[Die, ...] | None = None  # the seat's dice as settled at the press (None: use the state's)


@dataclass(frozen=True)
class RaceResult:
    """Who won the race, who tied, by how much, and why; `record()` is what the Rescue action keeps."""

    winner: int | None
    tied: tuple[int, ...]
    gap_ms: float | None  # first to second valid press (different seats); None with fewer than two
    decided_by: str  # "first press", "tie: gray die", "tie: clockwise from the Conservation Leader", "no valid press"
    refused: tuple[tuple[int, str], ...]  # (seat, reason)
    window_end_ms: float | None  # when the tie window of the first valid press closes
    presses: tuple[Press, ...] = ()
    winner_dice: tuple[Die, ...] | None = None  # the dice the winner pressed with (if the press carried them)

    def record(self) -> RaceRecord:
        """The JSON-able record kept in the Claim/Rescue action."""
        return RaceRecord(
            winner=self.winner, tied=self.tied, gap_ms=self.gap_ms, decided_by=self.decided_by,
            refused=self.refused, presses=tuple((p.seat, p.t_ms, p.source) for p in self.presses),
        )


def settle(presses: Iterable[Press], state: State, settings: RaceSettings | None = None) -> RaceResult:
    """Settle a race from its presses (in any order) against the state at the time of the presses."""
    window = (settings or RaceSettings()).tie_window_ms
    ordered = sorted(presses, key=lambda p: p.t_ms)
    valid: list[Press] = []
    refused: list[tuple[int, str]] = []
    seen: set[int] = set()
    for press in ordered:
        if press.seat in seen:
            continue  # a seat's first valid press is the one that counts; later ones change nothing
        reason = claim_refusal(state, press.seat, press.dice)
        if reason is not None:
            refused.append((press.seat, reason))
            continue
        seen.add(press.seat)
        valid.append(press)
    if not valid:
        return RaceResult(None, (), None, "no valid press", tuple(refused), None, tuple(ordered))
    first = valid[0]
    gap = valid[1].t_ms - first.t_ms if len(valid) > 1 else None
    in_window = [p for p in valid if p.t_ms - first.t_ms <= window]
    tied = tuple(p.seat for p in in_window) if len(in_window) > 1 else ()
    winner, decided_by = _resolve(state, first.seat, tied)
    dice = next(p.dice for p in valid if p.seat == winner)
    return RaceResult(winner, tied, gap, decided_by, tuple(refused), first.t_ms + window, tuple(ordered), dice)


def _resolve(state: State, first: int, tied: tuple[int, ...]) -> tuple[int, str]:
    """The winner and the rule that decided it."""
    if not tied:
        return first, "first press"
    winner = tie_order(state, tied)[0]
    if winner == state.gray_holder:
        return winner, "tie: gray die"
    return winner, "tie: clockwise from the Conservation Leader"


def lockout_filter(
    presses: Sequence[Press], refused_before: Mapping[int, float], lockout_ms: float
) -> tuple[Press, ...]:
    """Drop presses made within `lockout_ms` after that seat's last refused press (mash guard; 0 = off).

    `refused_before` maps a seat to the time (ms) of its latest refused press. A seat that mashes
    its button while it may not claim is ignored for a moment, so a lucky mash just as its dice come
    right does not beat a player who rolled and then pressed.
    """
    if lockout_ms <= 0:
        return tuple(presses)
    kept = []
    for press in presses:
        last = refused_before.get(press.seat)
        if last is not None and 0 <= press.t_ms - last < lockout_ms:
            continue
        kept.append(press)
    return tuple(kept)

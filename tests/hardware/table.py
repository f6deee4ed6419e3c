"""A real Session (SQLite store in a temp folder) with the board on mock pins, for whole-game tests."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from companion.dice_requirements import Die, match
from companion.session import Session


@dataclass
class ManualTimers:
    """The session's timers (countdown, tie window), run when the test says so."""

    pending: list[list[Any]] = field(default_factory=list)

    def schedule(self, delay_s: float, callback: Callable[[], None]) -> Any:
        """Keep `callback` until run(); return its cancel handle."""
        entry = [callback, False]
        self.pending.append(entry)
        return _Cancel(entry)

    def run(self) -> None:
        """Run every timer that was not called off (and any they schedule)."""
        while self.pending:
            callback, cancelled = self.pending.pop(0)
            if not cancelled:
                callback()


@dataclass
class _Cancel:
    """Calls off one scheduled callback."""

    entry: list[Any]

    def cancel(self) -> None:
        """Mark the callback as cancelled."""
        self.entry[1] = True


@dataclass
class Table:
    """The session, the board, its mock pins and the timers; presses go through the button pins."""

    session: Session
    board: Any
    factory: Any
    timers: ManualTimers
    last_edge_s: float = 0.0

    @property
    def snap(self) -> dict[str, Any]:
        """The session's snapshot now."""
        return self.session.snapshot()

    def go(self) -> None:
        """Let "Ready, Set, Go!" finish: the race opens."""
        self.timers.run()

    def race(self, presses: dict[int, float], settle: bool = True) -> dict[str, Any]:
        """Press seat buttons at {seat: ms after the first}, in the order given; settle; the snapshot."""
        # Edges are stamped in the recent past (as a kernel timestamp would be), and each race's
        # edges come after the last one's release, so debounce sees separate presses.
        wait = self.last_edge_s + 0.05 - (time.monotonic() - 0.2)
        if wait > 0:
            time.sleep(wait)
        base = time.monotonic() - 0.2
        for seat, after_ms in presses.items():
            pin = self.factory.pin(self.board.pins.buttons[seat])
            pin.drive_low(ticks=base + after_ms / 1000.0)
            pin.drive_high(ticks=base + after_ms / 1000.0 + 0.03)
            self.last_edge_s = max(self.last_edge_s, base + after_ms / 1000.0 + 0.03)
        if settle:
            self.timers.run()
        return self.snap

    def roll_to_meet(self, seat: int, card_id: str, rng: random.Random) -> None:
        """Roll `seat` dice that satisfy display card `card_id` (found by a seeded search)."""
        card = next(c for c in self.snap["display"] if c["id"] == card_id)
        colours = self.colours(seat)
        self.session.roll(seat, dice_meeting(card["requirement"], colours, rng), source="test")

    def roll_to_miss(self, seat: int, rng: random.Random) -> None:
        """Roll `seat` dice that satisfy none of the display cards."""
        colours = self.colours(seat)
        requirements = [c["requirement"] for c in self.snap["display"]]
        for _ in range(10_000):
            dice = [Die(colour, rng.randint(1, 6)) for colour in colours]
            if all(match(r, _as_white(dice)) is None for r in requirements):
                self.session.roll(seat, dice, source="test")
                return
        raise AssertionError("no missing roll found")

    def colours(self, seat: int) -> list[str]:
        """The colours of `seat`'s dice: four white, one black, and the gray die for its holder."""
        return ["white"] * 4 + ["black"] + (["gray"] if self.snap["gray_holder"] == seat else [])

    def play_to_the_end(self, choose: bool = True) -> int:
        """Play on with random demo rolls and button presses until the game is over; races run."""
        races = 0
        for _ in range(5000):
            snap = self.snap
            if snap["phase"] == "over":
                return races
            if snap["phase"] == "ready":
                self.go()
            elif snap["phase"] == "choosing":
                self.session.choose(snap["choosing"]["seat"], snap["choosing"]["cards"][0])
            else:
                claimers = [s["seat"] for s in snap["seats"] if s["can_claim"]]
                if claimers:
                    self.race({claimers[0]: 0.0})
                    races += 1
                else:
                    for seat in snap["seats"]:
                        if seat["why_not"] and "satisfy none" in seat["why_not"] or not seat["dice"]:
                            self.session.roll_random(seat["seat"])
        raise AssertionError(f"the game did not end: {self.snap['phase']}")


def dice_meeting(requirement: str, colours: list[str], rng: random.Random) -> list[Die]:
    """Dice of these colours that meet `requirement` (the gray die counts as white for its holder)."""
    for _ in range(200_000):
        dice = [Die(colour, rng.randint(1, 6)) for colour in colours]
        if match(requirement, _as_white(dice)) is not None:
            return dice
    raise AssertionError(f"no dice meet {requirement}")


def _as_white(dice: list[Die]) -> list[Die]:
    """The dice with gray read as white (how the rules count it for its holder)."""
    return [Die("white", d.value) if d.colour == "gray" else d for d in dice]

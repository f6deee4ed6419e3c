"""The session: the one mutable object of the companion, over the event store and the rules.

Every fact (a die read, a button pressed, a card chosen) enters through a method here; the rules
decide; an accepted action is appended to SQLite BEFORE any subscriber (phones, LEDs) is told.
The state is never saved: it is the replay of the game's events, so a restart resumes the game.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

from companion import catalogue as catalogues
from companion import dice_requirements, race
from companion.errors import CompanionError, IllegalAction, SessionError, StoreError
from companion.games import rescue_animals as rules
from companion.settings import Settings
from companion.store import EventStore, GameRecord, effective_events

log = logging.getLogger(__name__)

GAME = "rescue_animals"
# Events the session makes by itself, and the camera's readings; undo skips over them to the last thing a
# person did (the camera then sends what the table shows again, see "undos" in the snapshot).
AUTOMATIC_SOURCES = frozenset({"countdown", "deck", "camera"})
CATALOGUE_FILE = "rescue-animals.toml"
MAX_NAME = 24
# Names are shown on every phone and in logs; markup characters have no place in them.
FORBIDDEN_IN_NAMES = frozenset('<>&"`\\{}')

Subscriber = Callable[[dict[str, Any]], None]
# Told (game id, event seq, seat) after a race winner's Rescue or Claim is stored: e.g. to keep a still.
ClaimListener = Callable[[int, int, int], None]


def now_ms() -> float:
    """The session's clock: monotonic milliseconds (the contract's time base for presses)."""
    return time.monotonic_ns() / 1e6


class Cancel(Protocol):
    """A scheduled call that can still be called off."""

    def cancel(self) -> None:
        """Call it off (harmless when it already ran)."""


def thread_timer(delay_s: float, callback: Callable[[], None]) -> Cancel:
    """Run `callback` after `delay_s` seconds on a daemon timer thread."""
    timer = threading.Timer(max(0.0, delay_s), callback)
    timer.daemon = True
    timer.start()
    return timer


@dataclass(frozen=True)
class PressOutcome:
    """What became of one press: taken into the race, or refused with the reason."""

    seat: int
    accepted: bool
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-able values."""
        return {"seat": self.seat, "accepted": self.accepted, "reason": self.reason}


@dataclass
class _OpenRace:
    """The presses of the race window now open (each carries the seat's dice at the press)."""

    presses: list[race.Press]
    closes_at_ms: float
    timer: Cancel | None = None


class Session:
    """One table: the current game, its race window and countdown, and who listens for changes."""

    def __init__(
        self,
        store: EventStore,
        settings: Settings | None = None,
        *,
        catalogue_path: str | Path | None = None,
        schedule: Callable[[float, Callable[[], None]], Cancel] = thread_timer,
        clock: Callable[[], float] = now_ms,
        seed: int | None = None,
    ) -> None:
        """Open the session over `store` and resume the game that was being played, if any."""
        self.store = store
        self.settings = settings or Settings()
        self.catalogue_path = Path(catalogue_path) if catalogue_path else None
        self._schedule = schedule
        self._clock = clock
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        self._claim_listeners: list[ClaimListener] = []
        self._game: GameRecord | None = None
        self._catalogue: Any = None
        self._state: Any = None
        self._version = 0
        self._race: _OpenRace | None = None
        self._refused_before: dict[int, float] = {}
        self._refusals: dict[int, dict[str, Any]] = {}
        self._last_race: dict[str, Any] | None = None
        self._countdown: tuple[float, Cancel] | None = None
        self._generation = 0
        self._undos = 0  # undos since the companion started: the camera re-sends the table after each
        self._snapshot: dict[str, Any] = {}
        with self._lock:
            self._resume()

    # ---- listening -------------------------------------------------------------------------

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(snapshot)` after every change; returns the function that stops it."""
        return self._listen(self._subscribers, callback)

    def on_claim(self, callback: ClaimListener) -> Callable[[], None]:
        """Call `callback(game_id, seq, seat)` after each accepted claim is stored; returns the stopper."""
        return self._listen(self._claim_listeners, callback)

    def _listen(self, listeners: list[Any], callback: Callable[..., None]) -> Callable[[], None]:
        """Add `callback` to `listeners`; returns the function that takes it out again (twice is harmless)."""
        with self._lock:
            listeners.append(callback)

        def stop() -> None:
            """Stop calling this callback."""
            with self._lock:
                if callback in listeners:
                    listeners.remove(callback)

        return stop

    def snapshot(self) -> dict[str, Any]:
        """The JSON-able view that every phone and the LEDs show (countdown as of now)."""
        with self._lock:
            if self._countdown is None or not self._snapshot.get("countdown"):
                return self._snapshot
            left = max(0.0, self._countdown[0] - self._clock())
            return {**self._snapshot, "countdown": {**self._snapshot["countdown"], "ends_in_ms": left}}

    @property
    def version(self) -> int:
        """A number that grows with every change the phones are told about."""
        return self._version

    # ---- the catalogue ---------------------------------------------------------------------

    def catalogue(self) -> Any:
        """The card catalogue new games are played with (the owner's file, else the sample)."""
        if self.catalogue_path is not None and self.catalogue_path.exists():
            return catalogues.load_catalogue(self.catalogue_path)
        sample = catalogues.load_sample()
        # Edits are saved to the owner's file, so messages about them name that file.
        return dataclasses.replace(sample, source=self.catalogue_path.name) if self.catalogue_path else sample

    def save_catalogue(self, catalogue: Any) -> None:
        """Write the owner's catalogue file (used by the next game started)."""
        if self.catalogue_path is None:
            raise SessionError("this table has no data folder to keep a catalogue in; start it with --data-dir.")
        catalogues.save_catalogue(catalogue, self.catalogue_path)
        self._publish()

    # ---- starting and ending ---------------------------------------------------------------

    def start(self, players: Iterable[str], leader: int | None = None, demo: bool = True,
              seed: int | None = None) -> dict[str, Any]:
        """Start a new game (an unfinished one is kept as abandoned) and return the snapshot."""
        names = [_clean_name(name, seat) for seat, name in enumerate(players)]
        if not 2 <= len(names) <= 5:
            raise SessionError(f"Rescue Animals is for 2 to 5 players, not {len(names)}; add or remove a name.")
        if leader is not None and not 0 <= leader < len(names):
            raise SessionError(f"the Leader must be one of seats 1 to {len(names)}, not {leader + 1}.")
        catalogue = self.catalogue()
        seed = self._rng.randrange(2**31) if seed is None else seed
        rng = random.Random(seed)
        drawn = leader is None
        if leader is None:
            leader = rng.randrange(len(names))
        deck = list(rules.demo_deck(catalogue, len(names), seed)) if demo else None
        setup = {"players": names, "leader": leader, "deck": deck, "leader_drawn": drawn, "seed": seed}
        try:
            state = rules.new_game(_setup_from_dict(setup), catalogue)
        except rules.BadSetup as error:  # a wrong setup is bad input, not an illegal move
            raise SessionError(str(error)) from None
        with self._lock:
            self._stop_timers()
            if self._game is not None and self._game.status == "playing":
                self.store.abandon(self._game.id)
            game_id = self.store.create_game(GAME, setup, catalogue.to_dict())
            self._game = self.store.game(game_id)
            self._catalogue = catalogue
            self._state = state
            self._last_race = None
            self._refusals.clear()
            self._refused_before.clear()
            log.info("game %s started: %s, leader %s, demo %s", game_id, names, leader, demo)
            self._advance()
            return self._snapshot

    def _resume(self) -> None:
        """Replay the game that was being played when the companion stopped (if any)."""
        record = self.store.current_game()
        if record is None:
            self._publish()
            return
        try:
            self._load(record)
        except StoreError as error:
            # A log the rules can no longer replay (e.g. after an upgrade): keep it, start afresh.
            log.error("%s; the game is kept in the history as abandoned", error)
            self.store.abandon(record.id)
            self._game = self._state = self._catalogue = None
            self._publish()
            return
        log.info("resumed game %s at event %s", record.id, len(self.store.events(record.id)))
        self._advance()

    def _load(self, record: GameRecord) -> None:
        """Set the state to the replay of `record`'s effective events."""
        catalogue = catalogues.parse_catalogue(record.catalogue, f"game {record.id}'s catalogue")
        state = rules.new_game(_setup_from_dict(record.setup), catalogue)
        for event in effective_events(self.store.events(record.id)):
            try:
                state = rules.apply(state, rules.action_from_dict(event.action))
            except (CompanionError, ValueError, KeyError, TypeError) as error:
                raise StoreError(
                    f"game {record.id} cannot be replayed: event {event.seq} ({event.action}) fails: {error}"
                ) from None
        self._game, self._catalogue, self._state = record, catalogue, state
        self._last_race = None if state.last_race is None else state.last_race.to_dict()

    # ---- the doors for facts ---------------------------------------------------------------

    def press(self, seat: int, t_ms: float | None = None, source: str = "phone") -> PressOutcome:
        """A "Rescuing!" press of `seat` at `t_ms`: joins the race, or is refused with a reason."""
        with self._lock:
            t_ms = self._clock() if t_ms is None else float(t_ms)
            self._check_seat(seat)
            reason = self._press_refusal(seat, t_ms)
            if reason is not None:
                return self._refuse(seat, t_ms, reason, source)
            press = race.Press(seat=seat, t_ms=t_ms, source=source, dice=_seat_dice(self._state, seat))
            if self._race is None:
                closes = t_ms + self.settings.race.tie_window_ms
                self._race = _OpenRace([press], closes)
                self._race.timer = self._schedule(max(0.0, closes - self._clock()) / 1000, self._close_race_timer)
            elif any(p.seat == seat for p in self._race.presses):
                return PressOutcome(seat, True, "already pressed in this race")
            else:
                self._race.presses.append(press)
            log.info("press of seat %s (index %s) at %.1f ms from %s", seat + 1, seat, t_ms, source)
            return PressOutcome(seat, True)

    def roll(self, seat: int, dice: Iterable[Any], source: str = "phone") -> dict[str, Any]:
        """Set `seat`'s dice (tapped on a phone, rolled for the demo, or read by the camera)."""
        with self._lock:
            self._check_seat(seat)
            dice = tuple(_die(d) for d in dice)
            self._commit(rules.Roll(seat=seat, dice=dice), source)
            return self._snapshot

    def roll_random(self, seat: int, source: str = "demo") -> dict[str, Any]:
        """Roll `seat`'s dice at random, keeping those the hint says to set aside (the demo)."""
        with self._lock:
            self._check_seat(seat)
            current = list(_seat_dice(self._state, seat)) or self._fresh_dice(seat)
            keep = set(self._best_keep(seat))
            if len(keep) >= len(current):
                keep = set()  # every die already meets a card: throw them all again rather than none
            dice = [die if i in keep else rules.Die(die.colour, self._rng.randint(1, 6))
                    for i, die in enumerate(current)]
            return self.roll(seat, dice, source)

    def keep_dice(self, seat: int) -> list[tuple[str, int]]:
        """The (colour, value) of the dice `seat` should set aside for the display card it is closest to."""
        with self._lock:
            if self._state is None:
                return []
            self._check_seat(seat)
            dice = _seat_dice(self._state, seat)
            return [(dice[i].colour, dice[i].value) for i in self._best_keep(seat) if i < len(dice)]

    def choose(self, seat: int, card: str, source: str = "phone") -> dict[str, Any]:
        """The race winner picks which of the satisfied cards to rescue."""
        with self._lock:
            self._check_seat(seat)
            self._commit(rules.Rescue(seat=seat, card=str(card)), source)
            return self._snapshot

    def reveal(self, cards: Iterable[str], source: str = "host") -> dict[str, Any]:
        """The host says which cards were laid out this round (a real, unknown deck)."""
        with self._lock:
            self._commit(rules.Reveal(cards=tuple(str(c) for c in cards)), source)
            return self._snapshot

    def undo(self, source: str = "host") -> dict[str, Any]:
        """Cancel the last thing a person did (and the automatic steps after it)."""
        with self._lock:
            if self._game is None:
                raise SessionError("there is no game to undo anything in; start one on the setup page.")
            undoes: list[int] = []
            for event in reversed(effective_events(self.store.events(self._game.id))):
                undoes.append(event.seq)
                if event.source not in AUTOMATIC_SOURCES:
                    break
            else:
                raise SessionError("there is nothing to undo: no one has done anything in this game yet.")
            self._stop_timers()
            self.store.append(self._game.id, {"kind": "undo", "undoes": undoes}, source)
            if self._game.status == "finished":
                self.store.reopen(self._game.id)
            self._load(self.store.game(self._game.id))
            self._refusals.clear()
            self._undos += 1
            log.info("undo of events %s", undoes)
            self._advance()
            return self._snapshot

    def close(self) -> None:
        """Stop the timers (the store stays open; its owner closes it)."""
        with self._lock:
            self._stop_timers()

    # ---- the race --------------------------------------------------------------------------

    def _press_refusal(self, seat: int, t_ms: float) -> str | None:
        """Why this press cannot join the race now, or None."""
        if self._state is None:
            return "no game is being played: start one on the setup page."
        phase = _phase(self._state)
        if phase == "ready":
            return "the race is not open yet: wait for Go!"
        if phase == "choosing":
            return f"{self._name(_choosing_seat(self._state))} is choosing a card: wait for Go!"
        if phase == "over":
            return "the game is over: see the scoreboard."
        if phase != "open":
            return "the cards are not laid out yet: the host reveals them first."
        lockout = self.settings.race.mash_lockout_ms
        if lockout > 0 and not race.lockout_filter([race.Press(seat, t_ms, "")], self._refused_before, lockout):
            return f"too many presses: wait {lockout:.0f} ms after a refused press."
        return rules.claim_refusal(self._state, seat)

    def _refuse(self, seat: int, t_ms: float, reason: str, source: str) -> PressOutcome:
        """Show a refused press to its seat (and log it); nothing is stored."""
        log.info("press of seat %s (index %s) from %s refused: %s", seat + 1, seat, source, reason)
        self._refused_before[seat] = t_ms
        self._refusals[seat] = {"reason": reason, "at": time.time()}
        self._publish()
        return PressOutcome(seat, False, reason)

    def _close_race_timer(self) -> None:
        """The tie window has closed: settle the race (timer thread)."""
        with self._lock:
            try:
                self.settle_race()
            except Exception:  # a timer thread must never die silently
                log.exception("settling the race failed")

    def settle_race(self) -> dict[str, Any] | None:
        """Decide the open race now: the winner's dice at the press go into Rescue or Claim."""
        with self._lock:
            open_race, self._race = self._race, None
            if open_race is None:
                return None
            if open_race.timer is not None:
                open_race.timer.cancel()
            result = race.settle(open_race.presses, self._state, self.settings.race)
            record = result.record()
            for seat, reason in result.refused:
                self._refusals[seat] = {"reason": reason, "at": time.time()}
            self._last_race = record.to_dict()
            if result.winner is None:
                self._publish()
                return self._last_race
            dice = result.winner_dice
            cards = rules.satisfied_cards(self._state, result.winner, dice)
            source = next(p.source for p in open_race.presses if p.seat == result.winner)
            self._refusals.pop(result.winner, None)
            try:
                if len(cards) == 1:
                    event = self._commit(rules.Rescue(seat=result.winner, card=cards[0], race=record, dice=dice), source)
                else:
                    event = self._commit(rules.Claim(seat=result.winner, dice=dice, race=record), source)
            except IllegalAction as error:
                self._refusals[result.winner] = {"reason": str(error), "at": time.time()}
                self._publish()
            else:
                self._tell_claim(event.game_id, event.seq, result.winner)
            return self._last_race

    def _tell_claim(self, game_id: int, seq: int, seat: int) -> None:
        """Tell the claim listeners about a stored claim (one failing listener stops nothing)."""
        for callback in list(self._claim_listeners):
            try:
                callback(game_id, seq, seat)
            except Exception:
                log.exception("a claim listener failed")

    # ---- applying, advancing, telling -----------------------------------------------------

    def _commit(self, action: Any, source: str) -> Any:
        """Apply `action`; if the rules accept it, store it, then tell every subscriber; returns the stored event."""
        if self._game is None or self._state is None:
            raise SessionError("no game is being played: start one on the setup page.")
        new_state = rules.apply(self._state, action)  # raises IllegalAction with the reason
        event = self.store.append(self._game.id, action.to_dict(), source)
        self._state = new_state
        seat = getattr(action, "seat", None)
        if seat is not None:
            self._refusals.pop(seat, None)  # the seat did something new: its old refusal is stale
        self._advance()
        return event

    def _advance(self) -> None:
        """Take the automatic steps (demo reveal, countdown, finishing), then publish."""
        while self._state is not None:
            if rules.is_over(self._state):
                if self._game is not None and self._game.status == "playing":
                    self.store.finish(self._game.id, rules.scores(self._state).to_dict())
                    self._game = self.store.game(self._game.id)
                break
            reveal = self._demo_reveal()
            if reveal is None:
                break
            new_state = rules.apply(self._state, reveal)
            self.store.append(self._game.id, reveal.to_dict(), "deck")
            self._state = new_state
        if self._state is not None and _phase(self._state) == "ready" and self._countdown is None:
            self._start_countdown()
        self._publish()

    def _demo_reveal(self) -> Any:
        """The Reveal the demo's known deck makes now, or None (a real deck waits for the host)."""
        return rules.next_reveal(self._state)

    def _start_countdown(self) -> None:
        """Run "Ready, Set, Go!" on every phone, then apply Go."""
        self._generation += 1
        generation = self._generation
        length = self.settings.race.countdown_ms
        ends = self._clock() + length

        def go() -> None:
            """The countdown is over: open the race (timer thread)."""
            with self._lock:
                if generation != self._generation or self._state is None:
                    return
                self._countdown = None
                if _phase(self._state) == "ready":
                    try:
                        self._commit(rules.Go(), "countdown")
                    except CompanionError:
                        log.exception("Go was refused")
                        self._publish()

        self._countdown = (ends, self._schedule(length / 1000, go))

    def _stop_timers(self) -> None:
        """Call off the countdown and the open race window."""
        self._generation += 1
        if self._countdown is not None:
            self._countdown[1].cancel()
            self._countdown = None
        if self._race is not None:
            if self._race.timer is not None:
                self._race.timer.cancel()
            self._race = None

    def _publish(self) -> None:
        """Build the new snapshot and hand it to every subscriber (state already stored)."""
        self._version += 1
        self._snapshot = self._build_snapshot()
        for callback in list(self._subscribers):
            try:
                callback(self._snapshot)
            except Exception:  # one broken listener must not stop the others or the game
                log.exception("a subscriber failed")

    # ---- the snapshot ----------------------------------------------------------------------

    def _build_snapshot(self) -> dict[str, Any]:
        """Everything a phone shows, as plain JSON-able values."""
        base: dict[str, Any] = {"version": self._version, "server_time": time.time(), "undos": self._undos}
        if self._state is None or self._game is None:
            return {**base, "phase": "idle", "game_id": None, "seats": [], "display": [],
                    "message": "No game yet: open Setup to start one."}
        state = self._state
        phase = _phase(state)
        countdown = None
        if self._countdown is not None:
            left = max(0.0, self._countdown[0] - self._clock())
            countdown = {"ends_in_ms": left, "ends_at_ms": self._countdown[0],  # session clock (monotonic ms)
                         "total_ms": self.settings.race.countdown_ms}
        over = rules.is_over(state)
        return {
            **base,
            "game_id": self._game.id,
            "game": GAME,
            "demo": bool(self._game.setup.get("deck")),
            "sample": bool(getattr(self._catalogue, "sample", False)),
            "phase": "over" if over else phase,
            "round": state.round,
            "rounds_total": state.rounds_total,
            "deck_count": state.deck_left,
            "display_size": min(state.rules.display, state.deck_left) if phase == "reveal" else len(state.display),
            "leader": state.leader,
            "gray_holder": state.gray_holder,
            "display": [self._card_dict(card_id) for card_id in state.display],
            "card_names": {card.id: card.name for card in state.cards},
            "seats": [self._seat_dict(seat) for seat in range(len(state.players))],
            "countdown": countdown,
            "choosing": _choosing_dict(state) if phase == "choosing" else None,
            "last_race": self._last_race,
            "scores": rules.scores(state).to_dict(),
            "over": over,
            "message": self._message(phase, over),
        }

    def _seat_dict(self, seat: int) -> dict[str, Any]:
        """One seat's part of the snapshot."""
        state = self._state
        why_not = rules.claim_refusal(state, seat)
        satisfied = list(rules.satisfied_cards(state, seat))
        hints = {}
        for card_id in dict.fromkeys(state.display):
            hint = rules.keep_hint(state, seat, card_id)
            if hint is not None:
                hints[card_id] = hint.to_dict()
        return {
            "seat": seat,
            "name": self._name(seat),
            "dice": [d.to_dict() for d in _seat_dice(state, seat)],
            "dice_set": [d.to_dict() for d in self._fresh_dice(seat)],
            "can_claim": why_not is None and _phase(state) == "open",
            "why_not": why_not,
            "satisfied": satisfied,
            "hints": hints,
            "rescued": list(state.rescued[seat]),
            "this_round": list(state.this_round[seat]),
            "refusal": self._refusals.get(seat),
        }

    def _card_dict(self, card_id: str) -> dict[str, Any]:
        """A display card with its requirement as drawable dice."""
        card = self._state.card(card_id)
        return {**card.to_dict(), "symbols": requirement_symbols(card.requirement)}

    def _best_keep(self, seat: int) -> list[int]:
        """The dice to set aside for the display card this seat is closest to."""
        best: tuple[int, list[int]] | None = None
        for card_id in dict.fromkeys(self._state.display):
            hint = rules.keep_hint(self._state, seat, card_id)
            if hint is not None and hint.missing is not None and (best is None or hint.missing < best[0]):
                best = (hint.missing, list(hint.keep))
        return best[1] if best else []

    def _message(self, phase: str, over: bool) -> str:
        """What the table should do next, in words."""
        if over:
            return "The game is over: see the scoreboard."
        if phase == "ready":
            return "Ready, Set, Go! Everyone stop rolling until Go."
        if phase == "choosing":
            return f"{self._name(_choosing_seat(self._state))} won the race and picks which card to rescue."
        if phase == "open":
            return "Roll! Press Rescuing! as soon as your dice meet a card."
        return "Draw this round's cards from the deck; the host taps them under Host controls."

    def _fresh_dice(self, seat: int) -> list[Any]:
        """The dice a seat rolls (4 white, 1 black, and the gray if it holds it), all showing 1."""
        count = rules.WHITE_DICE_PER_SEAT
        dice = [rules.Die("white", 1) for _ in range(count)] + [rules.Die("black", 1)]
        if self._state.gray_holder == seat:
            dice.append(rules.Die("gray", 1))
        return dice

    def _name(self, seat: int | None) -> str:
        """The player's name at `seat`."""
        if seat is None or self._game is None:
            return "someone"
        return self._game.setup["players"][seat]

    def _check_seat(self, seat: Any) -> None:
        """Refuse a seat number that is not at the table."""
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise SessionError(f"a seat is a whole number, not {seat!r}.")
        count = len(self._game.setup["players"]) if self._game else 0
        if not 0 <= seat < count:
            raise SessionError(
                f"there is no seat index {seat} at this table; the seats are 1 to {count} (index 0 to {count - 1})." if count
                else "no game is being played: start one on the setup page."
            )


# ---- adapters to the rules engine and the catalogue (pure helpers) ----------------------------


def _setup_from_dict(setup: dict[str, Any]) -> Any:
    """The rules' Setup from the stored setup dict (which also keeps the seed it was drawn with)."""
    deck = setup.get("deck")
    return rules.Setup(players=tuple(setup["players"]), leader=int(setup["leader"]),
                       deck=None if deck is None else tuple(deck),
                       leader_drawn=bool(setup.get("leader_drawn", False)))


def _phase(state: Any) -> str:
    """The state's phase name."""
    return str(state.phase)


def _seat_dice(state: Any, seat: int) -> tuple[Any, ...]:
    """The dice `seat` has on the table now."""
    return tuple(state.dice[seat])


def _choosing_seat(state: Any) -> int | None:
    """The seat that won the race and is choosing a card."""
    return None if state.claim is None else state.claim.seat


def _choosing_dict(state: Any) -> dict[str, Any] | None:
    """Who is choosing, and between which cards."""
    claim = state.claim
    if claim is None:
        return None
    return {"seat": claim.seat, "cards": list(rules.satisfied_cards(state, claim.seat, claim.dice))}


def _die(value: Any) -> Any:
    """A rules Die from a Die or a {"colour", "value"} dict."""
    if isinstance(value, rules.Die):
        return value
    if not isinstance(value, dict):
        raise SessionError(f"a die is {{\"colour\": ..., \"value\": ...}}, not {value!r}.")
    colour, pips = value.get("colour"), value.get("value")
    if colour not in ("white", "black", "gray"):
        raise SessionError(f"a die's colour is white, black or gray, not {colour!r}.")
    if isinstance(pips, bool) or not isinstance(pips, int) or not 1 <= pips <= 6:
        raise SessionError(f"a die shows 1 to 6, not {pips!r}.")
    return rules.Die(colour=colour, value=pips)


def _clean_name(name: Any, seat: int) -> str:
    """A player's name, trimmed; anything not text is refused."""
    if not isinstance(name, str) or not name.strip():
        raise SessionError(f"player {seat + 1} needs a name (text), not {name!r}.")
    name = " ".join(name.split())
    bad = sorted({ch for ch in name if ch in FORBIDDEN_IN_NAMES or not ch.isprintable()})
    if bad:
        shown = " ".join(repr(ch) for ch in bad)
        raise SessionError(f"player {seat + 1}'s name may not contain {shown}; use letters, digits and spaces.")
    if len(name) > MAX_NAME:
        raise SessionError(f"player {seat + 1}'s name is {len(name)} letters; keep it to {MAX_NAME}.")
    return name


def requirement_symbols(text: str) -> dict[str, Any]:
    """A requirement drawn as dice: each symbol's colour and value (None = any), plus words."""
    parsed = dice_requirements.parse_requirement(text)
    return {
        "dice": [{"colour": s.colour, "value": s.value, "label": s.label} for s in parsed.symbols],
        "special": parsed.special,
        "words": dice_requirements.requirement_words(parsed),
    }



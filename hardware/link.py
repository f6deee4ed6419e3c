"""Wiring the board to the session: presses go in through `session.press`, snapshots come out."""

from __future__ import annotations

import logging
from typing import Any

from companion.errors import CompanionError, SettingsError
from companion.settings import Settings
from hardware.board import TableBoard
from hardware.factory import WHAT_TO_DO, choose_pin_factory, is_mock
from hardware.mockpins import demo_pin_factory

log = logging.getLogger(__name__)


def attach(session: Any, settings: Settings, pin_factory=None) -> TableBoard | None:
    """Open the table's buttons, LEDs and buzzer and connect them to `session`.

    With no `pin_factory`, settings.pins.pin_factory chooses ("auto": the Pi's GPIO, else the
    demo's mock pins, which the phones' on-screen buttons drive). Never raises for hardware
    trouble: it logs what is wrong and what to do, and returns None (no board; the phones'
    buttons then press the session directly) when no board can be opened at all.
    """
    if pin_factory is None:
        pin_factory = choose_pin_factory(settings.pins.pin_factory)
        if pin_factory is None:
            log.info("Buttons and LEDs are off ([pins] pin_factory = \"none\"); the phones' buttons work.")
            return None
    board = _open_board(settings, pin_factory)
    if board is None and not is_mock(pin_factory) and pin_factory is not None:
        pin_factory = demo_pin_factory()
        board = _open_board(settings, pin_factory)  # keep the phones' path the same: mock pins
    if board is None:
        return None
    connect(board, session)
    where = "mock pins (the demo: the phones' on-screen buttons press them)" if is_mock(pin_factory) else "GPIO"
    log.info("Seat buttons and LEDs ready on %s: %d seats.", where, len(board.seats))
    return board


def _open_board(settings: Settings, pin_factory) -> TableBoard | None:
    """Open the board, or log why not (bad [pins], pins busy) and return None."""
    try:
        return TableBoard(settings.pins, pin_factory=pin_factory, countdown_ms=settings.race.countdown_ms)
    except SettingsError as error:
        log.error("%s Until then the phones' on-screen buttons work; `companion doctor` checks the pins.", error)
    except Exception as error:  # gpiozero and the chip drivers raise many kinds (busy pin, no access)
        log.error("Could not open the seat buttons and LEDs (%s: %s). %s", type(error).__name__, error, WHAT_TO_DO)
        if pin_factory is not None and not is_mock(pin_factory):
            log.warning("Using the demo's mock pins instead.")
    return None


def connect(board: TableBoard, session: Any) -> None:
    """Send the board's presses to `session` and show every snapshot; closing the board undoes it."""
    board.when_seat_pressed = lambda seat, t_ms, source: forward_press(session, seat, t_ms, source)
    board.when_host = lambda kind: host_command(session, kind)
    board.on_close(session.subscribe(board.show))
    board.show(session.snapshot())


def forward_press(session: Any, seat: int, t_ms: float, source: str) -> Any:
    """Hand one press to the session and return its answer (its PressOutcome).

    Nothing here decides who may claim. A refused press is logged; its seat blinks "no" when the
    snapshot shows the refusal (so a refused phone press blinks the seat's LED too).
    """
    try:
        outcome = session.press(seat, t_ms, source)
    except CompanionError as error:  # e.g. a seat with a button but no player in this game
        log.info("Press of seat %d (index %d, from %s) not taken: %s", seat + 1, seat, source, error)
        return None
    if getattr(outcome, "accepted", True) is False:
        log.info("Press of seat %d (index %d, from %s) refused: %s", seat + 1, seat, source,
                 getattr(outcome, "reason", ""))
    return outcome


def press_from_phone(board: TableBoard | None, session: Any, seat: int, t_ms: float | None = None) -> Any:
    """A phone's on-screen "Rescuing!": through the seat's mock pin in the demo, else the session.

    Returns the session's PressOutcome; raises what session.press raises (e.g. no such seat).
    """
    if board is not None:
        outcome = board.press_from_screen(seat, t_ms, source="phone")
        if outcome is not None:
            return outcome
    return session.press(seat, t_ms, "phone")


def host_command(session: Any, kind: str) -> None:
    """The host button: a long press undoes; a short press starts a new game when one is over."""
    try:
        if kind == "undo":
            session.undo(source="host button")
        elif kind == "start":
            _start_again(session)
    except CompanionError as error:
        log.info("Host button (%s): %s", kind, error)


def _start_again(session: Any) -> None:
    """Start the next game with the same players, once the last one is over."""
    snapshot = session.snapshot()
    if snapshot.get("phase") != "over":
        log.info("Host button: the game is still running (a long press undoes).")
        return
    players = [seat["name"] for seat in snapshot.get("seats", ())]
    session.start(players, demo=bool(snapshot.get("demo", True)))

"""The pins part of `companion doctor`: open the board, light each LED, and ask for each button."""

from __future__ import annotations

import threading
import time
from typing import Callable

from hardware.board import TableBoard
from hardware.patterns import OFF, STEADY
from hardware.wiring import wiring

LED_STEP_S = 0.3


def led_test(board: TableBoard, step_s: float = LED_STEP_S) -> list[str]:
    """Light each seat's LED in turn (and beep once); return the LEDs whose pin did not follow."""
    faults = []
    for seat in board.seats:
        seat.show(STEADY, force=True)
        if seat.led.pin.state != 1.0:
            faults.append(f"seat {seat.index + 1} LED")
        time.sleep(step_s)
        seat.show(OFF, force=True)
    if board.buzzer is not None and not board.muted:
        board.buzzer.beep(on_time=0.1, off_time=0.1, n=1, background=False)
    return faults


def button_test(board: TableBoard, timeout_s: float, say: Callable[[str], None] = print) -> list[int]:
    """Ask for each seat's button in turn; return the seats whose button gave no press in time."""
    wires = {wire.what: wire for wire in wiring(board.pins)}
    missing = []
    for seat in board.seats:
        wire = wires[f"seat {seat.index + 1} button"]
        say(f"  press seat {seat.index + 1}'s button (GPIO{wire.gpio}, header pin {wire.header_pin}) "
            f"within {timeout_s:.0f} s ...")
        if not wait_for_press(board, seat.index, timeout_s):
            missing.append(seat.index)
    return missing


def wait_for_press(board: TableBoard, seat: int, timeout_s: float) -> bool:
    """Wait up to `timeout_s` for a press of `seat`'s button; light its LED when it comes."""
    pressed = threading.Event()
    before = board.when_seat_pressed

    def on_press(index: int, t_ms: float, source: str) -> None:
        """Note a press of the seat asked for."""
        if index == seat:
            pressed.set()

    board.when_seat_pressed = on_press
    try:
        ok = pressed.wait(timeout_s)
    finally:
        board.when_seat_pressed = before
    if ok:
        board.seats[seat].show(STEADY, force=True)
    return ok

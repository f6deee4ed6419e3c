"""Benchmark the seat buttons on mock pins: press to LED change, and press to phone update.

usage: python3 benchmarks/hardware_benchmark.py [--presses N] [--phones N] [--no-server]

A real Session (SQLite store in a temp folder, the shipped 30 ms tie window) with the board on
gpiozero mock pins. Each round two seats can claim (both LEDs lit); seat 1's button is pressed
(the mock pin driven low, stamped with the press time); the race settles after the tie window and
the loser's LED goes dark. Then the rescue is undone and it starts again.
  - press -> LED: from the edge to the loser's LED pin going dark (the pin's own change time);
  - press -> phone: from the edge to each phone's Server-Sent Events message with the result,
    through the real waitress server (--no-server: to a session subscriber instead).
  - the press time the race kept vs the edge's own time (how exact the timestamps are).
Both delays include the tie window: no result can be shown before it closes. They print as
median and worst, and the same minus the window (the work of the code itself).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.dice_requirements import Die, match  # noqa: E402
from companion.session import Session  # noqa: E402
from companion.settings import SeatPins, Settings  # noqa: E402
from companion.store import EventStore  # noqa: E402
from hardware import attach  # noqa: E402
from hardware.mockpins import demo_pin_factory  # noqa: E402

WINNER, LOSER, OUTSIDER = 0, 1, 2


def main() -> int:
    """Run the benchmark and print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=100, help="races to time (default 100)")
    parser.add_argument("--phones", type=int, default=1, help="SSE streams to open (default 1)")
    parser.add_argument("--no-server", action="store_true", help="time to a session subscriber, not over HTTP")
    args = parser.parse_args()
    settings = Settings(pins=SeatPins(muted=True))
    with tempfile.TemporaryDirectory() as folder:
        store = EventStore(Path(folder) / "bench.sqlite3")
        session = Session(store, settings, seed=1)
        factory = demo_pin_factory()
        board = attach(session, settings, pin_factory=factory)
        phones = Phones(session, args.phones, use_server=not args.no_server)
        try:
            led_ms, phone_ms, error_ms = run_races(session, board, factory, phones, args.presses)
        finally:
            phones.close()
            board.close()
            session.close()
            store.close()
    window = settings.race.tie_window_ms
    where = f"{args.phones} phone(s) over SSE (waitress)" if not args.no_server else "a session subscriber"
    print(f"{args.presses} races, tie window {window:.0f} ms, mock pins, real Session + SQLite (synchronous FULL)")
    report("press -> LED change", led_ms, window)
    report(f"press -> {where}", phone_ms, window)
    print(f"{'press time kept in the race vs the edge':<48} median {statistics.median(error_ms) * 1000:6.1f} us  "
          f"worst {max(error_ms) * 1000:6.1f} us")
    return 0


def run_races(session, board, factory, phones, count: int) -> tuple[list[float], list[float], list[float]]:
    """Time `count` races; return the press->LED and press->phone delays and the press-time errors, in ms."""
    prepare(session)
    button = factory.pin(board.pins.buttons[WINNER])
    loser_led = factory.pin(board.pins.leds[LOSER])
    led_ms, phone_ms, error_ms = [], [], []
    for _ in range(count):
        wait_for(lambda: loser_led.state == 1.0, "the loser's LED to light")
        time.sleep(0.03)  # a human's press is well apart from the last one (and the debounce)
        pressed = time.monotonic()
        button.drive_low(ticks=pressed)
        button.drive_high()
        wait_for(lambda: loser_led.state == 0.0, "the loser's LED to go dark")
        led_ms.append((loser_led._last_change - pressed) * 1000.0)  # MockPin keeps each change's time
        phone_ms.extend((t - pressed) * 1000.0 for t in phones.wait_for_race(pressed * 1000.0))
        recorded = session.snapshot()["last_race"]["presses"][0][1]
        error_ms.append(abs(recorded - pressed * 1000.0))
        session.undo(source="benchmark")
    return led_ms, phone_ms, error_ms


def prepare(session: Session) -> None:
    """Start a 3-player demo game, wait for Go, and give seats 0 and 1 dice meeting one card."""
    session.start(["Ada", "Bo", "Cy"], leader=2, demo=True, seed=3)
    wait_for(lambda: session.snapshot()["phase"] == "open", "Go", timeout=10.0)
    rng = random.Random(7)
    card = session.snapshot()["display"][0]
    others = [c["requirement"] for c in session.snapshot()["display"][1:]]
    for seat in (WINNER, LOSER):
        session.roll(seat, dice_for(card["requirement"], others, rng), source="benchmark")
    claimers = [s["can_claim"] for s in session.snapshot()["seats"]]
    if claimers[:2] != [True, True]:
        raise SystemExit(f"setup failed: seats that may claim {claimers}")


def dice_for(requirement: str, avoid: list[str], rng: random.Random) -> list[Die]:
    """Four white and one black die meeting `requirement` and none of `avoid` (so no card choice)."""
    for _ in range(200_000):
        dice = [Die("white", rng.randint(1, 6)) for _ in range(4)] + [Die("black", rng.randint(1, 6))]
        if match(requirement, dice) and not any(match(other, dice) for other in avoid):
            return dice
    raise SystemExit(f"no dice meet {requirement}")


class Phones:
    """Phones listening for snapshots: SSE streams on the real server, or a session subscriber."""

    def __init__(self, session: Session, count: int, use_server: bool):
        """Start the server and open `count` streams (or subscribe once)."""
        self.arrivals: list[tuple[float, dict]] = []
        self.lock = threading.Condition()
        self.server = self.thread = self.app = None
        self.closing = False
        self.streams: list[http.client.HTTPConnection] = []
        self.unsubscribe = None
        if use_server:
            self._serve(session, count)
        else:
            self.unsubscribe = session.subscribe(lambda snapshot: self._arrived(time.monotonic(), snapshot))

    def _serve(self, session: Session, count: int) -> None:
        """Run waitress on a free port and open the streams."""
        from waitress.server import create_server

        from web import create_app

        self.app = create_app(session, {"PIN": "1234"})
        self.server = create_server(self.app, host="127.0.0.1", port=0, threads=max(8, count + 4))
        self.thread = threading.Thread(target=self._run_server, daemon=True)
        self.thread.start()
        port = self.server.effective_port
        for _ in range(count):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/api/events")
            response = connection.getresponse()
            threading.Thread(target=self._read, args=(response,), daemon=True).start()
            self.streams.append(connection)

    def _run_server(self) -> None:
        """Serve until close(); closing the listening socket ends the loop with EBADF."""
        try:
            self.server.run()
        except OSError:
            if not self.closing:
                raise

    def _read(self, response) -> None:
        """Read one SSE stream; note when each snapshot arrives."""
        try:
            for line in response:
                if line.startswith(b"data: "):
                    self._arrived(time.monotonic(), json.loads(line[6:]))
        except (OSError, ValueError, http.client.HTTPException):
            return

    def _arrived(self, when: float, snapshot: dict) -> None:
        """Keep a snapshot that carries a race result."""
        if (snapshot.get("last_race") or {}).get("presses"):
            with self.lock:
                self.arrivals.append((when, snapshot))
                self.lock.notify_all()

    def wait_for_race(self, press_ms: float) -> list[float]:
        """When each phone first got the result of the race pressed at `press_ms` (monotonic s)."""
        expected = len(self.streams) or 1

        def mine() -> list[float]:
            """Arrival times of snapshots showing this press."""
            return [when for when, snap in self.arrivals
                    if any(abs(p[1] - press_ms) < 0.5 for p in snap["last_race"]["presses"])]

        with self.lock:
            if not self.lock.wait_for(lambda: len(mine()) >= expected, timeout=10.0):
                raise SystemExit("a phone did not get the race result within 10 s")
            got = mine()
            self.arrivals.clear()
        return sorted(got)[:expected]

    def close(self) -> None:
        """Close the streams and stop the server."""
        self.closing = True
        if self.unsubscribe:
            self.unsubscribe()
        if self.app is not None:
            self.app.extensions["table"].broker.close()
        for connection in self.streams:
            connection.close()
        if self.server is not None:
            self.server.task_dispatcher.shutdown()
            self.server.close()
            self.thread.join(timeout=2.0)


def wait_for(condition, what: str, timeout: float = 5.0) -> None:
    """Poll `condition` until it holds; stop the benchmark if it never does."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.0005)


def report(what: str, delays_ms: list[float], window_ms: float) -> None:
    """Print median and worst, with and without the tie window."""
    median, worst = statistics.median(delays_ms), max(delays_ms)
    print(f"{what:<48} median {median:6.1f} ms  worst {worst:6.1f} ms   "
          f"(code alone: median {median - window_ms:5.1f}, worst {worst - window_ms:5.1f} ms)")


if __name__ == "__main__":
    sys.exit(main())

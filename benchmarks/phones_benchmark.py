"""Benchmark: time from a "Rescuing!" press to every one of 30 connected phones receiving the result.

Starts the real server (`python -m companion.cli serve`, waitress) on a free port with a throwaway
data folder, opens 30 Server-Sent-Event streams the way the phone page does, starts a 3-player demo
game, gives seat 0 dice that meet a display card, then repeats: press (HTTP POST, as a phone does)
-> wait until all 30 streams have a snapshot showing the rescue -> undo (so the same race can run
again). Prints median, p95 and worst over the presses, for the slowest phone of each press.

The time includes the race's tie window (settings.race.tie_window_ms, 30 ms by default): the result
cannot be known before the window closes. The numbers without it are printed too.

    python3 benchmarks/phones_benchmark.py [--phones 30] [--presses 50] [--source none|sim]

`--source sim` runs the server with the simulated camera and its live loop reading every frame (the
demo table's full load); the default, none, measures the phones alone.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.common import EventStream, free_port  # noqa: E402
from companion.dice_requirements import Die, match  # noqa: E402

PIN = "2468"
TIE_WINDOW_MS = 30.0


class Phone(EventStream):
    """One phone's SSE stream: remembers when each snapshot arrived."""

    def __init__(self, port: int) -> None:
        """Connect later, in run()."""
        super().__init__(port, timeout_s=60)
        self.lock = threading.Condition()
        self.rescued_at: dict[int, float] = {}  # rescue count seen -> first arrival time
        self.latest: dict = {}

    def arrived(self, snapshot: dict, at: float) -> None:
        """Keep the newest snapshot and when seat 0 was first seen with each count of rescues."""
        with self.lock:
            self.latest = snapshot
            seats = snapshot.get("seats") or [{}]
            count = len(seats[0].get("rescued", []))
            self.rescued_at.setdefault(count, at) if count else self.rescued_at.pop(1, None)
            self.lock.notify_all()

    def wait_rescued(self, since: float, timeout: float = 10.0) -> float:
        """When this phone first saw seat 0 with a rescue, after `since`."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while not (1 in self.rescued_at and self.rescued_at[1] >= since):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("a phone never saw the race result")
                self.lock.wait(left)
            return self.rescued_at[1]

    def wait_until(self, check, timeout: float = 10.0) -> None:
        """Wait until the newest snapshot passes `check`."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while not (self.latest and check(self.latest)):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("a phone never saw the expected state")
                self.lock.wait(left)


def post(port: int, path: str, body: dict) -> dict:
    """POST JSON to the server."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def dice_meeting(state: dict, card_id: str) -> list[dict]:
    """Dice for seat 0 that meet `card_id` and no other display card."""
    target = next(c["requirement"] for c in state["display"] if c["id"] == card_id)
    others = [c["requirement"] for c in state["display"] if c["id"] != card_id]
    for whites in itertools.product(range(1, 7), repeat=4):
        for black in range(1, 7):
            dice = tuple(Die("white", v) for v in whites) + (Die("black", black),)
            if match(target, dice) and not any(match(o, dice) for o in others):
                return [d.to_dict() for d in dice]
    raise RuntimeError(f"no dice meet only {card_id}")


def start_server(data: Path, port: int, source: str = "none") -> subprocess.Popen:
    """Run `companion serve` and wait until it answers."""
    settings = data / "settings.toml"
    settings.write_text(f'[race]\ncountdown_ms = 300.0\ntie_window_ms = {TIE_WINDOW_MS}\n\n'
                        f'[server]\nhost = "127.0.0.1"\npin = "{PIN}"\nthreads = 64\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--settings", str(settings),
                                "--port", str(port), "--data-dir", str(data), "--source", source],
                               cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1).read()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of the values lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main() -> int:
    """Run the benchmark and print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=30)
    parser.add_argument("--presses", type=int, default=50)
    parser.add_argument("--source", default="none", help="the server's camera: none (default) or e.g. sim")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(Path(folder), port, args.source)
        try:
            return run(port, args.phones, args.presses, camera=args.source != "none")
        finally:
            server.terminate()
            server.wait(timeout=20)


def run(port: int, phones_count: int, presses: int, camera: bool = False) -> int:
    """Connect the phones, play the presses, print the numbers."""
    phones = [Phone(port) for _ in range(phones_count)]
    for phone in phones:
        phone.start()
        phone.connected.wait(10)
    post(port, "/api/start", {"pin": PIN, "players": ["Ana", "Ben", "Cy"], "leader": 1, "seed": 3})
    for phone in phones:
        phone.wait_until(lambda s: s.get("phase") == "open")
    if camera:
        time.sleep(3.0)  # let the camera send the seats' dice first, so that seat 0's tapped dice stay
    state = phones[0].latest
    post(port, "/api/act", {"kind": "roll", "seat": 0, "dice": dice_meeting(state, state["display"][0]["id"])})
    slowest, fastest = [], []
    for _ in range(presses):
        for phone in phones:
            phone.wait_until(lambda s: s["phase"] == "open" and not s["seats"][0]["rescued"] and s["seats"][0]["dice"])
        pressed = time.perf_counter()
        post(port, "/api/act", {"kind": "press", "seat": 0})
        arrivals = [phone.wait_rescued(pressed) for phone in phones]
        slowest.append((max(arrivals) - pressed) * 1000)
        fastest.append((min(arrivals) - pressed) * 1000)
        post(port, "/api/undo", {"pin": PIN})
    print(f"{phones_count} phones on SSE, {presses} presses, tie window {TIE_WINDOW_MS:.0f} ms (included)"
          + (", camera live loop running" if camera else ", no camera"))
    print("press -> the LAST of the phones has the result:")
    print(f"  median {statistics.median(slowest):6.1f} ms   p95 {percentile(slowest, 0.95):6.1f} ms   "
          f"worst {max(slowest):6.1f} ms")
    print("press -> the FIRST phone has the result:")
    print(f"  median {statistics.median(fastest):6.1f} ms   p95 {percentile(fastest, 0.95):6.1f} ms   "
          f"worst {max(fastest):6.1f} ms")
    print(f"without the tie window: median {statistics.median(slowest) - TIE_WINDOW_MS:6.1f} ms   "
          f"p95 {percentile(slowest, 0.95) - TIE_WINDOW_MS:6.1f} ms (last phone)")
    target = percentile(slowest, 0.95) < 100
    print(f"target (every phone within 100 ms): {'met' if target else 'NOT met'} at p95")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixtures for the web tests: an app over a session whose clock and timers the test drives."""

from __future__ import annotations

import pytest

from tests.support import PIN, ManualTime, close_session, free_port, open_session
from web import create_app


@pytest.fixture
def manual():
    """The hand-driven clock."""
    return ManualTime()


@pytest.fixture
def session(tmp_path, manual):
    """A session over a store on disk, no game yet."""
    session = open_session(tmp_path, manual, seed=3)
    yield session
    close_session(session)


@pytest.fixture
def app(session):
    """The Flask app of the table."""
    return create_app(session, {"TESTING": True, "PIN": PIN})


@pytest.fixture
def client(app):
    """A test client."""
    return app.test_client()


@pytest.fixture
def started(client, manual):
    """A 3-player demo game, started over the API, its race open."""
    response = client.post("/api/start", json={"pin": PIN, "players": ["Ana", "Ben", "Cy"], "leader": 0, "seed": 5})
    assert response.status_code == 200, response.json
    manual.advance(3001)
    return client


# ---- a real `companion serve` process -------------------------------------------------------

import json as _json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SERVER_SETTINGS = f"""
[race]
countdown_ms = 600.0

[server]
host = "127.0.0.1"
pin = "{PIN}"
threads = 48

[camera]
source = "{{source}}"
"""


class ServerProcess:
    """`python -m companion.cli serve` on a free port, with a data folder of its own."""

    def __init__(self, data_dir: Path, port: int | None = None, source: str = "none") -> None:
        """Remember where (and which camera: none unless a test asks); start() runs it."""
        self.data_dir = data_dir
        self.source = source
        self.port = port or free_port()
        self.settings = data_dir / "settings.toml"
        self.process: subprocess.Popen | None = None
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> "ServerProcess":
        """Start the process and wait until it answers."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.settings.write_text(SERVER_SETTINGS.replace("{source}", self.source), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.log = open(self.data_dir / "server.log", "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--settings", str(self.settings),
             "--port", str(self.port), "--data-dir", str(self.data_dir)],
            cwd=REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server stopped: {(self.data_dir / 'server.log').read_text()}")
            try:
                self.get("/api/state")
                return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the server did not answer within 20 s")

    def get(self, path: str) -> dict:
        """GET JSON."""
        with urllib.request.urlopen(self.url + path, timeout=5) as response:
            return _json.loads(response.read())

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        """POST JSON; (status, answer) also for 4xx."""
        request = urllib.request.Request(self.url + path, data=_json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, _json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, _json.loads(error.read())

    def wait_for(self, check, timeout: float = 10.0) -> dict:
        """Poll the state until check(state) is true; return that state."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.get("/api/state")
            if check(state):
                return state
            time.sleep(0.05)
        raise AssertionError(f"timed out; last state phase {state.get('phase')}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send a signal and wait for the process to end."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=15)
        if getattr(self, "log", None):
            self.log.close()


@pytest.fixture
def start_server(tmp_path):
    """Start real servers; every one still running is killed at the end of the test."""
    started: list[ServerProcess] = []

    def start(data_dir: Path | None = None, port: int | None = None, source: str = "none") -> ServerProcess:
        """Start a server over `data_dir` (default: the test's own folder), with camera `source`."""
        server = ServerProcess(data_dir or tmp_path / "data", port, source).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


def dice_meeting(state: dict, seat: int, card_id: str) -> list[dict]:
    """Dice (as JSON) for `seat` that meet `card_id` and no other display card (brute force)."""
    import itertools

    from companion.dice_requirements import Die, match

    others = [c["requirement"] for c in state["display"] if c["id"] != card_id]
    target = next(c["requirement"] for c in state["display"] if c["id"] == card_id)
    gray = state["gray_holder"] == seat
    for whites in itertools.product(range(1, 7), repeat=4):
        for black in range(1, 7):
            extra = (Die("gray", 1),) if gray else ()
            dice = tuple(Die("white", v) for v in whites) + (Die("black", black),) + extra
            if match(target, dice) and not any(match(o, dice) for o in others):
                return [d.to_dict() for d in dice]
    raise AssertionError(f"no dice meet only {card_id}")


@pytest.fixture
def meeting():
    """The dice_meeting helper."""
    return dice_meeting

"""What the benchmarks share: a free port, and a phone's Server-Sent-Event stream read in a background thread."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from typing import Any


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class EventStream(threading.Thread):
    """One phone's stream of snapshots (/api/events); `arrived(snapshot, at)` is called for each, with its
    arrival time (time.perf_counter())."""

    def __init__(self, port: int, timeout_s: float = 60.0) -> None:
        """Connect to the server on `port` in run()."""
        super().__init__(daemon=True)
        self.port = port
        self.timeout_s = timeout_s
        self.connected = threading.Event()

    def run(self) -> None:
        """Read the stream line by line until it closes."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout_s)
        connection.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        self.connected.set()
        while True:
            line = response.fp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                now = time.perf_counter()  # before parsing: the arrival, not the parse, is measured
                self.arrived(json.loads(line[6:]), now)

    def arrived(self, snapshot: dict[str, Any], at: float) -> None:
        """Note one snapshot (each benchmark's phone says what it keeps)."""
        raise NotImplementedError

"""Live updates: the broker's fan-out, and a real server's SSE stream flushing each change at once."""

from __future__ import annotations

import http.client
import json
import threading
import time

from web.broker import BACKLOG, Broker, format_event

PIN = "2468"


def test_every_stream_gets_the_first_snapshot_then_each_publish():
    """Two streams, one publish: both get it, in SSE form."""
    broker = Broker(keepalive_s=5)
    one, two = broker.stream(lambda: ('{"version": 1}', 1)), broker.stream(lambda: ('{"version": 1}', 1))
    assert next(one) == "retry: 1000\n\n" and next(two) == "retry: 1000\n\n"
    assert next(one) == 'id: 1\ndata: {"version": 1}\n\n'
    next(two)
    assert broker.client_count == 2
    broker.publish('{"version": 2}', 2)
    assert next(one) == next(two) == 'id: 2\ndata: {"version": 2}\n\n'
    one.close()
    assert broker.client_count == 1


def test_a_quiet_stream_sends_keepalives_and_close_ends_it():
    """No news: a comment line; close(): the stream ends and new ones are refused."""
    broker = Broker(keepalive_s=0.05)
    stream = broker.stream()
    next(stream)
    assert next(stream) == ": keepalive\n\n"
    threading.Timer(0.05, broker.close).start()
    assert list(stream) in ([], [": keepalive\n\n"])
    assert list(broker.stream()) == []


def test_a_stream_that_does_not_read_keeps_only_the_newest_messages():
    """A stalled phone does not make the table hold every snapshot."""
    broker = Broker(keepalive_s=5)
    stream = broker.stream()
    next(stream)
    for version in range(BACKLOG + 10):
        broker.publish(json.dumps({"version": version}), version)
    burst = next(stream)
    assert burst.count("data: ") == BACKLOG
    assert burst.endswith(format_event(json.dumps({"version": BACKLOG + 9}), BACKLOG + 9))


def test_the_real_server_flushes_each_event_at_once(start_server):
    """waitress sends an SSE message as soon as it is published (no buffering): within 1 s of the change."""
    server = start_server()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/api/events")
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")

    def next_data() -> dict:
        """The next data line of the stream."""
        while True:
            line = response.fp.readline()
            if line.startswith(b"data: "):
                return json.loads(line[6:])

    assert next_data()["phase"] == "idle"
    started = time.monotonic()
    assert server.post("/api/start", {"pin": PIN, "players": ["Ana", "Ben"], "seed": 1})[0] == 200
    snapshot = next_data()
    assert snapshot["phase"] == "ready" and time.monotonic() - started < 1.0
    assert next_data()["phase"] == "open"  # the countdown's Go arrives by itself
    connection.close()

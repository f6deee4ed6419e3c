"""The Server-Sent Events broker: every phone's open stream gets each new snapshot at once."""

from __future__ import annotations

import threading
from collections import deque
from typing import Callable, Iterator

# A phone that stops reading keeps at most this many messages; snapshots are whole states, so
# dropping the oldest loses nothing the newest does not show.
BACKLOG = 32


class _Client:
    """One open stream: its pending messages and a condition to wake its generator."""

    def __init__(self) -> None:
        """Make an empty client."""
        self.pending: deque[str] = deque(maxlen=BACKLOG)
        self.wake = threading.Condition()
        self.closed = False


class Broker:
    """Fan-out of text messages to every connected stream."""

    def __init__(self, keepalive_s: float = 15.0) -> None:
        """Make a broker; streams send a comment every `keepalive_s` so proxies keep them open."""
        self.keepalive_s = keepalive_s
        self._clients: set[_Client] = set()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether the table is shutting down (every stream is ending)."""
        return self._closed

    @property
    def client_count(self) -> int:
        """How many streams are open now."""
        with self._lock:
            return len(self._clients)

    def publish(self, data: str, event_id: int | None = None) -> None:
        """Send `data` (one line of JSON) to every open stream."""
        message = format_event(data, event_id)
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            with client.wake:
                client.pending.append(message)
                client.wake.notify()

    def stream(self, first: Callable[[], tuple[str, int | None]] | None = None) -> Iterator[str]:
        """A generator of SSE text for one phone: `first()` at once, then every published message.

        `first` is called after the stream is registered, so no change can fall in between.
        """
        client = _Client()
        with self._lock:
            if self._closed:
                return
            self._clients.add(client)
        try:
            # Tell the browser to retry quickly if the table's server restarts.
            yield "retry: 1000\n\n"
            if first is not None:
                yield format_event(*first())
            while True:
                with client.wake:
                    if not client.pending and not client.closed:
                        client.wake.wait(self.keepalive_s)
                    messages = list(client.pending)
                    client.pending.clear()
                    closed = client.closed
                if closed:
                    return
                if messages:
                    yield "".join(messages)
                else:
                    yield ": keepalive\n\n"
        finally:
            with self._lock:
                self._clients.discard(client)

    def close(self) -> None:
        """End every open stream (at shutdown) and refuse new ones."""
        with self._lock:
            self._closed = True
            clients = list(self._clients)
        for client in clients:
            with client.wake:
                client.closed = True
                client.wake.notify()


def format_event(data: str, event_id: int | None = None) -> str:
    """One SSE message; `data` must be a single line (JSON from json.dumps is)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}data: {data}\n\n"

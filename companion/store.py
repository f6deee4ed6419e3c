"""The event store: an append-only SQLite log of every accepted action, one game after another.

A game's state is never stored; it is the replay of its events through the rules' `apply`. Undo is
an event too (it names the events it cancels), so nothing is ever deleted or rewritten.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from companion.errors import StoreError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    catalogue TEXT NOT NULL,
    started REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing',
    ended REAL,
    scores TEXT
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    wall_time REAL NOT NULL,
    action TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS stills (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    file TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""

UNDO = "undo"


@dataclass(frozen=True)
class Event:
    """One line of the log: the action (as its JSON dict) accepted at `wall_time` from `source`."""

    game_id: int
    seq: int
    wall_time: float
    action: dict[str, Any]
    source: str

    @property
    def kind(self) -> str:
        """The action's kind ("roll", "rescue", "undo", ...)."""
        return str(self.action.get("kind", ""))

    def to_dict(self) -> dict[str, Any]:
        """The event as plain JSON-able values."""
        return {"seq": self.seq, "wall_time": self.wall_time, "source": self.source, "action": self.action}


@dataclass(frozen=True)
class GameRecord:
    """A game as the store knows it: what was set up, and (when finished) its scores."""

    id: int
    game: str
    setup: dict[str, Any]
    catalogue: dict[str, Any]
    started: float
    status: str  # "playing", "finished" or "abandoned"
    ended: float | None
    scores: dict[str, Any] | None

    def summary(self) -> dict[str, Any]:
        """The record without the (long) catalogue, for the history list."""
        return {
            "id": self.id,
            "game": self.game,
            "setup": self.setup,
            "started": self.started,
            "status": self.status,
            "ended": self.ended,
            "scores": self.scores,
        }


def effective_events(events: Iterable[Event]) -> list[Event]:
    """The events that still count: every non-undo event that no undo event cancelled."""
    events = list(events)
    cancelled = {seq for event in events if event.kind == UNDO for seq in event.action.get("undoes", ())}
    return [event for event in events if event.kind != UNDO and event.seq not in cancelled]


class EventStore:
    """The SQLite file of games and their events; safe to share between threads (one lock)."""

    def __init__(self, path: str | Path) -> None:
        """Open (or create) the store at `path`; ":memory:" gives a throwaway store for tests."""
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit is on disk before append() returns, so a power cut loses nothing shown.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the event store {self.path} ({error}); check the --data-dir folder.") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the file; calling it twice is harmless."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]

    def __enter__(self) -> EventStore:
        """Use the store as a context manager."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the store at the end of a with block."""
        self.close()

    def _write(self, sql: str, params: tuple[Any, ...]) -> sqlite3.Cursor:
        """Run one write in its own committed transaction."""
        with self._lock:
            return self._db.execute(sql, params)

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one query and return all its rows."""
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def create_game(self, game: str, setup: dict[str, Any], catalogue: dict[str, Any]) -> int:
        """Record a new game (its setup and the catalogue it is played with) and return its id."""
        cursor = self._write(
            "INSERT INTO games (game, setup, catalogue, started) VALUES (?, ?, ?, ?)",
            (game, json.dumps(setup), json.dumps(catalogue), time.time()),
        )
        return int(cursor.lastrowid)

    def append(self, game_id: int, action: dict[str, Any], source: str) -> Event:
        """Append one accepted action to the game's log (committed to disk) and return the event."""
        wall_time = time.time()
        text = json.dumps(action)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?", (game_id,)
                ).fetchone()
                self._db.execute(
                    "INSERT INTO events (game_id, seq, wall_time, action, source) VALUES (?, ?, ?, ?, ?)",
                    (game_id, last + 1, wall_time, text, source),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Event(game_id, last + 1, wall_time, action, source)

    def events(self, game_id: int) -> list[Event]:
        """Every event of the game, undo events included, in order."""
        rows = self._read(
            "SELECT game_id, seq, wall_time, action, source FROM events WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        return [Event(row[0], row[1], row[2], json.loads(row[3]), row[4]) for row in rows]

    def game(self, game_id: int) -> GameRecord | None:
        """The game with this id, or None."""
        if not -(2**63) <= game_id < 2**63:  # beyond SQLite's integers: there is no such game
            return None
        rows = self._read(
            "SELECT id, game, setup, catalogue, started, status, ended, scores FROM games WHERE id = ?",
            (game_id,),
        )
        return _record(rows[0]) if rows else None

    def current_game(self) -> GameRecord | None:
        """The newest game still being played, or None."""
        rows = self._read(
            "SELECT id, game, setup, catalogue, started, status, ended, scores FROM games "
            "WHERE status = 'playing' ORDER BY id DESC LIMIT 1"
        )
        return _record(rows[0]) if rows else None

    def finish(self, game_id: int, scores: dict[str, Any]) -> None:
        """Mark the game finished and keep its scoreboard in the history."""
        self._write(
            "UPDATE games SET status = 'finished', ended = ?, scores = ? WHERE id = ?",
            (time.time(), json.dumps(scores), game_id),
        )

    def reopen(self, game_id: int) -> None:
        """Mark a finished game as being played again (an undo of its last action)."""
        self._write("UPDATE games SET status = 'playing', ended = NULL, scores = NULL WHERE id = ?", (game_id,))

    def abandon(self, game_id: int) -> None:
        """Mark an unfinished game abandoned (a new game was started); its events stay."""
        self._write(
            "UPDATE games SET status = 'abandoned', ended = ? WHERE id = ? AND status = 'playing'",
            (time.time(), game_id),
        )

    def history(self, limit: int = 100) -> list[GameRecord]:
        """The newest games first, finished or not."""
        rows = self._read(
            "SELECT id, game, setup, catalogue, started, status, ended, scores FROM games "
            "ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [_record(row) for row in rows]

    def add_still(self, game_id: int, seq: int, file: str) -> None:
        """Remember the picture of the table (a file name in the data folder) kept with event `seq`."""
        self._write("INSERT OR REPLACE INTO stills (game_id, seq, file) VALUES (?, ?, ?)", (game_id, seq, file))

    def stills(self, game_id: int) -> dict[int, str]:
        """Event seq -> the still's file name, for the game's accepted claims that have one."""
        rows = self._read("SELECT seq, file FROM stills WHERE game_id = ? ORDER BY seq", (game_id,))
        return {int(seq): str(file) for seq, file in rows}

    def export_json(self, game_id: int) -> dict[str, Any]:
        """The whole game as one JSON-able dict: setup, catalogue, scores, every event and the stills."""
        record = self._require(game_id)
        stills = self.stills(game_id)
        return {
            **record.summary(),
            "catalogue": record.catalogue,
            "events": [{**event.to_dict(), **({"still": stills[event.seq]} if event.seq in stills else {})}
                       for event in self.events(game_id)],
        }

    def export_csv(self, game_id: int) -> str:
        """The game's events as CSV, one row per event, for a spreadsheet."""
        self._require(game_id)
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["game", "seq", "time_utc", "source", "kind", "seat", "card", "dice", "action_json"])
        for event in self.events(game_id):
            action = event.action
            writer.writerow([
                game_id,
                event.seq,
                time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(event.wall_time)) + f".{int(event.wall_time * 1000) % 1000:03d}",
                event.source,
                event.kind,
                action.get("seat", ""),
                action.get("card", ""),
                " ".join(_die_text(die) for die in action.get("dice") or ()),
                json.dumps(action, sort_keys=True),
            ])
        return out.getvalue()

    def _require(self, game_id: int) -> GameRecord:
        """The game with this id, or a StoreError saying there is none."""
        record = self.game(game_id)
        if record is None:
            raise StoreError(f"there is no game number {game_id}; the history lists the games there are.")
        return record


def _record(row: tuple[Any, ...]) -> GameRecord:
    """Turn a games row into a GameRecord."""
    return GameRecord(
        id=row[0],
        game=row[1],
        setup=json.loads(row[2]),
        catalogue=json.loads(row[3]),
        started=row[4],
        status=row[5],
        ended=row[6],
        scores=json.loads(row[7]) if row[7] else None,
    )


def _die_text(die: Any) -> str:
    """A die as short text ("W3", "B5", "G2") for the CSV export."""
    if isinstance(die, dict):
        return f"{str(die.get('colour', '?'))[:1].upper()}{die.get('value', '?')}"
    return str(die)

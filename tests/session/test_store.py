"""The event store: append-only, durable settings, undo as an event, history and exports."""

from __future__ import annotations

import csv
import io
import json

import pytest

from companion.errors import StoreError
from companion.store import EventStore, effective_events


@pytest.fixture
def store(tmp_path):
    """A store on disk."""
    with EventStore(tmp_path / "s.sqlite3") as store:
        yield store


def test_the_file_is_in_wal_mode_with_full_sync(store):
    """WAL and synchronous=FULL: a commit is on disk before append returns."""
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_are_numbered_per_game_and_read_back_in_order(store):
    """Each game counts its own events from 1."""
    a = store.create_game("rescue_animals", {"players": ["A", "B"]}, {"card": []})
    b = store.create_game("rescue_animals", {"players": ["C", "D"]}, {"card": []})
    store.append(a, {"kind": "go"}, "countdown")
    store.append(b, {"kind": "go"}, "countdown")
    store.append(a, {"kind": "roll", "seat": 1, "dice": []}, "phone")
    assert [(e.seq, e.kind, e.source) for e in store.events(a)] == [(1, "go", "countdown"), (2, "roll", "phone")]
    assert [e.seq for e in store.events(b)] == [1]


def test_undo_is_an_event_and_nothing_is_deleted(store):
    """An undo names the events it cancels; the log keeps them."""
    game = store.create_game("rescue_animals", {}, {})
    for kind in ("reveal", "go", "rescue"):
        store.append(game, {"kind": kind}, "phone")
    store.append(game, {"kind": "undo", "undoes": [3, 2]}, "host")
    events = store.events(game)
    assert [e.kind for e in events] == ["reveal", "go", "rescue", "undo"]
    assert [e.kind for e in effective_events(events)] == ["reveal"]


def test_a_second_connection_sees_what_the_first_committed(store, tmp_path):
    """What append returned is on disk for any other reader (the restart case)."""
    game = store.create_game("rescue_animals", {"players": ["A", "B"]}, {})
    store.append(game, {"kind": "go"}, "countdown")
    with EventStore(tmp_path / "s.sqlite3") as other:
        assert other.current_game().id == game
        assert [e.kind for e in other.events(game)] == ["go"]


def test_history_keeps_finished_games_with_their_scores(store):
    """Finished, abandoned and current games are listed newest first."""
    first = store.create_game("rescue_animals", {"players": ["A", "B"]}, {})
    store.finish(first, {"winner": 1, "decided_by": "most points"})
    second = store.create_game("rescue_animals", {"players": ["C", "D"]}, {})
    store.abandon(second)
    third = store.create_game("rescue_animals", {"players": ["E", "F"]}, {})
    assert [(g.id, g.status) for g in store.history()] == [(third, "playing"), (second, "abandoned"), (first, "finished")]
    assert store.game(first).scores == {"winner": 1, "decided_by": "most points"}
    assert store.current_game().id == third


def test_export_as_json_and_csv(store):
    """A game exports with its setup, catalogue and every event; the CSV has one row per event."""
    game = store.create_game("rescue_animals", {"players": ["A", "B"]}, {"card": [{"id": "x"}]})
    store.append(game, {"kind": "roll", "seat": 0, "dice": [{"colour": "black", "value": 2},
                                                             {"colour": "white", "value": 6}]}, "phone")
    store.append(game, {"kind": "rescue", "seat": 0, "card": "x"}, "button")
    data = store.export_json(game)
    json.dumps(data)
    assert data["setup"] == {"players": ["A", "B"]} and data["catalogue"] == {"card": [{"id": "x"}]}
    assert [e["action"]["kind"] for e in data["events"]] == ["roll", "rescue"]
    rows = list(csv.DictReader(io.StringIO(store.export_csv(game))))
    assert [(r["seq"], r["kind"], r["seat"], r["card"], r["dice"], r["source"]) for r in rows] == [
        ("1", "roll", "0", "", "B2 W6", "phone"), ("2", "rescue", "0", "x", "", "button")]


def test_exporting_a_game_that_does_not_exist_says_so(store):
    """A wrong game number is a StoreError with the number in it."""
    with pytest.raises(StoreError, match="there is no game number 42"):
        store.export_json(42)


def test_a_store_that_cannot_be_opened_says_which_file(tmp_path):
    """A folder where the file should be: a StoreError naming the path."""
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(StoreError, match="dir.sqlite3"):
        EventStore(tmp_path / "dir.sqlite3")

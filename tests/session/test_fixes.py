"""The countdown's end on the session clock, seats counted from 1 in messages, the game's own catalogue copy."""

from __future__ import annotations

import pytest

from companion import catalogue as catalogues
from companion.errors import IllegalAction, SessionError


def test_countdown_carries_its_end_on_the_session_clock(make_session, manual) -> None:
    """While Ready-Set-Go runs, the snapshot says when it ends (session ms) and how long is left."""
    session = make_session()
    session.start(["Ana", "Ben"], leader=0, seed=1)
    started = manual.now_ms
    manual.advance(1000)
    countdown = session.snapshot()["countdown"]
    assert countdown["ends_at_ms"] == pytest.approx(started + session.settings.race.countdown_ms)
    assert countdown["ends_in_ms"] == pytest.approx(countdown["ends_at_ms"] - manual.now_ms)
    manual.advance(session.settings.race.countdown_ms)
    assert session.snapshot()["countdown"] is None


def test_messages_count_seats_from_one(session, helpers, manual) -> None:
    """A refusal names the seat as people see it (seat 1 is index 0), never as the index."""
    helpers.open_race(session, manual)
    session.roll(0, helpers.dice_meeting_none(session, 0))
    with pytest.raises(IllegalAction, match=r"seat 1 \(Ana\)"):
        session.choose(0, session.snapshot()["display"][0]["id"])
    with pytest.raises(SessionError, match=r"seats are 1 to 3"):
        session.press(3)


def test_the_game_keeps_the_catalogue_it_started_with(make_session, manual, helpers) -> None:
    """Editing the catalogue mid-game changes neither the game in progress nor its replay after a restart."""
    session = make_session()
    session.start(["Ana", "Ben", "Cy"], leader=0, demo=True, seed=5)
    helpers.open_race(session, manual)
    card = session.snapshot()["display"][0]
    record = session.store.current_game()
    assert record.catalogue == session.catalogue().to_dict()  # stored with the game at its start

    edited = catalogues.update_card(session.catalogue(), card["id"], {"requirement": "PANDA", "protection": 9 if card["protection"] != 9 else 8})
    session.save_catalogue(edited)
    assert session.catalogue().card(card["id"]).protection != card["protection"]  # the next game would use the edit

    shown = session.snapshot()["display"][0]
    assert (shown["requirement"], shown["protection"]) == (card["requirement"], card["protection"])
    dice = helpers.dice_for(session, 1, [card["id"]])
    session.roll(1, dice)
    assert session.press(1).accepted
    session.settle_race()
    assert card["id"] in session.snapshot()["seats"][1]["rescued"]
    before = session.snapshot()

    session.close()
    resumed = make_session()  # the companion restarts: the replay rebuilds from the game's own copy
    after = resumed.snapshot()
    assert after["seats"][1]["rescued"] == before["seats"][1]["rescued"]
    assert after["scores"] == before["scores"]
    assert resumed._state.card(card["id"]).protection == card["protection"]


def test_undo_takes_back_the_camera_readings_after_the_last_thing_a_person_did(session, manual, helpers) -> None:
    """The camera's rolls are automatic for undo: the host's undo reaches the rescue behind them, and the
    snapshot counts the undo so that the camera sends the table again."""
    helpers.open_race(session, manual)
    card = session.snapshot()["display"][0]["id"]
    session.roll(1, helpers.dice_for(session, 1, [card]), source="phone")
    session.press(1)
    manual.advance(31)
    assert card in session.snapshot()["seats"][1]["rescued"]
    manual.advance(3001)
    session.roll(2, helpers.dice_meeting_none(session, 2), source="camera")
    undos = session.snapshot()["undos"]
    session.undo()
    snapshot = session.snapshot()
    assert snapshot["seats"][1]["rescued"] == [] and snapshot["seats"][2]["dice"] == []
    assert snapshot["undos"] == undos + 1


def test_roll_for_me_throws_all_dice_when_every_die_would_be_kept(session, manual, helpers, monkeypatch) -> None:
    """The demo's Roll for me with dice that already meet a card throws them all (not none)."""
    helpers.open_race(session, manual)
    card = session.snapshot()["display"][0]["id"]
    session.roll(1, helpers.dice_for(session, 1, [card]))
    monkeypatch.setattr(session, "_best_keep", lambda seat: list(range(5)))
    rolls = 0
    for _ in range(5):  # five dice thrown five times all landing as they were: (1/6)^25
        before = session.snapshot()["seats"][1]["dice"]
        rolls += session.roll_random(1)["seats"][1]["dice"] != before
    assert rolls >= 1

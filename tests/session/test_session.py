"""The session: one door for presses, the race window, the countdown, undo, durability, resume."""

from __future__ import annotations

import pytest

from companion.errors import IllegalAction, SessionError
from companion.games import rescue_animals as rules


def test_a_new_demo_game_reveals_its_cards_and_counts_down(session, manual):
    """Start: the demo deck deals the display, the countdown runs, then Go opens the race."""
    snap = session.snapshot()
    assert snap["phase"] == "ready"
    assert len(snap["display"]) == 2  # 3 players: 2 cards a round
    assert snap["countdown"]["total_ms"] == 3000.0
    assert [s["name"] for s in snap["seats"]] == ["Ana", "Ben", "Cy"]
    manual.advance(2999)
    assert session.snapshot()["phase"] == "ready"
    manual.advance(2)
    assert session.snapshot()["phase"] == "open"
    kinds = [e.kind for e in session.store.events(snap["game_id"])]
    assert kinds == ["reveal", "go"]


def test_a_press_before_go_is_refused_and_shown_to_that_seat(session):
    """Presses during Ready-Set-Go are not claims."""
    outcome = session.press(1, source="phone")
    assert (outcome.accepted, outcome.reason) == (False, "the race is not open yet: wait for Go!")
    assert session.snapshot()["seats"][1]["refusal"]["reason"] == "the race is not open yet: wait for Go!"
    assert session.snapshot()["seats"][0]["refusal"] is None


def test_a_press_with_dice_that_meet_nothing_is_refused_with_the_dice(session, manual, helpers):
    """The rules' reason reaches the seat; nothing is stored."""
    helpers.open_race(session, manual)
    session.roll(2, helpers.dice_meeting_none(session, 2))
    before = len(session.store.events(session.snapshot()["game_id"]))
    outcome = session.press(2)
    assert not outcome.accepted
    assert outcome.reason.startswith("Cy's dice (") and outcome.reason.endswith("satisfy none of the cards on display")
    assert len(session.store.events(session.snapshot()["game_id"])) == before
    assert manual.pending == []  # no race window was opened


def test_the_winner_rescues_with_the_dice_it_had_at_the_press(session, manual, helpers):
    """Dice rolled after the press do not change the claim; Go comes again after the rescue."""
    helpers.open_race(session, manual)
    card = session.snapshot()["display"][0]["id"]
    pressed_with = helpers.dice_for(session, 1, [card])
    session.roll(1, pressed_with)
    assert session.press(1).accepted
    session.roll(1, helpers.dice_meeting_none(session, 1))  # rerolled right after the press
    manual.advance(31)  # the tie window closes
    snap = session.snapshot()
    assert snap["seats"][1]["rescued"] == [card]
    assert snap["phase"] == "ready"  # the rescuer calls Ready, Set, Go!
    assert snap["last_race"]["winner"] == 1 and snap["last_race"]["decided_by"] == "first press"
    rescue = [e for e in session.store.events(snap["game_id"]) if e.kind == "rescue"][0]
    assert rescue.action["dice"] == pressed_with
    assert rescue.source == "phone"


def test_presses_within_the_tie_window_go_to_the_leader_clockwise(session, manual, helpers):
    """Ben and Cy press 12 ms apart; Leader Ana does not press: Ben is first clockwise from her."""
    helpers.open_race(session, manual)
    card = session.snapshot()["display"][0]["id"]
    session.roll(1, helpers.dice_for(session, 1, [card]))
    session.roll(2, helpers.dice_for(session, 2, [card], seed=3))
    t = manual.now_ms
    session.press(2, t_ms=t)
    session.press(1, t_ms=t + 12)
    manual.advance(31)
    race = session.snapshot()["last_race"]
    assert race["winner"] == 1
    assert race["tied"] == [2, 1]
    assert race["gap_ms"] == pytest.approx(12)
    assert race["decided_by"] == "tie: clockwise from the Conservation Leader"


def test_a_press_after_the_window_loses_with_the_photo_finish_gap(session, manual, helpers):
    """45 ms later is not a tie: the first press wins, even against the Leader, and the gap is kept."""
    helpers.open_race(session, manual)
    card = session.snapshot()["display"][0]["id"]
    session.roll(0, helpers.dice_for(session, 0, [card]))
    session.roll(2, helpers.dice_for(session, 2, [card], seed=9))
    t = manual.now_ms
    session.press(2, t_ms=t)
    session.press(0, t_ms=t + 45)
    manual.advance(50)
    race = session.snapshot()["last_race"]
    assert (race["winner"], race["tied"], race["decided_by"]) == (2, [], "first press")
    assert race["gap_ms"] == pytest.approx(45)


def test_several_satisfied_cards_make_the_winner_choose(make_session, manual, helpers):
    """Claim -> phase choosing; only the winner may pick; the pick rescues that card."""
    session = make_session()
    for seed in range(100):  # find a deal whose two display cards one throw can meet together
        session.start(["Ana", "Ben", "Cy"], leader=0, demo=True, seed=seed)
        display = [c["id"] for c in session.snapshot()["display"]]
        dice = _dice_meeting_both(session, display)
        if dice is not None:
            break
    helpers.open_race(session, manual)
    session.roll(0, dice)
    session.press(0)
    manual.advance(31)
    snap = session.snapshot()
    assert snap["phase"] == "choosing"
    assert snap["choosing"] == {"seat": 0, "cards": display}
    assert session.press(1).reason == "Ana is choosing a card: wait for Go!"
    with pytest.raises(IllegalAction, match="is choosing"):
        session.choose(1, display[1])
    session.choose(0, display[1])
    assert session.snapshot()["seats"][0]["rescued"] == [display[1]]
    assert session.snapshot()["phase"] == "ready"


def _dice_meeting_both(session, display):
    """Dice (as dicts) for seat 0 that meet both display cards, or None."""
    import itertools

    state = session._state
    for whites in itertools.combinations_with_replacement(range(1, 7), 4):
        for black in range(1, 7):
            dice = tuple(rules.Die("white", v) for v in whites) + (rules.Die("black", black),)
            if len(rules.satisfied_cards(state, 0, dice)) == len(set(display)) == 2:
                return [d.to_dict() for d in dice]
    return None


def test_every_action_is_stored_before_any_subscriber_hears_of_it(session, manual, helpers):
    """A subscriber that reads the store finds the event it is told about."""
    seen = []

    def listener(snapshot):
        """Record how many events the store holds when told."""
        seen.append((snapshot["version"], len(session.store.events(snapshot["game_id"]))))

    session.subscribe(listener)
    helpers.open_race(session, manual)  # Go
    session.roll(0, helpers.dice_meeting_none(session, 0))
    assert seen[0][1] == 2 and seen[-1][1] == 3  # reveal+go, then the roll
    assert [v for v, _ in seen] == sorted(v for v, _ in seen)


def test_unsubscribe_stops_the_calls(session, manual):
    """After unsubscribe, no more calls."""
    calls = []
    stop = session.subscribe(calls.append)
    manual.advance(3001)
    stop()
    count = len(calls)
    session.press(0)
    assert len(calls) == count and count >= 1


def test_undo_goes_back_past_the_automatic_go_and_keeps_the_log(session, manual, helpers):
    """Undo of a rescue restores the state before it; the undone events stay in the log."""
    helpers.open_race(session, manual)
    card = session.snapshot()["display"][0]["id"]
    session.roll(1, helpers.dice_for(session, 1, [card]))
    before = session._state
    session.press(1)
    manual.advance(31)
    manual.advance(3001)  # Go after the rescue
    assert session.snapshot()["phase"] == "open"
    session.undo()
    assert session._state == before
    kinds = [e.kind for e in session.store.events(session.snapshot()["game_id"])]
    assert kinds == ["reveal", "go", "roll", "rescue", "go", "undo"]
    assert session.store.events(session.snapshot()["game_id"])[-1].action["undoes"] == [5, 4]


def test_undo_with_nothing_done_says_so(session):
    """Only the automatic deal and nothing else: nothing to undo."""
    with pytest.raises(SessionError, match="nothing to undo"):
        session.undo()


def test_a_restarted_session_resumes_the_same_game(session, make_session, manual, helpers):
    """A new Session over the same file replays to the same state; the countdown restarts."""
    helpers.open_race(session, manual)
    card = session.snapshot()["display"][0]["id"]
    session.roll(1, helpers.dice_for(session, 1, [card]))
    session.press(1)
    manual.advance(31)  # rescued; now counting down
    state = session._state
    session.close()
    again = make_session()
    assert again._state == state
    assert again.snapshot()["phase"] == "ready" and again.snapshot()["countdown"]["ends_in_ms"] == 3000.0
    manual.advance(3001)
    assert again.snapshot()["phase"] == "open"


def test_starting_a_new_game_keeps_the_old_one_as_abandoned(session, make_session):
    """The history keeps every game."""
    first = session.snapshot()["game_id"]
    session.start(["Dee", "Eve"], leader=1)
    assert [(g.id, g.status) for g in session.store.history()] == [(first + 1, "playing"), (first, "abandoned")]


@pytest.mark.parametrize("players, message", [
    (["Ana"], "Rescue Animals is for 2 to 5 players, not 1"),
    (["A", "B", "C", "D", "E", "F"], "Rescue Animals is for 2 to 5 players, not 6"),
    (["Ana", ""], "player 2 needs a name"),
    (["Ana", 7], "player 2 needs a name (text), not 7"),
    (["Ana", "<script>alert(1)</script>"], "player 2's name may not contain '<' '>'; use letters"),
    (["Ana", "Bob\x00"], "player 2's name may not contain '\\x00'"),
    (["Ana", "x" * 30], "player 2's name is 30 letters; keep it to 24"),
])
def test_bad_players_are_refused_with_a_sentence(make_session, players, message):
    """Names are checked before anything is stored."""
    session = make_session()
    with pytest.raises(SessionError) as error:
        session.start(players)
    assert str(error.value).startswith(message)
    assert session.store.history() == []


def test_a_leader_outside_the_table_is_refused(make_session):
    """Leader seat 3 of 3 players."""
    with pytest.raises(SessionError, match="the Leader must be one of seats 1 to 3, not 4"):
        make_session().start(["A", "B", "C"], leader=3)


def test_a_seat_that_does_not_exist_is_refused(session):
    """Seat 5 at a 3-player table, and a seat that is not a number."""
    with pytest.raises(SessionError, match=r"there is no seat index 5 at this table; the seats are 1 to 3 \(index 0 to 2\)"):
        session.press(5)
    with pytest.raises(SessionError, match="a seat is a whole number, not '1'"):
        session.roll("1", [])


def test_a_whole_demo_game_ends_in_the_history_with_its_scores(make_session, manual):
    """Roll-for-me and presses until the deck is empty: finished, scored, exportable."""
    session = make_session()
    session.start(["Ana", "Ben", "Cy"], leader=2, demo=True, seed=11)
    for _ in range(5000):
        snap = session.snapshot()
        if snap["phase"] == "over":
            break
        if snap["phase"] == "choosing":
            session.choose(snap["choosing"]["seat"], snap["choosing"]["cards"][-1])
        elif snap["phase"] == "open":
            for seat in snap["seats"]:
                if seat["can_claim"]:
                    session.press(seat["seat"])
            manual.advance(31)
            if session.snapshot()["phase"] == "open":
                for seat in range(3):
                    session.roll_random(seat)
        else:
            manual.advance(3001)
    snap = session.snapshot()
    assert snap["phase"] == "over"
    record = session.store.history()[0]
    assert record.status == "finished"
    assert record.scores["final"] is True
    assert sum(len(s["rescued"]) for s in snap["seats"]) == 44  # 54 sample cards, 10 back in the box
    assert record.scores["winner"] == snap["scores"]["winner"]


def test_a_log_that_cannot_be_replayed_is_kept_and_the_table_starts_afresh(session, make_session, store_path):
    """A corrupted event: the game is abandoned (not deleted) and the companion still starts."""
    game = session.snapshot()["game_id"]
    session.store.append(game, {"kind": "roll", "seat": 9, "dice": []}, "phone")
    again = make_session()
    assert again.snapshot()["phase"] == "idle"
    record = again.store.game(game)
    assert record.status == "abandoned" and [e.kind for e in again.store.events(game)] == ["reveal", "roll"]


def test_a_real_deck_waits_for_the_host_to_reveal(make_session, manual):
    """Without the demo deck the round starts in "reveal"; the host's Reveal deals, then Ready-Set-Go."""
    session = make_session()
    snap = session.start(["Ana", "Ben"], leader=0, demo=False)
    assert snap["phase"] == "reveal" and snap["display_size"] == 3 and snap["deck_count"] == 45
    assert session.press(0).reason == "the cards are not laid out yet: the host reveals them first."
    with pytest.raises(IllegalAction, match="round 1 displays 3 cards for 2 players; got 1"):
        session.reveal(["giant-panda"])
    snap = session.reveal(["giant-panda", "fin-whale", "vaquita"])
    assert snap["phase"] == "ready" and [c["id"] for c in snap["display"]] == ["giant-panda", "fin-whale", "vaquita"]
    manual.advance(3001)
    assert session.snapshot()["phase"] == "open"


def test_a_phone_that_joins_mid_countdown_sees_the_time_left(session, manual):
    """The snapshot's countdown is as of the moment it is asked for."""
    manual.advance(1000)
    assert session.snapshot()["countdown"]["ends_in_ms"] == 2000.0


def test_the_mash_lockout_ignores_presses_right_after_a_refused_one(store_path, manual, helpers):
    """With mash_lockout_ms on, a seat that just mashed is ignored for a moment, then heard again."""
    from companion.session import Session
    from companion.settings import RaceSettings, Settings
    from companion.store import EventStore

    settings = Settings(race=RaceSettings(tie_window_ms=30.0, countdown_ms=3000.0, mash_lockout_ms=500.0))
    with EventStore(store_path) as store:
        session = Session(store, settings, schedule=manual.schedule, clock=manual.clock, seed=1)
        session.start(["Ana", "Ben"], leader=0, seed=2)
        helpers.open_race(session, manual)
        assert session.press(0).reason == "Ana's dice have not been read yet"
        card = session.snapshot()["display"][0]["id"]
        session.roll(0, helpers.dice_for(session, 0, [card]))
        manual.advance(100)
        assert session.press(0).reason == "too many presses: wait 500 ms after a refused press."
        manual.advance(500)
        assert session.press(0).accepted
        session.close()

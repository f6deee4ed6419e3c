"""The live table on the simulated mat: calibrated by its markers, dice settled per seat zone, fed to the session.

Most tests read the frames by the simulator's truth (TruthReader), so they test the live glue (zones,
settling, sending, the press semantics) apart from the dice reader's accuracy; the last one runs the
real reader in the background thread on a simulated camera.
"""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from calibration.demo import mat_table
from calibration.steps import calibrate_frame
from companion.dice_requirements import Die, match
from companion.live import MAT_MARGIN_MM, LiveTable
from vision.dice import DiceReader, DieReading

FRAME = (1280, 720)
START_MS = 5000.0  # frames are stamped after the session's Ready-Set-Go countdown has run out


@pytest.fixture
def rig(game, manual, truth_reader):
    """A 3-seat simulated mat table, its calibration from the first frame, and a live table on the game."""
    table, _view = mat_table(seats=3, size=FRAME, seed=2)
    first, truth = table.next_frame()
    result = calibrate_frame(first, colours=False)
    assert result.calibration is not None, result.problems
    live = LiveTable(game, result.calibration, read=truth_reader)
    calls: list[tuple[int, tuple, str, dict]] = []
    original = game.roll

    def recording_roll(seat, dice, source="phone"):
        """Pass the roll on, remembering it and what the table looked like then."""
        calls.append((seat, tuple((d["colour"], d["value"]) for d in dice), source, dict(truth_reader.truth["seats"])))
        return original(seat, dice, source)

    game.roll = recording_roll

    class Rig:
        """The pieces, and a way to play frames."""

        def __init__(self):
            """Keep the pieces."""
            self.table, self.live, self.session, self.calls = table, live, game, calls

        def frames(self, count: int, clock: bool = True) -> float:
            """Show the live table `count` more frames; returns the last frame's time (ms). With clock False
            the session's timers do not run meanwhile (all of it happens within the race's tie window)."""
            t = 0.0
            for _ in range(count):
                image, truth = table.next_frame()
                truth_reader.truth = truth
                t = START_MS + truth["t_ms"]
                if clock:
                    manual.advance_to(t)
                live.process(image, t)
            return t

        def until_still(self, seat: int, limit: int = 60) -> float:
            """Play frames until `seat` (0-based) has sent settled dice after its dice came to rest."""
            sent = len([c for c in calls if c[0] == seat])
            for _ in range(limit):
                t = self.frames(1)
                if len([c for c in calls if c[0] == seat]) > sent:
                    return t
            raise AssertionError(f"seat {seat} never settled")

    rig = Rig()
    rig.frames(12)  # every seat's first dice settle and are sent
    assert {c[0] for c in calls} == {0, 1, 2}
    assert game.snapshot()["phase"] == "open"
    return rig


def _seat_dice(session, seat: int) -> Counter:
    """The seat's dice as the session holds them."""
    return Counter((d["colour"], d["value"]) for d in session.snapshot()["seats"][seat]["dice"])


def _throw(session, meets: int | None, seed: int = 0) -> list[int]:
    """Values for four white dice and a black one meeting exactly display card `meets` (None: no card)."""
    rng = random.Random(seed)
    display = session.snapshot()["display"]
    for _ in range(200_000):
        values = [rng.randint(1, 6) for _ in range(5)]
        dice = [Die("white", v) for v in values[:4]] + [Die("black", values[4])]
        met = [i for i, card in enumerate(display) if match(card["requirement"], dice)]
        if met == ([] if meets is None else [meets]):
            return values
    raise AssertionError("no such throw")


def _as_dice(values: list[int]) -> Counter:
    """The throw as (colour, value) counts."""
    return Counter([("white", v) for v in values[:4]] + [("black", values[4])])


def test_settled_dice_reach_the_session_once_and_only_when_still(rig) -> None:
    """A seat's throw is sent once, after the dice stopped, with what they show; nothing while rolling."""
    values = [2, 3, 5, 6, 4]
    before = len(rig.calls)
    rig.table.roll(1, values=values)
    rig.until_still(1)
    rig.frames(15)
    assert _seat_dice(rig.session, 1) == _as_dice(values)
    sent = [c for c in rig.calls[before:] if c[0] == 1]
    assert len(sent) == 1 and sent[0][2] == "camera" and Counter(sent[0][1]) == _as_dice(values)
    view = rig.live.view()["seats"][1]
    assert view["status"] == "still" and len(view["dice"]) == 5 and view["unsure"] == 0


def test_a_claim_is_judged_on_the_dice_settled_at_the_press(rig) -> None:
    """Seat 0 settles dice for a card and presses; its dice roll on before the race closes: it still rescues."""
    values = _throw(rig.session, meets=0)
    card = rig.session.snapshot()["display"][0]["id"]
    rig.table.roll(0, values=values)
    t = rig.until_still(0)
    assert rig.session.press(0, t, source="phone").accepted
    rig.table.roll(0, values=_throw(rig.session, meets=None, seed=3))  # the dice move after the press...
    rig.frames(40, clock=False)  # ...and settle on something else, all before the race is decided
    assert _seat_dice(rig.session, 0) != _as_dice(values)
    rig.session.settle_race()
    snapshot = rig.session.snapshot()
    assert snapshot["last_race"]["winner"] == 0
    assert card in snapshot["seats"][0]["rescued"]


def test_a_claim_is_refused_when_the_dice_met_the_card_only_after_the_press(rig) -> None:
    """Seat 2 presses on settled dice that meet nothing: refused then and there; its dice settling on a card
    right after the press do not turn that press into a rescue."""
    rig.table.roll(2, values=_throw(rig.session, meets=None, seed=1))
    t = rig.until_still(2)
    outcome = rig.session.press(2, t, source="phone")
    rig.table.roll(2, values=_throw(rig.session, meets=1, seed=2))
    rig.frames(40, clock=False)
    assert not outcome.accepted and "satisf" in outcome.reason
    assert rig.session.snapshot()["seats"][2]["satisfied"]  # the dice meet a card now...
    assert rig.session.settle_race() is None  # ...but no race was opened by that press
    assert rig.session.snapshot()["seats"][2]["rescued"] == []


def test_a_whole_round_is_decided_by_the_camera(rig, manual) -> None:
    """Both display cards rescued, each by the seat whose settled dice met it when it pressed."""
    first = rig.session.snapshot()
    cards = [c["id"] for c in first["display"]]
    round_number = first["round"]
    for seat, card_index in ((1, 0), (2, 1)):
        display = [c["id"] for c in rig.session.snapshot()["display"]]
        values = _throw(rig.session, meets=display.index(cards[card_index]), seed=seat)
        rig.table.roll(seat, values=values)
        t = rig.until_still(seat)
        assert rig.session.snapshot()["seats"][seat]["satisfied"] == [cards[card_index]]
        assert rig.session.press(seat, t, source="phone").accepted
        rig.frames(3)  # the tie window closes, the race is decided
        assert cards[card_index] in rig.session.snapshot()["seats"][seat]["rescued"]
        rig.frames(50)  # Ready, Set, Go! for the next race
    snapshot = rig.session.snapshot()
    assert snapshot["round"] == round_number + 1
    assert snapshot["gray_holder"] == 0  # the one seat that rescued nothing takes the gray die


def test_a_host_correction_is_logged_and_not_overwritten(rig) -> None:
    """The host corrects a misread seat: the session keeps it (source logged) until the dice change."""
    before = len(rig.calls)
    rig.table.roll(0, values=[2, 2, 3, 4, 5])
    rig.until_still(0)
    corrected = [{"colour": "white", "value": v} for v in (6, 6, 6, 6)] + [{"colour": "black", "value": 6}]
    rig.session.roll(0, corrected, source="host correction")  # as the camera page's correction does
    rig.frames(10)
    assert _seat_dice(rig.session, 0) == Counter({("white", 6): 4, ("black", 6): 1})
    assert [c[2] for c in rig.calls[before:] if c[0] == 0] == ["camera", "host correction"]
    events = rig.session.store.events(rig.session.store.current_game().id)
    assert any(e.source == "host correction" for e in events)


def test_unsure_dice_show_as_unsure(rig, truth_reader) -> None:
    """A die the reader is unsure of is marked unsure in the seat's view."""
    sure = truth_reader.__call__

    def shaky(image, profile=None):
        """The truth, with seat 1's black die read unsure."""
        readings = sure(image, profile)
        return [r if r.colour != "black" or rig.live.calibration.seat_at(r.x, r.y) != 2
                else r.__class__(r.x, r.y, r.size, r.angle, r.colour, r.value, 0.3) for r in readings]

    rig.live._read = shaky
    rig.table.roll(1, values=[3, 3, 4, 4, 5])
    rig.until_still(1)
    assert rig.live.view()["seats"][1]["unsure"] == 1


def test_zone_picture_and_annotated_frame(rig) -> None:
    """A top-down picture of a seat's zone and the annotated frame are there for the phones."""
    rig.frames(1)
    zone = rig.live.calibration.mat.seats[0].rect
    picture = rig.live.zone_picture(0, px_per_mm=2.0)
    assert picture.shape[:2] == (round(zone.h * 2), round(zone.w * 2))
    assert rig.live.annotated().shape == (FRAME[1], FRAME[0], 3)


def test_the_live_thread_reads_a_simulated_camera_with_the_real_reader(game) -> None:
    """Started on a camera thread over the simulated mat, it reads frames with the dice reader until closed."""
    from vision.camera_thread import CameraThread
    from vision.sources import SimSource, parse_spec

    table, _view = mat_table(seats=3, size=FRAME, seed=4)
    calibration = calibrate_frame(table.next_frame()[0], colours=False).calibration
    camera = CameraThread(SimSource(parse_spec("sim?fps=15"), table=table))
    live = LiveTable(game, calibration, camera)
    try:
        live.start()
        deadline = time.monotonic() + 20
        while live.frames_read < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        live.close()
        camera.close()
    view = live.view()
    assert view["frames"] >= 6
    assert {s["seat"] for s in view["seats"]} == {0, 1, 2}
    assert sum(len(s["dice"]) for s in view["seats"]) >= 10  # most of the fifteen resting dice read and settled


def test_cards_laid_out_are_recognised_and_revealed_by_the_camera(tmp_path, game, truth_reader, card_drawing) -> None:
    """A game with a real (unknown) deck waits for the round's cards; laid on the mat and taught once, the
    camera recognises them, reveals them to the session, and the round starts."""
    from calibration.cards import card_library

    game.start(["Ana", "Ben", "Cy"], leader=0, demo=False, seed=5)
    assert game.snapshot()["phase"] == "reveal"
    ids = [card.id for card in game.catalogue().cards[:2]]
    library = card_library(tmp_path)
    for index, card_id in enumerate(ids):
        library.teach(card_id, card_drawing(index + 1))
    laid = [(card_drawing(1), 140.0, 140.0, 5.0), (card_drawing(2), 215.0, 140.0, 178.0)]
    table, _view = mat_table(seats=3, size=FRAME, seed=2, cards=laid)
    image, truth = table.next_frame()
    calibration = calibrate_frame(image, colours=False).calibration
    live = LiveTable(game, calibration, read=truth_reader, cards=library)
    first = live.look_at_cards(image)
    assert sorted(s.card_id for s in first) == sorted(ids)
    assert game.snapshot()["phase"] == "reveal"  # seen once: wait for a second look before revealing
    live.look_at_cards(table.next_frame()[0])
    snapshot = game.snapshot()
    assert snapshot["phase"] == "ready" and sorted(c["id"] for c in snapshot["display"]) == sorted(ids)
    assert live.view()["unknown_cards"] == 0 and len(live.view()["display"]) == 2


def test_an_unknown_card_on_display_can_be_taught_from_the_live_view(tmp_path, game, truth_reader,
                                                                      card_drawing) -> None:
    """An untaught card shows as unknown in the view; teaching it by id makes the next look find it."""
    from calibration.cards import card_library

    library = card_library(tmp_path)
    table, _view = mat_table(seats=3, size=FRAME, seed=2, cards=[(card_drawing(4), 180.0, 140.0, 20.0)])
    image, truth = table.next_frame()
    truth_reader.truth = truth
    live = LiveTable(game, calibrate_frame(image, colours=False).calibration, read=truth_reader, cards=library)
    live.process(image, 0.0)
    live.look_at_cards(image)
    assert live.view()["unknown_cards"] == 1
    guess = live.teach_unknown("snow-leopard")
    assert guess.note  # a sentence for the host, whatever could be read of the dice
    live.look_at_cards(table.next_frame()[0])
    assert [d["card"] for d in live.view()["display"]] == ["snow-leopard"]


def test_teaching_with_no_unknown_card_says_so(game, truth_reader, rig) -> None:
    """No unknown card on display: a sentence, not a crash."""
    from companion.errors import CompanionError

    with pytest.raises(CompanionError, match="no unknown card on display"):
        rig.live.teach_unknown("x")


def test_serve_opens_the_simulated_mat_and_reads_it_live(tmp_path, game) -> None:
    """`companion serve` on the "sim" camera: the simulated 5-seat mat, calibrated by its markers, read live."""
    from companion.commands.serve import attach_camera
    from companion.settings import CameraSettings, Settings

    settings = Settings(camera=CameraSettings(source="sim?size=960x540&fps=15"))
    camera = attach_camera(game, settings, tmp_path)
    live = camera.live
    try:
        deadline = time.monotonic() + 20
        while live.frames_read < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live.frames_read >= 2
        assert len(live.calibration.mat.seats) == 5
    finally:
        camera.close()
    frames = live.frames_read
    time.sleep(0.3)
    assert live.frames_read == frames  # closed: the loop and its camera have stopped


def test_a_real_camera_without_calibration_is_told_to_calibrate(tmp_path, game, photo_of) -> None:
    """A camera (here a folder of pictures) and no calibration file: the calibrate command is named."""
    import cv2

    from companion.commands.serve import attach_camera
    from companion.settings import CameraSettings, Settings

    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), photo_of().image)
    camera = attach_camera(game, Settings(camera=CameraSettings(source=f"folder:{folder}?loop=1")), tmp_path)
    try:
        assert camera.live is None
        assert "no calibration file yet; run `companion calibrate`" in camera.status()["message"]
    finally:
        camera.close()


def test_the_simulated_gray_die_follows_its_holder() -> None:
    """Demo table: the gray die appears with the first holder, moves to each new holder, and goes at a new game."""
    from calibration.demo import GrayDieFollower

    table, view = mat_table(seats=3, size=FRAME, seed=1)
    follower = GrayDieFollower(table)
    follower({"gray_holder": None})
    assert not any(d.colour == "gray" for d in table.dice)
    for holder in (1, 2):
        follower({"gray_holder": holder})
        for _ in range(40):
            _image, truth = table.next_frame()
        grays = [d for d in truth["dice"] if d["colour"] == "gray"]
        x1, y1, x2, y2 = view.seat_rects()[holder]
        assert len(grays) == 1 and grays[0]["seat"] == holder and not grays[0]["rolling"]
        assert x1 <= grays[0]["centre"][0] <= x2 and y1 <= grays[0]["centre"][1] <= y2
    follower({"gray_holder": None})  # a new game: nobody holds the gray die
    assert not any(d.colour == "gray" for d in table.dice)


class _ReaderMisledByThePrint(DiceReader):
    """The dice reader, misled by the mat's print as it may be on any frame: the letters of "SEAT n"
    hold round holes that it can take for a die's pips (and, sure of them, read the table enlarged).
    This one always is: it also reads a two at each seat's label, and sets its size to `misled_size`."""

    def __init__(self, labels: list[tuple[float, float]], side: float, misled_size: float | None = None) -> None:
        """A reader that reads a die of `side` px at each of the `labels` (frame pixels)."""
        super().__init__()
        self.labels, self.side, self.misled_size = labels, side, misled_size

    def __call__(self, image, profile=None):
        """The dice in the frame, and a die at each seat's label."""
        readings = super().__call__(image, profile)
        if self.misled_size is not None:
            self.factor = self.misled_size
        return readings + [DieReading(x, y, self.side, 0.0, "white", 2, 0.95) for x, y in self.labels]


def _labels(view) -> list[tuple[float, float]]:
    """The middle of each seat's zone, where its "SEAT n" label is printed (frame pixels)."""
    return [((x1 + x2) / 2, (y1 + y2) / 2) for x1, y1, x2, y2 in view.seat_rects()]


@pytest.mark.parametrize("size, lighting", [((1280, 720), "uneven"), ((1280, 720), "warm"), ((1920, 1080), "dim")])
def test_the_empty_printed_mat_shows_no_dice_and_dice_on_its_print_are_still_read(game, monkeypatch, size, lighting) -> None:
    """Where the camera sees just the print there is no die, whatever the reader took for one there;
    dice lying on the print hide it and are read."""
    import vision.printed

    table, view = mat_table(seats=3, size=size, seed=1, colours=("white", "black"), lighting=lighting)
    zones = view.seat_rects(inset_mm=4.0)
    for die in table.dice:
        x0, y0, x1, y1 = zones[die.seat]
        # The white dice on the seats' labels, the black ones across the zones' top edges (centres inside).
        die.x, die.y = ((x0 + x1) / 2, (y0 + y1) / 2) if die.colour == "white" else ((x0 + x1) / 2, y0 + 0.35 * die.size)
    side = 0.7 * table.dice[0].size  # a reading's size is its top face's side
    with_dice, _ = table.next_frame()
    for colour in ("white", "black"):
        table.place_lone_die(colour, None)  # every die off the table
    empty, _ = table.next_frame()
    calibration = calibrate_frame(empty, colours=False).calibration

    def shown(frames: list, read=None) -> list[int]:
        """How many dice each seat shows after a live table has read these frames, 100 ms apart."""
        live = LiveTable(game, calibration, read=read)
        for k, frame in enumerate(frames):
            live.process(frame, START_MS + 100.0 * k)
        return [len(seat["dice"]) for seat in live.view()["seats"]]

    assert shown([empty] * 4, _ReaderMisledByThePrint(_labels(view), side)) == [0, 0, 0]
    assert shown([empty] * 4) == [0, 0, 0]
    # Dice lying on the print hide it: each seat shows the dice it shows without the print check.
    on_print = shown([with_dice] * 6)
    assert sum(on_print) >= 5
    monkeypatch.setattr(vision.printed, "PRINT_LIKE", 2.0)  # no reading is print
    # Without it, each seat shows the die read at its label (and any the reader itself took from the print).
    assert min(shown([empty] * 4, _ReaderMisledByThePrint(_labels(view), side))) >= 1
    assert on_print == shown([with_dice] * 6)


def test_the_mats_print_does_not_set_the_size_the_dice_are_read_at(game, monkeypatch) -> None:
    """An empty 1280x720 mat's letters may be sure faces of tiny pips to the reader: had they set the
    table's size, the dice laid on it later would be read enlarged 1.56 times, three times slower."""
    import vision.printed

    with_dice, view = mat_table(seats=3, size=FRAME, seed=1, colours=("white",), lighting="warm")
    empty, _view = mat_table(seats=3, size=FRAME, seed=1, colours=("white",), lighting="warm")
    empty.place_lone_die("white", None)
    frames = [empty.next_frame()[0] for _ in range(6)] + [with_dice.next_frame()[0] for _ in range(3)]
    calibration = calibrate_frame(frames[0], colours=False).calibration
    side = 0.7 * with_dice.dice[0].size

    def size_read_at(read: DiceReader, frames: list) -> float | None:
        """The live reader's size factor after the frames."""
        live = LiveTable(game, calibration, read=read)
        for k, frame in enumerate(frames):
            live.process(frame, START_MS + 100.0 * k)
        return read.factor

    assert size_read_at(DiceReader(), frames) in (None, 1.0)
    # A frame of just the print (its letters read as sure dice) leaves the size as it was.
    assert size_read_at(_ReaderMisledByThePrint(_labels(view), side, misled_size=1.56), frames[:6]) is None
    monkeypatch.setattr(vision.printed, "PRINT_LIKE", 2.0)  # no reading is print
    assert size_read_at(_ReaderMisledByThePrint(_labels(view), side, misled_size=1.56), frames[:6]) == 1.56


class _RecordingReader(DiceReader):
    """The live dice reader, keeping what it read last."""

    def __call__(self, image, profile=None):
        """Read and keep the readings."""
        self.last = super().__call__(image, profile)
        return self.last


def test_the_live_table_reads_the_mat_and_a_die_width_around_it_not_the_table_beyond(game) -> None:
    """A die beyond the mat (on the table around it) counts for no seat: it is not read at all, so a
    patterned cloth, a keyboard or hands around the mat cost no time and show no dice."""
    table, _view = mat_table(seats=3, size=FRAME, seed=2)
    calibration = calibrate_frame(table.next_frame()[0], colours=False).calibration
    window = calibration.mat_window(MAT_MARGIN_MM)
    off = table.dice[0]
    off.x, off.y = 0.5 * window[0], FRAME[1] / 2  # on the table, left of the mat and its margin
    assert off.x + off.size < window[0]
    frame, truth = table.next_frame()
    assert any(abs(r.x - off.x) < off.size for r in DiceReader()(frame))  # the reader sees it in the whole frame
    reader = _RecordingReader()
    live = LiveTable(game, calibration, read=reader)
    live.process(frame, START_MS)
    assert reader.window == window
    assert reader.last and not any(abs(r.x - off.x) < off.size for r in reader.last)
    # The dice on the mat are all read, at the frame's pixels.
    on_mat = [d for d in truth["dice"] if d["centre"][0] > window[0]]
    assert len(reader.last) >= len(on_mat) - 1
    for die in on_mat:
        assert any(abs(r.x - die["centre"][0]) < die["size"] / 2 and abs(r.y - die["centre"][1]) < die["size"] / 2
                   for r in reader.last)


def test_a_frame_of_another_size_than_calibrations_is_read_whole(game) -> None:
    """A camera that now gives other pictures (check_camera_moved says to calibrate again) is not cut
    to a window measured on the old ones."""
    table, _view = mat_table(seats=3, size=FRAME, seed=2)
    calibration = calibrate_frame(table.next_frame()[0], colours=False).calibration
    reader = _RecordingReader()
    live = LiveTable(game, calibration, read=reader)
    live.process(table.next_frame()[0][:, : FRAME[0] - 40], START_MS)
    assert reader.window is None


def test_a_still_table_is_not_read_again_yet_a_throw_after_it_is_read_and_sent(game, manual, monkeypatch) -> None:
    """With the real reader: once the resting dice read alike, their frames are not read again (a
    still table costs the Pi next to nothing); a seat's throw is read and its dice reach the session."""
    from vision import dice

    table, _view = mat_table(seats=3, size=FRAME, seed=2)
    calibration = calibrate_frame(table.next_frame()[0], colours=False).calibration
    live = LiveTable(game, calibration)
    reads: list[int] = []
    real = dice._read
    monkeypatch.setattr(dice, "_read", lambda *args: reads.append(1) or real(*args))

    def play(count: int) -> None:
        """Show the live table `count` more frames, the session's clock following them."""
        for _ in range(count):
            image, truth = table.next_frame()
            manual.advance_to(START_MS + truth["t_ms"])
            live.process(image, START_MS + truth["t_ms"])

    play(12)
    reads.clear()
    play(10)
    assert reads == []
    values = [2, 3, 5, 6, 4]
    table.roll(1, values=values)
    play(60)
    assert len(reads) >= 10  # the throw's frames, while its dice tumbled and came to rest
    assert _seat_dice(game, 1) == _as_dice(values)

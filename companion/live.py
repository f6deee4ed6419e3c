"""The live table: camera frames -> dice per seat zone -> settled -> `session.roll(seat, dice, source="camera")`.

Part of the composition root (like cli.py): it wires a frame source, the calibration, the dice
reader, the settler and the session. Each frame is read once; every die is put in the seat zone its
centre lies in (through the calibration's homography); the settler waits until a zone's dice have
stopped; then the zone's dice go to the session, once per change. A press is judged by the session on
the dice it holds at that moment, so dice that move after a press cannot change the verdict. The
latest readings (with unsure dice marked), a picture of each zone and an annotated frame are kept
for the phones.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from calibration.annotate import draw_readings
from calibration.cards import RequirementGuess, card_picture, cards_in_display, teach_card
from calibration.steps import check_camera_moved
from calibration.table import Calibration
from companion.errors import CompanionError
from vision.printed import just_print
from vision.settle import EMPTY, STILL, Settler, ZoneState

log = logging.getLogger(__name__)

GAME_COLOURS = ("white", "black", "gray")  # the dice colours Rescue Animals knows
# A settled die less sure than this (vote share x reader confidence) shows as unsure. Over both photo
# sets' fifteen readings, 0.6 marks 113 of 573 mistakes (wrong values, false dice) and 594 of 33,552
# right readings (1.8 %); 0.5 marks 37 and 84, 0.7 marks 179 and 1,559.
UNSURE_BELOW = 0.6
AGREE_FRAMES = 2  # frames in a row whose reading must match a seat's settled dice before they are sent
CAMERA_CHECK_EVERY_S = 30.0  # how often the markers are looked for again (a moved camera)
CARDS_EVERY_S = 1.0  # how often the display area is searched for cards
MAT_MARGIN_MM = 20.0  # the table read around the mat: a die (16 mm) on the mat's edge is read whole


def live_settler() -> Settler:
    """The settler the live table uses: two still frames over 60 ms, votes over the last four frames.

    A short vote window lets a die's true face win soon after it stops (its last tumbles barely move
    it); `AGREE_FRAMES` guards against sending a vote that lags. Measured on the simulated mat
    (16 throws, 15 frames/s, table time, reading not included): sent 200 ms (median), 333 ms (worst)
    after the dice showed their final faces, never a wrong face, never twice.
    """
    return Settler(still_frames=2, still_ms=60.0, grace_ms=150.0, window=4)


@dataclass
class SeatView:
    """What the camera last made of one seat: status, the dice with how sure each is, and what was sent."""

    seat: int  # the session's seat number (0-based; the mat's seat 1 is seat 0)
    status: str = EMPTY
    dice: list[dict[str, Any]] = field(default_factory=list)
    sent: tuple[tuple[str, int], ...] | None = None
    note: str | None = None
    agreeing: int = 0  # frames in a row whose own reading matched the settled dice

    def to_dict(self) -> dict[str, Any]:
        """Plain values for the phones."""
        return {"seat": self.seat, "status": self.status, "dice": self.dice, "note": self.note,
                "unsure": sum(1 for d in self.dice if d["unsure"])}


class LiveTable:
    """Reads the table from a camera and feeds each seat's settled dice to the session."""

    def __init__(self, session: Any, calibration: Calibration, camera: Any = None, *,
                 read: Callable[..., list[Any]] | None = None, profile: Any = None,
                 settler: Settler | None = None, agree_frames: int = AGREE_FRAMES, cards: Any = None):
        """Wire a session, a calibration and (for `start`) a CameraThread; `read` defaults to the dice reader,
        `cards` is a CardLibrary of taught cards (None: cards are not looked for)."""
        if read is None:
            from vision.dice import DiceReader

            read = DiceReader()  # keeps the table's scale from frame to frame
        if profile is None and calibration.colour_profile:
            from vision.colour import ColourProfile

            profile = ColourProfile.from_dict(calibration.colour_profile)
        self.session = session
        self.calibration = calibration
        self.camera = camera
        self._read = read
        self._profile = profile
        self.settler = settler or live_settler()
        self.agree_frames = agree_frames
        self._seats = {z.seat - 1: SeatView(z.seat - 1) for z in calibration.mat.seats}
        self._latest: tuple[np.ndarray, list[Any]] | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.camera_note: str | None = None
        self.frames_read = 0
        self.cards = cards
        self.display: list[Any] = []  # the cards seen in the display area at the last look
        self._display_before: tuple[str, ...] | None = None
        self._printed: tuple[Calibration, np.ndarray] | None = None  # the empty mat as the camera sees it
        self._window: tuple[Calibration, tuple[int, int, int, int]] | None = None  # the part of the frame read

    # ---- one frame --------------------------------------------------------------------------

    def process(self, image: np.ndarray, t_ms: float) -> dict[int, ZoneState]:
        """Read one frame taken at t_ms, settle each seat's dice, and send changed seats to the session."""
        readings = self._read_dice(image)
        by_seat = self.dice_by_seat(readings)
        states = self.settler.update_all(by_seat, t_ms)
        with self._lock:
            self._latest = (image, readings)
            self.frames_read += 1
        for seat, state in states.items():
            self._update_seat(seat, state, _key(by_seat.get(seat, ())))
        return states

    def _read_dice(self, image: np.ndarray) -> list[Any]:
        """The frame's dice: the reader's readings less the mat's printing (_off_print)."""
        size_before = getattr(self._read, "factor", None)
        if hasattr(self._read, "window"):
            # Only the mat and a die's width around it are read: the dice off it count for no seat, and
            # a patterned cloth, a keyboard or hands around it cost time and can look like dice. A
            # frame of another size than calibration's (check_camera_moved says so) is read whole.
            fits = image.shape[1::-1] == tuple(self.calibration.image_size)
            self._read.window = self._mat_window() if fits else None
        read = self._read(image, self._profile)
        readings = self._off_print(image, read)
        if 2 * len(readings) <= len(read) and hasattr(self._read, "factor"):
            # The print's letters, sure faces to the reader (DiceReader), must not set the size the
            # table's dice are read at: an empty 1280x720 mat set 1.56, and each frame of the dice laid
            # on it later then took three times as long.
            self._read.factor = size_before
        return readings

    def _mat_window(self) -> tuple[int, int, int, int]:
        """The part of the frame the mat and MAT_MARGIN_MM around it lie in, kept while the calibration stands."""
        if self._window is None or self._window[0] is not self.calibration:
            self._window = (self.calibration, self.calibration.mat_window(MAT_MARGIN_MM))
        return self._window[1]

    def _off_print(self, image: np.ndarray, readings: list[Any]) -> list[Any]:
        """The readings less those where the camera sees just the empty mat's printing: the labels'
        letters and the lines hold round holes that the reader can take for a die's pips."""
        if not readings:
            return readings
        if self._printed is None or self._printed[0] is not self.calibration:
            self._printed = (self.calibration, self.calibration.printed_view())
        printed = just_print(image, self._printed[1], [(r.x, r.y, r.size) for r in readings])
        return [r for r, on_print in zip(readings, printed) if not on_print]

    def dice_by_seat(self, readings: Iterable[Any]) -> dict[int, list[Any]]:
        """Share the readings out among the seats (0-based) by where their centres lie on the mat."""
        readings = list(readings)
        by_seat: dict[int, list[Any]] = {seat: [] for seat in self._seats}
        if not readings:
            return by_seat
        on_mat = self.calibration.to_mat(np.array([[r.x, r.y] for r in readings], dtype=np.float64))
        for reading, (x, y) in zip(readings, on_mat):
            seat = self.calibration.mat.seat_at(float(x), float(y))
            if seat is not None:
                by_seat[seat - 1].append(reading)
        return by_seat

    def _update_seat(self, seat: int, state: ZoneState, raw: tuple[tuple[str, int], ...]) -> None:
        """Keep the seat's view, and send its dice to the session when they settled on something new."""
        view = self._seats[seat]
        view.status = state.status
        view.dice = [{"colour": d.colour, "value": d.value, "confidence": round(d.confidence, 3),
                      "unsure": d.confidence < UNSURE_BELOW, "x": round(d.x, 1), "y": round(d.y, 1)}
                     for d in state.dice]
        if state.status != STILL or not state.dice:
            view.agreeing = 0
            return
        dice = _key(state.dice)
        others = [d.colour for d in state.dice if d.colour not in GAME_COLOURS]
        view.note = (f"{len(others)} die/dice of another colour ({', '.join(sorted(set(others)))}) left out"
                     if others else None)
        # The settler votes over the frames a die has been still in; the last tumbles of a die barely move
        # it but change its face, so a vote can lag what the camera sees. Send only when this frame's own
        # reading of the seat agrees with the settled dice, as it did in the frames before (agree_frames in a row).
        agreed = raw == dice
        view.agreeing = view.agreeing + 1 if agreed else 0
        if dice == view.sent or not dice or view.agreeing < self.agree_frames:
            return
        try:
            self.session.roll(seat, [{"colour": c, "value": v} for c, v in dice], source="camera")
        except CompanionError as error:  # no game yet, seat not playing, game over: keep watching
            view.note = str(error)
            return
        view.sent = dice

    def look_at_cards(self, image: np.ndarray) -> list[Any]:
        """Find the cards in the display area; while the session waits for the round's display and the
        same taught cards were seen twice in a row (none unknown), reveal them to the session."""
        if self.cards is None:
            return []
        sightings = cards_in_display(self.calibration, image, self.cards)
        with self._lock:
            self.display = sightings
        known = tuple(sorted(s.card_id for s in sightings if s.card_id is not None))
        steady = known and known == self._display_before and len(known) == len(sightings)
        self._display_before = known
        if steady and self.session.snapshot().get("phase") == "reveal":
            try:
                self.session.reveal(known, source="camera")
            except CompanionError as error:  # not the right number of cards yet, a copy too many
                self.camera_note = f"cards on display not taken: {error}"
        return sightings

    def teach_unknown(self, card_id: str, index: int = 0) -> RequirementGuess:
        """Teach the `index`-th unknown card now on display as `card_id`; returns its dice requirement as read."""
        with self._lock:
            unknown = [s for s in self.display if s.card_id is None]
            latest = self._latest
        if latest is None or not 0 <= index < len(unknown):
            raise CompanionError("there is no unknown card on display to teach: lay it in the display area.")
        return teach_card(self.cards, card_id, card_picture(latest[0], unknown[index]))

    # ---- what the phones ask for ------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """Every seat's latest reading (status, dice, unsure ones) and the camera's state, as plain values."""
        with self._lock:
            seats = [self._seats[s].to_dict() for s in sorted(self._seats)]
            display = [s.to_dict() for s in self.display]
        status = getattr(self.camera, "status", None)
        return {"seats": seats, "camera": status, "camera_note": self.camera_note, "frames": self.frames_read,
                "display": display, "unknown_cards": sum(1 for d in display if d["card"] is None)}

    def resend(self) -> None:
        """Send each seat's settled dice to the session again at the next agreeing frames (a new game, an undo):
        otherwise a seat is sent only when its dice change."""
        with self._lock:
            for view in self._seats.values():
                view.sent = None

    def annotated(self) -> np.ndarray | None:
        """The latest frame with the seat zones and every die read drawn on it (None before the first)."""
        with self._lock:
            latest, cards = self._latest, list(self.display)
        if latest is None:
            return None
        return draw_readings(latest[0], self.calibration, latest[1], cards)

    def zone_picture(self, seat: int, px_per_mm: float = 4.0) -> np.ndarray | None:
        """A top-down picture of one seat's zone (0-based seat) from the latest frame, for disputes."""
        with self._lock:
            latest = self._latest
        zone = next((z for z in self.calibration.mat.seats if z.seat - 1 == seat), None)
        if latest is None or zone is None:
            return None
        return self.calibration.rectify(latest[0], rect=zone.rect, px_per_mm=px_per_mm)

    # ---- running ----------------------------------------------------------------------------

    def start(self) -> None:
        """Read the camera in a background thread until `close()`."""
        if self.camera is None:
            raise CompanionError("the live table needs a camera to start; give it a CameraThread.")
        self._thread = threading.Thread(target=self._run, name="live table", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        """Process each new frame; look for the markers again now and then; never stop on a bad frame."""
        last_index, last_check, last_cards = -1, 0.0, 0.0
        while not self._stop.is_set():
            frame = self.camera.wait_for_frame(after=last_index, timeout=1.0)
            if frame is None:
                continue
            last_index = frame.index
            try:
                self.process(frame.image, frame.t_ms)
                if self.cards is not None and time.monotonic() - last_cards > CARDS_EVERY_S:
                    last_cards = time.monotonic()
                    self.look_at_cards(frame.image)
                if time.monotonic() - last_check > CAMERA_CHECK_EVERY_S:
                    last_check = time.monotonic()
                    self.camera_note = check_camera_moved(self.calibration, frame.image).message
            except Exception:  # noqa: BLE001 - one bad frame must not stop the table; it is logged
                log.exception("live table: frame %s could not be read", frame.index)

    def close(self) -> None:
        """Stop the background thread (safe to call twice)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


def _key(dice: Iterable[Any]) -> tuple[tuple[str, int], ...]:
    """A seat's dice of the game's colours as a sorted tuple of (colour, value), to compare readings."""
    return tuple(sorted((d.colour, int(d.value)) for d in dice if d.colour in GAME_COLOURS))

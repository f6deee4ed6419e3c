"""The camera side of the table, as the web pages see it: readings, pictures, calibration, card teaching.

`TableCamera` wraps a camera thread (vision), the live loop (`companion.live.LiveTable`) and the
calibration steps; `companion serve` (the composition root) builds it and puts it in
app.extensions["table"].camera. Nothing here is imported by the pages until a camera exists, and
the vision and calibration modules are imported inside the methods that use them, so the web stays
importable and testable without a camera. Every picture is taken from the newest frame the camera
thread kept: a phone asking for a picture never makes the camera wait.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from companion.errors import CompanionError

log = logging.getLogger(__name__)

STILLS_FOLDER = "stills"
PHONE_WIDTH = 960  # pictures for the phones are at most this wide (a phone screen; less to send)
NO_CAMERA = "No camera: the phones enter the dice."


class CameraUnavailable(CompanionError, RuntimeError):
    """The camera cannot do this now (none attached, no frame yet, not calibrated); says why."""


def encode_jpeg(image: np.ndarray | None, quality: int = 80, width: int | None = PHONE_WIDTH) -> bytes | None:
    """A picture as JPEG bytes, shrunk to `width` pixels wide at most (None stays None)."""
    import cv2

    if image is None:
        return None
    if width and image.shape[1] > width:
        scale = width / image.shape[1]
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return data.tobytes() if ok else None


@dataclass
class UnknownCard:
    """A card seen in the display area that the library does not know: its picture and the guessed dice."""

    index: int
    picture: np.ndarray
    requirement: str
    note: str


class TableCamera:
    """The camera of one table: what it reads, its pictures, calibrating it and teaching it cards."""

    def __init__(self, session: Any, camera: Any, data_folder: str | Path, *, calibration: Any = None,
                 calibration_path: str | Path | None = None, sim_table: Any = None, note: str | None = None,
                 keep_stills: bool = True):
        """Wire the session and a started CameraThread; with a calibration, the live loop starts at `start()`.

        `calibration_path` is where a calibration made on the phone is saved (None: not saved, e.g. the
        simulator's own mat, calibrated afresh at every start). `sim_table` is the simulator's table, whose
        seats "Roll for me" throws. `note` says why there is no calibration, for the phones.
        """
        self.session = session
        self.camera = camera
        self.data_folder = Path(data_folder)
        self.calibration = calibration
        self.calibration_path = Path(calibration_path) if calibration_path else None
        self.sim_table = sim_table
        self.note = note
        self.live: Any = None
        self._lock = threading.RLock()
        self._calibration_jpeg: bytes | None = None
        self._frame_jpeg: tuple[Any, bytes | None] | None = None  # (which frame, its JPEG) last sent to a phone
        self._unknown: dict[int, UnknownCard] = {}
        self._stop_stills = session.on_claim(self._keep_still) if keep_stills else None
        self._library: Any = None
        self._closed = False
        self._seen_game: Any = None
        self._seen_undos: Any = None
        self._gray_die = _gray_die_follower(sim_table)
        self._unsubscribe = session.subscribe(self._follow_game)

    # ---- running ----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the live loop when there is a calibration (else the phones enter the dice)."""
        with self._lock:
            if self.calibration is not None and self.live is None and not self._closed:
                self.live = self._make_live(self.calibration)
                self.live.start()

    def _make_live(self, calibration: Any) -> Any:
        """The live loop over the session, this calibration and the camera."""
        from companion.live import LiveTable

        # A real table's display cards are looked for (taught cards are revealed to the game by the camera);
        # the simulator's demo deck is dealt by the session, so its frames are not searched for cards.
        cards = self.library() if self.sim_table is None else None
        return LiveTable(self.session, calibration, self.camera, cards=cards)

    @property
    def closed(self) -> bool:
        """Whether the camera was closed (the table is stopping)."""
        return self._closed

    def close(self) -> None:
        """Stop the live loop and the camera (safe to call twice)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._stop_stills is not None:
                self._stop_stills()
            self._unsubscribe()
            if self.live is not None:
                self.live.close()
            if self.camera is not None:
                self.camera.close()

    # ---- what the phones show ---------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """The camera's state in words, and each seat's dice as read (unsure ones marked), as plain values."""
        running = bool(getattr(self.camera, "is_ok", False))
        view = self.live.view() if self.live is not None else {"seats": [], "camera_note": None, "frames": 0}
        return {
            "camera": True,
            "running": running,
            "calibrated": self.live is not None,
            "status": getattr(self.camera, "status", ""),
            "message": self._message(running, view.get("camera_note"), view.get("unknown_cards", 0)),
            "seats": view["seats"],
            "unknown_cards": view.get("unknown_cards", 0),
            "frames": view.get("frames", 0),
            "sim": self.sim_table is not None,
        }

    def _message(self, running: bool, camera_note: str | None, unknown_cards: int = 0) -> str:
        """What the phones should know about the camera, in one sentence or two."""
        if not running:
            return (f"The camera is not giving pictures ({getattr(self.camera, 'status', 'no status')}); "
                    "the game goes on: the phones enter the dice until it is back.")
        if self.live is None:
            why = self.note or "the camera is not calibrated yet"
            return f"{_sentence(why)} Until the host calibrates it (Calibrate page), the phones enter the dice."
        message = "The camera reads the dice."
        if camera_note:
            message += f" {_sentence(camera_note)}"
        if unknown_cards:
            message += " A card on display is new to the camera: the host teaches it on the Teach page."
        return message

    def frame_jpeg(self) -> bytes | None:
        """The newest frame with the seat zones and the dice read drawn over it (raw when not calibrated).

        Drawn and encoded once per new frame: every phone watching the live view gets the same bytes,
        so more viewers do not take more of the Pi's time from reading the dice.
        """
        live = self.live
        frame = self.camera.latest() if self.camera is not None else None
        if live is not None and live.frames_read:
            key = (live, live.frames_read)  # the live loop's newest frame, drawn over
        else:
            key = (None, getattr(frame, "index", None))  # the camera's newest frame, raw
        cached = self._frame_jpeg
        if cached is not None and cached[0] == key:
            return cached[1]
        picture = live.annotated() if live is not None else None
        if picture is None:
            picture = None if frame is None else frame.image
        data = encode_jpeg(picture)
        self._frame_jpeg = (key, data)
        return data

    def zone_jpeg(self, seat: int) -> bytes | None:
        """A top-down picture of one seat's zone (index 0 = seat 1) from the newest frame read."""
        if self.live is None:
            raise CameraUnavailable("the camera is not calibrated, so it knows no seat zones yet; calibrate it first.")
        return encode_jpeg(self.live.zone_picture(seat, px_per_mm=3.0))

    # ---- following the game -------------------------------------------------------------------

    def _follow_game(self, snapshot: dict[str, Any]) -> None:
        """A new game (or an undo) gets every seat's dice as the camera sees them; the simulated gray die moves."""
        game, undos = snapshot.get("game_id"), snapshot.get("undos")
        if game != self._seen_game or undos != self._seen_undos:
            self._seen_game, self._seen_undos = game, undos
            self.resend()
        if self._gray_die is not None:
            self._gray_die(snapshot)

    def resend(self) -> None:
        """Send each seat's settled dice again at the next agreeing frames (after a new game or an undo)."""
        live = self.live
        if live is not None:
            live.resend()

    # ---- the demo: the simulator's dice ------------------------------------------------------

    def roll_for_me(self, seat: int) -> bool:
        """Throw the simulated seat's dice (keeping those worth setting aside); False when the table is real.

        The dice then reach the game only through rendered frames and the dice reader.
        """
        if self.sim_table is None or self.live is None:
            return False
        sim_dice = self.sim_table.seat_dice(seat) if seat < len(self.sim_table.zones) else []
        if not sim_dice:
            return False
        keep_wanted = list(self.session.keep_dice(seat))
        keep = []
        for index, die in enumerate(sim_dice):
            wanted = (die.colour, die.value)
            if wanted in keep_wanted:
                keep_wanted.remove(wanted)
                keep.append(index)
        if len(keep) == len(sim_dice):
            keep = []  # every die already meets a card: a new throw of them all, not a throw of nothing
        self.sim_table.roll(seat, keep=keep)
        return True

    # ---- calibration -------------------------------------------------------------------------

    def calibrate(self) -> dict[str, Any]:
        """Calibrate from the newest frame: save it, restart the live loop on it; say what was found and what to fix."""
        from calibration.annotate import draw_calibration
        from calibration.steps import calibrate_frame

        frame = self._frame()
        result = calibrate_frame(frame.image)
        learned = result.colours.samples if result.colours else None
        self._calibration_jpeg = encode_jpeg(draw_calibration(frame.image, result.calibration, result.problems, learned))
        answer = {**result.to_dict(), "saved": None}
        if result.calibration is not None:
            if self.calibration_path is not None:
                from calibration.store import save_calibration

                answer["saved"] = str(save_calibration(result.calibration, self.calibration_path))
            self._use(result.calibration)
        return answer

    def _use(self, calibration: Any) -> None:
        """Read the table with a new calibration from now on."""
        with self._lock:
            if self.live is not None:
                self.live.close()
                self.live = None
            self.calibration, self.note = calibration, None
            self.start()

    def calibration_jpeg(self) -> bytes | None:
        """The annotated picture of the last calibration made from the phone (None before the first)."""
        return self._calibration_jpeg

    def _frame(self) -> Any:
        """The newest frame, or a sentence saying why there is none."""
        frame = self.camera.latest() if self.camera is not None else None
        if frame is None:
            raise CameraUnavailable(f"the camera has given no picture yet ({getattr(self.camera, 'status', '')}); "
                                    "check it is connected and try again.")
        return frame

    # ---- the cards on display ----------------------------------------------------------------

    def library(self) -> Any:
        """The taught cards (kept in the data folder)."""
        if self._library is None:
            from calibration.cards import card_library

            self._library = card_library(self.data_folder)
        return self._library

    def cards(self) -> list[dict[str, Any]]:
        """The cards in the display area now: known ones by name; unknown ones with a picture and guessed dice."""
        from calibration.cards import card_picture, cards_in_display, prefill_requirement

        if self.calibration is None:
            raise CameraUnavailable("the camera is not calibrated, so it cannot find the display area; calibrate it first.")
        frame = self._frame()
        catalogue = self.session.catalogue()
        names = {card.id: card.name for card in catalogue.cards}
        found, unknown = [], {}
        for index, sighting in enumerate(cards_in_display(self.calibration, frame.image, self.library())):
            if sighting.card_id is not None:
                found.append({"index": index, "id": sighting.card_id, "name": names.get(sighting.card_id, sighting.card_id),
                              "known": True})
                continue
            picture = card_picture(frame.image, sighting)
            guess = prefill_requirement(picture)
            unknown[index] = UnknownCard(index, picture, guess.text, guess.note)
            found.append({"index": index, "id": None, "known": False, "requirement": guess.text, "note": guess.note})
        with self._lock:
            self._unknown = unknown
        return found

    def unknown_card_jpeg(self, index: int) -> bytes | None:
        """The picture of unknown card `index` of the last look at the display."""
        card = self._unknown.get(index)
        return None if card is None else encode_jpeg(card.picture, width=480)

    def teach(self, index: int, card: dict[str, Any]) -> dict[str, Any]:
        """Teach unknown card `index` as `card` (catalogue data): add it to the catalogue (new id) and learn its picture."""
        from calibration.cards import teach_card
        from companion import catalogue as catalogues

        unknown = self._unknown.get(index)
        if unknown is None:
            raise CameraUnavailable(f"there is no unknown card {index} on the last look at the display; look again.")
        catalogue = self.session.catalogue()
        card_id = str(card.get("id", ""))
        known = any(c.id == card_id for c in catalogue.cards)
        updated = catalogue if known else catalogues.add_card(catalogue, card)  # checks every field first
        teach_card(self.library(), card_id, unknown.picture)
        if not known:
            self.session.save_catalogue(updated)
        with self._lock:
            self._unknown.pop(index, None)
        return {"id": card_id, "added": not known}

    # ---- stills of accepted claims -----------------------------------------------------------

    def _keep_still(self, game_id: int, seq: int, seat: int) -> None:
        """Keep the newest frame with an accepted claim (written in the background: the race never waits)."""
        frame = self.camera.latest() if self.camera is not None else None
        if frame is None:
            return
        thread = threading.Thread(target=self._write_still, args=(frame.image, game_id, seq, seat),
                                  name="still", daemon=True)
        thread.start()

    def _write_still(self, image: np.ndarray, game_id: int, seq: int, seat: int) -> None:
        """Write the still as a JPEG in the data folder and note it in the game's history."""
        name = f"game-{game_id}-event-{seq}-seat-{seat + 1}.jpg"
        try:
            data = encode_jpeg(image, quality=85, width=None)
            folder = self.data_folder / STILLS_FOLDER
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data or b"")
            self.session.store.add_still(game_id, seq, name)
        except Exception:  # a still is a nicety: the game goes on without it
            log.exception("could not keep the still %s", name)


def _gray_die_follower(sim_table: Any) -> Any:
    """The follower that keeps the simulated table's gray die with its holder (None for a real table)."""
    if sim_table is None:
        return None
    from calibration.demo import GrayDieFollower

    return GrayDieFollower(sim_table)


def still_path(data_folder: str | Path, name: str) -> Path | None:
    """The file of a kept still by its name (None for anything that is not a plain still name)."""
    if not name.endswith(".jpg") or "/" in name or "\\" in name or name.startswith("."):
        return None
    path = Path(data_folder) / STILLS_FOLDER / name
    return path if path.is_file() else None


def _sentence(text: str) -> str:
    """`text` with a capital first letter and a full stop."""
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def wait_until(check: Callable[[], bool], timeout_s: float) -> bool:
    """Poll `check` until it is true or `timeout_s` passed; returns its last answer (for tests and serve)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()

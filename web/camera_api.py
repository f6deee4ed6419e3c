"""The camera over HTTP: what it reads, the live view, a seat's zone, calibrating it, teaching it cards.

Every route works without a camera: it answers that there is none ("no camera: the phones enter the
dice"), never a 500. The camera object (web/camera.py's TableCamera) is put in place by `companion serve`.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

from flask import Blueprint, Response, jsonify

from web.camera import NO_CAMERA
from web.context import table
from web.errors import ApiError
from web.inputs import field, json_body, require_pin

bp = Blueprint("camera", __name__, url_prefix="/api/camera")

STREAM_FPS = 4.0  # the live view's frames a second: enough to watch the table, light on the Pi
STREAM_SECONDS = 600  # a live view ends after ten minutes (the page offers to start it again)
NO_STORE = {"Cache-Control": "no-store"}


def camera() -> Any:
    """The table's camera, or a 409 saying there is none."""
    found = table().camera
    if found is None:
        raise ApiError(409, NO_CAMERA)
    return found


def jpeg(data: bytes | None, missing: str) -> Any:
    """A JPEG answer, or a 404 with the sentence `missing`."""
    if not data:
        raise ApiError(404, missing)
    return Response(data, mimetype="image/jpeg", headers=NO_STORE)


@bp.get("")
def status() -> Any:
    """Whether there is a camera, what it is doing, and each seat's dice as read (unsure ones marked)."""
    found = table().camera
    if found is None:
        return jsonify(camera=False, running=False, calibrated=False, message=NO_CAMERA, seats=[], sim=False)
    return jsonify(found.status())


@bp.get("/frame.jpg")
def frame() -> Any:
    """The newest frame with the readings drawn over it (the page refreshes it)."""
    return jpeg(camera().frame_jpeg(), "the camera has given no picture yet; wait a moment and look again.")


@bp.get("/stream.mjpg")
def stream() -> Any:
    """The live view as an MJPEG stream (multipart/x-mixed-replace), a few frames a second."""
    found = camera()
    broker = table().broker

    def frames() -> Iterator[bytes]:
        """One JPEG part after another until the time is up or the table stops."""
        ends = time.monotonic() + STREAM_SECONDS
        while time.monotonic() < ends and not broker.closed and not found.closed:
            data = found.frame_jpeg()
            if data:
                yield b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data + b"\r\n"
            time.sleep(1.0 / STREAM_FPS)

    return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame", headers=NO_STORE)


@bp.get("/zone/<int:seat>.jpg")
def zone(seat: int) -> Any:
    """A top-down picture of one seat's zone (index 0 = seat 1), for disputes."""
    return jpeg(camera().zone_jpeg(seat), f"there is no picture of seat {seat + 1}'s zone yet; wait for the camera.")


@bp.post("/calibrate")
def calibrate() -> Any:
    """Calibrate from the newest frame (needs the PIN): what was found, the checks, what to fix."""
    require_pin(json_body())
    return jsonify(camera().calibrate())


@bp.get("/calibration.jpg")
def calibration_picture() -> Any:
    """The annotated picture of the last calibration."""
    return jpeg(camera().calibration_jpeg(), "no calibration was made from the phone yet; press Calibrate first.")


@bp.post("/cards")
def cards() -> Any:
    """Look at the display area now (needs the PIN): known cards by name, unknown ones to teach."""
    require_pin(json_body())
    return jsonify(cards=camera().cards())


@bp.get("/cards/<int:index>.jpg")
def card_picture(index: int) -> Any:
    """The picture of an unknown card from the last look."""
    return jpeg(camera().unknown_card_jpeg(index), f"there is no unknown card {index} on the last look; look again.")


@bp.post("/teach")
def teach() -> Any:
    """Teach an unknown card (needs the PIN): its catalogue data, and its picture is learned."""
    body = json_body()
    require_pin(body)
    index = field(body, "index", int)
    card = field(body, "card", dict)
    return jsonify(camera().teach(index, card)), 201

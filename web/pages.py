"""The phone pages (plain HTML filled in by our own JS) and the table's QR code."""

from __future__ import annotations

import io
import time
from typing import Any

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, current_app, render_template, request

from web.context import table

bp = Blueprint("pages", __name__)

LOCAL_ADDRESSES = {"127.0.0.1", "::1", "localhost"}


def table_url() -> str:
    """The address phones open: the configured LAN address, else the one this request used."""
    return current_app.config.get("TABLE_URL") or request.host_url


def is_host_screen() -> bool:
    """True when the page is opened on the companion itself (its screen may show the PIN)."""
    return (request.remote_addr or "") in LOCAL_ADDRESSES


def qr_svg(url: str) -> str:
    """The QR code of `url` as an SVG document."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=12, border=2)
    out = io.BytesIO()
    image.save(out)
    return out.getvalue().decode("utf-8")


@bp.get("/")
@bp.get("/join")
def join() -> Any:
    """Start page: the QR code to open the table, and a button per seat."""
    return render_template("join.html", url=table_url(), page="join")


@bp.get("/setup")
def setup() -> Any:
    """Start a game: players in seat order, the Leader, demo deck or real cards."""
    return render_template("setup.html", page="setup")


@bp.get("/table")
def table_page() -> Any:
    """The table: display cards, dice, the big Rescuing! button of this phone's seat."""
    return render_template("table.html", page="table")


@bp.get("/scoreboard")
def scoreboard() -> Any:
    """Scores, live and at the end, with the tie-break that decided."""
    return render_template("scoreboard.html", page="scoreboard")


@bp.get("/history")
def history() -> Any:
    """Games played at this table, newest first."""
    store = table().session.store
    games = [{**record.summary(), "when": time.strftime("%Y-%m-%d %H:%M", time.localtime(record.started)),
              "stills": _stills(store, record)} for record in store.history()]
    return render_template("history.html", page="history", games=games)


def _stills(store: Any, record: Any) -> list[dict[str, Any]]:
    """The pictures kept with a game's accepted claims: event number, who claimed, the file name."""
    stills = store.stills(record.id)
    if not stills:
        return []
    players = record.setup.get("players", [])
    shown = []
    for event in store.events(record.id):
        if event.seq in stills:
            seat = event.action.get("seat")
            who = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "?"
            shown.append({"seq": event.seq, "who": who, "card": event.action.get("card"), "file": stills[event.seq]})
    return shown


@bp.get("/camera")
def camera() -> Any:
    """The camera's live view with the readings drawn over it; each seat's dice as read; corrections."""
    return render_template("camera.html", page="camera")


@bp.get("/calibrate")
def calibrate() -> Any:
    """The guided calibration: show the mat, press Calibrate, see what was found and what to fix."""
    return render_template("calibrate.html", page="calibrate")


@bp.get("/teach")
def teach() -> Any:
    """Teach a card: look at the display area, confirm or enter an unknown card's data."""
    return render_template("teach.html", page="teach")


@bp.get("/catalogue")
def catalogue() -> Any:
    """The cards of the deck; the owner adds and corrects them here (with the PIN)."""
    return render_template("catalogue.html", page="catalogue")


@bp.get("/host")
def host() -> Any:
    """The host screen: QR code, and the PIN when opened on the companion itself."""
    pin = current_app.config["PIN"] if is_host_screen() else None
    return render_template("host.html", page="host", url=table_url(), pin=pin)


@bp.get("/qr.svg")
def qr() -> Any:
    """The QR code of the table's address."""
    return Response(qr_svg(table_url()), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})

"""`companion serve`: run the table (session, event store, phone pages) on the real WSGI server."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import secrets
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from companion.errors import CompanionError
from companion.session import CATALOGUE_FILE, Session
from companion.settings import Settings, load_settings
from companion.store import EventStore

log = logging.getLogger("companion.serve")

STORE_FILE = "companion.sqlite3"
PIN_FILE = "table-pin"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `companion serve` and its options."""
    parser = subparsers.add_parser(
        "serve", help="serve the table: the phone pages, the race and the scores",
        description="Serve the table on the network. Without a camera or GPIO it serves the demo table; "
                    "open the printed address (or scan the QR code) on each phone.")
    parser.add_argument("--settings", help="the settings file (TOML); leave out for the defaults")
    parser.add_argument("--port", type=int, help="the port to serve on (default: settings, 8000)")
    parser.add_argument("--host", help="the address to listen on (default: settings, 0.0.0.0 = every network)")
    parser.add_argument("--data-dir", help="the folder for the game log, catalogue and PIN (default: settings)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or SIGTERM); returns the exit status."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        settings = _settings(args)
        table = open_table(settings)
    except CompanionError as error:
        print(f"companion serve: {error}", file=sys.stderr)
        return 2
    try:
        return serve(table, settings)
    finally:
        table.close()


def _settings(args: argparse.Namespace) -> Settings:
    """The settings file with the command line's overrides applied."""
    settings = load_settings(args.settings)
    server = settings.server
    if args.port is not None:
        if not 0 <= args.port <= 65535:
            raise CompanionError(f"--port {args.port} is not a port; use 1024-65535, e.g. 8000.")
        server = dataclasses.replace(server, port=args.port)
    if args.host is not None:
        server = dataclasses.replace(server, host=args.host)
    settings = dataclasses.replace(settings, server=server)
    if args.data_dir is not None:
        settings = dataclasses.replace(settings, data_dir=args.data_dir)
    return settings


@dataclasses.dataclass
class TableServer:
    """Everything `serve` opened: the store, the session and the Flask app."""

    store: EventStore
    session: Session
    app: Any
    pin: str
    url: str

    def close(self) -> None:
        """Stop the timers, end the phones' streams, close the store (twice is harmless)."""
        self.app.extensions["table"].broker.close()
        self.session.close()
        self.store.close()


def open_table(settings: Settings) -> TableServer:
    """Open the store and the session (resuming a game), and build the app."""
    from web import create_app  # the composition root may import web; the session never does

    data = settings.data_path
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CompanionError(f"cannot create the data folder {data} ({error}); pass --data-dir to choose another.") from None
    store = EventStore(data / STORE_FILE)
    session = Session(store, settings, catalogue_path=data / CATALOGUE_FILE)
    pin = table_pin(settings, data)
    url = f"http://{lan_address()}:{settings.server.port}/"
    app = create_app(session, {"PIN": pin, "TABLE_URL": url})
    # ---- HARDWARE AND CAMERA ATTACH HERE --------------------------------------------------
    # The seats' buttons and LEDs (package `hardware`) and the camera's live loop
    # (`companion/live.py`) are wired here, against this same session:
    #   buttons:  session.press(seat, t_ms, source="button")   (hardware.link.attach does this)
    #   LEDs:     session.subscribe(callback) -> unsubscribe    (called after the event is stored)
    #   camera:   session.roll(seat, dice, source="camera")     (companion.live.LiveTable)
    #   phones' presses through the seat's mock pin in the demo:
    #             app.extensions["table"].press = lambda seat: press_from_phone(board, session, seat)
    # Close them in TableServer.close(). Without a camera or GPIO nothing is attached and the
    # phones do both (the demo table).
    # ---------------------------------------------------------------------------------------
    return TableServer(store, session, app, pin, url)


def table_pin(settings: Settings, data: Path) -> str:
    """The table PIN: from the settings, else the one kept in the data folder, else a fresh one."""
    if settings.server.pin:
        return settings.server.pin
    path = data / PIN_FILE
    try:
        kept = path.read_text(encoding="utf-8").strip()
    except OSError:
        kept = ""
    if kept.isdigit() and len(kept) == 4:
        return kept
    pin = f"{secrets.randbelow(10_000):04d}"
    try:
        path.write_text(pin + "\n", encoding="utf-8")
        os.chmod(path, 0o600)
    except OSError:
        log.warning("cannot keep the PIN in %s; a new one is made at every start", path)
    return pin


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), else 127.0.0.1."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def terminal_qr(url: str) -> str:
    """The QR code of `url` drawn with text blocks, for the terminal."""
    import io

    import qrcode

    code = qrcode.QRCode(border=1)
    code.add_data(url)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()


def serve(table: TableServer, settings: Settings) -> int:
    """Run waitress until Ctrl-C or SIGTERM; print the address, the QR code and the PIN first."""
    from waitress.server import create_server

    try:
        server = create_server(
            table.app, host=settings.server.host, port=settings.server.port,
            threads=settings.server.threads,
            # Each phone keeps a stream open; keepalives every 15 s keep it under this timeout.
            channel_timeout=60, connection_limit=max(100, settings.server.threads * 2),
            ident="rescue-companion",
        )
    except OSError as error:
        print(f"companion serve: cannot listen on port {settings.server.port} ({error.strerror}); "
              f"another program uses it, so pass --port with another number.", file=sys.stderr)
        return 2

    def stop(signum: int, frame: Any) -> None:
        """Ctrl-C or SIGTERM: end the phones' streams first (waitress waits for its threads), then stop."""
        table.app.extensions["table"].broker.close()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)  # also when a launcher started us with SIGINT ignored
    print(terminal_qr(table.url))
    print(f"The rescue table is open: {table.url}")
    print("Scan the code above or type the address on each phone (same Wi-Fi).")
    print(f"Table PIN (to start a game, undo, edit cards): {table.pin}")
    print("Stop with Ctrl-C.", flush=True)
    try:
        server.run()  # returns after Ctrl-C: waitress catches it and closes its threads
    except KeyboardInterrupt:
        server.close()
    print("The table has stopped; the game is saved and resumes at the next start.", flush=True)
    return 0

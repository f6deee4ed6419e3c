"""`companion serve`: run the table (session, event store, phone pages) on the real WSGI server."""

from __future__ import annotations

import argparse
import dataclasses
import errno
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
    parser.add_argument("--source", help="the camera: picamera2, usb:N, video:PATH, folder:PATH, sim, auto "
                        "(picamera2, else usb:0, else the simulator), or none (the phones enter the dice); "
                        "default: settings, auto")
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
    if args.source is not None:
        settings = dataclasses.replace(settings, camera=dataclasses.replace(settings.camera, source=args.source))
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
    board: Any = None
    camera: Any = None

    def close(self) -> None:
        """Stop the camera, close the seats' devices, stop the timers, end the phones' streams, close the store
        (twice is harmless)."""
        if self.camera is not None:
            self.camera.close()
        if self.board is not None:
            self.board.close()
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
    app = create_app(session, {"PIN": pin, "TABLE_URL": url, "DATA_DIR": str(data)})
    from hardware import attach, press_from_phone  # buttons, LEDs, buzzer: GPIO on a Pi, else the demo's mock pins

    board = attach(session, settings)  # never raises; logs what to fix and falls back
    table = app.extensions["table"]
    if board is not None:
        table.press = lambda seat: press_from_phone(board, session, seat)
        table.board = board  # the host page's mute switch sets board.muted
    table.camera = attach_camera(session, settings, data)  # never raises; None: the phones enter the dice
    return TableServer(store, session, app, pin, url, board, table.camera)


# ---- the camera ------------------------------------------------------------------------------

# The simulated table serve plays on when there is no camera: the printed mat with a zone for every seat
# (calibration.demo.SIM_SEATS), each with four white dice and a black one; smaller frames than a Pi
# camera's so that a laptop keeps up.
SIM_SIZE = (1280, 720)
SIM_FPS = 10.0
FIRST_FRAME_S = 8.0  # how long serve waits for a real camera's first picture (to check the calibration)


def attach_camera(session: Session, settings: Settings, data: Path) -> Any:
    """Open the camera of settings.camera.source and the live loop feeding `session`; None without one.

    Never raises: a camera that cannot be opened, or has no usable calibration, is reported (log and
    terminal) and the phones enter the dice. On the simulator the calibration is made from its own mat.
    """
    spec = settings.camera.source.strip()
    if spec.lower() == "none":
        log.info("No camera ([camera] source = \"none\"): the phones enter the dice.")
        return None
    try:
        from vision.sources import parse_spec, resolve_auto

        parsed = parse_spec(spec)
        if parsed.kind == "auto":
            parsed = parse_spec(resolve_auto())
        if parsed.kind == "sim":
            return _simulated_camera(session, parsed, data)
        return _real_camera(session, parsed.text, data)
    except CompanionError as error:
        _say(f"The camera could not be opened: {error}. The phones enter the dice; fix the camera and restart, "
             f"or pass --source.")
    except Exception as error:  # a camera driver may fail in any way; the table still plays by phone
        log.debug("the camera could not be opened", exc_info=True)  # the details, for a debug log; the user gets:
        _say(f"The camera {spec!r} could not be opened ({type(error).__name__}: {error}). The phones enter the dice.")
    return None


def _real_camera(session: Session, spec: str, data: Path) -> Any:
    """A real camera with the calibration file of the data folder (checked against the camera's picture size)."""
    from calibration.store import CALIBRATION_FILE, load_calibration
    from vision.camera_thread import CameraThread
    from vision.sources import open_source
    from web.camera import TableCamera, wait_until

    camera = CameraThread(open_source(spec))
    wait_until(lambda: camera.latest() is not None, FIRST_FRAME_S)
    first = camera.latest()
    size = None if first is None else (first.image.shape[1], first.image.shape[0])
    path = data / CALIBRATION_FILE
    calibration, note = None, None
    try:
        calibration = load_calibration(path, image_size=size)
    except CompanionError as error:
        note = f"no usable calibration: {error}"
        _say(f"The camera works but {note} Until then the phones enter the dice (or calibrate on the phone's "
             f"Calibrate page).")
    table_camera = TableCamera(session, camera, data, calibration=calibration, calibration_path=path, note=note)
    table_camera.start()
    if calibration is not None:
        log.info("The camera reads the dice (%s, calibration %s).", spec, path)
    return table_camera


def _simulated_camera(session: Session, parsed: Any, data: Path) -> Any:
    """The simulator's printed mat, calibrated from its own first frame; its dice reach the game only as pictures."""
    from calibration.demo import SIM_SEATS, mat_table
    from calibration.steps import calibrate_frame
    from vision.camera_thread import CameraThread
    from vision.sources import sim_source
    from web.camera import TableCamera

    options, given = parsed.options, parsed.text
    seats = options["seats"] if "seats=" in given else SIM_SEATS
    size = options["size"] if "size=" in given else SIM_SIZE
    fps = options["fps"] if "fps=" in given else SIM_FPS
    table, _view = mat_table(seats=seats, size=tuple(size), seed=options["seed"], fps=fps)
    first, _truth = table.next_frame()
    result = calibrate_frame(first, colours=False)
    if result.calibration is None:
        raise CompanionError(f"the simulated mat could not be calibrated ({'; '.join(result.problems)})")
    camera = CameraThread(sim_source(table))
    table_camera = TableCamera(session, camera, data, calibration=result.calibration, sim_table=table)
    table_camera.start()
    log.info("The camera is the simulator: a %d-seat mat at %dx%d, %g frames a second; "
             "\"Roll for me\" throws a seat's simulated dice and the camera reads them.", seats, size[0], size[1], fps)
    return table_camera


def _say(message: str) -> None:
    """Tell the person at the terminal (and the log) something about the camera."""
    log.warning("%s", message)


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


def camera_line(table: TableServer) -> str:
    """What the camera does, in one line for the terminal."""
    if table.camera is None:
        return "Camera: none; the phones enter the dice (pass --source to use one)."
    status = table.camera.status()
    where = "the simulated table (\"Roll for me\" throws its dice)" if status["sim"] else status["status"]
    return f"Camera: {where}. {status['message']} Live view: {table.url}camera"


def listen_problem(settings: Settings, error: Exception) -> str:
    """Why the server cannot listen on the settings' host and port, and what to do, in a sentence."""
    host, port = settings.server.host, settings.server.port
    if getattr(error, "errno", None) == errno.EADDRINUSE:
        return f"cannot listen on port {port}: another program uses it, so pass --port with another number."
    if getattr(error, "errno", None) == errno.EACCES:
        return f"cannot listen on port {port}: ports below 1024 need root; pass --port 8000 (or another above 1024)."
    why = getattr(error, "strerror", None) or str(error)
    return (f"cannot listen on {host}:{port} ({why}); pass --host 0.0.0.0 (every network) or an address of "
            f"this machine.")


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
    except (OSError, ValueError) as error:  # waitress raises ValueError for a host that is no address
        print(f"companion serve: {listen_problem(settings, error)}", file=sys.stderr)
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
    print(camera_line(table), flush=True)
    print("Stop with Ctrl-C.", flush=True)
    try:
        server.run()  # returns after Ctrl-C: waitress catches it and closes its threads
    except KeyboardInterrupt:
        server.close()
    print("The table has stopped; the game is saved and resumes at the next start.", flush=True)
    return 0

"""Frame sources: one string chooses where frames come from; each source yields BGR numpy arrays.

    picamera2[?size=1920x1080&still=0]     the Raspberry Pi camera module (imported only when opened)
    usb:N[?size=1280x720]                  a USB camera through OpenCV
    video:PATH[?loop=1&realtime=1]         a video file
    folder:PATH[?loop=0&fps=0]             the images of a folder, in name order
    sim[?seed=3&dice=10&size=1920x1080]    the simulated table (dice rolled now and then)
    auto                                   picamera2 if a camera module is there, else usb:0, else sim

`open_source(spec)` returns a `FrameSource`: `frames()` yields images, `close()` may be called twice,
and it is a context manager. `describe_kinds()` lists every option (sim also takes seats, fps,
realtime, colours, lighting, background, roll_every, die_size, jpeg, clutter, hands).
`CameraThread` (vision/camera_thread.py) reads one in the background:

    with CameraThread("auto", when_status=print) as camera:
        frame = camera.wait_for_frame(timeout=5)     # or camera.latest(), which never waits
"""

from __future__ import annotations

import logging
import os
import sys
import time
import weakref
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import parse_qsl

import cv2
import numpy as np

from companion.errors import CameraError, SourceError

log = logging.getLogger(__name__)

PICAMERA2_MISSING = (
    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` and "
    "create the virtual environment with --system-site-packages"
)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


# ---------------------------------------------------------------- option parsing


def _size(text: str) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080)."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"{text!r} is not a size like 1920x1080") from None
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        raise ValueError(f"{text!r} is outside 16x16 .. 8192x8192")
    return width, height


def _flag(text: str) -> bool:
    """'1', 'true', 'yes', 'on' -> True; '0', 'false', 'no', 'off' -> False."""
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not on or off (use 1 or 0)")


def _count(text: str) -> int:
    """A whole number, zero or more."""
    value = int(text)
    if value < 0:
        raise ValueError(f"{text!r} is negative")
    return value


def _positive(text: str) -> float:
    """A number, zero or more."""
    value = float(text)
    if value < 0 or value != value:
        raise ValueError(f"{text!r} is negative")
    return value


def _words(text: str) -> tuple[str, ...]:
    """'white,gray,black' -> ('white', 'gray', 'black')."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


# Per kind: option name -> (parser, default, what it means).
OPTIONS: dict[str, dict[str, tuple[Callable[[str], Any], Any, str]]] = {
    "picamera2": {
        "size": (_size, (1920, 1080), "frame size WxH"),
        "still": (_flag, False, "use a still configuration (sharper, slower) instead of video"),
        "camera": (_count, 0, "which camera module"),
    },
    "usb": {
        "size": (_size, None, "frame size WxH to ask the camera for"),
        "fps": (_positive, 0.0, "frame rate to ask the camera for"),
    },
    "video": {
        "loop": (_flag, True, "start again at the end"),
        "realtime": (_flag, True, "pace frames at the video's own rate"),
    },
    "folder": {
        "loop": (_flag, False, "start again after the last image"),
        "fps": (_positive, 0.0, "pace images at this rate (0: as fast as they are read)"),
    },
    "sim": {
        "seed": (int, 0, "random seed: the same seed gives the same table"),
        "dice": (_count, 10, "number of dice"),
        "seats": (_count, 1, "number of seat zones the dice are shared between"),
        "size": (_size, (1920, 1080), "frame size WxH"),
        "fps": (_positive, 15.0, "frames per second"),
        "realtime": (_flag, True, "pace frames in real time (0: as fast as they render)"),
        "colours": (_words, ("white", "gray", "black"), "die colours, comma separated"),
        "lighting": (str, "neutral", "neutral, warm, cool, dim, bright, warm-dim or uneven"),
        "background": (str, "mat", "mat, wood, cloth, plain, or the path of a picture"),
        "roll_every": (_positive, 6.0, "mean seconds between rolls of a seat (0: only when asked)"),
        "die_size": (_positive, 0.0, "die side in pixels (0: as seen from 70 cm)"),
        "jpeg": (_count, 0, "JPEG quality of each frame (0: no compression)"),
        "clutter": (_count, 0, "things on the table that are not dice (blank cubes, tokens, beads, cards, dice with numbers, keys)"),
        "hands": (_flag, True, "show the thrower's hand over the table as dice are rolled"),
    },
    "auto": {},
}

KINDS = tuple(OPTIONS)


@dataclass(frozen=True)
class SourceSpec:
    """A parsed source string: kind, its argument (index or path) and its options."""

    kind: str
    argument: str
    options: dict[str, Any]
    text: str


def parse_spec(spec: str) -> SourceSpec:
    """Split 'kind:argument?name=value&...' and check the kind, the argument and each option."""
    if not isinstance(spec, str) or not spec.strip():
        raise SourceError(f"empty frame source; use one of: {', '.join(KINDS)}")
    text = spec.strip()
    head, _, query = text.partition("?")
    kind, _, argument = head.partition(":")
    kind = kind.strip().lower()
    if kind not in OPTIONS:
        raise SourceError(f"unknown frame source kind {kind!r} in {text!r}; known kinds are {', '.join(KINDS)}")
    _check_argument(kind, argument, text)
    options = {name: default for name, (_, default, _) in OPTIONS[kind].items()}
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise SourceError(f"cannot read the options {query!r} of {text!r}; write them as name=value&name=value") from None
    for name, value in pairs:
        options[name] = _option(kind, name, value, text)
    return SourceSpec(kind, argument, options, text)


def _check_argument(kind: str, argument: str, text: str) -> None:
    """Each kind's argument: an index for usb, a path for video and folder, nothing otherwise."""
    if kind == "usb":
        if not argument.isdigit():
            raise SourceError(f"{text!r}: a USB camera is chosen by its index, like usb:0")
    elif kind in ("video", "folder"):
        if not argument:
            raise SourceError(f"{text!r}: give the path, like {kind}:/path/to/{'clip.mp4' if kind == 'video' else 'images'}")
    elif argument:
        raise SourceError(f"{text!r}: the {kind} source takes no ':{argument}'; put settings after '?'")


def _option(kind: str, name: str, value: str, text: str) -> Any:
    """Parse one option, naming it (and the known ones) when it is unknown or wrong."""
    known = OPTIONS[kind]
    if name not in known:
        listed = ", ".join(known) if known else "none"
        raise SourceError(f"unknown option {name!r} for the {kind} source in {text!r}; known options are {listed}")
    parser, default, meaning = known[name]
    try:
        return parser(value)
    except ValueError as error:
        raise SourceError(f"option {name}={value!r} of {text!r} is wrong ({error}); it is the {meaning}") from None


# ---------------------------------------------------------------- sources


class FrameSource:
    """Where frames come from: `frames()` yields BGR uint8 arrays; `close()` may be called twice."""

    # A live source (a camera) that stops is a failure worth reopening; a finite one just ended.
    live = True

    def __init__(self, spec: SourceSpec):
        """Remember the spec; the device is opened when frames are first asked for."""
        self.spec = spec
        self.closed = False

    @property
    def name(self) -> str:
        """The spec text, for messages."""
        return self.spec.text

    def frames(self) -> Iterator[np.ndarray]:
        """Yield frames until the source ends; raise CameraError when it fails."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the device; safe to call more than once."""
        self.closed = True

    def __enter__(self) -> FrameSource:
        """Use as a context manager: closed on leaving."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close on leaving the with-block."""
        self.close()

    def __repr__(self) -> str:
        """The source's spec."""
        return f"{type(self).__name__}({self.name!r})"


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera module through picamera2 (imported only here, only when opened)."""

    def __init__(self, spec: SourceSpec):
        """Prepare; the camera is opened by `frames()`."""
        super().__init__(spec)
        self._camera: Any = None

    def _open(self) -> Any:
        """Import picamera2, acquire the camera, configure RGB888 frames of the chosen size, start."""
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CameraError(PICAMERA2_MISSING) from None
        options = self.spec.options
        try:
            camera = Picamera2(options["camera"])
        except (IndexError, RuntimeError) as error:
            raise CameraError(
                f"no camera module {options['camera']} found by picamera2 ({error}); check the ribbon "
                "cable and that `rpicam-hello --list-cameras` lists it"
            ) from None
        # picamera2's "RGB888" lays pixels out as B, G, R: what OpenCV calls BGR.
        main = {"size": tuple(options["size"]), "format": "RGB888"}
        try:
            if options["still"]:
                config = camera.create_still_configuration(main=main)
            else:
                config = camera.create_video_configuration(main=main)
            camera.configure(config)
            camera.start()
        except Exception as error:  # libcamera raises many kinds; all mean the same to the user
            camera.close()
            raise CameraError(f"the camera module would not start ({error}); try another size, or reboot") from None
        return camera

    def frames(self) -> Iterator[np.ndarray]:
        """Yield captured frames as BGR arrays."""
        self.closed = False
        self._camera = self._open()
        while not self.closed:
            try:
                array = self._camera.capture_array("main")
            except Exception as error:  # a dropped camera raises whatever libcamera raises
                raise CameraError(f"the camera module stopped giving frames ({error})") from None
            if array is None or getattr(array, "size", 0) == 0:
                raise CameraError("the camera module gave an empty frame")
            yield np.ascontiguousarray(array[..., :3])

    def close(self) -> None:
        """Stop and release the camera module."""
        super().close()
        camera, self._camera = self._camera, None
        if camera is not None:
            for step in (camera.stop, camera.close):
                try:
                    step()
                except Exception as error:  # closing a camera that already vanished must not fail
                    log.debug("picamera2 %s failed: %s", step.__name__, error)


class CaptureSource(FrameSource):
    """A USB camera (`usb:N`) or a video file (`video:PATH`) through cv2.VideoCapture."""

    def __init__(self, spec: SourceSpec):
        """Prepare; the capture is opened by `frames()`."""
        super().__init__(spec)
        self.live = spec.kind == "usb" or bool(spec.options.get("loop"))
        self._capture: cv2.VideoCapture | None = None

    def _open(self) -> cv2.VideoCapture:
        """Open the camera or the file, with a message that says what to check when it fails."""
        if self.spec.kind == "usb":
            capture = cv2.VideoCapture(int(self.spec.argument))
            if not capture.isOpened():
                capture.release()
                raise CameraError(
                    f"no USB camera at index {self.spec.argument}; check the cable and that "
                    "/dev/video* lists it, or pick another index (usb:1)"
                )
            size, fps = self.spec.options["size"], self.spec.options["fps"]
            if size:
                capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
                capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
            if fps:
                capture.set(cv2.CAP_PROP_FPS, fps)
            return capture
        path = Path(self.spec.argument).expanduser()
        if not path.is_file():
            raise CameraError(f"no video file at {path}; check the path")
        capture = cv2.VideoCapture(str(path))
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"cannot read the video {path}: not a video OpenCV can decode (try MJPG .avi or .mp4)")
        return capture

    def frames(self) -> Iterator[np.ndarray]:
        """Yield frames; a video loops or ends, a USB camera that stops raises CameraError."""
        self.closed = False
        self._capture = capture = self._open()
        is_file = self.spec.kind == "video"
        period = 0.0
        if is_file and self.spec.options["realtime"]:
            fps = capture.get(cv2.CAP_PROP_FPS)
            period = 1.0 / fps if fps and 0 < fps < 1000 else 1.0 / 25
        pace = _Pacer(period)
        shown = 0
        while not self.closed:
            ok, image = capture.read()
            if not ok or image is None:
                if not is_file:
                    raise CameraError(f"the USB camera {self.spec.argument} stopped giving frames (unplugged?)")
                if self.spec.options["loop"] and shown:
                    capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
                    shown = 0
                    continue
                if not shown:
                    raise CameraError(f"the video {self.spec.argument} has no frames OpenCV can decode")
                return
            shown += 1
            pace.wait()
            yield image

    def close(self) -> None:
        """Release the capture."""
        super().close()
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()


class FolderSource(FrameSource):
    """Replays the images of a folder in name order; unreadable files are reported and skipped."""

    def __init__(self, spec: SourceSpec):
        """Prepare; the folder is listed by `frames()`."""
        super().__init__(spec)
        self.live = bool(spec.options["loop"])
        # One line per file that could not be read, for whoever shows problems to the user.
        self.skipped: list[str] = []

    def paths(self) -> list[Path]:
        """The image files of the folder, sorted by name."""
        folder = Path(self.spec.argument).expanduser()
        if not folder.is_dir():
            raise CameraError(f"no folder at {folder}; check the path")
        found = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not found:
            raise CameraError(f"the folder {folder} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        return found

    def frames(self) -> Iterator[np.ndarray]:
        """Yield each readable image in turn (again and again with loop=1)."""
        self.closed = False
        paths = self.paths()
        pace = _Pacer(1.0 / self.spec.options["fps"] if self.spec.options["fps"] else 0.0)
        while not self.closed:
            shown = 0
            for path in paths:
                if self.closed:
                    return
                image = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if image is None:
                    self._skip(path)
                    continue
                shown += 1
                pace.wait()
                yield image
            if not shown:
                raise CameraError(f"none of the {len(paths)} images in {self.spec.argument} could be read")
            if not self.spec.options["loop"]:
                return

    def _skip(self, path: Path) -> None:
        """Report an unreadable file once, and go on."""
        message = f"skipped {path.name}: not an image OpenCV can read"
        if message not in self.skipped:
            self.skipped.append(message)
            log.warning("%s (%s)", message, path)


class SimSource(FrameSource):
    """The simulated table (vision/simulator.py), animated: seats roll their dice now and then."""

    def __init__(self, spec: SourceSpec, table: Any = None):
        """Build the simulated table from the options (or use `table`, a SimTable made by the caller)."""
        super().__init__(spec)
        # The truth of the frame last yielded (boxes, values, colours, which dice are rolling).
        self.last_truth: dict | None = None
        self._recent: deque = deque(maxlen=64)
        if table is not None:
            self.table = table
            return
        from vision.simulator import SimTable  # imported when used: the camera sources do not need it

        options = spec.options
        background: Any = options["background"]
        if background not in ("mat", "wood", "cloth", "plain"):
            picture = cv2.imread(str(Path(background).expanduser()), cv2.IMREAD_COLOR)
            if picture is None:
                raise SourceError(f"background {background!r} is neither mat, wood, cloth, plain nor a picture file")
            background = picture
        try:
            self.table = SimTable(
                seed=options["seed"], dice=options["dice"], seats=max(1, options["seats"]),
                size=options["size"], colours=options["colours"], lighting=options["lighting"],
                background=background, roll_every=options["roll_every"],
                die_size=options["die_size"] or None, jpeg_quality=options["jpeg"] or None,
                fps=options["fps"] or 15.0, clutter=options["clutter"],
            )
        except (KeyError, ValueError) as error:
            raise SourceError(f"{spec.text!r}: {error}") from None
        self.table.hands = options["hands"]

    def truth_of(self, image: np.ndarray) -> dict | None:
        """The truth of a frame this source yielded recently (e.g. `camera.latest().image`)."""
        for reference, truth in reversed(self._recent):
            if reference() is image:
                return truth
        return None

    def frames(self) -> Iterator[np.ndarray]:
        """Yield rendered frames at the table's frame rate."""
        self.closed = False
        pace = _Pacer(1.0 / self.table.fps if self.spec.options["realtime"] else 0.0)
        while not self.closed:
            image, truth = self.table.next_frame()
            self.last_truth = truth
            self._recent.append((weakref.ref(image), truth))
            pace.wait()
            yield image


class _Pacer:
    """Sleeps so that frames come at most once per `period` seconds (0: never sleeps)."""

    def __init__(self, period: float):
        """Start the clock."""
        self.period = period
        self.next_time = time.monotonic()

    def wait(self) -> None:
        """Sleep until the next frame is due."""
        if self.period <= 0:
            return
        delay = self.next_time - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        self.next_time = max(self.next_time + self.period, time.monotonic() - self.period)


# ---------------------------------------------------------------- choosing


def sim_source(table: Any, realtime: bool = True) -> SimSource:
    """A frame source over a SimTable built by the caller (e.g. the printed mat seen through a
    homography, with seat zones from the calibration): `sim_source(SimTable(...))`."""
    return SimSource(parse_spec(f"sim?realtime={int(realtime)}&fps={table.fps:g}"), table=table)


def picamera2_present() -> bool:
    """True when picamera2 imports and lists at least one camera module."""
    try:
        from picamera2 import Picamera2
    except ImportError:
        return False
    try:
        return bool(Picamera2.global_camera_info())
    except Exception as error:  # a broken libcamera install means: no usable camera module
        log.info("picamera2 is installed but lists no camera: %s", error)
        return False


def usb_camera_present(index: int = 0) -> bool:
    """True when a USB camera opens at `index` (on Linux, only tried when /dev/videoN exists)."""
    if sys.platform.startswith("linux") and not os.path.exists(f"/dev/video{index}"):
        return False
    capture = cv2.VideoCapture(index)
    try:
        return bool(capture.isOpened())
    finally:
        capture.release()


def resolve_auto() -> str:
    """The spec `auto` stands for on this machine: picamera2, else usb:0, else sim."""
    if picamera2_present():
        return "picamera2"
    if usb_camera_present(0):
        return "usb:0"
    return "sim"


def open_source(spec: str) -> FrameSource:
    """Make the frame source a spec string names (see the module docstring for the kinds)."""
    parsed = parse_spec(spec)
    if parsed.kind == "auto":
        chosen = resolve_auto()
        log.info("frame source auto chose %s", chosen)
        return open_source(chosen)
    if parsed.kind == "picamera2":
        return Picamera2Source(parsed)
    if parsed.kind in ("usb", "video"):
        return CaptureSource(parsed)
    if parsed.kind == "folder":
        return FolderSource(parsed)
    return SimSource(parsed)


def describe_kinds() -> str:
    """Every kind and its options, one line each, for help texts."""
    lines = []
    for kind, options in OPTIONS.items():
        listed = "; ".join(f"{name}: {meaning}" for name, (_, _, meaning) in options.items())
        lines.append(f"{kind}: {listed or 'no options'}")
    return "\n".join(lines)


from vision.camera_thread import CameraThread, Frame  # noqa: E402  (re-exported: the contract names them here)

__all__ = [
    "CameraThread", "Frame", "FrameSource", "SourceSpec", "open_source", "parse_spec", "sim_source",
    "resolve_auto", "describe_kinds", "KINDS", "OPTIONS", "PICAMERA2_MISSING",
]

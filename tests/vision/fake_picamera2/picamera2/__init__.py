"""A stand-in for picamera2 with the parts of Picamera2's API the frame source uses.

Put this folder on sys.path (the `fake_picamera2` fixture does) and `from picamera2 import
Picamera2` finds it. Like the real one: `Picamera2(camera_num=0, tuning=None)` raises IndexError
when there is no such camera; `global_camera_info()` lists the cameras; configurations are dicts
made by `create_video_configuration` / `create_still_configuration(main={...})`; `configure`,
`start`, `capture_array(name="main")` (an array in the configured size, "RGB888" laid out B, G, R),
`stop` and `close`. Tests steer it through the module-level settings below.
"""

from __future__ import annotations

import numpy as np

# The attached cameras, as global_camera_info() reports them.
CAMERAS: list[dict] = [{"Model": "imx708", "Location": 2, "Rotation": 180, "Id": "/base/fake", "Num": 0}]
# capture_array raises RuntimeError after this many frames (None: never), then the count restarts
# for the next Picamera2 object made (a camera unplugged and plugged back in).
FAIL_AFTER: int | None = None
FAILURES_LEFT: int = 0
# Every Picamera2 made, for tests to inspect.
INSTANCES: list["Picamera2"] = []


def reset() -> None:
    """Back to one camera that never fails."""
    global FAIL_AFTER, FAILURES_LEFT
    CAMERAS[:] = [{"Model": "imx708", "Location": 2, "Rotation": 180, "Id": "/base/fake", "Num": 0}]
    FAIL_AFTER = None
    FAILURES_LEFT = 0
    INSTANCES.clear()


class Picamera2:
    """The stand-in camera."""

    @staticmethod
    def global_camera_info() -> list[dict]:
        """The cameras attached."""
        return [dict(camera) for camera in CAMERAS]

    def __init__(self, camera_num: int = 0, tuning=None):
        """Acquire camera `camera_num` (IndexError when there is none, like the real one)."""
        if camera_num >= len(CAMERAS):
            raise IndexError("list index out of range")
        self.camera_num = camera_num
        self.camera_config: dict | None = None
        self.started = False
        self.is_open = True
        self.captured = 0
        self.calls: list[str] = []
        INSTANCES.append(self)

    def _configuration(self, kind: str, main: dict | None, **kwargs) -> dict:
        """A configuration dict like picamera2's (only the fields the source reads)."""
        main = dict(main or {})
        main.setdefault("format", "XBGR8888" if kind == "preview" else "RGB888")
        main.setdefault("size", (4608, 2592) if kind == "still" else (1280, 720))
        return {"use_case": kind, "main": main, "buffer_count": kwargs.get("buffer_count", 1 if kind == "still" else 6),
                "controls": dict(kwargs.get("controls") or {})}

    def create_video_configuration(self, main: dict | None = None, lores=None, raw=None, transform=None,
                                   colour_space=None, buffer_count=6, controls=None, display="main",
                                   encode="main", queue=True, sensor=None, use_case="video") -> dict:
        """A video configuration."""
        self.calls.append("create_video_configuration")
        return self._configuration("video", main, buffer_count=buffer_count, controls=controls)

    def create_still_configuration(self, main: dict | None = None, lores=None, raw=None, transform=None,
                                   colour_space=None, buffer_count=1, controls=None, display=None,
                                   encode=None, queue=True, sensor=None, use_case="still") -> dict:
        """A still configuration."""
        self.calls.append("create_still_configuration")
        return self._configuration("still", main, buffer_count=buffer_count, controls=controls)

    def configure(self, camera_config=None) -> None:
        """Apply a configuration (refused while running, like the real one)."""
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        self.calls.append("configure")
        self.camera_config = camera_config

    def start(self, config=None, show_preview=False) -> None:
        """Start the camera."""
        if self.camera_config is None:
            raise RuntimeError("Camera has not been configured")
        self.calls.append("start")
        self.started = True

    def capture_array(self, name: str = "main", wait=None):
        """The next frame of stream `name`: a gradient with the frame number in its corner."""
        global FAILURES_LEFT
        if not self.started:
            raise RuntimeError("Camera not started")
        if FAIL_AFTER is not None and self.captured >= FAIL_AFTER and FAILURES_LEFT > 0:
            FAILURES_LEFT -= 1
            raise RuntimeError("Device timeout detected, attempting a restart!!!")
        config = self.camera_config[name]
        width, height = config["size"]
        channels = 4 if config["format"] in ("XBGR8888", "XRGB8888") else 3
        frame = np.zeros((height, width, channels), np.uint8)
        frame[..., 0] = np.linspace(0, 255, width, dtype=np.uint8)[None, :]
        frame[..., 1] = np.linspace(0, 255, height, dtype=np.uint8)[:, None]
        frame[:8, :8, 2] = self.captured % 256
        self.captured += 1
        return frame

    def stop(self) -> None:
        """Stop the camera."""
        self.calls.append("stop")
        self.started = False

    def close(self) -> None:
        """Release the camera."""
        self.calls.append("close")
        self.started = False
        self.is_open = False

"""Frame sources and the camera thread: specs, folder, video file, stand-in picamera2, auto, failure and recovery."""

from __future__ import annotations

import threading
import time
from itertools import islice

import cv2
import numpy as np
import pytest

from companion.errors import CameraError, SourceError
from vision import sources
from vision.sources import CameraThread, FrameSource, open_source, parse_spec


def write_images(folder, count, size=(40, 30)):
    """Write `count` PNGs whose first pixel holds their number; return their paths."""
    paths = []
    for number in range(count):
        image = np.full((size[1], size[0], 3), 10 * number, np.uint8)
        path = folder / f"frame_{number:02d}.png"
        cv2.imwrite(str(path), image)
        paths.append(path)
    return paths


def wait_until(condition, timeout=5.0):
    """Poll until condition() is true; fail the test when it never is."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError("condition never became true")


# ---------------------------------------------------------------- specs


@pytest.mark.parametrize(
    "spec, words",
    [
        ("webcam:0", ["unknown frame source kind 'webcam'", "picamera2, usb, video, folder, sim, auto"]),
        ("sim?dise=3", ["unknown option 'dise' for the sim source", "seed, dice, seats, size"]),
        ("folder:/x?speed=2", ["unknown option 'speed' for the folder source", "loop, fps"]),
        ("auto?size=1x1", ["unknown option 'size' for the auto source", "known options are none"]),
        ("sim?size=big", ["option size='big'", "not a size like 1920x1080"]),
        ("sim?dice=-2", ["option dice='-2'", "negative"]),
        ("usb:front", ["chosen by its index, like usb:0"]),
        ("video:", ["give the path, like video:"]),
        ("sim:3", ["the sim source takes no ':3'"]),
        ("", ["empty frame source"]),
    ],
)
def test_a_wrong_spec_is_named_with_the_known_ones(spec, words):
    with pytest.raises(SourceError) as caught:
        open_source(spec)
    for word in words:
        assert word in str(caught.value)


def test_options_are_parsed_into_values():
    spec = parse_spec("sim?seed=3&dice=10&size=640x480&colours=red,blue&realtime=0")
    assert spec.kind == "sim"
    assert spec.options["seed"] == 3 and spec.options["dice"] == 10
    assert spec.options["size"] == (640, 480)
    assert spec.options["colours"] == ("red", "blue")
    assert spec.options["realtime"] is False
    assert spec.options["lighting"] == "neutral"


# ---------------------------------------------------------------- folder


def test_folder_replays_images_in_name_order(tmp_path):
    write_images(tmp_path, 3)
    with open_source(f"folder:{tmp_path}") as source:
        firsts = [int(image[0, 0, 0]) for image in source.frames()]
    assert firsts == [0, 10, 20]
    assert source.live is False


def test_folder_loops_when_asked(tmp_path):
    write_images(tmp_path, 2)
    with open_source(f"folder:{tmp_path}?loop=1") as source:
        firsts = [int(image[0, 0, 0]) for image in islice(source.frames(), 5)]
    assert firsts == [0, 10, 0, 10, 0]


def test_folder_skips_and_reports_an_unreadable_file(tmp_path, caplog):
    write_images(tmp_path, 2)
    (tmp_path / "frame_01b.jpg").write_bytes(b"this is not a jpeg")
    with open_source(f"folder:{tmp_path}") as source:
        images = list(source.frames())
    assert len(images) == 2
    assert source.skipped == ["skipped frame_01b.jpg: not an image OpenCV can read"]
    assert "frame_01b.jpg" in caplog.text


def test_folder_missing_or_empty_or_all_unreadable_is_a_clear_error(tmp_path):
    with pytest.raises(CameraError, match="no folder at"):
        next(open_source(f"folder:{tmp_path / 'nope'}").frames())
    with pytest.raises(CameraError, match="holds no images"):
        next(open_source(f"folder:{tmp_path}").frames())
    (tmp_path / "a.png").write_bytes(b"junk")
    with pytest.raises(CameraError, match="none of the 1 images"):
        next(open_source(f"folder:{tmp_path}").frames())


# ---------------------------------------------------------------- video file


@pytest.fixture
def video_file(tmp_path):
    """A 12-frame MJPG .avi whose frames get brighter one by one."""
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, (64, 48))
    assert writer.isOpened()
    for number in range(12):
        writer.write(np.full((48, 64, 3), 20 * number, np.uint8))
    writer.release()
    return path


def test_video_file_gives_its_frames_then_ends(video_file):
    with open_source(f"video:{video_file}?loop=0&realtime=0") as source:
        images = list(source.frames())
    assert len(images) == 12
    assert images[0].shape == (48, 64, 3)
    levels = [int(image.mean()) for image in images]
    assert levels == sorted(levels) and levels[-1] - levels[0] > 150


def test_video_file_loops(video_file):
    with open_source(f"video:{video_file}?realtime=0") as source:
        images = list(islice(source.frames(), 30))
    assert len(images) == 30
    assert abs(int(images[12].mean()) - int(images[0].mean())) < 5


def test_video_realtime_paces_frames(video_file):
    with open_source(f"video:{video_file}?loop=0") as source:
        start = time.monotonic()
        count = len(list(source.frames()))
    assert count == 12
    assert time.monotonic() - start >= 11 / 25 * 0.8


def test_missing_or_broken_video_is_a_clear_error(tmp_path):
    with pytest.raises(CameraError, match="no video file at"):
        next(open_source(f"video:{tmp_path / 'none.avi'}").frames())
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00" * 100)
    with pytest.raises(CameraError, match="video"):
        next(open_source(f"video:{broken}").frames())


def test_usb_camera_that_is_not_there_is_a_clear_error():
    with pytest.raises(CameraError, match="no USB camera at index 97"):
        next(open_source("usb:97").frames())


# ---------------------------------------------------------------- picamera2


def test_picamera2_missing_says_how_to_install(no_picamera2):
    source = open_source("picamera2")
    with pytest.raises(CameraError) as caught:
        next(source.frames())
    assert str(caught.value) == sources.PICAMERA2_MISSING
    assert "sudo apt install python3-picamera2" in str(caught.value)
    assert "--system-site-packages" in str(caught.value)


def test_picamera2_gives_frames_of_the_configured_size(fake_picamera2):
    with open_source("picamera2?size=640x360") as source:
        images = list(islice(source.frames(), 3))
        camera = fake_picamera2.INSTANCES[-1]
        assert camera.camera_config["main"] == {"size": (640, 360), "format": "RGB888"}
        assert camera.calls[:3] == ["create_video_configuration", "configure", "start"]
    assert [image.shape for image in images] == [(360, 640, 3)] * 3
    assert [int(image[0, 0, 2]) for image in images] == [0, 1, 2]
    assert camera.calls[-2:] == ["stop", "close"] and not camera.is_open
    source.close()  # a second close is harmless
    assert camera.calls.count("close") == 1


def test_picamera2_still_configuration(fake_picamera2):
    with open_source("picamera2?still=1&size=1280x720") as source:
        image = next(source.frames())
    assert image.shape == (720, 1280, 3)
    assert "create_still_configuration" in fake_picamera2.INSTANCES[-1].calls


def test_picamera2_without_a_camera_module_says_what_to_check(fake_picamera2):
    fake_picamera2.CAMERAS.clear()
    with pytest.raises(CameraError, match="no camera module 0 found by picamera2.*ribbon cable"):
        next(open_source("picamera2").frames())


# ---------------------------------------------------------------- auto


def test_auto_picks_sim_without_a_camera(no_picamera2, monkeypatch):
    monkeypatch.setattr(sources, "usb_camera_present", lambda index=0: False)
    assert sources.resolve_auto() == "sim"
    with open_source("auto") as source:
        assert source.spec.kind == "sim"


@pytest.mark.skipif(sources.usb_camera_present(0), reason="this machine has a USB camera")
def test_auto_picks_sim_on_a_machine_without_cameras(no_picamera2):
    assert sources.resolve_auto() == "sim"


def test_auto_prefers_the_camera_module(fake_picamera2):
    assert sources.resolve_auto() == "picamera2"
    fake_picamera2.CAMERAS.clear()
    assert sources.resolve_auto() != "picamera2"


# ---------------------------------------------------------------- sim


def test_sim_source_renders_frames_with_truth():
    with open_source("sim?seed=2&dice=6&size=640x360&realtime=0") as source:
        images = list(islice(source.frames(), 3))
        truth = source.last_truth
    assert images[0].shape == (360, 640, 3)
    assert len(truth["dice"]) == 6 and truth["index"] == 2


def test_sim_source_realtime_keeps_its_frame_rate():
    with open_source("sim?dice=2&size=320x180&fps=20") as source:
        start = time.monotonic()
        list(islice(source.frames(), 6))
    assert time.monotonic() - start >= 5 / 20 * 0.8


def test_sim_with_an_unknown_colour_or_background_is_named():
    with pytest.raises(SourceError, match="unknown die colour 'pink'"):
        open_source("sim?colours=white,pink")
    with pytest.raises(SourceError, match="background 'nowhere.png'"):
        open_source("sim?background=nowhere.png")
    with pytest.raises(SourceError, match="unknown lighting 'disco'"):
        open_source("sim?lighting=disco")


# ---------------------------------------------------------------- camera thread


class FlakySource(FrameSource):
    """Gives `good` frames, then fails `failures` times in a row (unplugged), then works again."""

    def __init__(self, good=5, failures=2, how="raise"):
        """Fail after `good` frames by `how`: raise, hang or end."""
        super().__init__(parse_spec("sim"))
        self.good, self.failures, self.how = good, failures, how
        self.opened = 0
        self.closes = 0
        self.release = threading.Event()

    def frames(self):
        """Frames whose pixels hold the attempt number."""
        self.closed = False
        self.opened += 1
        attempt = self.opened
        if 1 < attempt <= 1 + self.failures:
            raise CameraError(f"unplugged (attempt {attempt})")
        for number in range(self.good if attempt == 1 else 10**9):
            if self.closed:
                return
            yield np.full((8, 8, 3), attempt, np.uint8)
            time.sleep(0.005)
        if self.how == "raise":
            raise CameraError("unplugged")
        if self.how == "hang":
            self.release.wait(10)
        # "end": the generator just stops

    def close(self):
        """Count closes; unblock a hanging read."""
        super().close()
        self.closes += 1
        self.release.set()


def test_camera_thread_reports_a_lost_camera_and_recovers():
    heard = []
    source = FlakySource(good=5, failures=2)
    with CameraThread(source, retry_s=0.05, when_status=heard.append) as camera:
        wait_until(lambda: camera.latest() is not None and int(camera.latest().image[0, 0, 0]) == 4)
        assert camera.is_ok and camera.status == "running: sim"
    assert heard[0] == "running: sim"
    # The back-off grows while the camera stays away.
    assert heard[1:4] == [
        "camera lost: unplugged; retrying every 0.05 s",
        "camera lost: unplugged (attempt 2); retrying every 0.075 s",
        "camera lost: unplugged (attempt 3); retrying every 0.1125 s",
    ]
    assert heard[-2:] == ["running: sim", "closed: sim"]
    assert source.opened == 4


def test_camera_thread_notices_a_camera_that_hangs():
    source = FlakySource(good=3, failures=0, how="hang")
    with CameraThread(source, retry_s=0.05, timeout_s=0.3) as camera:
        wait_until(lambda: camera.status.startswith("camera lost: no frame for"))
        assert not camera.is_ok
        assert camera.status.endswith("; retrying every 0.05 s")
        wait_until(lambda: int(camera.latest().image[0, 0, 0]) == 2)
        assert camera.is_ok


def test_camera_thread_latest_never_waits_and_frames_count_up():
    with CameraThread("sim?dice=3&size=320x180&fps=50") as camera:
        assert camera.latest() is None or camera.latest().index >= 0
        first = camera.wait_for_frame(timeout=5)
        second = camera.wait_for_frame(after=first.index, timeout=5)
        start = time.perf_counter()
        for _ in range(100):
            camera.latest()
        assert time.perf_counter() - start < 0.05
    assert second.index > first.index and second.t_ms > first.t_ms
    assert second.image.shape == (180, 320, 3)


def test_camera_thread_ends_quietly_with_a_finite_source(tmp_path):
    write_images(tmp_path, 3)
    with CameraThread(f"folder:{tmp_path}") as camera:
        wait_until(lambda: camera.status.startswith("ended"))
        assert camera.latest().index == 2
        assert camera.status == f"ended: folder:{tmp_path} has no more frames"


def test_camera_thread_with_a_camera_that_is_not_there_keeps_trying(no_picamera2):
    with CameraThread("picamera2", retry_s=0.05) as camera:
        wait_until(lambda: camera.status.startswith("camera lost"))
        assert camera.status == f"camera lost: {sources.PICAMERA2_MISSING}; retrying every 0.05 s"
        assert camera.latest() is None
    camera.close()  # a second close is harmless
    assert camera.status == "closed: picamera2"


def test_camera_thread_recovers_the_picamera2_stand_in(fake_picamera2):
    fake_picamera2.FAIL_AFTER = 3
    fake_picamera2.FAILURES_LEFT = 1
    heard = []
    with CameraThread("picamera2?size=320x240", retry_s=0.05, when_status=heard.append) as camera:
        wait_until(lambda: len(fake_picamera2.INSTANCES) == 2 and camera.latest().index >= 6)
    assert any(s.startswith("camera lost: the camera module stopped giving frames (Device timeout") for s in heard)
    assert fake_picamera2.INSTANCES[0].calls[-2:] == ["stop", "close"]


def test_sim_source_tells_the_truth_of_a_frame_the_camera_thread_kept():
    source = open_source("sim?seed=1&dice=4&size=320x180&fps=40&roll_every=0.5")
    with CameraThread(source) as camera:
        frame = camera.wait_for_frame(after=3, timeout=5)
        truth = source.truth_of(frame.image)
    assert truth is not None and len(truth["dice"]) == 4 and truth["index"] >= 3
    assert set(truth["rested_ms"]) == {0}
    assert source.truth_of(np.zeros((2, 2, 3), np.uint8)) is None


def test_a_table_built_by_the_caller_is_a_source_too():
    from vision.simulator import SimTable

    picture = np.full((300, 400, 3), (40, 200, 240), np.uint8)
    homography = np.array([[1.0, 0.0, 40.0], [0.0, 1.0, 20.0], [0.0, 0.0, 1.0]])
    table = SimTable(seed=2, dice=4, seats=2, size=(480, 340), die_size=20, roll_every=0, fps=30,
                     background=picture, homography=homography, zones=[(60, 40, 220, 300), (260, 40, 420, 300)])
    with sources.sim_source(table, realtime=False) as source:
        image = next(source.frames())
    assert image.shape == (340, 480, 3)
    assert abs(int(image[170, 240, 2]) - 240) < 40 and int(image[5, 5, 2]) < 200  # the picture, and the table around it
    assert {d["seat"] for d in source.last_truth["dice"]} == {0, 1}
    assert all(60 <= d["centre"][0] <= 420 for d in source.last_truth["dice"])


def test_sim_with_more_dice_than_fit_says_so():
    with pytest.raises(SourceError, match="seat 0's zone is too small for its dice"):
        open_source("sim?dice=80&size=320x180&die_size=30")


def test_sim_with_dice_too_big_for_a_seat_says_so_and_what_to_do():
    # The zone once left no room for a die's place and numpy's "high - low < 0" was all it said.
    with pytest.raises(SourceError, match=r"seat 0's zone \(621x461 px\) is too small for dice of .* use smaller dice"):
        open_source("sim?die_size=200&dice=1&size=640x480&realtime=0")


def test_sim_with_big_dice_and_clutter_lays_the_things_that_fit():
    # Cards and tokens beside dice of 250 px are too big for a full-HD frame; beads still fit.
    source = open_source("sim?die_size=250&clutter=3&dice=1&realtime=0")
    assert 1 <= len(source.table.scene.clutter) <= 3


def test_clutter_that_cannot_fit_the_table_at_all_is_named():
    from vision.simulator import random_clutter

    with pytest.raises(ValueError, match="things that are not dice do not fit beside dice of 400 px on a 900x900 table"):
        random_clutter(np.random.default_rng(0), 3, 400.0, 900, 900, [])
    assert random_clutter(np.random.default_rng(0), 0, 400.0, 900, 900, []) == ()

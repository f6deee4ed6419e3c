"""`companion serve`'s composition: the seats' mock pins under the phones' buttons, the mute switch, the camera."""

from __future__ import annotations

import argparse

import cv2
import pytest

from companion.commands import serve
from companion.settings import Settings
from tests.support import PIN, OpenedTables, demo_settings, wait_for


def settings_for(tmp_path, source: str = "none", pin_factory: str = "mock") -> Settings:
    """Settings of a demo table in the test's folder: short countdown, mock pins, the given camera."""
    return demo_settings(tmp_path / "data", source, pin_factory=pin_factory)


@pytest.fixture
def opened():
    """Open tables (closed at the end of the test)."""
    tables = OpenedTables()
    yield tables.open
    tables.close()


def test_a_phone_press_goes_through_the_seats_mock_pin_and_the_race_still_works(tmp_path, opened, meeting) -> None:
    """In the demo the on-screen button drives seat 2's mock button; the press wins the race and the card."""
    table = opened(settings_for(tmp_path))
    assert table.board is not None and table.camera is None
    client = table.app.test_client()
    assert client.post("/api/start", json={"pin": PIN, "players": ["Ana", "Ben", "Cy"], "leader": 0, "seed": 5}).status_code == 200
    state = wait_for(lambda: (s := client.get("/api/state").json)["phase"] == "open" and s)
    card = state["display"][0]["id"]
    assert client.post("/api/act", json={"kind": "roll", "seat": 1, "dice": meeting(state, 1, card)}).status_code == 200
    button = table.board.seats[1]
    assert button.presses == 0
    answer = client.post("/api/act", json={"kind": "press", "seat": 1})
    assert answer.status_code == 200 and answer.json["accepted"]
    assert button.presses == 1  # the seat's button saw the edge
    assert all(seat.presses == 0 for seat in table.board.seats if seat is not button)
    rescued = wait_for(lambda: client.get("/api/state").json["seats"][1]["rescued"])
    assert rescued == [card]
    race = client.get("/api/state").json["last_race"]
    assert race["winner"] == 1 and race["presses"][0][2] == "phone"


def test_a_refused_phone_press_also_goes_through_the_pin(tmp_path, opened) -> None:
    """A press before Go is refused with the reason, and it was still the seat's button that was pressed."""
    table = opened(settings_for(tmp_path))
    client = table.app.test_client()
    client.post("/api/start", json={"pin": PIN, "players": ["Ana", "Ben"], "leader": 0, "seed": 1})
    answer = client.post("/api/act", json={"kind": "press", "seat": 0})
    assert answer.status_code == 409 and "not open yet" in answer.json["error"]
    assert table.board.seats[0].presses == 1


def test_the_host_mutes_the_buzzer_with_the_pin(tmp_path, opened) -> None:
    """The host page's switch sets the board's muted flag; without the PIN nothing changes."""
    table = opened(settings_for(tmp_path))
    client = table.app.test_client()
    assert client.get("/api/sound").json == {"board": True, "muted": False}
    assert client.post("/api/sound", json={"muted": True}).status_code == 401
    assert table.board.muted is False
    assert client.post("/api/sound", json={"muted": True, "pin": PIN}).json == {"board": True, "muted": True}
    assert table.board.muted is True
    assert "Mute the buzzer" in client.get("/host").get_data(as_text=True)


def test_without_buttons_there_is_nothing_to_mute_and_phones_press_the_session(tmp_path, opened) -> None:
    """With [pins] pin_factory = "none" the phones press the session directly and the host is told there is no buzzer."""
    table = opened(settings_for(tmp_path, pin_factory="none"))
    client = table.app.test_client()
    assert table.board is None
    answer = client.post("/api/sound", json={"muted": True, "pin": PIN})
    assert answer.status_code == 409 and "nothing to mute" in answer.json["error"]
    client.post("/api/start", json={"pin": PIN, "players": ["Ana", "Ben"], "leader": 0, "seed": 1})
    assert "not open yet" in client.post("/api/act", json={"kind": "press", "seat": 0}).json["error"]


def test_no_camera_the_phones_enter_the_dice(tmp_path, opened) -> None:
    """With no camera the camera routes say so in a sentence, and Roll for me rolls on the server."""
    table = opened(settings_for(tmp_path, source="none"))
    client = table.app.test_client()
    assert client.get("/api/camera").json["message"] == "No camera: the phones enter the dice."
    picture = client.get("/api/camera/frame.jpg")
    assert picture.status_code == 409 and picture.json["error"] == "No camera: the phones enter the dice."
    assert client.post("/api/camera/calibrate", json={"pin": PIN}).status_code == 409
    client.post("/api/start", json={"pin": PIN, "players": ["Ana", "Ben"], "leader": 0, "seed": 1})
    rolled = client.post("/api/act", json={"kind": "roll_random", "seat": 0})
    assert rolled.status_code == 200 and len(rolled.json["seats"][0]["dice"]) == 5
    for page in ("/camera", "/calibrate", "/teach"):
        assert client.get(page).status_code == 200


def test_a_bad_camera_spec_is_reported_and_the_table_still_opens(tmp_path, opened, caplog) -> None:
    """A source string that names no camera leaves the phones entering dice, with the reason in the log."""
    table = opened(settings_for(tmp_path, source="usb:one"))
    assert table.camera is None
    assert "The phones enter the dice" in caplog.text and "usb:one" in caplog.text


def test_a_real_camera_without_calibration_says_so_and_calibrates_from_the_phone(tmp_path, opened, caplog) -> None:
    """A camera (a folder of pictures of the mat) with no calibration file: serve says so, the phones enter dice;
    the Calibrate page then finds the mat, saves the file and the camera starts reading."""
    from calibration.demo import mat_table

    frames = tmp_path / "frames"
    frames.mkdir()
    sim, _view = mat_table(seats=3, size=(1280, 720), seed=2)
    cv2.imwrite(str(frames / "table.png"), sim.next_frame()[0])
    table = opened(settings_for(tmp_path, source=f"folder:{frames}?loop=1&fps=5"))
    client = table.app.test_client()
    assert table.camera is not None and "no usable calibration" in caplog.text
    status = client.get("/api/camera").json
    assert status["camera"] and not status["calibrated"]
    assert "there is no calibration file yet" in status["message"] and "phones enter the dice" in status["message"]
    assert client.post("/api/camera/calibrate", json={}).status_code == 401
    result = client.post("/api/camera/calibrate", json={"pin": PIN}).json
    assert result["found_mat"] and result["seats"] == 3 and result["saved"].endswith("calibration.json")
    assert (tmp_path / "data" / "calibration.json").is_file()
    picture = client.get("/api/camera/calibration.jpg")
    assert picture.status_code == 200 and picture.data[:2] == b"\xff\xd8"
    status = wait_for(lambda: (s := client.get("/api/camera").json)["seats"] and s)
    assert status["calibrated"] and status["message"].startswith("The camera reads the dice")
    assert {seat["seat"] for seat in status["seats"]} == {0, 1, 2}


def test_the_source_option_overrides_the_settings(tmp_path) -> None:
    """--source replaces [camera] source."""
    args = argparse.Namespace(settings=None, port=None, host=None, data_dir=str(tmp_path), source="sim?seed=4")
    assert serve._settings(args).camera.source == "sim?seed=4"


def test_the_terminal_says_what_the_camera_does(tmp_path, opened) -> None:
    """serve prints one line about the camera: none (phones enter dice) or what it reads."""
    table = opened(settings_for(tmp_path, source="none"))
    assert serve.camera_line(table) == "Camera: none; the phones enter the dice (pass --source to use one)."


# waitress leaves its listening socket unclosed when binding fails (the process ends right after, in serve).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_busy_port_or_a_wrong_host_is_said_in_a_sentence(tmp_path, opened, capsys) -> None:
    """`companion serve` on a port another program holds, or on a host that is no address: a sentence, status 2."""
    import dataclasses
    import gc
    import socket

    settings = settings_for(tmp_path)
    table = opened(settings)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = dataclasses.replace(settings.server, host="127.0.0.1", port=holder.getsockname()[1])
        assert serve.serve(table, dataclasses.replace(settings, server=busy)) == 2
    assert "another program uses it, so pass --port with another number." in capsys.readouterr().err
    nowhere = dataclasses.replace(settings.server, host="999.1.1.1", port=8000)
    assert serve.serve(table, dataclasses.replace(settings, server=nowhere)) == 2
    assert "cannot listen on 999.1.1.1:8000" in capsys.readouterr().err
    gc.collect()  # waitress's unclosed socket is reported here, inside this test

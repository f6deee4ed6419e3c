"""`companion doctor` on this machine (no camera, no GPIO), with good and bad settings."""

from __future__ import annotations

import argparse
import threading
import time

from companion.commands import doctor
from companion.settings import SeatPins
from hardware.board import TableBoard
from hardware.selftest import button_test, led_test


def run_doctor(tmp_path, settings_text: str | None = None, source: str = "sim?realtime=0&size=320x240"):
    """Run the doctor non-interactively on a temp data folder; return (exit status, lines by check)."""
    settings = None
    if settings_text is not None:
        settings = tmp_path / "settings.toml"
        settings.write_text(settings_text)
    args = argparse.Namespace(settings=settings and str(settings), data_dir=str(tmp_path / "data"),
                              source=source, no_interactive=True, timeout=1.0)
    return doctor.run(args)


def verdicts(output: str) -> dict[str, str]:
    """{check name: its status} from the doctor's output."""
    return {line.split()[0]: line.split()[1] for line in output.splitlines()
            if line[:1].strip() and len(line.split()) > 1 and line.split()[1] in ("OK", "WARN", "FAIL")}


def test_doctor_on_a_laptop_warns_but_passes(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    status = run_doctor(tmp_path)
    out = capsys.readouterr().out
    assert status == 0
    assert verdicts(out) == {"settings": "OK", "camera": "OK", "pins": "WARN", "calibration": "WARN", "disk": "OK"}
    assert "no GPIO pins here (lgpio: No module named 'lgpio'" in out
    assert "not calibrated yet" in out and "companion calibrate" in out
    assert out.rstrip().endswith("All set.")


def test_doctor_runs_the_led_test_on_mock_pins(tmp_path, capsys):
    status = run_doctor(tmp_path, '[pins]\npin_factory = "mock"\n')
    out = capsys.readouterr().out
    assert status == 0
    assert "mock pins (no GPIO on this machine)" in out and "LED test passed on 5 seats" in out


def test_doctor_names_what_is_wrong_and_fails(tmp_path, capsys):
    status = run_doctor(tmp_path, "[pins]\nbuttons = [5, 6, 13, 19, 26]\nleds = [12, 16, 20, 21, 26]\n",
                        source="folder:" + str(tmp_path / "no-such-folder"))
    out = capsys.readouterr().out
    assert status == 1
    assert verdicts(out)["pins"] == "FAIL" and verdicts(out)["camera"] == "FAIL"
    assert "GPIO 26 is given to both the seat 5 button and the seat 5 LED" in out
    assert "Something needs fixing: camera, pins." in out


def test_a_broken_settings_file_is_named_and_the_rest_still_checked(tmp_path, capsys):
    status = run_doctor(tmp_path, "[pins]\nbuzer = 4\n")
    out = capsys.readouterr().out
    assert status == 1
    assert "unknown setting 'buzer'" in out
    assert set(verdicts(out)) == {"settings", "camera", "pins", "calibration", "disk"}


def test_an_unreadable_calibration_fails(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "calibration.json").write_text("{not json")
    run_doctor(tmp_path)
    assert verdicts(capsys.readouterr().out)["calibration"] == "FAIL"


def test_led_and_button_tests_on_mock_pins(factory):
    pins = SeatPins(buttons=(5, 6), leds=(12, 16))
    with TableBoard(pins, pin_factory=factory) as board:
        assert led_test(board, step_s=0.0) == []
        assert [s for s in factory.pin(12).states if s.state == 1.0]  # the LED really lit

        def press_seat_1_only() -> None:
            """A player presses seat 1's button a moment after being asked."""
            time.sleep(0.05)
            factory.pin(5).drive_low()
            factory.pin(5).drive_high()

        threading.Thread(target=press_seat_1_only).start()
        asked: list[str] = []
        assert button_test(board, timeout_s=0.3, say=asked.append) == [1]
        assert asked[0].startswith("  press seat 1's button (GPIO5, header pin 29)")
        assert board.seats[0].led.value == 1.0

"""The Pi install: the systemd unit, the install script, and the wiring picture kept in step with the defaults."""

from __future__ import annotations

import configparser
import re
import subprocess
from pathlib import Path

from companion.settings import SeatPins
from hardware.wiring_svg import wiring_svg

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "deploy" / "rescue-companion.service"
SCRIPT = REPO / "deploy" / "install-pi.sh"


def unit() -> configparser.ConfigParser:
    """The unit file, parsed (systemd's format is INI-like)."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read_string(UNIT.read_text())
    return parser


def test_the_unit_restarts_after_crash_and_boot_and_logs_to_the_journal():
    parsed = unit()
    assert parsed["Unit"]["After"] == "network-online.target"
    assert parsed["Unit"]["Wants"] == "network-online.target"
    service = parsed["Service"]
    assert service["Restart"] == "always"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "video"}
    assert service["StandardOutput"] == service["StandardError"] == "journal"
    assert service["ExecStart"] == "@VENV@/bin/companion serve --settings @SETTINGS@"
    assert service["WorkingDirectory"] == "@REPO@"
    assert parsed["Install"]["WantedBy"] == "multi-user.target"


def test_the_install_script_fills_every_placeholder_of_the_unit():
    placeholders = set(re.findall(r"@[A-Z]+@", UNIT.read_text()))
    filled = set(re.findall(r"s\|(@[A-Z]+@)\|", SCRIPT.read_text()))
    assert placeholders == filled == {"@USER@", "@HOME@", "@REPO@", "@VENV@", "@SETTINGS@"}


def test_the_install_script_is_valid_bash_with_what_the_pi_needs():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    text = SCRIPT.read_text()
    for needed in ("python3-picamera2", "python3-lgpio", "--system-site-packages", "adduser",
                   "systemctl enable rescue-companion.service", 'pip" install -e'):
        assert needed in text


def test_the_wiring_picture_shows_the_default_pins():
    assert (REPO / "docs" / "wiring.svg").read_text(encoding="utf-8") == wiring_svg(SeatPins()), \
        "docs/wiring.svg is out of date: run python3 -m hardware.wiring_svg"

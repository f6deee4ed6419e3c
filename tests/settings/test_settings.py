"""The settings file: defaults, known fields, and a sentence (never a traceback) for a bad file."""

from __future__ import annotations

import subprocess
import sys

import pytest

from companion.errors import SettingsError
from companion.settings import Settings, load_settings


def test_no_file_means_the_defaults():
    assert load_settings(None) == Settings()


def test_a_known_field_is_read_and_an_unknown_one_named(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text("[race]\ntie_window_ms = 25\n")
    assert load_settings(path).race.tie_window_ms == 25.0
    path.write_text("[race]\ntie_windo = 25\n")
    with pytest.raises(SettingsError, match="unknown setting 'tie_windo'"):
        load_settings(path)


@pytest.mark.parametrize("make, words", [
    (lambda p: p.mkdir(), "cannot be read as a settings file"),
    (lambda p: p.write_bytes(b"\xff\xfe[race]"), "cannot be read as a settings file"),
    (lambda p: p.write_text("[race\n"), "not valid TOML"),
    (lambda p: None, "no such settings file"),
])
def test_a_bad_settings_file_gets_a_sentence(tmp_path, make, words):
    path = tmp_path / "settings.toml"
    make(path)
    with pytest.raises(SettingsError, match=words):
        load_settings(path)


@pytest.mark.parametrize("command", ["serve", "doctor", "calibrate"])
def test_a_settings_folder_given_to_a_command_is_a_sentence_not_a_traceback(tmp_path, command):
    done = subprocess.run([sys.executable, "-m", "companion.cli", command, "--settings", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    assert "cannot be read as a settings file" in done.stderr + done.stdout

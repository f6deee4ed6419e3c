"""Fixtures of the vision tests: the stand-in picamera2 module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FAKE_PICAMERA2 = Path(__file__).parent / "fake_picamera2"


@pytest.fixture
def fake_picamera2(monkeypatch):
    """Make `import picamera2` find the stand-in (one camera, never failing); undone afterwards."""
    monkeypatch.syspath_prepend(str(FAKE_PICAMERA2))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    import picamera2

    picamera2.reset()
    yield picamera2
    picamera2.reset()
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)


@pytest.fixture
def no_picamera2(monkeypatch):
    """Make `import picamera2` fail, as on a laptop."""
    monkeypatch.setitem(sys.modules, "picamera2", None)

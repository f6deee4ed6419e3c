"""Every module's tuning constants: each is set once at module level (a second setting of the same
name, far down a long module, silently overrides the first and every rule that reads it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "vision", "hardware", "web", "calibration", "training", "benchmarks")


def constants_set(source: str) -> list[str]:
    """The upper-case names a module's top-level statements assign, once per assignment."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for element in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(element, ast.Name) and element.id.isupper():
                    names.append(element.id)
    return names


def set_twice(source: str) -> list[str]:
    """The upper-case names a module assigns more than once at top level."""
    names = constants_set(source)
    return sorted({name for name in names if names.count(name) > 1})


def test_a_constant_set_twice_is_found():
    """A name set a second time in a tuple assignment is caught, a subscript assignment is not one."""
    source = "SIDE_PIPS = 2.5\nMASK = [0]\nMASK[0] = 1\nSIDE_REACH, SIDE_PIPS = 1.5, 0.4\n"
    assert set_twice(source) == ["SIDE_PIPS"]


@pytest.mark.parametrize("path", sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_each_constant_is_set_once(path: Path):
    """No module sets one of its constants twice."""
    twice = set_twice(path.read_text())
    assert not twice, f"{path.relative_to(ROOT)} sets {', '.join(twice)} more than once: the later setting overrides the earlier"

"""Options of the whole test run: --dice-judge reads every test's dice with a candidate judge model."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

# The judge lent for the run, given back at its end.
_LENT = pytest.StashKey[ExitStack]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add --dice-judge=PATH."""
    # Given with '=': with a space, pytest takes PATH for what to test (its rootdir) before it reads
    # this file's options, and finds neither the project's settings nor this option.
    parser.addoption("--dice-judge", type=Path, default=None,
                     help="read dice with this judge model (.onnx) instead of the shipped one, given as --dice-judge=PATH: which tests a candidate "
                          "from training/train_dice_judge.py --write --out PATH would break before it is shipped")


def pytest_configure(config: pytest.Config) -> None:
    """Lend the reader the judge given for the whole run; a file that is no judge model stops the run."""
    path = config.getoption("--dice-judge")
    if path is None:
        return
    from vision import dice
    from vision.dice_judge import candidate_judge

    try:
        judge = candidate_judge(path)
    except ValueError as problem:
        raise pytest.UsageError(f"--dice-judge {problem}") from None
    config.stash[_LENT] = stack = ExitStack()
    stack.enter_context(dice.judged_by(judge))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give the reader its shipped judge back."""
    stack = config.stash.get(_LENT, None)
    if stack is not None:
        stack.close()

"""The `companion` command: the composition root that wires sources, session and outputs together."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each subcommand lives in companion/commands/<name>.py with add_parser(subparsers) and run(args).
# A module that is not there yet is simply not offered, so parts can land one at a time.
SUBCOMMANDS = ("serve", "read", "calibrate", "doctor")


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand that is installed."""
    parser = argparse.ArgumentParser(prog="companion", description="The rescue table companion.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"companion.commands.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"companion.commands.{name}":
                raise
            continue
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the `companion` command and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

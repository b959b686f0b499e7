"""`globalgen`: the command-line entry point; each subcommand lives in cli/<name>.py (add_parser + run)."""

from __future__ import annotations

import argparse
import importlib
import sys

# Subcommands in help order; modules import heavy dependencies (torch, rclpy) only inside run().
COMMANDS = ("ask", "eval", "train", "understand", "stop-ngrams", "export", "import", "heads", "bench", "record",
            "replay", "demo")
# a command whose module is not named like it (`import` is a keyword, `stop-ngrams` has a hyphen)
MODULES = {"import": "import_model", "stop-ngrams": "stop_ngrams"}


def module_name(command: str) -> str:
    """Return the module of a subcommand under globalgen_ros.cli."""
    return f"globalgen_ros.cli.{MODULES.get(command, command)}"


def build_parser() -> argparse.ArgumentParser:
    """Return the parser with every subcommand registered."""
    parser = argparse.ArgumentParser(prog="globalgen", description="On-board language model for ROS 2 robots.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        try:
            module = importlib.import_module(module_name(name))
        except ImportError as e:  # a subcommand whose optional dependency is missing stays listed with the reason
            p = subparsers.add_parser(name, help=f"(unavailable: {e})")
            p.set_defaults(_unavailable=str(e))
            continue
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen subcommand."""
    args = build_parser().parse_args(argv)
    if getattr(args, "_unavailable", None):
        print(f"globalgen {args.command}: unavailable ({args._unavailable}); install the missing package",
              file=sys.stderr)
        return 2
    module = importlib.import_module(module_name(args.command))
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

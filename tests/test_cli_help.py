"""Every subcommand, option and argument of `python -m bot` says what it is for."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from bot import cli


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """The top-level parser and every subcommand's parser, by command path."""
    found = {"python -m bot": cli.make_parser()}
    pending = list(found.items())
    while pending:
        name, parser = pending.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command, sub in action.choices.items():
                    found[f"{name} {command}"] = sub
                    pending.append((f"{name} {command}", sub))
    return found


def test_every_subcommand_has_help() -> None:
    parser = cli.make_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helped = {choice.dest: choice.help for choice in sub._choices_actions}
    assert set(helped) == set(sub.choices)
    missing = [name for name, text in helped.items() if not text]
    assert not missing, f"subcommands without help: {missing}"


def test_every_option_and_argument_has_help() -> None:
    missing = []
    for name, parser in _parsers().items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{name}: {'/'.join(action.option_strings) or action.dest}")
    assert not missing, "actions without help text:\n" + "\n".join(missing)


@pytest.mark.parametrize("command", [[], *[[c] for c in ("run", "oplist", "build", "regenerate", "pr", "deps")]])
def test_help_prints_and_exits_cleanly(command: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "bot", *command, "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: python -m bot")
    assert "None" not in proc.stdout  # a default printed as None reads like a bug

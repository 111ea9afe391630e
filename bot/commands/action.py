"""`python -m bot action`: the GitHub Action's entry point."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from bot.github import action

    return action.main()

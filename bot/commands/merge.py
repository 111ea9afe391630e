"""`python -m bot merge`: shard reports merged into one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot import config
from bot.errors import BotError, ExitCode
from bot.report import artifact, patch, publish, verdict
from bot.safety.redact import current


def run(args: argparse.Namespace) -> int:
    loaded = [artifact.load(path) for path in args.reports]
    merged = artifact.merge([r for r, _ in loaded])
    # Each shard's patch beside its report (none when nothing it checked was stale): one patch.
    patches = [artifact.load_patch(path.with_suffix(patch.SUFFIX)) for path in args.reports]
    try:
        diffs = patch.merge(p for p in patches if p is not None)
    except patch.PatchError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    pr_info = next((info for _, info in loaded if info), {})
    # The markdown is for the job summary; the poster judges the merged JSON again with its own policy.
    judged = verdict.judge(merged, config.policy_at(Path(".").resolve(), merged.base_sha))
    md_path, json_path = args.output.with_suffix(".md"), args.output.with_suffix(".json")
    publish.write_report(merged, judged, current(), md_path, json_path, pr_info, diffs=diffs)
    print(f"merged {len(loaded)} report(s) into {md_path}", file=sys.stderr)
    return ExitCode.OK

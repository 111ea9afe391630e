#!/usr/bin/env bash
# The main job: set up, build the all-ops runtime, run every bundled model and
# compare with ExecuTorch's reference outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec python3 -m bot zoo "$@"

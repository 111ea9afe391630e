#!/usr/bin/env bash
# The main job: set up, then run the whole PR pipeline locally on this repo's
# own history (the last commit as the PR, its parent as the base) with the
# bundled models. Writes selective-build-report.md; needs no GitHub.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec python3 -m bot pr --base "${1:-HEAD~1}"

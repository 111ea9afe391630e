#!/usr/bin/env bash
# The test command: sets up (idempotent), then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 -m ruff check bot tests models benchmarks
set +e
# One worker per core; a module's tests stay on one worker, so its fixtures (builds, exports) are made once
# (tests/conftest.py gives each worker a sandbox uid of its own). A worker that dies ends the run: a
# replaced one could leave the rest waiting on the lost worker's tests.
python3 -m pytest -n auto --dist loadfile --max-worker-restart=0 "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$status"

#!/usr/bin/env bash
# The test command: sets up (idempotent), then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 -m ruff check bot tests models benchmarks
set +e
# Serial until a parallel run (-n auto --dist loadfile, which tests/conftest.py prepares for) is clean:
# its one fresh-clone run had a fixture's git repo lose files under it.
python3 -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$status"

#!/usr/bin/env bash
# Run the tests: set up .venv, lint with ruff, run pytest on test/ with ROS 2 confined to this machine.
# Extra arguments go to pytest (e.g. bash scripts/test.sh -k messages -x).
set -euo pipefail

bash "$(dirname "${BASH_SOURCE[0]}")/setup_venv.sh"
source "$(dirname "${BASH_SOURCE[0]}")/ros_env.sh"
cd "$ROOT"
mkdir -p "$ROS_LOG_DIR"
echo "[test] ROS_DOMAIN_ID=$ROS_DOMAIN_ID ROS_AUTOMATIC_DISCOVERY_RANGE=$ROS_AUTOMATIC_DISCOVERY_RANGE ROS_LOG_DIR=$ROS_LOG_DIR"

ruff_status=0
"$VENV/bin/ruff" check . || ruff_status=$?

pytest_status=0
"$VENV/bin/python" -m pytest "$@" || pytest_status=$?  # no path arguments: testpaths (test/) from pyproject.toml

if (( pytest_status != 0 )); then
  exit "$pytest_status"
fi
if (( ruff_status != 0 )); then
  echo "[test] tests passed, but ruff found problems (above): fix them, or run ruff check --fix ." >&2
  exit "$ruff_status"
fi

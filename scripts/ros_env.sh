# Source this file: ROS 2 settings of the scripts, the venv as ament prefix. Sets ROOT and VENV.
# ROS traffic stays on this machine (LOCALHOST discovery); the domain id is the caller's, or one derived from the
# shell's PID (the test session then reserves a free one of its own, see test/ros_harness.py).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${GLOBALGEN_VENV:-$ROOT/.venv}"
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_STATIC_PEERS=""
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( $$ % 100 + 1 ))}"
export ROS_LOG_DIR="${ROS_LOG_DIR:-$ROOT/.ros_log}"
# What `source install/setup.bash` does in a colcon workspace: the venv is the prefix the package was installed to.
export AMENT_PREFIX_PATH="$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export PATH="$VENV/bin:$PATH"

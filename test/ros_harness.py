"""Run ROS 2 test processes on loopback only: session environment, child processes, waits with timeouts."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
TEST_DIR = REPO_ROOT / "test"
FASTDDS_PROFILE = TEST_DIR / "fastdds_profile.xml"
PACKAGE = "globalgen_ros"

_session_stack = contextlib.ExitStack()
_process_counter = itertools.count()


def configure_session() -> dict[str, str]:
    """Confine ROS 2 to loopback and reserve a free domain id for this test session; return the settings."""
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"  # never discover beyond this machine
    os.environ["ROS_STATIC_PEERS"] = ""
    os.environ.setdefault("ROS_LOG_DIR", str(REPO_ROOT / ".ros_log"))
    os.environ.setdefault("FASTDDS_DEFAULT_PROFILES_FILE", str(FASTDDS_PROFILE))
    os.environ.setdefault("AMENT_PREFIX_PATH", sys.prefix)  # the venv is the ament prefix of the pip build
    os.environ.setdefault("RCUTILS_COLORIZED_OUTPUT", "0")
    # Generated message classes check field types and ranges on assignment only when this is 1: tests want that.
    os.environ.setdefault("ROS_PYTHON_CHECK_FIELDS", "1")
    os.environ["ROS_DOMAIN_ID"] = str(_reserve_domain_id(os.environ.get("ROS_DOMAIN_ID", "")))
    Path(os.environ["ROS_LOG_DIR"]).mkdir(parents=True, exist_ok=True)
    keys = ("ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_LOG_DIR", "FASTDDS_DEFAULT_PROFILES_FILE")
    return {key: os.environ[key] for key in keys}


def release_session() -> None:
    """Release the domain id reserved by configure_session()."""
    _session_stack.close()


def _reserve_domain_id(preferred: str) -> int:
    """Hold a domain id (1-100) no other test session on this machine holds, trying `preferred` first."""
    from domain_coordinator import domain_id

    start = int(preferred) - 1 if preferred.isdigit() and 1 <= int(preferred) <= 100 else os.getpid()
    candidates = ((start + i) % 100 + 1 for i in itertools.count())
    return _session_stack.enter_context(domain_id(selector=lambda: next(candidates)))


def ros_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Return the environment of a child ROS process: this session's settings, the source tree first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def executable(name: str) -> str:
    """Return the path of an installed console script (venv bin/ first, then lib/globalgen_ros of the prefix)."""
    candidates = [Path(sys.executable).parent / name]
    with contextlib.suppress(Exception):
        from ament_index_python.packages import get_package_prefix

        candidates.append(Path(get_package_prefix(PACKAGE)) / "lib" / PACKAGE / name)
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    tried = ", ".join(str(p) for p in candidates)
    raise FileNotFoundError(f"executable {name!r} not found (tried {tried}): run `bash scripts/setup_venv.sh`")


def _default_sigint() -> None:
    """In the child, before exec: Ctrl-C's default action. A test run started as a background job (`pytest &`)
    ignores SIGINT, children inherit that, and a SIGINT sent while a child imports would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class RosProcess:
    """A child process with the session's ROS environment; its output goes to a file under ROS_LOG_DIR."""

    def __init__(self, argv: Sequence[str], *, name: str, env: dict[str, str] | None = None):
        self.name = name
        self.argv = list(argv)
        log_dir = Path(os.environ.get("ROS_LOG_DIR", REPO_ROOT / ".ros_log")) / "test_processes"
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"{os.getpid()}-{next(_process_counter)}-{name}.log"
        self._log = open(self.log_path, "wb")  # closed in stop()
        self.popen = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                      env=ros_environment(env), cwd=REPO_ROOT, preexec_fn=_default_sigint)

    def output(self) -> str:
        """Return everything the process has written so far (also after stop())."""
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_bytes().decode("utf-8", errors="replace")

    def wait_for_output(self, text: str, timeout: float = 20.0) -> str:
        """Wait until `text` appears in the output; fail early with the output if the process exits first."""
        deadline = time.monotonic() + timeout
        while True:
            out = self.output()
            if text in out:
                return out
            if self.popen.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.popen.returncode} before printing {text!r}:\n"
                                     f"{out}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} did not print {text!r} within {timeout} s:\n{out}")
            time.sleep(0.02)

    def wait(self, timeout: float = 20.0) -> int:
        """Wait for the process to exit by itself and return its exit code."""
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"{self.name} still running after {timeout} s:\n{self.output()}") from None

    def stop(self, timeout: float = 10.0) -> int:
        """Interrupt the process (SIGINT, as Ctrl-C does), kill it if it does not exit in time; return its code."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGINT)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self._log.close()
        return self.popen.returncode


def wait_for_matching(entity, timeout: float = 10.0, count: int = 1) -> None:
    """Wait until a publisher has `count` matched subscriptions (or a subscription `count` publishers)."""
    if hasattr(entity, "get_subscription_count"):
        matched, kind = entity.get_subscription_count, "subscription"
    else:
        matched, kind = entity.get_publisher_count, "publisher"
    deadline = time.monotonic() + timeout
    while matched() < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{entity.topic_name}: {matched()} matching {kind}(s) after {timeout} s, "
                               f"expected {count} (ROS_DOMAIN_ID={os.environ.get('ROS_DOMAIN_ID')})")
        time.sleep(0.01)


def spin_until(executor, condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Spin `executor` until `condition()` holds; raise TimeoutError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"{what} not reached within {timeout} s")
        executor.spin_once(timeout_sec=min(0.05, remaining))

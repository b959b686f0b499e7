"""Start globalgen_node from its console script and talk to it from the test process (real DDS)."""

from __future__ import annotations

import contextlib

import rclpy
from rcl_interfaces.msg import SetParametersResult
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from ros_harness import REPO_ROOT, RosProcess, executable

from globalgen_ros.ros.client import NodeClient

PARAMS_FILE = REPO_ROOT / "config" / "globalgen.yaml"


def start_node(*overrides: str, params_file=PARAMS_FILE, env: dict[str, str] | None = None,
               name: str = "globalgen_node") -> RosProcess:
    """Start `globalgen_node --ros-args --params-file FILE -p a:=b ...` in the session's ROS environment."""
    args = ["--ros-args", "--params-file", str(params_file)]
    for override in overrides:
        args += ["-p", override]
    return RosProcess([executable("globalgen_node"), *args], name=name, env=env)


@contextlib.contextmanager
def running_node(*overrides: str, env: dict[str, str] | None = None):
    """Start globalgen_node, wait until it is active, yield a Session; stop it and check it exited cleanly."""
    process = start_node(*overrides, env=env)
    session = Session(process)
    try:
        session.wait_ready()
        yield session
    finally:
        session.close()
        assert process.stop() == 0, process.output()


class Session:
    """A client node in its own rclpy context, plus a parameter client for /globalgen_node."""

    def __init__(self, process: RosProcess | None = None):
        self.process = process
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.client = NodeClient(context=self.context)
        self.params = AsyncParameterClient(self.client.node, "/globalgen_node")

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until the node is active (its topics matched) and its parameter services answer."""
        if self.process is not None:
            self.process.wait_for_output("active: listening", timeout)
        self.client.wait_for_node(timeout)
        assert self.params.wait_for_services(timeout_sec=timeout), "parameter services of globalgen_node"

    def set(self, **values) -> list[SetParametersResult]:
        """Set node parameters (double underscores in the keyword stand for dots); return the results."""
        params = [Parameter(name.replace("__", "."), value=value) for name, value in values.items()]
        future = self.params.set_parameters(params)
        self.client.spin_until(future.done, 10.0, "set_parameters")
        return list(future.result().results)

    def set_ok(self, **values) -> None:
        """Set node parameters and fail the test if any is rejected."""
        results = self.set(**values)
        assert all(r.successful for r in results), [r.reason for r in results]

    def get(self, *names: str) -> list:
        """Return the current values of node parameters."""
        future = self.params.get_parameters(list(names))
        self.client.spin_until(future.done, 10.0, "get_parameters")
        return [Parameter.from_parameter_msg(_named(n, v)).value for n, v in zip(names, future.result().values,
                                                                                  strict=True)]

    def close(self) -> None:
        self.client.close()
        self.context.try_shutdown()


def _named(name, value):
    from rcl_interfaces.msg import Parameter as ParameterMsg
    return ParameterMsg(name=name, value=value)

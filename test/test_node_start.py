"""globalgen_node start-up: parameter file values, clear errors for bad parameters or a missing model, and the
lifecycle driven from another process."""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest
import yaml
from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState, GetState
from node_fixtures import PARAMS_FILE, Session, start_node

from globalgen_ros.msg import Response
from globalgen_ros.ros.params import SPECS

FILE_VALUES = yaml.safe_load(PARAMS_FILE.read_text(encoding="utf-8"))["/**/globalgen_node"]["ros__parameters"]


def _flatten(tree: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in tree.items():
        out.update(_flatten(value, f"{prefix}{key}.") if isinstance(value, dict) else {f"{prefix}{key}": value})
    return out


@pytest.fixture
def node_process():
    """Return start_node; every process started stops at teardown, whatever the test did."""
    started = []

    def start(*args, **kwargs):
        started.append(start_node(*args, **kwargs))
        return started[-1]

    yield start
    for process in started:
        process.stop()


def test_parameter_file_lists_every_parameter_once():
    assert sorted(_flatten(FILE_VALUES)) == sorted(spec.name for spec in SPECS)


def test_every_parameter_is_documented():
    doc = (PARAMS_FILE.parents[1] / "docs" / "node.md").read_text(encoding="utf-8")
    missing = [spec.name for spec in SPECS if f"`{spec.name}`" not in doc]
    assert not missing, f"docs/node.md does not describe {missing}"


def test_console_script_with_params_file_has_the_files_values(node_process):
    process = node_process("autostart:=false", "watchdog.deadline_ms:=123.5")  # -p after the file wins
    session = Session(process)
    try:
        process.wait_for_output("waiting for configure", 30.0)
        assert session.params.wait_for_services(timeout_sec=30.0)
        expected = _flatten(FILE_VALUES) | {"autostart": False, "watchdog.deadline_ms": 123.5}
        names = sorted(expected)
        got = [list(v) if isinstance(v, array) else v for v in session.get(*names)]  # integer arrays
        assert dict(zip(names, got, strict=True)) == expected
    finally:
        session.close()
        assert process.stop() == 0


def _params_file(tmp_path: Path, **values) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"/**/globalgen_node": {"ros__parameters": values}}), encoding="utf-8")
    return path


@pytest.mark.parametrize("values, expected", [
    ({"watchdog": {"deadline_ms": "fast"}}, ["watchdog.deadline_ms", "expecting type 'DOUBLE'"]),
    ({"cloud": {"timeout_s": 5}}, ["cloud.timeout_s", "5.0 instead of 5"]),
    ({"queue": {"max_size": 0}}, ["queue.max_size", "1 <= value <= 10000"]),
    ({"strategy": "turbo"}, ["strategy", "must be one of ar, parallel, confident"]),
    ({"cloud": {"base_url": "ftp://cloud/v1"}}, ["cloud.base_url", "http://"]),
    ({"cache": {"windows": [128, 64]}}, ["cache.windows", "ascending"]),
    ({"cache": {"warm_format": "fp16"}}, ["cache.warm_format", "must be one of int8, fp32"]),
])
def test_bad_parameter_in_file_stops_the_node_with_a_clear_error(node_process, tmp_path, values, expected):
    process = node_process(params_file=_params_file(tmp_path, **values))
    assert process.wait(60.0) == 2
    out = process.output()
    assert "invalid parameter" in out and all(text in out for text in expected), out


def test_cache_window_beyond_the_model_fails_configure(node_process, tmp_path):
    process = node_process(params_file=_params_file(tmp_path, cache={"windows": [64, 512]}))
    assert process.wait(60.0) == 1
    out = process.output()
    assert "configure failed" in out and "exceed the model's 256-token context" in out, out


def test_missing_model_fails_configure_with_the_path(node_process, tmp_path):
    missing = tmp_path / "no_model_here"
    process = node_process(f"model_dir:={missing}")
    assert process.wait(60.0) == 1
    out = process.output()
    assert "configure failed" in out and str(missing) in out, out


_clients: dict = {}


def _service_client(session: Session, srv_type, name: str):
    """Create a service client once per session: a fresh client per call may miss its first response."""
    key = (id(session), name)
    if key not in _clients:
        _clients[key] = session.client.node.create_client(srv_type, name)
    return _clients[key]


def _transition(session: Session, transition_id: int) -> bool:
    client = _service_client(session, ChangeState, "/globalgen_node/change_state")
    assert client.wait_for_service(timeout_sec=30.0)
    future = client.call_async(ChangeState.Request(transition=Transition(id=transition_id)))
    session.client.spin_until(future.done, 120.0, f"transition {transition_id}")
    return future.result().success


def _state(session: Session) -> str:
    client = _service_client(session, GetState, "/globalgen_node/get_state")
    assert client.wait_for_service(timeout_sec=30.0)
    future = client.call_async(GetState.Request())
    session.client.spin_until(future.done, 60.0, "get_state")
    return future.result().current_state.label


def test_lifecycle_driven_from_another_process(node_process):
    process = node_process("autostart:=false")
    session = Session(process)
    try:
        process.wait_for_output("waiting for configure", 30.0)
        assert _state(session) == "unconfigured"
        assert _transition(session, Transition.TRANSITION_CONFIGURE) and _state(session) == "inactive"
        assert _transition(session, Transition.TRANSITION_ACTIVATE) and _state(session) == "active"
        session.client.wait_for_node(30.0)
        final = session.client.ask("导航到西单大悦城", timeout=60.0)
        assert final.status == Response.STATUS_OK
        assert _transition(session, Transition.TRANSITION_DEACTIVATE) and _state(session) == "inactive"
        assert _transition(session, Transition.TRANSITION_CLEANUP) and _state(session) == "unconfigured"
    finally:
        session.close()
        assert process.stop() == 0

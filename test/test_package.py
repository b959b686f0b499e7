"""The ROS 2 package: package.xml, launch and parameter files, and what the build installs."""

import ast
import os
import tomllib
from pathlib import Path

import pytest
from ament_index_python.packages import get_package_prefix, get_package_share_directory
from catkin_pkg.package import parse_package
from rclpy.node import Node
from ros_harness import PACKAGE, REPO_ROOT

import globalgen_ros

LAUNCH_FILE = REPO_ROOT / "launch" / "globalgen.launch.py"
PARAMS_FILE = REPO_ROOT / "config" / "globalgen.yaml"
SHARED_FILES = ["package.xml", "launch/globalgen.launch.py", "config/globalgen.yaml", "config/intents.yaml",
                "msg/Transcript.msg", "msg/Response.msg", "msg/ActionIntent.msg", "msg/AudioChunk.msg"]


def _pyproject():
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_package_xml_is_valid_format_3_with_its_dependencies():
    """package.xml passes catkin_pkg's validation and names what the package builds and runs with."""
    package = parse_package(str(REPO_ROOT / "package.xml"))  # raises InvalidPackage with the reason
    package.validate()
    assert package.package_format == 3
    assert package.name == PACKAGE
    assert package.version == _pyproject()["project"]["version"] == globalgen_ros.__version__
    assert [e.content for e in package.exports if e.tagname == "build_type"] == ["ament_cmake"]
    assert [g.name for g in package.member_of_groups] == ["rosidl_interface_packages"]
    buildtool = {d.name for d in package.buildtool_depends}
    assert {"ament_cmake", "ament_cmake_python", "rosidl_default_generators"} <= buildtool
    runtime = {d.name for d in package.exec_depends}
    assert {"rosidl_default_runtime", "rclpy", "builtin_interfaces", "std_msgs", "diagnostic_msgs",
            "lifecycle_msgs", "launch_ros", "python3-numpy", "python3-yaml"} <= runtime
    assert "builtin_interfaces" in {d.name for d in package.build_depends}


def test_cmake_project_name_is_the_package_name():
    """CMakeLists.txt declares the project under the package.xml name (ament_package() requires it)."""
    assert f"project({PACKAGE} " in (REPO_ROOT / "CMakeLists.txt").read_text(encoding="utf-8")


def test_parameter_file_configures_globalgen_node_in_any_namespace(ros_context):
    """rcl's parameter-file parser gives a node named globalgen_node, in a namespace, the file's values."""
    node = Node("globalgen_node", namespace="/robot1", context=ros_context,
                cli_args=["--ros-args", "--params-file", str(PARAMS_FILE)],
                automatically_declare_parameters_from_overrides=True)
    try:
        assert node.get_parameter("strategy").value == "parallel"
        assert node.get_parameter("max_new_tokens").value == 64
        assert node.get_parameter("model_dir").value == ""
        assert node.get_parameter("autostart").value is True
    finally:
        node.destroy_node()


def _launch_tree():
    return ast.parse(LAUNCH_FILE.read_text(encoding="utf-8"), filename=str(LAUNCH_FILE))


def _keyword_constants(tree, keyword):
    return [kw.value.value for node in ast.walk(tree) if isinstance(node, ast.Call) for kw in node.keywords
            if kw.arg == keyword and isinstance(kw.value, ast.Constant)]


def test_launch_file_declares_its_arguments_and_nodes():
    """The launch file defines generate_launch_description(), its arguments, and nodes of this package."""
    tree = _launch_tree()
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "generate_launch_description" in functions
    arguments = {node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and getattr(node.func, "id", "") == "DeclareLaunchArgument"}
    assert {"namespace", "params_file", "use_asr", "autostart"} <= arguments
    used = {node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "LaunchConfiguration"}
    assert used <= arguments, f"undeclared launch arguments: {used - arguments}"
    assert set(_keyword_constants(tree, "package")) == {PACKAGE}
    assert set(_keyword_constants(tree, "executable")) == {"globalgen_node", "asr_node"}
    calls = {getattr(node.func, "id", "") for node in ast.walk(tree) if isinstance(node, ast.Call)}
    assert "LifecycleNode" in calls


def test_launch_file_imports_only_launch_and_ros_modules():
    """The launch file imports launch, launch_ros and nothing of this package (it must load without the model)."""
    modules = set()
    for node in ast.walk(_launch_tree()):
        if isinstance(node, ast.ImportFrom):
            modules.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
    assert modules <= {"launch", "launch_ros", "ament_index_python", "lifecycle_msgs", "os", "pathlib"}


def test_share_directory_holds_the_installed_files():
    """The build installed package.xml, launch, parameter, schema and message files, same as in the source tree."""
    share = Path(get_package_share_directory(PACKAGE))
    for relative in SHARED_FILES:
        installed = share / relative
        assert installed.is_file(), f"{installed} missing: run `bash scripts/setup_venv.sh`"
        assert installed.read_bytes() == (REPO_ROOT / relative).read_bytes(), \
            f"{installed} differs from the source tree (stale install): run `bash scripts/setup_venv.sh`"


@pytest.mark.parametrize("name", ["globalgen_node", "asr_node", "globalgen"])
def test_ros2_run_executables_call_the_console_script_entry_points(name):
    """lib/globalgen_ros/<name> (for `ros2 run`) calls the same function as the console script in pyproject.toml."""
    executable = Path(get_package_prefix(PACKAGE)) / "lib" / PACKAGE / name
    assert executable.is_file() and os.access(executable, os.X_OK), f"{executable} missing or not executable"
    module, function = _pyproject()["project"]["scripts"][name].split(":")
    tree = ast.parse(executable.read_text(encoding="utf-8"))
    imports = [(n.module, alias.name) for n in tree.body if isinstance(n, ast.ImportFrom) for alias in n.names]
    assert (module, function) in imports

"""Launch globalgen_node (a lifecycle node) and, optionally, the ASR bridge asr_node."""

from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import LifecycleNode, Node
from launch_ros.descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription


def generate_launch_description():
    """Declare the launch arguments and the nodes they configure."""
    namespace = LaunchConfiguration("namespace")
    params_file = LaunchConfiguration("params_file")
    log_level = LaunchConfiguration("log_level")
    return LaunchDescription([
        DeclareLaunchArgument(
            "namespace", default_value="",
            description="namespace of the nodes (topics become <namespace>/asr/transcript, ...)"),
        DeclareLaunchArgument(
            "params_file",
            default_value=PathJoinSubstitution([FindPackageShare("globalgen_ros"), "config", "globalgen.yaml"]),
            description="ROS 2 parameter file of the nodes (sections /**/globalgen_node and /**/asr_node)"),
        DeclareLaunchArgument(
            "autostart", default_value="true", choices=["true", "false"],
            description="globalgen_node configures and activates itself; false leaves it unconfigured for a "
                        "lifecycle manager (or `ros2 lifecycle set`)"),
        DeclareLaunchArgument(
            "use_asr", default_value="false", choices=["true", "false"],
            description="also start asr_node, which publishes asr/transcript from audio/pcm or a WAV file"),
        DeclareLaunchArgument(
            "log_level", default_value="info", choices=["debug", "info", "warn", "error", "fatal"],
            description="log level of the nodes"),
        # The node loads the model in on_configure; with autostart it runs configure and activate by itself, so
        # the launch file emits no transitions (a second configure request would be refused).
        LifecycleNode(
            package="globalgen_ros",
            executable="globalgen_node",
            name="globalgen_node",
            namespace=namespace,
            parameters=[params_file, {"autostart": ParameterValue(LaunchConfiguration("autostart"), value_type=bool)}],
            ros_arguments=["--log-level", log_level],
            output="screen",
            emulate_tty=True,
        ),
        Node(
            package="globalgen_ros",
            executable="asr_node",
            name="asr_node",
            namespace=namespace,
            parameters=[params_file],
            ros_arguments=["--log-level", log_level],
            output="screen",
            condition=IfCondition(LaunchConfiguration("use_asr")),
        ),
    ])

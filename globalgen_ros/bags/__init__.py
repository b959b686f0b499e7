"""rosbag2 bags of globalgen_ros messages: utterance scripts, writing and reading (no rclpy needed)."""

from globalgen_ros.bags.io import BagError, BagMessage, BagWriter, bag_topics, read_bag, write_script_bag
from globalgen_ros.bags.script import Script, ScriptError, Utterance, load_script

__all__ = ["BagError", "BagMessage", "BagWriter", "Script", "ScriptError", "Utterance", "bag_topics",
           "load_script", "read_bag", "write_script_bag"]

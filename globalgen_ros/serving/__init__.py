"""ROS-free serving rules: the stop reflex, confirmation, and the checks every answer passes."""

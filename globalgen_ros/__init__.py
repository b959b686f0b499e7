"""globalgen_ros: a fast on-board language model for ROS 2 robots and vehicles."""

# The generated message module (globalgen_ros.msg) is installed by the CMake build into site-packages,
# while developers run the source tree first on sys.path: let both halves form one package.
from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)
__version__ = "0.1.0"

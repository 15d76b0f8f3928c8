# The single source of this distribution's version (read by hatchling at build time); a plain
# constant because importlib.metadata alone costs ~50 ms of import time.
__version__ = "0.1.0"

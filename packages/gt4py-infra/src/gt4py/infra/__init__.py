"""gt4py.infra."""

from importlib.metadata import PackageNotFoundError as _PackageNotFoundError, version as _version

try:
    __version__: str = _version("gt4py-infra")
except _PackageNotFoundError:  # running from a source tree without metadata
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]

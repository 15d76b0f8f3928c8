"""Placeholders for uxarray and zarr in the icon4py compat environment (not working modules).

icon4py 0.4.1's driver imports ``icon4py.model.common.io``, which imports uxarray
(``io.ugrid``) and zarr (``io.zarr_writers``) at module level; it only uses them to write
output (``DriverConfig.enable_output``), which compat/icon4py/run_driver.py leaves off. They
and their dependencies are not installed by install.sh (output only), so run_driver.py puts
compat/icon4py/shims on ``sys.path`` for whichever of the two does not import. A class name
(``zarr.Array`` in an annotation) gives a class that cannot be instantiated; any other use
raises.
"""

from collections.abc import Callable


def placeholder_getattr(module: str) -> Callable[[str], object]:
    """The module ``__getattr__`` of the placeholder named ``module``."""

    def missing(name: str) -> ImportError:
        return ImportError(
            f"{module}.{name}: {module} is not installed in the icon4py compat environment "
            "(compat/icon4py/shims holds a placeholder); icon4py's driver output needs the real one"
        )

    def getattr_(name: str) -> object:
        if name[:1].isupper():

            def refuse(cls: type, *args: object, **kwargs: object) -> None:
                raise missing(name)

            return type(name, (), {"__new__": refuse, "__module__": module})
        raise missing(name)

    return getattr_

"""Placeholder for uxarray in the icon4py compat environment (not a working uxarray).

icon4py 0.4.1's driver imports ``icon4py.model.common.io``, which imports uxarray
(``io.ugrid``) and zarr (``io.zarr_writers``) at module level; it only uses them to write
output (``DriverConfig.enable_output``), which compat/icon4py/run_driver.py leaves off. Their
current releases need numpy >= 2 (this workspace pins numpy 1.26), so run_driver.py puts
compat/icon4py/shims on ``sys.path`` for whichever of the two does not import. A class name
(``zarr.Array`` in an annotation) gives a class that cannot be instantiated; any other use
raises.
"""


def _missing(name: str) -> ImportError:
    return ImportError(
        f"{__name__}.{name}: {__name__} is not installed in the icon4py compat environment "
        "(compat/icon4py/shims holds a placeholder); icon4py's driver output needs the real one"
    )


def __getattr__(name: str) -> object:
    if name[:1].isupper():

        def refuse(cls: type, *args: object, **kwargs: object) -> None:
            raise _missing(name)

        return type(name, (), {"__new__": refuse, "__module__": __name__})
    raise _missing(name)

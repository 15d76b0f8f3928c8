"""Placeholder for zarr in the icon4py compat environment: see ../_placeholder.py."""

from _placeholder import placeholder_getattr


__getattr__ = placeholder_getattr(__name__)

"""Released gt4py's module path for its backends, kept for code that imports it (icon4py)."""

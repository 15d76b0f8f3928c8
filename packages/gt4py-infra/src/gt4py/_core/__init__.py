"""Released gt4py's ``gt4py._core`` by its old path (its names live in ``gt4py.infra`` now)."""

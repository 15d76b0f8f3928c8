"""Released gt4py's ``gt4py.next.instrumentation`` by its old path: ``metrics`` and ``hooks``.

Metrics are collected by :mod:`gt4py.next.metrics` (``collect_metrics_level``); ``metrics``
here offers released gt4py's names for its levels and reports.
"""

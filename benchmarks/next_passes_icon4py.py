"""Where a cold build of ICON's largest programs spends its time before the C++ compiler:
lowering, each IR pass, C++ generation (issue 28, item 2).

    .venv-3.12/bin/python benchmarks/next_passes_icon4py.py --site ICON4PY_SITE [--runs 3]

``ICON4PY_SITE`` is a directory ``compat/icon4py/install.sh`` filled. Per program (muphys'
``graupel_run`` and ``muphys_run``): the median CPU time over ``--runs`` of lowering, of each
pass of ``default_pipeline`` in its order (``choose_temporaries``, ``infer_domains``,
``fold_constants``, ``cse``, ``share_values``) with and without the collector pause the
pipeline uses, and of the gtfn_cpu C++ generation; the IR and C++ sizes. ``--cpp DIR`` also
writes the generated C++ there, to time the compiler on it by hand. No cache is read or
written: every figure is a cold one.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import pathlib
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


PROGRAMS = {
    "graupel_run": "icon4py.model.atmosphere.subgrid_scale_physics.muphys.implementations.graupel",
    "muphys_run": "icon4py.model.atmosphere.subgrid_scale_physics.muphys.implementations.muphys",
}


def _cpu(runs: int, collect: bool, step: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """The median CPU time of ``step(*args)`` and its (last) result."""
    times, result = [], None
    for _ in range(runs):
        gc.collect()
        if not collect:
            gc.disable()
        start = time.process_time()
        try:
            result = step(*args)
        finally:
            elapsed = time.process_time() - start
            gc.enable()
        times.append(elapsed)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", required=True, help="icon4py site directory (install.sh)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cpp", type=pathlib.Path, help="write the generated C++ here")
    args = parser.parse_args()
    sys.path.insert(0, args.site)

    from gt4py.next import ir, passes
    from gt4py.next.backends.gtfn import _steps
    from gt4py.next.lowering._programs import lower_program

    stages: list[tuple[str, Callable[[ir.Program], ir.Program]]] = [
        ("choose_temporaries", passes.choose_temporaries),
        ("infer_domains", passes.infer_domains),
        ("fold_constants", passes.fold_constants),
        ("cse", passes.cse),
        ("share_values", passes.share_values),
    ]
    print(f"median CPU seconds over {args.runs} runs (collector on / paused)")
    for name, module in PROGRAMS.items():
        program = getattr(importlib.import_module(module), name)
        lowering, lowered = _cpu(args.runs, True, lower_program, program)
        print(f"{name}: lowering {lowering:.2f} s, IR {len(ir.to_text(lowered)) / 1e3:.0f} kB")
        current = lowered
        total_on = total_off = 0.0
        for label, run in stages:
            on, _ = _cpu(args.runs, True, run, current)
            off, current = _cpu(args.runs, False, run, current)
            total_on, total_off = total_on + on, total_off + off
            print(f"  {label:<20} {on:6.2f} / {off:6.2f} s")
        print(
            f"  {'passes':<20} {total_on:6.2f} / {total_off:6.2f} s, "
            f"IR {len(ir.to_text(current)) / 1e3:.0f} kB"
        )
        translation = _steps.GTFNTranslation(_steps.GTFNConfig(build_type="Release"))
        seconds, module_ = _cpu(args.runs, True, translation, current, {})
        (source_text,) = module_.sources.values()
        print(
            f"  {'C++ generation':<20} {seconds:6.2f} s, {len(source_text) / 1e3:.0f} kB, "
            f"longest line {max(map(len, source_text.splitlines())) / 1e3:.0f} kB"
        )
        if args.cpp:
            args.cpp.mkdir(parents=True, exist_ok=True)
            (args.cpp / f"{name}.cpp").write_text(source_text)


if __name__ == "__main__":
    main()

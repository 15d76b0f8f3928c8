"""Node construction and tree traversal: gt4py.eve of this workspace vs released gt4py.eve.

The same workload runs under both implementations, each in its own interpreter:

    uv run python benchmarks/eve_bench.py                       # driver: both, side by side
    uv run python benchmarks/eve_bench.py --impl ours           # one implementation, JSON out
    $GT4PY_RELEASED_PYTHON benchmarks/eve_bench.py --impl released

Released gt4py 1.2.3 needs Python >= 3.12; the driver runs it with ``--released-python``
(default ``$GT4PY_RELEASED_PYTHON``, a venv with ``gt4py==1.2.3``). Ours runs through
``uv run`` (the workspace's Python) unless ``--ours-python`` names another interpreter with
this workspace's gt4py-eve installed (to compare on the same Python version). Only the
public API of released ``gt4py.eve`` is used.

Workloads (medians over ``--repeats`` runs, on an equivalent expression IR):
- construct:  build a ~100 000-node tree (every node validated on construction), per node;
- construct-small: ``BinOp(Literal, Name)`` built over and over, per node;
- visit:      a NodeVisitor pass over the whole tree (``visit_Literal`` counts leaves);
- translate-identity: a NodeTranslator pass that changes nothing;
- translate-rebuild:  a NodeTranslator pass that replaces every literal (rebuilds ~all nodes).
"""

# No ``from __future__ import annotations``: the IR classes are defined inside a function and
# their annotations must be evaluated there, for both implementations alike.

import argparse
import enum
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


DEFAULT_RELEASED_PYTHON = os.environ.get("GT4PY_RELEASED_PYTHON", "")


def _define_ir(eve: Any, node_base: Any) -> dict[str, Any]:
    """The benchmark IR on top of ``node_base``; identical source for both implementations."""

    class Operator(enum.Enum):
        ADD = "+"
        MUL = "*"

    class Expr(node_base):
        pass

    class Literal(Expr):
        value: int

    class Name(Expr):
        id: str

    class BinOp(Expr):
        op: Operator
        left: Expr
        right: Expr

    class Call(Expr):
        func: str
        args: list[Expr]

    class Assign(node_base):
        target: str
        value: Expr

    class Module(node_base):
        name: str
        body: list[Assign]

    # Annotations name classes local to this function: make them resolvable by name.
    namespace = {
        "Operator": Operator,
        "Expr": Expr,
        "Literal": Literal,
        "Name": Name,
        "BinOp": BinOp,
        "Call": Call,
        "Assign": Assign,
        "Module": Module,
    }
    return namespace


def _build_tree(ir: dict[str, Any], n_statements: int = 1500, depth: int = 5) -> Any:
    Literal, Name, BinOp, Call, Assign, Module, Operator = (
        ir[k] for k in ("Literal", "Name", "BinOp", "Call", "Assign", "Module", "Operator")
    )

    def balanced(level: int, start: int) -> Any:
        if level == 0:
            return Literal(value=start)
        half = 2 ** (level - 1)
        return BinOp(
            op=Operator.ADD,
            left=balanced(level - 1, start),
            right=balanced(level - 1, start + half),
        )

    body = [
        Assign(
            target=f"v{i}",
            value=BinOp(
                op=Operator.MUL,
                left=balanced(depth, i),
                right=Call(func="f", args=[Name(id=f"v{i - 1}"), Literal(value=i)]),
            ),
        )
        for i in range(n_statements)
    ]
    return Module(name="bench", body=body)


def _count_nodes(tree: Any, node_base: type) -> int:
    count = 0
    stack = [tree]
    while stack:
        value = stack.pop()
        if isinstance(value, node_base):
            count += 1
            stack.extend(getattr(value, name) for name in _field_names(value))
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return count


def _field_names(node: Any) -> list[str]:
    import attrs

    return [a.name for a in attrs.fields(type(node))]


def _median_seconds(function: Callable[[], Any], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run_workloads(impl: str, repeats: int) -> dict[str, Any]:
    # Both implementations are imported the same way; which one depends on the interpreter.
    from gt4py import eve

    if impl == "ours" and not hasattr(eve, "nodes"):
        raise SystemExit("--impl ours: this interpreter has released gt4py, not the workspace's")
    if impl == "released" and hasattr(eve, "nodes"):
        raise SystemExit("--impl released: this interpreter has the workspace's gt4py-eve")
    node_base = eve.Node
    ir = _define_ir(eve, node_base)

    tree = _build_tree(ir)
    n_nodes = _count_nodes(tree, node_base)

    Literal, Name, BinOp, Operator = (ir[k] for k in ("Literal", "Name", "BinOp", "Operator"))

    def construct_small() -> None:
        for i in range(10_000):
            BinOp(op=Operator.ADD, left=Literal(value=i), right=Name(id="a"))

    class CountLiterals(eve.NodeVisitor):
        def __init__(self) -> None:
            self.count = 0

        def visit_Literal(self, node: Any) -> None:
            self.count += 1

    class Identity(eve.NodeTranslator):
        pass

    class RebuildLiterals(eve.NodeTranslator):
        def visit_Literal(self, node: Any) -> Any:
            return Literal(value=node.value + 1)

    visitor = CountLiterals()
    visitor.visit(tree)
    expected_literals = visitor.count
    rebuilt = RebuildLiterals().visit(tree)
    assert rebuilt != tree and _count_nodes(rebuilt, node_base) == n_nodes

    results = {
        "impl": impl,
        "python": sys.version.split()[0],
        "nodes": n_nodes,
        "seconds": {
            "construct": _median_seconds(lambda: _build_tree(ir), repeats),
            "construct-small": _median_seconds(construct_small, repeats),
            "visit": _median_seconds(lambda: CountLiterals().visit(tree), repeats),
            "translate-identity": _median_seconds(lambda: Identity().visit(tree), repeats),
            "translate-rebuild": _median_seconds(lambda: RebuildLiterals().visit(tree), repeats),
        },
        "literals": expected_literals,
    }
    results["per_node_us"] = {
        name: seconds / (30_000 if name == "construct-small" else n_nodes) * 1e6
        for name, seconds in results["seconds"].items()
    }
    return results


def _run_child(command: list[str]) -> dict[str, Any]:
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise SystemExit(f"benchmark child {' '.join(command)} failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def drive(repeats: int, released_python: str, rounds: int, ours_python: str | None) -> None:
    script = str(Path(__file__).resolve())
    ours_interpreter = ["uv", "run", "--frozen", "python"] if ours_python is None else [ours_python]
    ours_command = [*ours_interpreter, script, "--impl", "ours", "--repeats", str(repeats)]
    released_command = [released_python, script, "--impl", "released", "--repeats", str(repeats)]
    if not os.path.exists(released_python):
        raise SystemExit(
            f"released gt4py interpreter {released_python} not found; create it with\n"
            "  uv venv -p 3.12 R && "
            'uv pip install -p R/bin/python "gt4py==1.2.3" and set GT4PY_RELEASED_PYTHON=R/bin/python'
        )
    # Alternate the two implementations so that machine load affects both alike.
    ours_runs, released_runs = [], []
    for _ in range(rounds):
        ours_runs.append(_run_child(ours_command))
        released_runs.append(_run_child(released_command))

    def merged(runs: list[dict[str, Any]]) -> dict[str, float]:
        return {
            name: statistics.median(run["per_node_us"][name] for run in runs)
            for name in runs[0]["per_node_us"]
        }

    ours, released = merged(ours_runs), merged(released_runs)
    print(
        f"tree: {ours_runs[0]['nodes']} nodes (ours) / {released_runs[0]['nodes']} nodes (released); "
        f"ours on Python {ours_runs[0]['python']}, released gt4py.eve on Python {released_runs[0]['python']}; "
        f"median of {rounds} rounds x {repeats} repeats"
    )
    print(f"{'workload':<22}{'ours us/node':>14}{'released us/node':>18}{'ours/released':>15}")
    for name in ours:
        ratio = ours[name] / released[name]
        print(f"{name:<22}{ours[name]:>14.3f}{released[name]:>18.3f}{ratio:>14.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--impl", choices=["ours", "released"], help="run one implementation, print JSON"
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3, help="driver: alternating rounds per impl")
    parser.add_argument("--released-python", default=DEFAULT_RELEASED_PYTHON)
    parser.add_argument(
        "--ours-python",
        default=None,
        help="driver: interpreter with this workspace's gt4py-eve installed (default: uv run), "
        "e.g. a Python 3.12 venv to compare on the same interpreter version as released",
    )
    args = parser.parse_args()
    if args.impl is None:
        drive(args.repeats, args.released_python, args.rounds, args.ours_python)
    else:
        print(json.dumps(run_workloads(args.impl, args.repeats)))


if __name__ == "__main__":
    main()

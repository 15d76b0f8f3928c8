"""Time strict fingerprints of a 100 000-node IR-like tree of frozen dataclasses.

    uv run python benchmarks/infra_fingerprint_bench.py [--nodes N] [--repeat R]

Prints the median wall time of R runs (each on a freshly built tree, so no run profits from
an earlier one beyond the per-type dispatch cache, as in a real process) and the rate.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import statistics
import time

from gt4py.infra import fingerprinting as fp


class BinaryOperator(enum.Enum):
    ADD = "+"
    MUL = "*"


@dataclasses.dataclass(frozen=True)
class SymbolRef:
    name: str


@dataclasses.dataclass(frozen=True)
class Literal:
    value: str
    dtype: str


@dataclasses.dataclass(frozen=True)
class BinaryOp:
    op: BinaryOperator
    left: object
    right: object
    location: tuple[int, int] | None = dataclasses.field(
        default=None, metadata={fp.METADATA_KEY: False}
    )


@dataclasses.dataclass(frozen=True)
class Call:
    function: str
    args: tuple[object, ...]


@dataclasses.dataclass(frozen=True)
class Negate:
    operand: object


def build_tree(nodes: int) -> object:
    """A balanced tree of exactly ``nodes`` dataclass nodes, built bottom-up."""
    leaf_count = max(nodes // 2, 1)
    layer: list[object] = [
        SymbolRef(f"field_{i % 97}") if i % 2 else Literal(str(i), "float64")
        for i in range(leaf_count)
    ]
    # Each combination turns two subtrees into one with one new node: 2L - 1 nodes in all.
    while len(layer) > 1:
        combined: list[object] = []
        for i in range(0, len(layer) - 1, 2):
            if i % 6 == 4:
                combined.append(Call("sqrt", (layer[i], layer[i + 1])))
            else:
                op = BinaryOperator.ADD if i % 4 else BinaryOperator.MUL
                combined.append(BinaryOp(op, layer[i], layer[i + 1], location=(i, i + 1)))
        if len(layer) % 2:
            combined.append(layer[-1])
        layer = combined
    root = layer[0]
    for _ in range(nodes - (2 * leaf_count - 1)):
        root = Negate(root)
    return root


def count_nodes(root: object) -> int:
    stack, total = [root], 0
    while stack:
        node = stack.pop()
        if dataclasses.is_dataclass(node):
            total += 1
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
        elif isinstance(node, tuple):
            stack.extend(node)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    times = []
    digest = None
    for _ in range(args.repeat):
        tree = build_tree(args.nodes)
        start = time.perf_counter()
        result = fp.strict(tree)
        times.append(time.perf_counter() - start)
        assert digest in (None, result), "strict fingerprint changed between identical trees"
        digest = result
    nodes = count_nodes(build_tree(args.nodes))
    median = statistics.median(times)
    print(f"strict fingerprint of a {nodes}-node dataclass tree: {digest}")
    print(
        f"median of {args.repeat} runs: {median * 1e3:.1f} ms "
        f"({median / nodes * 1e6:.2f} us/node; min {min(times) * 1e3:.1f} ms, "
        f"max {max(times) * 1e3:.1f} ms)"
    )


if __name__ == "__main__":
    main()

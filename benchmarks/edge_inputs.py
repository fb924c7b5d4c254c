"""Count the distinct inputs each class of edge test sends, per spec, in one run of the suites against the reference.

Run: python benchmarks/edge_inputs.py [--spec S ...] [--profile dev] [--seed 1]
A test's class is its `edge` marker; an input is one call's operation and arguments (as JSON), so the same request
sent twice counts once. Prints a Markdown table; it measures, it never fails on a figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from ctxconform.conformance.judge._specs import resolve_specs, suite_root
from ctxconform.conformance.transports._implementation import Implementation


class EdgeCounter:
    """A pytest plugin: which edge class each running test has, and every call it makes."""

    def __init__(self) -> None:
        self.edge: str | None = None
        self.spec: str | None = None
        self.inputs: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.tests: dict[tuple[str, str], int] = defaultdict(int)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        """Note the running test's class and spec while it runs."""
        mark = item.get_closest_marker("edge")
        self.edge = str(mark.args[0]) if mark else None
        requirements = [rid for m in item.iter_markers("requirement") for rid in m.args]
        self.spec = requirements[0].split("/")[0] if requirements else None
        if self.edge and self.spec:
            self.tests[(self.spec, self.edge)] += 1
        try:
            return (yield)
        finally:
            self.edge = None

    def record(self, op: str, args: object) -> None:
        """Count one call of the running test."""
        if self.edge and self.spec:
            self.inputs[(self.spec, self.edge)].add(json.dumps([op, args], sort_keys=True, default=repr))


def main(argv: list[str] | None = None) -> int:
    """Run the suites with the counter and print the table."""
    parser = argparse.ArgumentParser(prog="python benchmarks/edge_inputs.py", description=__doc__)
    parser.add_argument("--spec", action="append", metavar="S")
    parser.add_argument("--profile", default="dev")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    counter = EdgeCounter()
    original = Implementation.call

    def counted(self: Implementation, spec: str, op: str, args: object, context: Any = None) -> Any:
        counter.record(op, args)
        return original(self, spec, op, args, context)

    Implementation.call = counted  # type: ignore[method-assign]
    root = suite_root()
    folders = [str(spec.suite) for spec in resolve_specs(options.spec)]
    arguments = [*folders, "-c", str(root / "pytest.ini"), "--rootdir", str(root), "--confcutdir", str(root)]
    arguments += ["--ctxconform-adapter=reference", f"--hypothesis-profile={options.profile}"]
    arguments += [f"--hypothesis-seed={options.seed}", "-q", "--no-header", "-p", "no:cacheprovider", "--tb=no"]
    pytest.main(arguments, plugins=[counter])
    print("\n| spec | edge class | tests | distinct inputs |\n|---|---|---|---|")
    for (spec, edge), count in sorted(counter.tests.items()):
        print(f"| {spec} | {edge} | {count} | {len(counter.inputs[(spec, edge)])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

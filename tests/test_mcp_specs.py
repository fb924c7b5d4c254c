"""Every spec over MCP: the reference's server has a tool for each operation, and the suites pass through mcp+stdio.

read-context's whole suite over MCP is test_cli's, shared-context's test_mcp_shared_context's (slow); here are the
three specs whose tools carry their adapter-protocol operations. In the default session a sample of each runs over
MCP alone (every operation through the golden scripts, plus refusals of each kind), and every test must pass as
in-process; `nox -s slow` runs each whole suite in-process and over MCP and compares the verdicts.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client

from ctxconform.conformance import connect, parse_adapter
from ctxconform.conformance.judge import Spec, specs
from ctxconform.conformance.judge._specs import start_options, suite_root
from ctxconform.conformance.transports._mcp import tool_specs
from helpers import Cli, load_report

MCP: Final = f"mcp+stdio:{sys.executable} -m ctxconform.reference.mcp"
# The default session's sample, per spec: the golden scripts (which call every operation, and are refused where the
# script says so), and refusals of arguments that are not an object, carry an extra field, are malformed, name an
# unknown operation, or that MCP cannot carry (nested 500 deep, a lone surrogate: SKIP).
SAMPLE: Final = {
    "context-assembly": "test_snapshots or (test_bad_input and not arbitrary)",
    "content-provider": "test_snapshots or deeply_nested or huge_content"
    " or (malformed_arguments_are_refused and (-string] or extra-field]))",
    "context-snapshot": "test_snapshots or malformed_create or malformed_arguments_of_the_other or unknown_operation"
    " or (not_unicode and content-high])",
}
Json = dict[str, Any]


def own_suites() -> list[Spec]:
    """The kit's own specs (an installed package's suite is not the reference's to serve)."""
    return [spec for spec in specs().values() if spec.suite.parent == suite_root()]


def suite_operations(spec: Spec) -> set[str]:
    """The operations a suite's client calls: the keys of its `OPERATIONS` table."""
    return set(importlib.import_module(f"ctxconform.conformance.suites.{spec.suite.name}.client").OPERATIONS.table)


def listed_tools(state: Path) -> set[str]:
    """The names of the tools the reference's MCP server lists."""

    async def body() -> set[str]:
        env = {**os.environ, "CTXCONFORM_STATE_DIR": str(state)}
        params = StdioServerParameters(command=sys.executable, args=["-m", "ctxconform.reference.mcp"], env=env)
        async with Client(stdio_client(params), mode="legacy") as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(body)


def test_the_reference_mcp_server_has_a_tool_for_every_operation_of_every_spec(tmp_path: Path) -> None:
    """Each suite's operations are its spec's MCP tools, no tool is two specs', and the server lists exactly those."""
    tools = listed_tools(tmp_path)
    without_tool = {spec.id: sorted(suite_operations(spec) - set(spec.mcp_tools)) for spec in own_suites()}
    assert not any(without_tool.values()), without_tool
    assert sum(len(spec.mcp_tools) for spec in specs().values()) == len(tool_specs())
    assert tools == {tool for spec in own_suites() for tool in spec.mcp_tools}


def test_over_mcp_the_reference_declares_every_spec_as_in_process(tmp_path: Path) -> None:
    """Over mcp+stdio the reference declares every spec, with the version and features it declares in-process."""
    declared = []
    for adapter in ("reference", MCP):
        state = tmp_path / adapter.split(":")[0]
        implementation = connect(parse_adapter(adapter), state, timeout=30, options=start_options(state))
        implementation.start()
        declared.append({spec: (info.version, implementation.features(spec)) for spec, info in implementation.info.specs.items()})
        implementation.stop()
    assert declared[0] == declared[1]
    assert set(declared[1]) == {spec.id for spec in own_suites()}


def run_tests(tmp_path: Path, adapters: list[str], spec_ids: list[str], *selection: str) -> list[dict[str, Json]]:
    """Run the suites of `spec_ids` against each adapter (seed 1): per adapter, each test's result by id."""
    arguments = [arg for adapter in adapters for arg in ("--adapter", adapter)]
    arguments += [arg for spec in spec_ids for arg in ("--spec", spec)]
    done = Cli(tmp_path)("run", *arguments, *selection, "--report-dir", "reports", "--seed", "1", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    return [{t["id"]: t for t in run["tests"]} for run in load_report(tmp_path / "reports")["implementations"]]


def uncarriable(tests: dict[str, Json]) -> set[str]:
    """The tests skipped because the transport cannot carry their input."""
    return {i for i, t in tests.items() if t["verdict"] == "SKIP" and "cannot carry this input" in t["message"]}


def test_a_sample_of_each_suite_passes_over_mcp_bar_inputs_it_cannot_carry(tmp_path: Path) -> None:
    """Over mcp+stdio every test of the sample passes (as each does in-process), or is SKIP as an input MCP cannot carry."""
    keyword = " or ".join(f"({spec.replace('-', '_')} and ({expression}))" for spec, expression in SAMPLE.items())
    (over_mcp,) = run_tests(tmp_path, [MCP], list(SAMPLE), "--keyword", keyword)
    skipped = uncarriable(over_mcp)
    assert {i: t["verdict"] for i, t in over_mcp.items() if i not in skipped} == {i: "PASS" for i in over_mcp if i not in skipped}
    assert {i.split("/")[0].replace("_", "-") for i in over_mcp} == set(SAMPLE)


@pytest.mark.slow
@pytest.mark.parametrize("spec", list(SAMPLE))
def test_each_whole_suite_over_mcp_gives_the_same_verdicts_as_in_process(tmp_path: Path, spec: str) -> None:
    """Over mcp+stdio a whole suite gets the same tests and verdicts as in-process, bar inputs MCP cannot carry (SKIP)."""
    inprocess, over_mcp = run_tests(tmp_path, ["reference", MCP], [spec])
    carried = inprocess.keys() - uncarriable(over_mcp)
    assert inprocess.keys() == over_mcp.keys()
    assert {i: over_mcp[i]["verdict"] for i in carried} == {i: inprocess[i]["verdict"] for i in carried}
    assert {inprocess[i]["verdict"] for i in uncarriable(over_mcp)} <= {"PASS"}

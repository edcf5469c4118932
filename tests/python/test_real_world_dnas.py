"""The published shapes graphs of tests/real-world-shapes served as DNAs, as a user who brings
the SHACL they already have would: `shacl-mcp check` finds no error and ends with a coverage line
for every class the graph targets, and a server for the file answers `tools/list` through the
SDK with a create tool for each (their data against pySHACL: test_real_world_shapes.py).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rdflib import Graph, Namespace

from conftest import BIN, LIFECYCLES, REPO, Server

SH = Namespace("http://www.w3.org/ns/shacl#")
ROOT = REPO / "tests" / "real-world-shapes"
SOURCES = sorted(p.name for p in ROOT.iterdir() if (p / "shapes.ttl").is_file())


def class_targets(shapes: Path) -> set[str]:
    """The classes a shapes graph targets (not those of deactivated or property shapes)."""
    g = Graph().parse(shapes, format="turtle")
    out = set()
    for shape, target in g.subject_objects(SH.targetClass):
        if (shape, SH.deactivated, None) in g and str(g.value(shape, SH.deactivated)) == "true":
            continue
        if (shape, SH.path, None) not in g:
            out.add(str(target))
    return out


@pytest.mark.parametrize("source", SOURCES)
def test_check_accepts_it_with_a_coverage_line_per_class(source: str) -> None:
    shapes = ROOT / source / "shapes.ttl"
    done = subprocess.run([str(BIN), "check", str(shapes)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    assert "error[" not in done.stdout, done.stdout
    coverage = done.stdout[done.stdout.index("\ncoverage: ") :]
    lines = [l for l in coverage.splitlines() if l.startswith("  class `")]
    assert len(lines) == len(class_targets(shapes)) > 0, coverage
    for line in lines:
        assert " typed, " in line and " enforced by the SHACL Core engine, " in line, line


@pytest.mark.anyio
@pytest.mark.parametrize("source", SOURCES)
async def test_a_server_for_it_lists_its_class_tools(source: str, tmp_path: Path) -> None:
    server = Server(
        transport="stdio",
        args=["--db", ":memory:", "--dna", str(ROOT / source / "shapes.ttl"), "--dynamic-class-tools", "true"],
        env={},
        log_dir=tmp_path,
    )
    async with server.connect(LIFECYCLES["legacy"]) as client:
        tools = {t.name for t in (await client.list_tools(cache_mode="refresh")).tools}
    creates = {t for t in tools if t.endswith("_create") and t != "instance_create"}
    assert len(creates) == len(class_targets(ROOT / source / "shapes.ttl")), sorted(creates)

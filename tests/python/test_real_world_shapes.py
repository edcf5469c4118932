"""Public, real-world shapes graphs (tests/real-world: DCAT-AP from SEMIC, the opendata.swiss
cube profile from Zazuko, RiverBench's metadata schema; SOURCE.txt in each names the commit and
the licence), each with the data its authors published:

- each compiles: `shacl-mcp check` reports no error and a class per targeted class;
- each serves: a server for it answers `tools/list` through the SDK with its per-class tools;
- its data validates through `shacl-mcp validate` exactly like pySHACL (from PyPI, pinned in
  requirements.txt): the same results, one by one (focus node, path, value, constraint
  component, source shape, severity), for every data file.
"""

from __future__ import annotations

import collections
import subprocess
from pathlib import Path

import pytest
from pyshacl import validate as pyshacl_validate
from rdflib import BNode, Graph, Literal, Namespace

from conftest import BIN, LIFECYCLES, Server

REAL_WORLD = Path(__file__).resolve().parents[1] / "real-world"
SH = Namespace("http://www.w3.org/ns/shacl#")

# (shapes graph, the data files its authors validate with it)
CORPORA = [
    ("dcat-ap/dcat-ap.ttl", "dcat-ap/data/*.ttl"),
    ("cube-link/shapes.ttl", "cube-link/data/*.ttl"),
    ("riverbench/category.ttl", "riverbench/data/category-*.ttl"),
    ("riverbench/task.ttl", "riverbench/data/task-*.ttl"),
    ("riverbench/profile.ttl", "riverbench/data/profile-*.ttl"),
]

PAIRS = [
    pytest.param(shapes, data, id=f"{shapes}:{data.name}")
    for shapes, pattern in CORPORA
    for data in sorted(REAL_WORLD.glob(pattern))
]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=120)


def class_targets(shapes: Path) -> set[str]:
    g = Graph().parse(shapes, format="turtle")
    return {str(o) for o in g.objects(None, SH.targetClass)}


# Shapes graphs with class targets (RiverBench's category.ttl and task.ttl target nodes only).
SERVED = [s for s, _ in CORPORA if s not in ("riverbench/category.ttl", "riverbench/task.ttl")]


@pytest.mark.parametrize("shapes", SERVED)
def test_compiles_with_its_coverage(shapes: str) -> None:
    done = run("check", str(REAL_WORLD / shapes))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "error[" not in done.stdout, done.stdout
    coverage = done.stdout[done.stdout.index("coverage: ") :]
    # One line per class, and the count agrees with the distinct class targets.
    lines = [l for l in coverage.splitlines() if l.startswith("  class `")]
    local_names = {t.rsplit("/", 1)[-1].rsplit("#", 1)[-1].rsplit(":", 1)[-1] for t in class_targets(REAL_WORLD / shapes)}
    assert len(lines) == len(local_names) > 0, coverage
    for line in lines:
        assert "typed" in line and "enforced by the SHACL Core engine" in line, line


@pytest.mark.anyio
@pytest.mark.parametrize("shapes", SERVED)
async def test_serves_its_classes(shapes: str, tmp_path: Path) -> None:
    server = Server(
        transport="stdio",
        args=["--db", ":memory:", "--dna", str(REAL_WORLD / shapes), "--dynamic-class-tools", "true"],
        env={},
        log_dir=tmp_path,
    )
    async with server.connect(LIFECYCLES["legacy"]) as client:
        tools = {t.name for t in (await client.list_tools(cache_mode="refresh")).tools}
    assert "describe_perspective" in tools
    # Every class has its create tool.
    creates = {t for t in tools if t.endswith("_create") and t != "instance_create"}
    assert len(creates) >= 1, sorted(tools)


def normal(term: object) -> str:
    # Blank node labels are the parser's own: compared as "a blank node".
    return "[blank]" if isinstance(term, BNode) else str(term)


def results(report: Graph) -> collections.Counter:
    out: collections.Counter = collections.Counter()
    for r in report.objects(None, SH.result):
        shape = report.value(r, SH.sourceShape)
        path = report.value(r, SH.resultPath)
        value = report.value(r, SH.value)
        out[
            (
                normal(report.value(r, SH.focusNode)),
                "[path]" if isinstance(path, BNode) else str(path),
                normal(value) if not isinstance(value, Literal) else value.n3(),
                str(report.value(r, SH.sourceConstraintComponent)),
                "[inline]" if isinstance(shape, BNode) else str(shape),
                str(report.value(r, SH.resultSeverity)),
            )
        ] += 1
    return out


@pytest.mark.parametrize(("shapes", "data"), PAIRS)
def test_validates_like_pyshacl(shapes: str, data: Path) -> None:
    shapes_path = REAL_WORLD / shapes
    done = run("validate", "--shapes", str(shapes_path), "--data", str(data), "--format", "turtle")
    assert done.returncode in (0, 1), done.stderr
    ours = results(Graph().parse(data=done.stdout, format="turtle"))
    conforms, report, _ = pyshacl_validate(
        Graph().parse(data, format="turtle"),
        shacl_graph=Graph().parse(shapes_path, format="turtle"),
        inference="none",
        advanced=False,
    )
    theirs = results(report)
    assert (done.returncode == 0) == conforms
    assert ours == theirs, (
        f"only shacl-mcp: {list((ours - theirs).items())[:5]}\nonly pySHACL: {list((theirs - ours).items())[:5]}"
    )

"""Published shapes graphs and their published data (tests/real-world-shapes): `shacl-mcp validate`
reports exactly the results pySHACL reports, one by one.

Each source folder holds `shapes.ttl`, `data/*.ttl` and optionally `ontology/*.ttl` (added to every
data graph), with SOURCE.txt and the licence beside them. A result is compared as (focus node, path,
value, constraint component, source shape, severity); a complex path counts as "[path]" and a
blank-node shape as "[inline]", since the two validators read the shapes graph apart. Blank nodes of
the data keep their identity: the data graph is parsed once with rdflib, handed to pySHACL as that
graph, and to shacl-mcp as N-Triples written from it, whose labels are rdflib's own node ids.
"""

from __future__ import annotations

import collections
import re
import subprocess
from pathlib import Path

import pyshacl
import pytest
from rdflib import BNode, Graph, Namespace, URIRef

from conftest import BIN, REPO

SH = Namespace("http://www.w3.org/ns/shacl#")
ROOT = REPO / "tests" / "real-world-shapes"
SOURCES = sorted(p.name for p in ROOT.iterdir() if (p / "shapes.ttl").is_file())
CASES = [(source, data.name) for source in SOURCES for data in sorted((ROOT / source / "data").glob("*.ttl"))]
# Our report writes the data's blank nodes by label; rdflib would rename them, so they are read
# as IRIs under this prefix and turned back into the blank nodes of the data graph.
LABELLED = "urn:shacl-mcp-test:bnode:"

Result = tuple[str, str, str, str, str, str]


def test_three_sources_of_different_origins_are_vendored():
    assert len(SOURCES) >= 3, SOURCES
    for source in SOURCES:
        folder = ROOT / source
        assert (folder / "SOURCE.txt").is_file(), f"{source}: say where it came from"
        assert any(folder.glob("LICEN[CS]E*")), f"{source}: keep its licence beside it"
        assert list((folder / "data").glob("*.ttl")), f"{source}: no data"


def data_graph(source: str, name: str) -> Graph:
    graph = Graph()
    graph.parse(ROOT / source / "data" / name, format="turtle")
    for extra in sorted((ROOT / source / "ontology").glob("*.ttl")):
        graph.parse(extra, format="turtle")
    return graph


def term(node) -> str:
    if isinstance(node, URIRef) and str(node).startswith(LABELLED):
        node = BNode(str(node)[len(LABELLED) :])
    return node.n3() if node is not None else "-"


def results(report: Graph) -> collections.Counter[Result]:
    out: collections.Counter[Result] = collections.Counter()
    for r in report.objects(None, SH.result):
        path = report.value(r, SH.resultPath)
        shape = report.value(r, SH.sourceShape)
        inline = isinstance(shape, BNode) or str(shape).startswith(LABELLED)
        key = (
            term(report.value(r, SH.focusNode)),
            "[path]" if isinstance(path, BNode) else term(path),
            term(report.value(r, SH.value)),
            str(report.value(r, SH.sourceConstraintComponent)),
            "[inline]" if inline else str(shape),
            str(report.value(r, SH.resultSeverity)),
        )
        out[key] += 1
    return out


def pyshacl_results(data: Graph, shapes: Graph) -> collections.Counter[Result]:
    _, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none")
    return results(report)


def shacl_mcp_results(data: Graph, shapes_file: Path, tmp_path: Path) -> collections.Counter[Result]:
    nt = tmp_path / "data.nt"
    data.serialize(nt, format="nt", encoding="utf-8")
    run = subprocess.run(
        [str(BIN), "validate", "--shapes", str(shapes_file), "--data", str(nt), "--format", "turtle"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode in (0, 1), f"exit {run.returncode}: {run.stderr}"
    text = re.sub(r"_:([A-Za-z0-9_-]+)", lambda m: f"<{LABELLED}{m.group(1)}>", run.stdout)
    return results(Graph().parse(data=text, format="turtle"))


@pytest.mark.parametrize(("source", "name"), CASES, ids=[f"{s}/{n}" for s, n in CASES])
def test_validate_reports_what_pyshacl_reports(source: str, name: str, tmp_path: Path):
    shapes_file = ROOT / source / "shapes.ttl"
    data = data_graph(source, name)
    expected = pyshacl_results(data, Graph().parse(shapes_file, format="turtle"))
    actual = shacl_mcp_results(data, shapes_file, tmp_path)
    only_ours = list((actual - expected).items())[:5]
    only_pyshacl = list((expected - actual).items())[:5]
    assert actual == expected, f"only shacl-mcp: {only_ours}\nonly pySHACL: {only_pyshacl}"


def test_the_sources_report_violations_somewhere():
    """The comparison means something only if the data breaks some shapes."""
    for source in SOURCES:
        shapes = Graph().parse(ROOT / source / "shapes.ttl", format="turtle")
        total = sum(
            sum(pyshacl_results(data_graph(source, data.name), shapes).values())
            for data in sorted((ROOT / source / "data").glob("*.ttl"))
        )
        assert total > 0, f"{source}: no data graph reports anything"

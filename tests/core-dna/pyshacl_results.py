"""pySHACL's results for data graphs, as the write-rule property test compares them.

    python pyshacl_results.py CASES.json

CASES.json is a list of {"shapes": PATH, "data": PATH}. Prints a JSON list, one entry per case:
the results pySHACL finds, each [focus_node, constraint (sh:...ConstraintComponent), severity
(sh:Violation, ...)], sorted. One process for every case: pySHACL's start-up is the slow part.
"""

import json
import sys

import pyshacl
from rdflib import Graph, Namespace

SH = Namespace("http://www.w3.org/ns/shacl#")


def short(term):
    text = str(term)
    return "sh:" + text[len(str(SH)):] if text.startswith(str(SH)) else text


def results(shapes, data_path):
    data = Graph().parse(data_path, format="turtle")
    _, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none", advanced=False)
    found = []
    # Top-level results only: pySHACL also lists the results inside sh:node & co. as sh:detail.
    for r in report.objects(predicate=SH.result):
        focus = report.value(r, SH.focusNode)
        component = report.value(r, SH.sourceConstraintComponent)
        severity = report.value(r, SH.resultSeverity)
        found.append([str(focus), short(component), short(severity)])
    return sorted(found)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    shapes_cache = {}
    out = []
    for case in cases:
        path = case["shapes"]
        if path not in shapes_cache:
            shapes_cache[path] = Graph().parse(path, format="turtle")
        out.append(results(shapes_cache[path], case["data"]))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

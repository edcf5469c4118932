#!/usr/bin/env python3
"""Compares two SHACL validation reports (Turtle): the results each holds (its sh:result
objects, not nested sh:detail results), as (focus node, path, value, component, source shape
when an IRI, severity) multisets.

Usage: shacl_bench_compare.py REPORT_A.ttl REPORT_B.ttl
Prints "A B same" (or "A B differ" and the first differences); exits 0 either way.
"""

import collections
import sys

from rdflib import BNode, Graph, Namespace

SH = Namespace("http://www.w3.org/ns/shacl#")


def results(path: str) -> collections.Counter:
    g = Graph()
    g.parse(path, format="turtle")
    out = collections.Counter()
    for r in g.objects(None, SH.result):
        shape = g.value(r, SH.sourceShape)
        path_node = g.value(r, SH.resultPath)
        out[
            (
                str(g.value(r, SH.focusNode)),
                "[path]" if isinstance(path_node, BNode) else str(path_node),
                str(g.value(r, SH.value)),
                str(g.value(r, SH.sourceConstraintComponent)),
                "[inline]" if isinstance(shape, BNode) else str(shape),
                str(g.value(r, SH.resultSeverity)),
            )
        ] += 1
    return out


def main() -> None:
    a, b = results(sys.argv[1]), results(sys.argv[2])
    same = a == b
    print(sum(a.values()), sum(b.values()), "same" if same else "differ")
    if not same:
        for k, n in list((a - b).items())[:5]:
            print("  only in the first:", k, n, file=sys.stderr)
        for k, n in list((b - a).items())[:5]:
            print("  only in the second:", k, n, file=sys.stderr)


if __name__ == "__main__":
    main()

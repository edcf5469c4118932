#!/usr/bin/env python3
"""Writes the SHACL benchmark's inputs: a data graph of about N triples (DIR/data.ttl) and a
shapes graph of 20 node shapes (DIR/shapes.ttl), deterministic for a given N.

Twenty classes ex:C0..ex:C19, each shape targets one of them, its instances carry seven
triples each (type, name, code, age, status, ref, email); about one value in a hundred breaks
a constraint (out of range, bad pattern, not in the list, reference to a non-instance, missing
name), so both validators write reports with thousands of results.

Usage: shacl_bench_data.py --triples 1000000 --out DIR
"""

import argparse
import os

CLASSES = 20
TRIPLES_PER_INSTANCE = 7

PREFIXES = """@prefix ex: <http://example.org/bench/> .
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

"""


def shapes() -> str:
    out = [PREFIXES]
    for c in range(CLASSES):
        nxt = (c + 1) % CLASSES
        if c % 4 == 0:
            name = 'sh:or ( [ sh:datatype xsd:string ] [ sh:datatype rdf:langString ] ) ; sh:minCount 1 ; sh:maxCount 1'
        else:
            name = "sh:datatype xsd:string ; sh:minCount 1 ; sh:maxCount 1 ; sh:minLength 1 ; sh:maxLength 64"
        closed = " sh:closed true ; sh:ignoredProperties ( rdf:type ) ;" if c % 5 == 0 else ""
        ref = f"sh:nodeKind sh:IRI ; sh:class ex:C{nxt} ; sh:maxCount 2"
        if c % 3 == 0:
            ref = f"sh:nodeKind sh:IRI ; sh:node ex:Ref{c} ; sh:maxCount 2"
            out.append(f"ex:Ref{c} a sh:NodeShape ; sh:class ex:C{nxt} .\n")
        out.append(
            f"""ex:Shape{c} a sh:NodeShape ; sh:targetClass ex:C{c} ;{closed}
  sh:property [ sh:path ex:name ; {name} ] ;
  sh:property [ sh:path ex:code ; sh:pattern "^[A-Z]{{3}}-[0-9]{{4}}$" ; sh:maxCount 1 ] ;
  sh:property [ sh:path ex:age ; sh:datatype xsd:integer ; sh:minInclusive 0 ; sh:maxInclusive 150 ] ;
  sh:property [ sh:path ex:status ; sh:in ( "open" "closed" "pending" ) ] ;
  sh:property [ sh:path ex:ref ; {ref} ] ;
  sh:property [ sh:path ex:email ; sh:pattern "^[a-z0-9.]+@[a-z0-9.]+$" ; sh:flags "i" ] .
"""
        )
    return "".join(out)


def data(triples: int, f) -> int:
    per_class = max(1, triples // (CLASSES * TRIPLES_PER_INSTANCE))
    f.write(PREFIXES)
    written = 0
    for c in range(CLASSES):
        nxt = (c + 1) % CLASSES
        for i in range(per_class):
            n = c * per_class + i
            name = "" if n % 211 == 0 else f' ex:name "Person {n}" ;'
            code = "BAD" if n % 101 == 0 else f"ABC-{n % 10000:04d}"
            age = 200 if n % 103 == 0 else n % 100
            status = "unknown" if n % 107 == 0 else ("open", "closed", "pending")[n % 3]
            ref = f"ex:nowhere{n}" if n % 109 == 0 else f"ex:i{nxt}_{(i * 7) % per_class}"
            f.write(
                f'ex:i{c}_{i} a ex:C{c} ;{name} ex:code "{code}" ; ex:age {age} ;'
                f' ex:status "{status}" ; ex:ref {ref} ; ex:email "User.{n}@Example.org" .\n'
            )
            written += TRIPLES_PER_INSTANCE - (1 if not name else 0)
    return written


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--triples", type=int, default=1_000_000)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "shapes.ttl"), "w") as f:
        f.write(shapes())
    with open(os.path.join(args.out, "data.ttl"), "w") as f:
        n = data(args.triples, f)
    print(f"{n} triples in {args.out}/data.ttl, {CLASSES} shapes in {args.out}/shapes.ttl")


if __name__ == "__main__":
    main()

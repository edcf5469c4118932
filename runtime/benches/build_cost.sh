#!/usr/bin/env bash
# Build cost of a generated server crate (issue 8).
#
# A synthetic DNA of CLASSES classes x 10 properties (the generator `synthetic_dna` of
# tests/fixtures/benches/core.rs, translated below) becomes a server crate through
# `shacl-mcp new --runtime <snapshot of this workspace>`, outside the repository, built with
# `cargo build` (debug and release) in a scratch target dir:
#
#   1. the first build in that target dir (every dependency when the dir is new: minutes);
#   2. a no-op rebuild;
#   3. the incremental cost a DNA edit pays: touch the DNA, rebuild (build.rs reruns the code
#      generator, then the crate is compiled), REPEAT times, with the split between the build
#      script's run and rustc on the crate from `cargo build --timings`;
#   4. the generated code: bytes and lines of the .rs the build script wrote in OUT_DIR, and the
#      size of the binary.
#
# The workspace is copied (compiler, macros, runtime, docs, Cargo.toml, Cargo.lock; mtimes
# kept) so edits others make to the tree meanwhile do not land between two timed builds; its
# Cargo.lock pins the crate's dependencies to the versions already in the cargo cache (--offline).
#
# Usage: runtime/benches/build_cost.sh [--classes N] [--profiles "debug release"] [--repeat N]
# Env:   SCRATCH (default /tmp/shacl-build-cost; its target/, ~2.6 GB for both profiles, is kept
#        between runs: delete it for a cold first build, and when done), SHACL_MCP (default
#        target/release/shacl-mcp of this workspace),
#        SNAPSHOT=keep to build the snapshot already in $SCRATCH/ws (taken when the tree compiled).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SCRATCH="${SCRATCH:-/tmp/shacl-build-cost}"
SHACL_MCP="${SHACL_MCP:-$ROOT/target/release/shacl-mcp}"
CLASSES=200
PROFILES="debug release"
REPEAT=3
while [ $# -gt 0 ]; do
  case "$1" in
    --classes) CLASSES="$2"; shift 2 ;;
    --profiles) PROFILES="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
NAME="syn${CLASSES}"
CRATE="$SCRATCH/$NAME"
export CARGO_TARGET_DIR="$SCRATCH/target"
[ -x "$SHACL_MCP" ] || { echo "no $SHACL_MCP: cargo build --release -p shacl-mcp first" >&2; exit 1; }

load() { cut -d' ' -f1-3 /proc/loadavg; }
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores," \
  "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $(date -u +%F)"
echo "rustc: $(rustc --version); load average at the start: $(load)"

# The workspace snapshot.
mkdir -p "$SCRATCH"
if [ "${SNAPSHOT:-}" = keep ] && [ -d "$SCRATCH/ws/runtime" ]; then
  echo "workspace snapshot: kept from $(stat -c %y "$SCRATCH/ws/Cargo.toml.snapshot" 2> /dev/null || echo '?')"
else
  rm -rf "$SCRATCH/ws"
  mkdir -p "$SCRATCH/ws"
  for part in compiler macros runtime docs Cargo.toml Cargo.lock; do
    cp -a "$ROOT/$part" "$SCRATCH/ws/"
  done
  touch "$SCRATCH/ws/Cargo.toml.snapshot"
fi

# The DNA: synthetic_dna(CLASSES) of tests/fixtures/benches/core.rs.
python3 - "$CLASSES" > "$SCRATCH/synthetic.json" <<'EOF'
import json, sys
n = int(sys.argv[1])
def prop(i, j):
    p = f"syn://c{i}/p{j}"
    k = j % 5
    if k == 0: return {"path": p, "name": f"text{j}", "datatype": "xsd:string", "min_count": 1, "max_count": 1, "writable": True, "max_length": 200}
    if k == 1: return {"path": p, "name": f"count{j}", "datatype": "xsd:integer", "max_count": 1, "writable": True, "min_inclusive": 0}
    if k == 2: return {"path": p, "name": f"state{j}", "datatype": "xsd:string", "max_count": 1, "writable": True, "in": [{"value": "a"}, {"value": "b"}]}
    if k == 3: return {"path": p, "name": f"when{j}", "datatype": "xsd:dateTime", "max_count": 1, "writable": True}
    return {"path": p, "name": f"tags{j}", "datatype": "xsd:string", "collection": True, "max_count": 20}
classes = [{"target_class": f"syn://Class{i}", "properties": [prop(i, j) for j in range(10)],
            "constructor": [{"action": "addLink", "source": "this", "predicate": "rdf://type", "target": f"syn://Class{i}"}]}
           for i in range(n)]
print(json.dumps({"name": "synthetic", "classes": classes}))
EOF
echo "DNA: $CLASSES classes x 10 properties, $(wc -c < "$SCRATCH/synthetic.json") bytes"

# The crate (rewritten each run; the target dir is kept).
rm -rf "$CRATE"
"$SHACL_MCP" new "$NAME" --dna "$SCRATCH/synthetic.json" --dir "$SCRATCH" --runtime "$SCRATCH/ws" > /dev/null
cp "$SCRATCH/ws/Cargo.lock" "$CRATE/Cargo.lock"
cd "$CRATE"

# `cargo build --timings`: seconds of the build script's run and of rustc on the crate itself.
split() {
  python3 - "$CARGO_TARGET_DIR/cargo-timings/cargo-timing.html" "$NAME" <<'EOF'
import json, re, sys
html = open(sys.argv[1]).read()
m = re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S)
if not m:
    print("(no unit data in the timings report)"); sys.exit()
units = [u for u in json.loads(m.group(1)) if u.get("name") == sys.argv[2] and u.get("duration", 0) > 0.05]
parts = []
for u in units:
    if u.get("mode") == "run-custom-build":
        what = "build.rs run (code generation)"
    elif "build-script" in u.get("target", ""):
        what = "build.rs compile"
    else:
        what = "rustc on the crate"
    parts.append(f"{what} {u['duration']:.1f} s")
print("; ".join(parts) if parts else "(the crate's units are not in the report)")
EOF
}

for profile in $PROFILES; do
  flag=""
  [ "$profile" = release ] && flag="--release"
  echo
  echo "== $profile =="
  new_dir="no"
  [ -d "$CARGO_TARGET_DIR/$profile" ] || new_dir="yes"
  t0=$(now)
  cargo build $flag --offline --quiet
  t1=$(now)
  echo "first build (target dir new: $new_dir): $(secs "$t0" "$t1") s (load $(load))"
  t0=$(now)
  cargo build $flag --offline --quiet
  t1=$(now)
  echo "no-op rebuild: $(secs "$t0" "$t1") s"
  for i in $(seq 1 "$REPEAT"); do
    touch "dna/synthetic.json"
    t0=$(now)
    cargo build $flag --offline --quiet --timings
    t1=$(now)
    echo "after touching the DNA, rebuild $i: $(secs "$t0" "$t1") s ($(split); load $(load))"
  done
  out=$(ls -td "$CARGO_TARGET_DIR/$profile/build/$NAME-"*/out 2> /dev/null | head -1)
  for f in "$out"/*.rs; do
    echo "generated $(basename "$f"): $(wc -c < "$f") bytes, $(wc -l < "$f") lines"
  done
  echo "binary: $(wc -c < "$CARGO_TARGET_DIR/$profile/$NAME") bytes"
done
echo
echo "load average at the end: $(load)"

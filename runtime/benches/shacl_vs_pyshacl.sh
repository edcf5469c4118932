#!/usr/bin/env bash
# SHACL Core validation, shacl-mcp beside pySHACL, on the same generated files.
#
#   runtime/benches/shacl_vs_pyshacl.sh [TRIPLES]      (default 1000000)
#
# Builds `shacl-mcp` (release), installs pySHACL (pinned) from PyPI into .tools/venv,
# generates a data graph of about TRIPLES triples and a 20-shape graph
# (shacl_bench_data.py), then runs `shacl-mcp validate` and `pyshacl` on them under
# /usr/bin/time -v: wall time, CPU time (user + system: steadier than wall time on a shared
# machine) and peak memory (maximum resident set size); then compares the
# two reports result by result (shacl_bench_compare.py). Appends the figures, with the date
# and the machine, to runtime/benches/results/shacl_vs_pyshacl.md.
#
# Environment: BENCH_DIR (inputs and outputs, default target/shacl-bench), PYSHACL_TIMEOUT
# (seconds, default 3600).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRIPLES=${1:-1000000}
PYSHACL_VERSION=0.40.1
WORK=${BENCH_DIR:-$ROOT/target/shacl-bench}
VENV=$ROOT/.tools/venv
RESULTS=$ROOT/runtime/benches/results/shacl_vs_pyshacl.md
TIMEOUT=${PYSHACL_TIMEOUT:-3600}

mkdir -p "$WORK" "$(dirname "$RESULTS")"
echo "== building shacl-mcp (release)"
cargo build --release --quiet -p shacl-mcp --bin shacl-mcp --manifest-path "$ROOT/Cargo.toml"
BIN=$ROOT/target/release/shacl-mcp

echo "== pySHACL $PYSHACL_VERSION into $VENV"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "pyshacl==$PYSHACL_VERSION"

echo "== generating about $TRIPLES triples"
generated=$("$VENV/bin/python" "$ROOT/runtime/benches/shacl_bench_data.py" --triples "$TRIPLES" --out "$WORK")
echo "$generated"
triples=${generated%% *}
DATA=$WORK/data.ttl
SHAPES=$WORK/shapes.ttl

# measure NAME COMMAND...: runs it under /usr/bin/time -v, its report to $WORK/NAME.out.
measure() {
    local name=$1
    shift
    echo "== $name"
    local status=0
    /usr/bin/time -v -o "$WORK/$name.time" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || status=$?
    echo "$status" >"$WORK/$name.status"
}

seconds() { # the wall time of a /usr/bin/time -v file, in seconds
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f", s }' "$1"
}
cpu_seconds() { # user + system time
    awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1"
}
peak_mib() {
    awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"
}

measure shacl-mcp "$BIN" validate --shapes "$SHAPES" --data "$DATA" --format turtle
measure pyshacl timeout "$TIMEOUT" "$VENV/bin/pyshacl" -s "$SHAPES" -sf turtle -df turtle -i none -f turtle "$DATA"

instances=$(grep -c ' a ex:C' "$DATA" || true)
comparison="pySHACL did not finish"
counts=("–" "–")
if [ "$(cat "$WORK/pyshacl.status")" != 124 ]; then
    comparison=$("$VENV/bin/python" "$ROOT/runtime/benches/shacl_bench_compare.py" "$WORK/shacl-mcp.out" "$WORK/pyshacl.out")
    read -r -a counts <<<"$comparison"
fi
size=$(du -h "$DATA" | cut -f1)
machine="$(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) cores; $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
row() { # name, version, results
    local name=$1 version=$2 results=$3 status
    status=$(cat "$WORK/$name.status")
    if [ "$status" = 124 ]; then
        echo "| $name | $version | did not finish in ${TIMEOUT}s | – | $(peak_mib "$WORK/$name.time") | – | $status |"
    else
        echo "| $name | $version | $(seconds "$WORK/$name.time") | $(cpu_seconds "$WORK/$name.time") | $(peak_mib "$WORK/$name.time") | $results | $status |"
    fi
}
{
    echo
    echo "## $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo
    echo "- machine: $machine"
    echo "- data: $triples triples ($size of Turtle, $instances instances of 20 classes); shapes: 20 node shapes, 120 property shapes"
    echo "- command: \`runtime/benches/shacl_vs_pyshacl.sh $TRIPLES\`"
    echo
    echo "| validator | version | wall time (s) | CPU time (s) | peak memory (MiB) | results | exit |"
    echo "|---|---|---|---|---|---|---|"
    row shacl-mcp "$("$BIN" --version | awk '{ print $2 }') (release)" "${counts[0]}"
    row pyshacl "$PYSHACL_VERSION" "${counts[1]:-–}"
    echo
    echo "Results compared one by one (focus node, path, value, component, shape, severity): ${counts[2]:-$comparison}."
} | tee -a "$RESULTS"
echo "figures appended to $RESULTS"

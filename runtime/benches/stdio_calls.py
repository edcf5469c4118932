#!/usr/bin/env python3
"""Times instance_create and instance_get over stdio against one server, with nothing but the
Python standard library: `stdio_calls.py BIN DB N [--pause]`.

BIN is a `shacl-mcp` binary, DB its `--db` (a SQLite file or a PostgreSQL URL; a fresh database
per run), N the calls of each kind. The server serves `dna/tasks.json`; one call is in flight at a
time. Prints the client's p50, p99 and mean of each, and the share of the time spent in calls over
1 ms (a commit that overlaps a checkpoint is one). With `--pause` it waits for a line on stdin after the
handshake, so that statistics (pg_stat_statements) can be reset before the calls. Used for A/B runs
of two builds in alternation (runtime/benches/results/query-and-http-2026-12-07.md, section 11).
"""
import json
import os
import subprocess
import sys
import time

DNA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dna", "tasks.json")


class Server:
    def __init__(self, binary, db):
        self.proc = subprocess.Popen(
            [binary, "serve", "--dna", DNA, "--db", db],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self.next_id = 0

    def send(self, method, params, notify=False):
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        return None if notify else json.loads(self.proc.stdout.readline())

    def tool(self, name, arguments):
        answer = self.send("tools/call", {"name": name, "arguments": arguments})
        if "error" in answer or answer["result"].get("isError"):
            sys.exit(f"{name} failed: {answer}")
        return json.loads(answer["result"]["content"][0]["text"])


def summary(seconds):
    """p50 and p99 in ms, the mean in ms, and the percentage of the time in calls over 1 ms."""
    seconds = sorted(seconds)
    total = sum(seconds)
    slow = sum(s for s in seconds if s > 0.001)
    p50, p99 = seconds[len(seconds) // 2], seconds[int(len(seconds) * 0.99)]
    return p50 * 1000, p99 * 1000, total / len(seconds) * 1000, 100 * slow / total


def timed(calls):
    spent = []
    for call in calls:
        start = time.perf_counter()
        call()
        spent.append(time.perf_counter() - start)
    return summary(spent)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, db, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    server = Server(binary, db)
    server.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "stdio_calls", "version": "1"}})
    server.send("notifications/initialized", {}, notify=True)
    perspective = server.tool("add_perspective", {"name": "bench"})["uuid"]
    if "--pause" in sys.argv:
        print("ready", file=sys.stderr, flush=True)
        sys.stdin.readline()
    created = []

    def create(k):
        properties = {"title": f"task {k}", "status": "open"}
        created.append(server.tool("instance_create", {"perspective_id": perspective, "class_name": "Task",
                                                       "properties": properties})["base_uri"])

    def get():
        server.tool("instance_get", {"perspective_id": perspective, "class_name": "Task", "base_uri": created[-1]})

    creates = timed([lambda k=k: create(k) for k in range(n)])
    gets = timed([get] * n)
    for name, (p50, p99, mean, slow) in (("instance_create", creates), ("instance_get", gets)):
        print(f"{name} p50 {p50:.3f} ms p99 {p99:.3f} ms mean {mean:.3f} ms, {slow:.1f}% of the time in calls over 1 ms")
    print(f"({n} each)")
    server.proc.stdin.close()
    server.proc.wait()


if __name__ == "__main__":
    main()

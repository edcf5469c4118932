#!/usr/bin/env python3
"""Seeds a database of Tasks through a server's execute_commands, checks what it answers, and
times instance_remove on it: the figures of results/one-predicate-index-2026-12-04.md.

    remove_and_migrate.py seed   SHACL_MCP DB N        # prints the perspective id
    remove_and_migrate.py check  SHACL_MCP DB PERSPECTIVE
    remove_and_migrate.py remove SHACL_MCP DB PERSPECTIVE CALLS

SHACL_MCP is a `shacl-mcp` binary; seed with one build and check or remove with another to see
a database of the first open (and migrate) in the second. Only the standard library is needed:
it speaks MCP over the server's stdin and stdout itself.
"""

import json
import os
import statistics
import subprocess
import sys
import time

DNA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dna", "tasks.json")


class Server:
    def __init__(self, binary, db):
        self.proc = subprocess.Popen(
            [binary, "serve", "--stdio", "--db", db, "--dna", DNA],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.last_id = 0
        started = time.perf_counter()
        self.request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "remove_and_migrate", "version": "0"},
        })
        self.opened_in = time.perf_counter() - started
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.last_id += 1
        self.send({"jsonrpc": "2.0", "id": self.last_id, "method": method, "params": params})
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.last_id:
                if "result" not in answer:
                    raise SystemExit(f"{method}: {answer}")
                return answer["result"]

    def call(self, tool, arguments):
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        if result.get("isError"):
            raise SystemExit(f"{tool}: {json.dumps(result)[:500]}")
        return result.get("structuredContent") or json.loads(result["content"][0]["text"])

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def task_links(i):
    source = f"todo://mig{i}"
    status = "done" if i % 100 == 0 else "open"
    return [
        {"action": "addLink", "source": source, "predicate": "rdf://type", "target": "todo://Task"},
        {"action": "addLink", "source": source, "predicate": "todo://title", "target": f"literal:string:q{i}"},
        {"action": "addLink", "source": source, "predicate": "todo://status", "target": f"literal:string:{status}"},
    ]


def seed(server, n):
    perspective = server.call("add_perspective", {"name": "Migration"})["uuid"]
    for start in range(0, n, 1000):
        commands = [link for i in range(start, min(n, start + 1000)) for link in task_links(i)]
        server.call("execute_commands", {
            "perspective_id": perspective,
            "expression_address": f"todo://mig{start}",
            "commands": commands,
        })
    print(perspective)


def check(server, perspective):
    print(f"open (and migration) and handshake: {server.opened_in:.2f} s")
    done = server.call("instance_query", {
        "perspective_id": perspective, "class_name": "Task", "filter": {"status": "done"}, "limit": 2,
    })
    print("done Tasks:", done["total_count"], [i["title"] for i in done["instances"]])
    every = server.call("instance_query", {"perspective_id": perspective, "class_name": "Task", "limit": 1})
    print("Tasks:", every["total_count"])


def remove(server, perspective, calls):
    times = []
    for i in range(1, calls + 1):
        started = time.perf_counter()
        server.call("instance_remove", {
            "perspective_id": perspective, "class_name": "Task", "base_uri": f"todo://mig{i * 97}",
        })
        times.append((time.perf_counter() - started) * 1e6)
    print(f"instance_remove x{calls}: p50 {statistics.median(times):.0f} µs, min {min(times):.0f} µs")


def main(argv):
    if len(argv) < 4 or argv[1] not in ("seed", "check", "remove"):
        raise SystemExit(__doc__)
    server = Server(argv[2], argv[3])
    try:
        if argv[1] == "seed":
            seed(server, int(argv[4]) if len(argv) > 4 else 100_000)
        elif argv[1] == "check":
            check(server, argv[4])
        else:
            remove(server, argv[4], int(argv[5]) if len(argv) > 5 else 200)
    finally:
        server.close()


if __name__ == "__main__":
    main(sys.argv)

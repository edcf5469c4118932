"""Harness for the Python `mcp` SDK end-to-end suite: the real `shacl-mcp` binary, started as a
server over stdio (one process per client) or streamable HTTP (one process per test), and the
SDK's `Client` connected to it in either lifecycle.

Environment:
  SHACL_MCP_BIN      the binary (default: <repo>/target/debug/shacl-mcp)
  SHACL_MCP_DNA_DIR  the sample DNA folder (default: <repo>/dna)
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("SHACL_MCP_BIN") or REPO / "target" / "debug" / "shacl-mcp")
DNA_DIR = Path(os.environ.get("SHACL_MCP_DNA_DIR") or REPO / "dna")
CHAT = DNA_DIR / "chat.json"

TRANSPORTS = ["stdio", "http", "http-sessions"]
HTTP_TRANSPORTS = ["http", "http-sessions"]


@dataclass(frozen=True)
class Lifecycle:
    """How the SDK client opens the connection."""

    name: str
    mode: str  # the SDK's `Client(mode=...)`
    protocol_version: str  # what must be negotiated

    @property
    def modern(self) -> bool:
        return self.name == "modern"


# `mode="auto"` sends `server/discover` and speaks the 2026-07-28 lifecycle when the server answers
# it (falling back to `initialize` otherwise: the negotiated version tells the two apart);
# `mode="legacy"` forces the `initialize` / `notifications/initialized` handshake.
LIFECYCLES = {
    "legacy": Lifecycle("legacy", "legacy", "2025-11-25"),
    "modern": Lifecycle("modern", "auto", "2026-07-28"),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(extra: dict[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SHACL_MCP_ADMIN_CREDENTIAL"}
    env.update(extra or {})
    return env


@dataclass
class Server:
    """One `shacl-mcp serve` configuration. stdio: `connect` spawns a process per client.
    HTTP: `start` runs one process on a free loopback port, `stop` ends it."""

    transport: str
    args: list[str]
    env: dict[str, str]
    log_dir: Path
    port: int | None = None
    process: subprocess.Popen[bytes] | None = None
    logs: list[Path] = field(default_factory=list)

    @property
    def http(self) -> bool:
        return self.transport != "stdio"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def _log(self) -> Path:
        path = self.log_dir / f"shacl-mcp-{self.transport}-{len(self.logs)}.log"
        self.logs.append(path)
        return path

    def start(self) -> None:
        if not self.http:
            return
        self.port = free_port()
        command = [str(BIN), "serve", "--http", f"127.0.0.1:{self.port}", *self.args]
        if self.transport == "http-sessions":
            command += ["--http-sessions", "true"]
        log = self._log().open("wb")
        self.process = subprocess.Popen(
            command, env=server_env(self.env), stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
        log.close()
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"shacl-mcp exited with {self.process.returncode}:\n{self.log_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"shacl-mcp did not listen on {self.port}:\n{self.log_text()}")
                time.sleep(0.02)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def log_text(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in self.logs if p.exists())

    @asynccontextmanager
    async def connect(
        self,
        lifecycle: Lifecycle,
        *,
        token: str | None = None,
        message_handler: Callable[[Any], Any] | None = None,
    ) -> AsyncIterator[Client]:
        """An SDK `Client` on this server, handshake done, in `lifecycle`."""
        if not self.http:
            params = StdioServerParameters(
                command=str(BIN), args=["serve", "--stdio", *self.args], env=self.env or None
            )
            with self._log().open("w") as errlog:
                async with Client(
                    stdio_client(params, errlog=errlog), mode=lifecycle.mode, message_handler=message_handler
                ) as client:
                    yield client
            return
        headers = {"Authorization": f"Bearer {token}"} if token is not None else None
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http_client:
            transport = streamable_http_client(self.url, http_client=http_client)
            async with Client(transport, mode=lifecycle.mode, message_handler=message_handler) as client:
                yield client

    def post(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
        """One raw HTTP POST to /mcp with the usual MCP headers, overridable:
        (status, body, response headers with lower-case names)."""
        assert self.port is not None
        all_headers = {
            "Host": f"127.0.0.1:{self.port}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        all_headers.update(headers or {})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            # skip_host: the Host header is ours to set (the DNS-rebinding check reads it).
            conn.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
            payload = json.dumps(body).encode()
            for k, v in {**all_headers, "Content-Length": str(len(payload))}.items():
                conn.putheader(k, v)
            conn.endheaders(payload)
            response = conn.getresponse()
            return response.status, response.read().decode(), {k.lower(): v for k, v in response.getheaders()}
        finally:
            conn.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def _binary_present() -> None:
    if not BIN.is_file():
        pytest.exit(f"{BIN} not found: run `cargo build -p shacl-mcp` or set SHACL_MCP_BIN", returncode=2)
    if not CHAT.is_file():
        pytest.exit(f"{CHAT} not found: set SHACL_MCP_DNA_DIR", returncode=2)


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=HTTP_TRANSPORTS)
def http_transport(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=list(LIFECYCLES))
def lifecycle(request: pytest.FixtureRequest) -> Lifecycle:
    return LIFECYCLES[request.param]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture
def serve(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """`serve(transport, *args, env={...}, db=":memory:")`: a started server (`--db <db> --dna
    chat.json` plus `args`; `db` a SQLite path or a PostgreSQL url), stopped at teardown; its
    stderr is printed when the test failed."""
    servers: list[Server] = []

    def start(transport: str, *args: str, env: dict[str, str] | None = None, db: str = ":memory:") -> Server:
        server = Server(
            transport=transport,
            args=["--db", db, "--dna", str(CHAT), *args],
            env=env or {},
            log_dir=tmp_path,
        )
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.stop()
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        for server in servers:
            print(f"--- shacl-mcp {server.transport} log ---\n{server.log_text()}")

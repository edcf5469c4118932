"""Resource subscriptions with the Python `mcp` SDK client (docs/tools.md, "Resources and
prompts"): a client subscribes, another client writes, `notifications/resources/updated`
arrives. Over stdio (two server processes on one SQLite file), over streamable HTTP (legacy
sessions, and the 2026-07-28 lifecycle's `subscriptions/listen`), and across two PostgreSQL nodes
(`SHACL_MCP_TEST_POSTGRES`; skipped without it unless `SHACL_MCP_REQUIRE_POSTGRES=1`). Also
`changes_since` as the SDK sees it."""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from mcp import Client, MCPError
from mcp.shared.exceptions import MCPDeprecationWarning

from conftest import LIFECYCLES, Lifecycle, Server

pytestmark = pytest.mark.anyio

PREFIX = "shacl-mcp://perspectives/"
LEGACY = LIFECYCLES["legacy"]


def instance_uri(p: str, class_name: str, iri: str) -> str:
    return f"{PREFIX}{p}/{class_name}/{quote(iri, safe='-._~')}"


async def ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error is not True, f"{tool} failed: {result.structured_content or result.content}"
    assert isinstance(result.structured_content, dict)
    return result.structured_content


class Heard:
    """The URIs of `notifications/resources/updated` a legacy-lifecycle client received."""

    def __init__(self) -> None:
        self.uris: list[str] = []

    async def __call__(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            self.uris.append(message.params.uri)

    async def wait_for(self, uri: str, before: int = 0) -> None:
        with anyio.fail_after(10):
            while self.uris.count(uri) <= before:
                await anyio.sleep(0.02)


async def subscriber_hears_writer(subscriber_server: Server, writer_server: Server, lifecycle: Lifecycle) -> None:
    """The subscriber (on `subscriber_server`, in `lifecycle`) subscribes to a channel another
    client created through `writer_server`; the writer renames it; the notification arrives."""
    heard = Heard()
    async with writer_server.connect(LEGACY) as writer:
        p = (await ok(writer, "add_perspective", {"name": "Team"}))["uuid"]
        channel = (
            await ok(writer, "instance_create", {"perspective_id": p, "class_name": "Channel", "properties": {"name": "general"}})
        )["base_uri"]
        uri = instance_uri(p, "Channel", channel)
        rename = {"perspective_id": p, "class_name": "Channel", "base_uri": channel, "properties": {"name": "random"}}
        async with subscriber_server.connect(lifecycle, message_handler=heard) as subscriber:
            if lifecycle.modern:
                async with subscriber.listen(resource_subscriptions=[uri, f"{PREFIX}{p}"]) as subscription:
                    assert subscription.honored.resource_subscriptions is not None
                    assert set(subscription.honored.resource_subscriptions) == {uri, f"{PREFIX}{p}"}
                    events = subscription.__aiter__()
                    with anyio.fail_after(10):  # one catch-up event per URI as the listen starts
                        caught_up = {(await events.__anext__()).uri for _ in range(2)}
                    assert caught_up == {uri, f"{PREFIX}{p}"}
                    await ok(writer, "instance_update", rename)
                    with anyio.fail_after(10):
                        while (await events.__anext__()).uri != uri:
                            pass
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await subscriber.subscribe_resource(uri)
                await ok(writer, "instance_update", rename)
                await heard.wait_for(uri)
                read = await subscriber.read_resource(uri)
                assert '"random"' in read.contents[0].text


@pytest.mark.parametrize(
    "transport, lifecycle_name",
    [("stdio", "legacy"), ("stdio", "modern"), ("http-sessions", "legacy"), ("http-sessions", "modern"), ("http", "modern")],
)
async def test_another_clients_write_is_notified(serve, tmp_path: Path, transport: str, lifecycle_name: str) -> None:
    """stdio: two server processes on one SQLite file (each client starts its own); HTTP: two
    clients of one server."""
    server = serve(transport, db=str(tmp_path / "store.db"))
    await subscriber_hears_writer(server, server, LIFECYCLES[lifecycle_name])


async def test_stateless_http_refuses_legacy_subscribe(serve, tmp_path: Path) -> None:
    server = serve("http", db=str(tmp_path / "store.db"))
    async with server.connect(LEGACY) as client:
        p = (await ok(client, "add_perspective", {"name": "P"}))["uuid"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            with pytest.raises(MCPError, match="needs a session"):
                await client.subscribe_resource(f"{PREFIX}{p}")


def postgres_url(name: str) -> str | None:
    url = os.environ.get("SHACL_MCP_TEST_POSTGRES", "").strip()
    if not url:
        if os.environ.get("SHACL_MCP_REQUIRE_POSTGRES") == "1":
            pytest.fail("SHACL_MCP_REQUIRE_POSTGRES=1 and no SHACL_MCP_TEST_POSTGRES")
        return None
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}schema=py_{name}_{os.getpid()}_{time.monotonic_ns()}"


@pytest.mark.parametrize("lifecycle_name", ["legacy", "modern"])
async def test_two_postgres_nodes(serve, lifecycle_name: str) -> None:
    """The subscriber on one node, the writer on another: the writer's node commits, the
    subscriber's node hears PostgreSQL's NOTIFY and reads the change log."""
    db = postgres_url("subscriptions")
    if db is None:
        pytest.skip("no PostgreSQL (SHACL_MCP_TEST_POSTGRES)")
    subscriber_node = serve("http-sessions", db=db)
    writer_node = serve("http-sessions", db=db)
    await subscriber_hears_writer(subscriber_node, writer_node, LIFECYCLES[lifecycle_name])


async def test_changes_since_through_the_sdk(serve, tmp_path: Path) -> None:
    server = serve("stdio", db=str(tmp_path / "store.db"))
    async with server.connect(LEGACY) as a, server.connect(LEGACY) as b:
        p = (await ok(a, "add_perspective", {"name": "Team"}))["uuid"]
        start = await ok(a, "changes_since", {"perspective_id": p})
        assert start["changes"] == [] and start["has_more"] is False
        did_b = (await ok(b, "get_my_did", {}))["did"]
        made = await ok(b, "instance_create", {"perspective_id": p, "class_name": "Channel", "properties": {"name": "x"}})
        later = await ok(a, "changes_since", {"perspective_id": p, "cursor": start["cursor"]})
        assert [(c["base_uri"], c["kind"], c["class_names"], c["author"]) for c in later["changes"]] == [
            (made["base_uri"], "created", ["Channel"], did_b)
        ]
        bad = await a.call_tool("changes_since", {"perspective_id": p, "cursor": "not a cursor"})
        assert bad.is_error is True
        assert bad.structured_content["validation_errors"][0]["property"] == "cursor"

"""`shacl-mcp serve` driven by the Python `mcp` SDK client: stdio, stateless streamable HTTP and
HTTP with sessions, each in the legacy `initialize` lifecycle and the 2026-07-28 one
(`server/discover`). Expected values come from docs/tools.md and docs/errors.md."""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError

from conftest import BIN, DNA_DIR, Lifecycle, Server

pytestmark = pytest.mark.anyio

STATIC_TOOLS = [
    "list_perspectives", "add_perspective", "add_link", "query_links", "sparql_query", "changes_since", "add_model",
    "describe_perspective", "instance_create", "instance_query", "instance_get", "instance_update",
    "instance_add_to_collection", "instance_remove_from_collection", "instance_remove", "add_child",
    "get_children", "execute_commands", "get_my_did", "auth_status", "get_documentation", "forget",
    "validate_perspective", "get_flows", "add_flow", "flow_start", "flow_state", "flow_actions",
    "flow_run_action",
]  # fmt: skip

READ_ONLY_STATIC = {
    "list_perspectives", "query_links", "sparql_query", "changes_since", "describe_perspective", "instance_query",
    "instance_get", "get_children", "get_my_did", "auth_status", "get_documentation", "validate_perspective", "get_flows",
    "flow_state", "flow_actions",
}  # fmt: skip

# chat.json: Channel (name*, description, isPinned; members, messages), Message (body*; reactions).
CHAT_CLASS_TOOLS = [
    "channel_create", "channel_query", "channel_list", "channel_get", "channel_delete",
    "channel_set_name", "channel_set_description", "channel_set_is_pinned",
    "channel_get_members", "channel_add_members", "channel_remove_members",
    "channel_get_messages", "channel_add_messages", "channel_remove_messages",
    "message_create", "message_query", "message_list", "message_get", "message_delete",
    "message_set_body", "message_get_reactions", "message_add_reactions", "message_remove_reactions",
]  # fmt: skip

MINTED = re.compile(r"^ad4m://obj/[a-z]{24}$")
DID_KEY = re.compile(r"^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
INSTANCE_META = ("createdAt", "updatedAt", "author", "timestamp")

# docs/errors.md, "The validation envelope": its example is chat.json's Channel, word for word.
CHANNEL_ENVELOPE = {
    "error": "Validation failed for class 'Channel' (2 problems): name: missing required property "
    "(expected string, exactly one value (minCount 1, maxCount 1)); isPinned: expects true or false "
    '(expected boolean, at most one value (maxCount 1)), received string "maybe"',
    "class_name": "Channel",
    "validation_errors": [
        {
            "property": "name",
            "problem": "missing required property",
            "expected_type": "string",
            "cardinality": "exactly one value (minCount 1, maxCount 1)",
            "constraint": "sh:MinCountConstraintComponent",
            "fix": "add values until there are enough",
        },
        {
            "property": "isPinned",
            "problem": "expects true or false",
            "expected_type": "boolean",
            "cardinality": "at most one value (maxCount 1)",
            "received": 'string "maybe"',
            "constraint": "sh:DatatypeConstraintComponent",
            "fix": "give a value of the datatype the shape names",
        },
    ],
    "hint": "Call describe_perspective for the full schema of this class.",
}

NOTE_SHAPE = {
    "target_class": "app://Note",
    "properties": [
        {"path": "app://text", "name": "text", "datatype": "xsd:string", "max_count": 1, "writable": True}
    ],
    "constructor": [{"action": "addLink", "source": "this", "predicate": "rdf://type", "target": "app://Note"}],
}


# ---------------------------------------------------------------------------------------------
# helpers


def structured(result: Any) -> dict[str, Any]:
    """The structured result, checked against its text twin (one text item, the same JSON)."""
    assert isinstance(result.structured_content, dict), result
    texts = [c for c in result.content if c.type == "text"]
    assert len(texts) == 1, result.content
    assert json.loads(texts[0].text) == result.structured_content
    return result.structured_content


async def ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error is not True, f"{tool} failed: {result.structured_content or result.content}"
    return structured(result)


async def tool_error(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error is True, f"{tool} should fail: {result.structured_content or result.content}"
    return structured(result)


async def tool_names(client: Client) -> list[str]:
    names: list[str] = []
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return names


def without_meta(instance: dict[str, Any], did: str) -> dict[str, Any]:
    """An instance object with its bookkeeping keys checked and removed."""
    for key in ("createdAt", "updatedAt", "timestamp"):
        assert TIMESTAMP.match(instance[key]), (key, instance[key])
    assert instance["author"] == did
    return {k: v for k, v in instance.items() if k not in INSTANCE_META}


def assert_lifecycle(client: Client, lifecycle: Lifecycle) -> None:
    assert client.protocol_version == lifecycle.protocol_version
    if lifecycle.modern:
        assert client.session.discover_result is not None, "server/discover was not answered"
    else:
        assert client.session.discover_result is None


def binary_version() -> str:
    import subprocess

    out = subprocess.run([str(BIN), "--version"], capture_output=True, text=True, check=True).stdout
    # `shacl-mcp 0.1.0`, and ` (commit 1a2b3c4d5e6f)` when the build knew its commit.
    name, version, *commit = out.split()
    assert name == "shacl-mcp"
    assert not commit or re.fullmatch(r"\(commit [0-9a-f]{12}\)", " ".join(commit)), out
    return version


# ---------------------------------------------------------------------------------------------
# handshake and tools/list


async def test_handshake_and_static_tools(serve, transport: str, lifecycle: Lifecycle) -> None:
    server = serve(transport)
    async with server.connect(lifecycle) as client:
        assert_lifecycle(client, lifecycle)
        assert client.server_info is not None
        assert client.server_info.name == "shacl-mcp"
        assert client.server_info.version == binary_version()
        assert client.server_capabilities.tools is not None

        tools = (await client.list_tools(cache_mode="refresh")).tools
        assert [t.name for t in tools] == STATIC_TOOLS, "per-class tools are off by default"
        for tool in tools:
            schema = tool.input_schema
            assert schema["type"] == "object", tool.name
            assert schema["additionalProperties"] is False, tool.name
            assert not {"oneOf", "anyOf", "allOf"} & schema.keys(), tool.name
            text = json.dumps(schema)
            assert "$ref" not in text and "$schema" not in text, tool.name
            assert set(schema.get("required", [])) <= schema["properties"].keys(), tool.name
            assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
            assert tool.description, tool.name
        read_only = {t.name for t in tools if t.annotations and t.annotations.read_only_hint}
        assert read_only == READ_ONLY_STATIC
        by_name = {t.name: t for t in tools}
        assert by_name["instance_create"].input_schema["required"] == ["perspective_id", "class_name"]
        assert by_name["add_perspective"].input_schema["required"] == ["name"]

        if not lifecycle.modern:  # ping is gone from the 2026-07-28 lifecycle
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.send_ping()


async def test_per_class_tools_only_with_the_flag(serve, transport: str, lifecycle: Lifecycle) -> None:
    on = serve(transport, "--dynamic-class-tools", "true")
    off = serve(transport, "--dynamic-class-tools", "false")
    async with on.connect(lifecycle) as client:
        tools = (await client.list_tools(cache_mode="refresh")).tools
        assert [t.name for t in tools] == STATIC_TOOLS + CHAT_CLASS_TOOLS
        by_name = {t.name: t for t in tools}
        create = by_name["channel_create"].input_schema
        assert create["required"] == ["perspective_id"]
        assert create["additionalProperties"] is False
        assert {k: create["properties"][k]["type"] for k in ("name", "description", "isPinned", "members")} == {
            "name": "string",
            "description": "string",
            "isPinned": "boolean",
            "members": "array",
        }
        assert "name*" in by_name["channel_create"].description
        body = by_name["message_create"].input_schema["properties"]["body"]
        assert (body["minLength"], body["maxLength"]) == (1, 4000)
        assert by_name["channel_get"].annotations.read_only_hint is True
        assert by_name["channel_delete"].annotations.read_only_hint is False
    async with off.connect(lifecycle) as client:
        assert await tool_names(client) == STATIC_TOOLS


# ---------------------------------------------------------------------------------------------
# instances


async def test_instance_tools_create_query_update_remove(serve, transport: str, lifecycle: Lifecycle) -> None:
    server = serve(transport)
    async with server.connect(lifecycle) as client:
        did = (await ok(client, "get_my_did", {}))["did"]
        assert DID_KEY.match(did), did
        added = await ok(client, "add_perspective", {"name": "Chat"})
        p = added["uuid"]
        assert added == {"success": True, "uuid": p, "name": "Chat"}
        listed = await ok(client, "list_perspectives", {})
        assert [(x["uuid"], x["name"]) for x in listed["perspectives"]] == [(p, "Chat")]

        created = await ok(
            client,
            "instance_create",
            {
                "perspective_id": p,
                "class_name": "Channel",
                "properties": {"isPinned": True, "name": "general", "description": "d"},
            },
        )
        ch = created["base_uri"]
        assert MINTED.match(ch), ch
        assert created == {
            "created": True,
            "class_name": "Channel",
            "base_uri": ch,
            "properties_set": ["name", "description", "isPinned"],  # in property order
        }
        got = await ok(client, "instance_get", {"perspective_id": p, "class_name": "Channel", "base_uri": ch})
        assert without_meta(got, did) == {
            "id": ch,
            "baseExpression": ch,
            "name": "general",
            "description": "d",
            "isPinned": True,
            "members": [],
            "messages": [],
        }

        # A given base_uri is kept; the class is found case-insensitively; a used one is refused.
        fixed = await ok(
            client,
            "instance_create",
            {"perspective_id": p, "class_name": "channel", "base_uri": "app://channel/fixed", "properties": {"name": "x"}},
        )
        assert fixed == {"created": True, "class_name": "Channel", "base_uri": "app://channel/fixed", "properties_set": ["name"]}
        again = await tool_error(
            client,
            "instance_create",
            {"perspective_id": p, "class_name": "Channel", "base_uri": "app://channel/fixed", "properties": {"name": "y"}},
        )
        assert "app://channel/fixed" in again["error"] and again["hint"]

        pinned = await ok(
            client, "instance_query", {"perspective_id": p, "class_name": "Channel", "filter": {"isPinned": True}}
        )
        assert (pinned["class_name"], pinned["count"], pinned["total_count"]) == ("Channel", 1, 1)
        assert pinned["instances"] == [got]
        page = await ok(
            client,
            "instance_query",
            {"perspective_id": p, "class_name": "Channel", "limit": 1, "order": "newest_first"},
        )
        assert (page["count"], page["total_count"]) == (1, 2)
        assert page["instances"][0]["id"] == "app://channel/fixed"

        updated = await ok(
            client,
            "instance_update",
            {
                "perspective_id": p,
                "class_name": "Channel",
                "base_uri": ch,
                "properties": {"name": "general-2"},
                "unset": ["description"],
            },
        )
        assert updated == {
            "success": True,
            "class_name": "Channel",
            "base_uri": ch,
            "updated_properties": ["name"],
            "unset_properties": ["description"],
        }

        message = await ok(
            client, "instance_create", {"perspective_id": p, "class_name": "Message", "properties": {"body": "hi"}}
        )
        m = message["base_uri"]
        membership = {"perspective_id": p, "class_name": "Channel", "base_uri": ch, "collection": "messages", "item_uri": m}
        base = {"success": True, "class_name": "Channel", "base_uri": ch, "collection": "messages"}
        assert await ok(client, "instance_add_to_collection", membership) == {**base, "links_added": 1}
        assert await ok(client, "instance_add_to_collection", membership) == {
            **base,
            "links_added": 0,
            "already_member": True,
        }
        got = await ok(client, "instance_get", {"perspective_id": p, "class_name": "Channel", "base_uri": ch})
        assert without_meta(got, did) == {
            "id": ch,
            "baseExpression": ch,
            "name": "general-2",
            "isPinned": True,
            "members": [],
            "messages": [m],
        }
        assert await ok(client, "instance_remove_from_collection", membership) == {**base, "links_removed": 1}

        removed = await ok(client, "instance_remove", {"perspective_id": p, "class_name": "Channel", "base_uri": ch})
        # rdf:type, name, isPinned: description was unset and the message membership removed.
        assert removed == {"success": True, "class_name": "Channel", "deleted": ch, "links_removed": 3}
        gone = await tool_error(client, "instance_get", {"perspective_id": p, "class_name": "Channel", "base_uri": ch})
        assert ch in gone["error"] and "instance_query" in gone["hint"]
        left = await ok(client, "instance_query", {"perspective_id": p, "class_name": "Channel"})
        assert [i["id"] for i in left["instances"]] == ["app://channel/fixed"]
        assert (left["count"], left["total_count"]) == (1, 1)

        unknown = await tool_error(client, "instance_create", {"perspective_id": p, "class_name": "Nope", "properties": {}})
        assert unknown["error"] == f"Unknown class 'Nope' in perspective '{p}'"
        assert "Channel, Message" in unknown["hint"] and "describe_perspective" in unknown["hint"]
        missing = await tool_error(client, "describe_perspective", {"perspective_id": "nope"})
        assert missing["error"] == "Perspective 'nope' not found"


async def test_per_class_tools_create_query_update_remove(serve, transport: str, lifecycle: Lifecycle) -> None:
    server = serve(transport, "--dynamic-class-tools", "true")
    async with server.connect(lifecycle) as client:
        did = (await ok(client, "get_my_did", {}))["did"]
        p = (await ok(client, "add_perspective", {"name": "Chat"}))["uuid"]
        created = await ok(
            client,
            "channel_create",
            {"perspective_id": p, "name": "random", "isPinned": False, "members": ["did:key:z6Mkabc"]},
        )
        c = created["base_uri"]
        assert MINTED.match(c), c
        assert created == {
            "created": True,
            "class_name": "Channel",
            "base_uri": c,
            "properties_set": ["name", "isPinned"],
            "collections_set": {"members": ["did:key:z6Mkabc"]},
        }
        at = {"perspective_id": p, "expression_address": c}
        assert await ok(client, "channel_set_description", {**at, "value": "about"}) == {
            "success": True,
            "class_name": "Channel",
            "base_uri": c,
            "updated_properties": ["description"],
        }
        assert await ok(client, "channel_add_members", {**at, "value": "did:key:z6Mkdef"}) == {
            "success": True,
            "class_name": "Channel",
            "base_uri": c,
            "collection": "members",
            "links_added": 1,
        }
        assert await ok(client, "channel_get_members", at) == {
            "expression_address": c,
            "collection": "members",
            "items": ["did:key:z6Mkabc", "did:key:z6Mkdef"],
        }
        assert await ok(client, "channel_remove_members", {**at, "value": "did:key:z6Mkabc"}) == {
            "success": True,
            "class_name": "Channel",
            "base_uri": c,
            "collection": "members",
            "links_removed": 1,
        }
        got = await ok(client, "channel_get", at)
        assert without_meta(got, did) == {
            "id": c,
            "baseExpression": c,
            "name": "random",
            "description": "about",
            "isPinned": False,
            "members": ["did:key:z6Mkdef"],
            "messages": [],
        }
        # The same instance through the model-agnostic tool.
        assert await ok(client, "instance_get", {"perspective_id": p, "class_name": "Channel", "base_uri": c}) == got

        other = (await ok(client, "channel_create", {"perspective_id": p, "name": "general", "expression_address": "app://c/2"}))
        assert other["base_uri"] == "app://c/2"
        queried = await ok(client, "channel_query", {"perspective_id": p, "filter": {"name": "random"}})
        assert (queried["class_name"], queried["count"], queried["total_count"]) == ("Channel", 1, 1)
        assert queried["instances"] == [got]
        listed = await ok(client, "channel_list", {"perspective_id": p, "order": "newest_first"})
        assert [i["id"] for i in listed["instances"]] == ["app://c/2", c]

        assert await ok(client, "channel_set_is_pinned", {**at, "value": None}) == {
            "success": True,
            "class_name": "Channel",
            "base_uri": c,
            "updated_properties": [],
            "unset_properties": ["isPinned"],
        }
        assert "isPinned" not in await ok(client, "channel_get", at)

        message = await ok(client, "message_create", {"perspective_id": p, "body": "hello", "reactions": ["+1"]})
        assert message["properties_set"] == ["body"] and message["collections_set"] == {"reactions": ["+1"]}
        assert await ok(client, "channel_add_messages", {**at, "value": message["base_uri"]}) == {
            "success": True,
            "class_name": "Channel",
            "base_uri": c,
            "collection": "messages",
            "links_added": 1,
        }
        assert (await ok(client, "channel_get_messages", at))["items"] == [message["base_uri"]]

        # rdf:type, name, description, one member, one message.
        assert await ok(client, "channel_delete", at) == {
            "success": True,
            "class_name": "Channel",
            "deleted": c,
            "links_removed": 5,
        }
        left = await ok(client, "channel_list", {"perspective_id": p})
        assert [i["id"] for i in left["instances"]] == ["app://c/2"]


# ---------------------------------------------------------------------------------------------
# flows


async def test_flows_drive_a_task(serve, transport: str, lifecycle: Lifecycle) -> None:
    server = serve(transport, "--dna", str(DNA_DIR / "tasks-flow.json"))
    async with server.connect(lifecycle) as client:
        did = (await ok(client, "get_my_did", {}))["did"]
        p = (await ok(client, "add_perspective", {"name": "Team"}))["uuid"]
        created = await ok(
            client, "instance_create", {"perspective_id": p, "class_name": "Task", "properties": {"title": "t"}}
        )
        task = created["base_uri"]
        subject = {"perspective_id": p, "flow_name": "TaskLifecycle", "subject": task}
        flows = (await ok(client, "get_flows", {"perspective_id": p, "subject": task}))["flows"]
        assert [f["name"] for f in flows] == ["TaskLifecycle", "Approval"]

        started = await ok(client, "flow_start", subject)
        assert started["started"] is True and started["state"] == "open"
        assert MINTED.match(started["instance"])
        actions = await ok(client, "flow_actions", subject)
        assert actions["state"] == "open" and actions["available"] == []
        assert [b["action_name"] for b in actions["blocked"]] == ["start", "scrap"]

        # A step that breaks the shape: every reason at once, nothing written.
        refused = await tool_error(client, "flow_run_action", {**subject, "action_name": "scrap"})
        assert refused["flow_name"] == "TaskLifecycle" and refused["action_name"] == "scrap"
        assert [e["property"] for e in refused["validation_errors"]] == ["done.requires[0]", "status", "priority"]
        assert (await ok(client, "flow_state", subject))["state"] == "open"

        update = {"perspective_id": p, "class_name": "Task", "base_uri": task, "properties": {"assignee": did}}
        await ok(client, "instance_update", update)
        moved = await ok(client, "flow_run_action", {**subject, "action_name": "start"})
        step = {"transitioned": True, "from": "open", "to": "in_progress", "links_added": 1, "links_removed": 1}
        assert moved == step
        state = await ok(client, "flow_state", subject)
        assert state["state"] == "in_progress" and state["value"] == 1
        assert [(h["action_name"], h["author"]) for h in state["history"]] == [("start", did)]


# ---------------------------------------------------------------------------------------------
# errors


async def test_validation_envelope(serve, transport: str, lifecycle: Lifecycle) -> None:
    server = serve(transport, "--dynamic-class-tools", "true")
    async with server.connect(lifecycle) as client:
        p = (await ok(client, "add_perspective", {"name": "Chat"}))["uuid"]
        envelope = await tool_error(
            client, "instance_create", {"perspective_id": p, "class_name": "Channel", "properties": {"isPinned": "maybe"}}
        )
        assert envelope == CHANNEL_ENVELOPE
        # The per-class tool reports the same problems the same way.
        assert await tool_error(client, "channel_create", {"perspective_id": p, "isPinned": "maybe"}) == CHANNEL_ENVELOPE

        too_long = await tool_error(client, "message_create", {"perspective_id": p, "body": "x" * 4001})
        assert too_long["class_name"] == "Message"
        assert too_long["error"].startswith("Validation failed for class 'Message' (1 problem): body: ")
        [problem] = too_long["validation_errors"]
        assert problem["property"] == "body" and problem["expected_type"] == "string"
        assert problem["received"] == 'string "' + "x" * 40 + '…"'

        strict = await tool_error(
            client,
            "instance_create",
            {"perspective_id": p, "class_name": "Channel", "properties": {"name": "n", "isPinned": "true", "colour": 1}},
        )
        assert strict["error"].startswith("Validation failed for class 'Channel' (2 problems): ")
        problems = {e["property"]: e for e in strict["validation_errors"]}
        assert problems.keys() == {"isPinned", "colour"}  # types are strict: "true" is a string
        assert problems["isPinned"]["problem"] == "expects true or false"
        assert problems["isPinned"]["received"] == 'string "true"'
        assert problems["colour"]["problem"].startswith("unknown property")
        assert "name" in problems["colour"]["problem"]  # it lists the writable ones

        # Nothing was written by any of the failed calls.
        for cls in ("Channel", "Message"):
            query = await ok(client, "instance_query", {"perspective_id": p, "class_name": cls})
            assert query["total_count"] == 0, query

        # Fixed arguments against the inputSchema: every problem at once, naming the tool.
        args = await tool_error(client, "query_links", {"limit": 0, "colour": "red"})
        assert args == {
            "error": "Invalid arguments for tool 'query_links' (3 problems): perspective_id: missing required "
            'argument; limit: out of range: must be >= 1, received number 0; colour: unknown argument, received string "red"',
            "tool": "query_links",
            "validation_errors": [
                {"property": "perspective_id", "problem": "missing required argument"},
                {"property": "limit", "problem": "out of range: must be >= 1", "received": "number 0"},
                {"property": "colour", "problem": "unknown argument", "received": 'string "red"'},
            ],
            "hint": "Call tools/list for the tool's input schema.",
        }


async def test_jsonrpc_validation_errors_flag(serve, transport: str, lifecycle: Lifecycle) -> None:
    """docs/errors.md: with --jsonrpc-validation-errors true, schema and shape failures are JSON-RPC
    -32602 with the same envelope under error.data."""
    server = serve(transport, "--jsonrpc-validation-errors", "true")
    async with server.connect(lifecycle) as client:
        p = (await ok(client, "add_perspective", {"name": "Chat"}))["uuid"]
        with pytest.raises(MCPError) as raised:
            await client.call_tool(
                "instance_create", {"perspective_id": p, "class_name": "Channel", "properties": {"isPinned": "maybe"}}
            )
        assert raised.value.code == -32602
        assert raised.value.data == CHANNEL_ENVELOPE
        with pytest.raises(MCPError) as raised:
            await client.call_tool("query_links", {"limit": 0})
        assert raised.value.code == -32602
        assert raised.value.data["tool"] == "query_links"
        # Other tool errors stay tool results.
        missing = await tool_error(client, "describe_perspective", {"perspective_id": "nope"})
        assert missing["error"] == "Perspective 'nope' not found"


REFUSALS = [
    ("channel_create", "instance_create", "Channel"),
    ("channel_set_is_pinned", "instance_update", "Channel"),
    ("channel_get", "instance_get", "Channel"),
    ("channel_delete", "instance_remove", "Channel"),
    ("message_list", "instance_query", "Message"),
    ("message_add_reactions", "instance_add_to_collection", "Message"),
    ("message_remove_reactions", "instance_remove_from_collection", "Message"),
]


async def test_per_class_tool_refused_while_off(serve, transport: str, lifecycle: Lifecycle) -> None:
    server = serve(transport)
    async with server.connect(lifecycle) as client:
        p = (await ok(client, "add_perspective", {"name": "Chat"}))["uuid"]
        refusal = await tool_error(client, "channel_create", {"perspective_id": p, "name": "general"})
        assert refusal == {
            "error": "Per-class tools are off on this server: 'channel_create' is not available",
            "hint": 'Use instance_create with class_name: "Channel" instead, or restart the server with '
            "--dynamic-class-tools true to get per-class tools.",
        }
        for tool, instead, cls in REFUSALS[1:]:
            refusal = await tool_error(client, tool, {"perspective_id": p})
            assert f"'{tool}'" in refusal["error"], refusal
            assert f'Use {instead} with class_name: "{cls}" instead' in refusal["hint"], refusal
            assert "--dynamic-class-tools true" in refusal["hint"]
        # Nothing was created by the refused call; the instance_* route it names works.
        assert (await ok(client, "instance_query", {"perspective_id": p, "class_name": "Channel"}))["total_count"] == 0
        await ok(client, "instance_create", {"perspective_id": p, "class_name": "Channel", "properties": {"name": "general"}})

        # An unknown tool is a protocol error (-32602) naming it, not a tool result.
        with pytest.raises(MCPError) as raised:
            await client.call_tool("no_such_tool", {})
        assert raised.value.code == -32602
        assert "no_such_tool" in raised.value.message


# ---------------------------------------------------------------------------------------------
# notifications/tools/list_changed


async def test_add_model_announces_new_tools(serve, transport: str, lifecycle: Lifecycle) -> None:
    """docs/design.md, Protocol: list_changed reaches clients on stdio and HTTP sessions; on the
    2026-07-28 lifecycle through subscriptions/listen; on stateless legacy HTTP in the response
    to the call that caused it."""
    server = serve(transport, "--dynamic-class-tools", "true")
    seen: list[Any] = []

    async def handler(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            seen.append(message)

    async with server.connect(lifecycle, message_handler=handler) as client:
        p = (await ok(client, "add_perspective", {"name": "Notes"}))["uuid"]
        assert "note_create" not in await tool_names(client)
        add_model = {"perspective_id": p, "class_name": "Note", "shacl_json": NOTE_SHAPE}
        if lifecycle.modern:
            async with client.listen(tools_list_changed=True) as subscription:
                assert subscription.honored is not None and subscription.honored.tools_list_changed
                events = subscription.__aiter__()
                with anyio.fail_after(5):
                    await events.__anext__()  # the catch-up event sent when a listen starts
                if server.http:  # another client changes the model: the listen stream hears it
                    async with server.connect(lifecycle) as other:
                        assert (await ok(other, "add_model", add_model))["replaced"] is False
                else:
                    assert (await ok(client, "add_model", add_model))["replaced"] is False
                with anyio.fail_after(5):
                    await events.__anext__()
        else:
            assert await ok(client, "add_model", add_model) == {
                "success": True,
                "perspective_id": p,
                "class_name": "Note",
                "replaced": False,
            }
            with anyio.fail_after(5):
                while not seen:
                    await anyio.sleep(0.02)
        names = await tool_names(client)
        assert names[-6:] == ["note_create", "note_query", "note_list", "note_get", "note_delete", "note_set_text"]
        created = await ok(client, "note_create", {"perspective_id": p, "text": "remember"})
        assert created["class_name"] == "Note" and created["properties_set"] == ["text"]


# ---------------------------------------------------------------------------------------------
# HTTP: authentication and the Origin check

SECRET = "s3cret-credential-4b1d"


async def test_http_credential_is_required_for_tool_calls(serve, http_transport: str, lifecycle: Lifecycle) -> None:
    server = serve(http_transport, env={"SHACL_MCP_ADMIN_CREDENTIAL": SECRET})
    for token in (None, "wrong-credential"):
        async with server.connect(lifecycle, token=token) as client:
            assert_lifecycle(client, lifecycle)  # the handshake needs no credential
            assert await tool_names(client) == STATIC_TOOLS  # nor does tools/list
            refused = await tool_error(client, "add_perspective", {"name": "Chat"})
            assert refused["error"] == "Not authenticated", (token, refused)
            assert "Authorization: Bearer" in refused["hint"]
            refused = await tool_error(client, "list_perspectives", {})
            assert refused["error"] == "Not authenticated", (token, refused)
            status = await ok(client, "auth_status", {})  # the auth tools answer anyone
            assert status["authenticated"] is False, status
            assert status["mode"] == "single-user"
    async with server.connect(lifecycle, token=SECRET) as client:
        added = await ok(client, "add_perspective", {"name": "Chat"})
        assert added["success"] is True and added["name"] == "Chat"
        assert [x["name"] for x in (await ok(client, "list_perspectives", {}))["perspectives"]] == ["Chat"]
        status = await ok(client, "auth_status", {})
        assert status["authenticated"] is True, status
        # The refused calls above wrote nothing: one perspective, the authorised one.
    server.stop()
    log = server.log_text()
    assert "tools/call" in log, "the server logged the calls"
    assert SECRET not in log, "the credential appeared in a log line"


async def test_stdio_trusts_its_parent(serve, lifecycle: Lifecycle) -> None:
    server = serve("stdio", env={"SHACL_MCP_ADMIN_CREDENTIAL": SECRET})
    async with server.connect(lifecycle) as client:
        assert (await ok(client, "add_perspective", {"name": "Chat"}))["success"] is True


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
ORIGIN_REFUSED = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "origin not allowed"}}


def json_body(body: str) -> Any:
    """A JSON body, or the first `data:` of an SSE body."""
    if body.lstrip().startswith("{"):
        return json.loads(body)
    for line in body.splitlines():
        if line.startswith("data:") and line[5:].strip():
            return json.loads(line[5:])
    raise AssertionError(f"no JSON in {body!r}")


async def test_foreign_origin_and_host_are_refused(serve, http_transport: str) -> None:
    server: Server = serve(http_transport)
    own = f"http://127.0.0.1:{server.port}"
    status, body, headers = server.post(INITIALIZE, {"Origin": own})
    assert status == 200, body
    assert json_body(body)["result"]["serverInfo"]["name"] == "shacl-mcp"
    # Stateless by default; --http-sessions true hands out a session id.
    assert ("mcp-session-id" in headers) == (http_transport == "http-sessions"), headers
    status, body, _ = server.post(INITIALIZE, {"Origin": f"http://localhost:{server.port}"})
    assert status == 200, body

    for foreign in ("http://evil.example", f"http://127.0.0.1.evil.example:{server.port}", "null"):
        status, body, _ = server.post(INITIALIZE, {"Origin": foreign})
        assert status == 403, (foreign, body)
        assert json.loads(body) == ORIGIN_REFUSED
    status, body, _ = server.post(INITIALIZE, {"Host": f"evil.example:{server.port}"})
    assert status == 403, body
    assert json.loads(body) == ORIGIN_REFUSED

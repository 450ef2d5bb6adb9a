"""An independent MCP client for tests/mcp.rs: the official Python SDK (`pip install mcp`).

Spawns the server binary given as the first argument (with the arguments after it), talks to it
over stdio and prints one JSON object with what it saw; the Rust test compares it with the
embedded bundle. Two sessions: one begun with `initialize` (the earlier revisions, as most hosts
do), and one of the 2026-07-28 revision begun with `server/discover`, which pages through
`skills/list` and `resources/list` and keeps the cache hints of every cacheable result.
"""

import asyncio
import json
import sys
from typing import Any, Literal

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from pydantic import TypeAdapter


class ListSkillsRequest(types.PaginatedRequest[Literal["skills/list"]]):
    """The Skills extension's `skills/list`, which the SDK has no method for."""

    method: Literal["skills/list"] = "skills/list"


def hints(result: Any) -> dict[str, Any]:
    """The cache hints and result type of a typed or raw result."""
    if isinstance(result, dict):
        return {key: result.get(key) for key in ("resultType", "ttlMs", "cacheScope")}
    return {
        "resultType": getattr(result, "result_type", None),
        "ttlMs": getattr(result, "ttl_ms", None),
        "cacheScope": getattr(result, "cache_scope", None),
    }


async def legacy(server: StdioServerParameters) -> dict[str, Any]:
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            resources = []
            cursor = None
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_resources(params=params)
                resources.extend(page.resources)
                cursor = page.next_cursor
                if cursor is None:
                    break
            skill_md = await session.read_resource("skill://code-review/SKILL.md")
            tools = await session.list_tools()
            loaded = await session.call_tool("load_skill", {"name": "code-review"})
            prompts = await session.list_prompts()
            return {
                "server": init.server_info.name,
                "protocol_version": init.protocol_version,
                "instructions": init.instructions,
                "resources": sorted(str(r.uri) for r in resources),
                "skill_md": skill_md.contents[0].text,
                "tools": [t.name for t in tools.tools],
                "load_skill": "".join(c.text for c in loaded.content),
                "load_skill_is_error": bool(loaded.is_error),
                "prompts": [p.name for p in prompts.prompts],
            }


async def modern(server: StdioServerParameters) -> dict[str, Any]:
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            discovered = await session.discover()
            skill_pages: list[list[str]] = []
            cursor = None
            list_hints = []
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.send_request(
                    ListSkillsRequest(params=params), TypeAdapter(dict[str, Any])
                )
                skill_pages.append([s["uri"] for s in page["skills"]])
                list_hints.append(hints(page))
                cursor = page.get("nextCursor")
                if cursor is None:
                    break
            resource_pages: list[list[str]] = []
            cursor = None
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_resources(params=params)
                resource_pages.append([str(r.uri) for r in page.resources])
                list_hints.append(hints(page))
                cursor = page.next_cursor
                if cursor is None:
                    break
            read = await session.read_resource("skill://code-review/SKILL.md")
            tools = await session.list_tools()
            try:
                await session.list_resources(
                    params=types.PaginatedRequestParams(cursor="0.not-issued-here")
                )
                foreign_cursor_error = None
            except Exception as error:  # the SDK raises McpError with the code
                foreign_cursor_error = getattr(getattr(error, "error", None), "code", str(error))
            return {
                "supported_versions": list(discovered.supported_versions),
                "discover": hints(discovered),
                "skill_pages": skill_pages,
                "resource_pages": resource_pages,
                "list_hints": list_hints,
                "read_hints": hints(read),
                "tools_hints": hints(tools),
                "foreign_cursor_error": foreign_cursor_error,
            }


async def main(binary: str, args: list[str]) -> None:
    server = StdioServerParameters(command=binary, args=args)
    seen = await legacy(server)
    seen["modern"] = await modern(server)
    print(json.dumps(seen, default=str))


asyncio.run(main(sys.argv[1], sys.argv[2:]))

"""An independent MCP client for tests/mcp.rs: the official Python SDK (`pip install mcp`).

Spawns the server binary given as the first argument, talks to it over stdio and prints one JSON
object with what it saw; the Rust test compares it with the embedded bundle.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary: str) -> None:
    async with stdio_client(StdioServerParameters(command=binary, args=[])) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            resources = await session.list_resources()
            skill_md = await session.read_resource("skill://code-review/SKILL.md")
            tools = await session.list_tools()
            loaded = await session.call_tool("load_skill", {"name": "code-review"})
            prompts = await session.list_prompts()
            print(json.dumps({
                "server": init.server_info.name,
                "instructions": init.instructions,
                "resources": sorted(str(r.uri) for r in resources.resources),
                "skill_md": skill_md.contents[0].text,
                "tools": [t.name for t in tools.tools],
                "load_skill": "".join(c.text for c in loaded.content),
                "load_skill_is_error": bool(loaded.is_error),
                "prompts": [p.name for p in prompts.prompts],
            }))


asyncio.run(main(sys.argv[1]))

"""The MCP server (`python -m engram mcp`) as a client sees it: the real SDK's client over real stdio."""

from __future__ import annotations

import os
import sys


async def mcp_session(root: str, calls: list[tuple[str, dict]]) -> list:
    """[the server's tool names, then each call's first text] from one stdio session in `root`."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {k: os.environ[k] for k in ("ENGRAM_HOME", "HOME", "ENGRAM_OFFLINE", "PATH") if k in os.environ}
    params = StdioServerParameters(command=sys.executable, args=["-m", "engram", "mcp"], env=env, cwd=root)
    out = []
    async with stdio_client(params, errlog=sys.stderr) as streams:  # the SDK's default is bound at its import
        read, write = streams if isinstance(streams, tuple) else (streams.read_stream, streams.write_stream)
        async with ClientSession(read, write) as session:
            await session.initialize()
            out.append(sorted(t.name for t in (await session.list_tools()).tools))
            for name, args in calls:
                result = await session.call_tool(name, args)
                out.append(result.content[0].text)
    return out

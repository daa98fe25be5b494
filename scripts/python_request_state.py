"""Python side of the request-state interop test: the Python SDK (mcp==2.3.0) mints a sealed
requestState, or resumes one minted by our Rust server, with a shared key.

usage: python_request_state.py mint   SECRET SERVER_NAME ARGS_JSON
       python_request_state.py resume SECRET SERVER_NAME ARGS_JSON TOKEN

Both run a real MCPServer with a manual-form tool `step` in memory and talk to it through the
SDK's own client, so the token goes through the SDK's RequestStateBoundary exactly as on the wire.
Prints the token (mint) or the tool's text (resume); a rejection prints `error: <message>`.
"""

import asyncio
import json
import sys

from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.types import InputRequiredResult


def build(secret: str, name: str) -> MCPServer:
    server = MCPServer(name, request_state_security=RequestStateSecurity(keys=[secret]))

    @server.tool()
    async def step(name: str, ctx: Context) -> str | InputRequiredResult:
        if ctx.request_state is None:
            return InputRequiredResult(request_state="py-round-1")
        return f"saw {ctx.request_state}"

    return server


async def main(mode: str, secret: str, name: str, args_json: str, token: str | None) -> None:
    args = json.loads(args_json)
    async with Client(build(secret, name)) as client:
        try:
            result = await client.session.call_tool(
                "step", args, request_state=token, allow_input_required=True
            )
        except Exception as exc:  # the rejection is the answer under test
            print(f"error: {exc}")
            return
    if mode == "mint":
        print(result.request_state)
    else:
        print(result.content[0].text)


if __name__ == "__main__":
    mode, secret, name, args_json = sys.argv[1:5]
    asyncio.run(main(mode, secret, name, args_json, sys.argv[5] if mode == "resume" else None))

"""The Python SDK's own client (mcp==2.3.0) against our provisioner: every round of the
region-then-confirm flow, answered by an elicitation callback.

usage: python_client_interop.py TARGET MODE
  TARGET  a server command (spawned over stdio) or an http:// URL
  MODE    auto (server/discover, 2026-07-28) or legacy (initialize, 2025-11-25 back-channel)

Prints the negotiated protocol version, each question, and the final text.
"""

import asyncio
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import ElicitResult


async def on_elicit(context, params):
    print(f"asked: {params.message}", flush=True)
    if params.message.startswith("Which region"):
        return ElicitResult(action="accept", content={"region": "eu-west-1"})
    return ElicitResult(action="accept", content={"confirm": True})


async def main(target: str, mode: str) -> None:
    server = target if target.startswith("http") else StdioServerParameters(command=target)
    async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
        result = await client.call_tool("provision", {"name": "orders"})
        print(f"version: {client.protocol_version}")
        print(f"result: {result.content[0].text}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))

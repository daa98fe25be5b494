"""The Python SDK's own client (mcp==2.3.0) listens to examples/board.rs over Streamable HTTP:
one `subscriptions/listen` for updates of board://messages and tool list changes, then a
post and an unlock, each of which must arrive as its typed event.

usage: python_board_listen.py URL

Prints the negotiated version, the honoured filter, each event, and the tools after the
unlock. Fails if an event does not arrive within 10 s.
"""

import asyncio
import sys

from mcp import Client
from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged

MESSAGES = "board://messages"


async def next_event(subscription):
    return await asyncio.wait_for(anext(subscription), timeout=10)


async def main(url: str) -> None:
    async with Client(url) as client:
        print(f"version: {client.protocol_version}", flush=True)
        async with client.listen(tools_list_changed=True, resource_subscriptions=[MESSAGES]) as sub:
            honored = sub.honored
            print(f"honored: tools={honored.tools_list_changed} resources={honored.resource_subscriptions}")

            await client.call_tool("post", {"text": "hello from Python"})
            event = await next_event(sub)
            assert event == ResourceUpdated(uri=MESSAGES), event
            print(f"event: {event}")

            await client.call_tool("unlock", {})
            event = await next_event(sub)
            assert event == ToolsListChanged(), event
            print(f"event: {event}")

        tools = await client.list_tools()
        print(f"tools: {[tool.name for tool in tools.tools]}")
        read = await client.read_resource(MESSAGES)
        print(f"board: {read.contents[0].text}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

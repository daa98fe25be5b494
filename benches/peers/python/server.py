"""The Python SDK peer of the load benchmark (BENCHMARKS.md): mcp==2.3.0 serving `echo(text)`
and `provision(name)` (one elicitation under the key `region`) over Streamable HTTP at
http://127.0.0.1:PORT/mcp, as plain `pip install mcp` gives it: MCPServer,
streamable_http_app(json_response=True, stateless_http=True), one uvicorn worker on asyncio + h11,
logging at warning, no access log. `provision` returns request_state "provision-v1"; the SDK's
default RequestStateBoundary seals it on the way out and opens it on the retry. `touch` tells the
`subscriptions/listen` streams watching `bench://counter` that it changed (the fan-out benchmark).

    python server.py --port 8002
"""

import argparse

import uvicorn

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

server = MCPServer("peer-bench")

STATE = "provision-v1"
REGION_SCHEMA = {"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]}


@server.tool()
async def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
async def provision(name: str, ctx: Context) -> str | InputRequiredResult:
    """Provision a database; asks which region to put it in."""
    answer = (ctx.input_responses or {}).get("region")
    if ctx.request_state == STATE and isinstance(answer, ElicitResult) and answer.action == "accept" and answer.content:
        return f"Provisioned '{name}' in {answer.content.get('region')}."
    ask = ElicitRequest(
        params=ElicitRequestFormParams(message=f"Which region should '{name}' live in?", requested_schema=REGION_SCHEMA)
    )
    return InputRequiredResult(input_requests={"region": ask}, request_state=STATE)


TOUCHES = [0]


@server.resource("bench://counter")
def counter() -> str:
    """How many times `bench://counter` was touched."""
    return str(TOUCHES[0])


@server.tool()
async def touch(ctx: Context) -> str:
    """Count one touch of `bench://counter` and tell its listeners."""
    TOUCHES[0] += 1
    await ctx.notify_resource_updated("bench://counter")
    return str(TOUCHES[0])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    app = server.streamable_http_app(json_response=True, stateless_http=True)
    uvicorn.run(app, host="127.0.0.1", port=port, workers=1, loop="asyncio", http="h11", log_level="warning", access_log=False)

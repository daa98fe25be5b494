"""A Python SDK (mcp==2.3.0) server for our client to talk to: `provision` asks the region with
a resolver (Resolve + Elicit), then a dependent confirmation; `deploy` asks by hand with an
InputRequiredResult and checks its own requestState. Serves stdio, or Streamable HTTP at
http://127.0.0.1:PORT/mcp with `--http PORT`.
"""

import sys

from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)

server = MCPServer("python-mrtr")


class Region(BaseModel):
    region: str


class Confirm(BaseModel):
    confirm: bool


async def ask_region(name: str) -> Elicit[Region]:
    return Elicit(f"Which region should '{name}' live in?", Region)


async def ask_confirm(name: str, region: Annotated[Region, Resolve(ask_region)]) -> Elicit[Confirm]:
    return Elicit(f"Provision '{name}' in {region.region}?", Confirm)


@server.tool()
async def provision(
    name: str,
    region: Annotated[Region, Resolve(ask_region)],
    confirm: Annotated[Confirm, Resolve(ask_confirm)],
) -> str:
    if not confirm.confirm:
        return f"Did not provision '{name}'."
    return f"Provisioned '{name}' in {region.region}."


CONFIRM_SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}


@server.tool()
async def deploy(env: str, ctx: Context) -> str | InputRequiredResult:
    answer = (ctx.input_responses or {}).get("confirm")
    if ctx.request_state != "awaiting-confirm" or not isinstance(answer, ElicitResult) or answer.content is None:
        ask = ElicitRequest(
            params=ElicitRequestFormParams(message=f"Deploy to {env}?", requested_schema=CONFIRM_SCHEMA)
        )
        return InputRequiredResult(input_requests={"confirm": ask}, request_state="awaiting-confirm")
    return f"Deployed to {env} (confirm={answer.content.get('confirm')})."


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()

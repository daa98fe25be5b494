"""The Python SDK peer of the load benchmark (BENCHMARKS.md): mcp==2.3.0 serving `echo(text)`
and `provision(name)` (one elicitation under the key `region`) over Streamable HTTP at
http://127.0.0.1:PORT/mcp, as plain `pip install mcp` gives it: MCPServer,
streamable_http_app(json_response=True, stateless_http=True), one uvicorn worker on asyncio + h11,
logging at warning, no access log. `provision` returns request_state "provision-v1"; the SDK's
default RequestStateBoundary seals it on the way out and opens it on the retry. `touch` tells the
`subscriptions/listen` streams watching `bench://counter` that it changed (the fan-out benchmark).

With `--auth-key PEM` (the OAuth benchmark) every request needs an ES256 JWT access token of the
benchmark's test issuer for the benchmark's resource with the scope `mcp`, checked by the SDK's
bearer middleware through a `TokenVerifier` that verifies it with PyJWT (installed with the SDK)
on every request, as the SDK does: it has no cache of verified tokens.

    python server.py --port 8002 [--auth-key benches/peers/auth/bench-es256-public.pem]
"""

import argparse

import jwt
import uvicorn
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from pydantic import AnyHttpUrl

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

# The same issuer and resource as `examples/support/bench_auth.rs`.
ISSUER = "https://auth.bench.invalid"
RESOURCE = "http://127.0.0.1/mcp"


class JwtVerifier:
    """Verifies ES256 JWTs of ISSUER for RESOURCE: signature, exp (required), nbf, iss, aud, with
    30 s of leeway, as our JwtVerifier does."""

    def __init__(self, public_key_pem: bytes):
        self.key = load_pem_public_key(public_key_pem)

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            claims = jwt.decode(
                token,
                self.key,
                algorithms=["ES256"],
                audience=RESOURCE,
                issuer=ISSUER,
                leeway=30,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.InvalidTokenError:
            return None
        return AccessToken(
            token=token,
            client_id=claims.get("client_id") or claims.get("azp") or "",
            scopes=(claims.get("scope") or "").split(),
            expires_at=int(claims["exp"]),
            resource=RESOURCE,
            subject=claims.get("sub"),
            claims={"iss": claims["iss"]},
        )


def make_server(auth_key: str | None) -> MCPServer:
    if auth_key is None:
        return MCPServer("peer-bench")
    with open(auth_key, "rb") as pem:
        verifier = JwtVerifier(pem.read())
    settings = AuthSettings(
        issuer_url=AnyHttpUrl(ISSUER),
        resource_server_url=AnyHttpUrl(RESOURCE),
        required_scopes=["mcp"],
        validate_token_resource=False,  # the verifier checks `aud` itself
    )
    return MCPServer("peer-bench", token_verifier=verifier, auth=settings)


parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--auth-key", help="the PEM public key of the test issuer: require its tokens")
ARGS = parser.parse_args()

server = make_server(ARGS.auth_key)

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
    app = server.streamable_http_app(json_response=True, stateless_http=True)
    uvicorn.run(app, host="127.0.0.1", port=ARGS.port, workers=1, loop="asyncio", http="h11", log_level="warning", access_log=False)

"""The Python SDK's own client (mcp==2.3.0) calling a tool from inside a trace, so that the
SDK writes that trace's context into `params._meta` (SEP-414) of every request it sends.

usage: python_client_traced.py URL TRACE_ID SPAN_ID
  URL       the server's Streamable HTTP endpoint
  TRACE_ID  32 hex digits, SPAN_ID 16: the span the call runs under

Only the OpenTelemetry API is installed (the SDK depends on it), so the client's spans do not
record and the context it injects is the one set here: the server's spans must continue it.
Calls `place` (two rounds: it asks for a region) and prints the final text.
"""

import asyncio
import sys

from mcp import Client
from mcp.types import ElicitResult
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags


async def on_elicit(context, params):
    return ElicitResult(action="accept", content={"region": "eu-west-1"})


async def main(url: str, trace_id: str, span_id: str) -> None:
    caller = NonRecordingSpan(
        SpanContext(
            trace_id=int(trace_id, 16),
            span_id=int(span_id, 16),
            is_remote=False,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )
    )
    with trace.use_span(caller):
        async with Client(url, mode="auto", elicitation_callback=on_elicit) as client:
            result = await client.call_tool("place", {"name": "py"})
            print(f"result: {result.content[0].text}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))

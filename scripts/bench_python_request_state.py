"""Times the Python SDK's (mcp==2.3.0) request-state sealing on the same work as our criterion
bench `mcp-runtime/benches/sealing.rs`: a 200-byte state, audience, a bound principal, the
request binding of tools/call provision {"name": "orders", "region": "eu-west-1"}.

Prints the median time per operation (µs) of seal, open, and seal + open, over 7 repeats.
"""

import statistics
import timeit
from types import SimpleNamespace

from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

PRINCIPAL = '["bench-client","https://issuer.example","user-42"]'

security = RequestStateSecurity(
    keys=["benchmark-secret-0123456789abcdef0123456789"],
    bind_principal=lambda ctx: PRINCIPAL,
)
boundary = RequestStateBoundary(security, default_audience="bench")
params = {"name": "provision", "arguments": {"name": "orders", "region": "eu-west-1"}}
ctx = SimpleNamespace(method="tools/call", params=params)
state = "s" * 200
token = boundary._seal(ctx, state)
open_ctx = SimpleNamespace(method="tools/call", params={**params, "requestState": token})
assert boundary._unseal(open_ctx)[0] == state


def seal():
    boundary._seal(ctx, state)


def unseal():
    assert boundary._unseal(open_ctx)[0] == state


both_params = dict(params)
both_ctx = SimpleNamespace(method="tools/call", params=both_params)


def both():
    # One reused context, as the Rust side reuses its binding: only the SDK's work is timed.
    both_params["requestState"] = boundary._seal(ctx, state)
    assert boundary._unseal(both_ctx)[0] == state


for name, fn in [("seal", seal), ("open", unseal), ("seal_and_open", both)]:
    number = 5000
    runs = timeit.repeat(fn, number=number, repeat=7)
    print(f"python_{name}_us {statistics.median(runs) / number * 1e6:.3f}")

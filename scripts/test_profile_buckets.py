#!/usr/bin/env python3
"""Checks scripts/profile_buckets.py on a small callgrind dump written by hand:

    python3 scripts/test_profile_buckets.py
"""
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import profile_buckets  # noqa: E402

# Three contexts (innermost frame first, callers after '): the envelope parse under hyper, a
# serde visitor of the runtime under the gate, and memcpy under the sealing. The calls= lines
# are followed by the call's inclusive cost, which is not the caller's own.
DUMP = """\
version: 1
positions: line
events: Ir
summary: 1111

fn=(1) mcp_runtime::protocol::jsonrpc::Incoming::parse'hyper::proto::h1::dispatch::Dispatcher<D,Bs,I,T>::poll
1 100
cfn=(2) mcp_runtime::protocol::meta::Visitor::visit_map'mcp_runtime::server::gate::admit'hyper::proto::h1::dispatch::Dispatcher<D,Bs,I,T>::poll
calls=1 1
2 10
fn=(2)
3 1000
cfn=(3) __memcpy_avx_unaligned_erms'mcp_runtime::state::claims::verify'mcp_runtime::server::gate::admit
calls=1 1
4 5
fn=(3)
5 11
"""


class Buckets(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = Path(self.dir.name) / "dump.out"
        self.path.write_text(DUMP)

    def tearDown(self):
        self.dir.cleanup()

    def test_self_costs_leave_out_the_calls(self):
        costs = profile_buckets.contexts(self.path)
        self.assertEqual(sorted(costs.values()), [11, 100, 1000])

    def test_the_innermost_specific_frame_decides(self):
        split = profile_buckets.split(self.path)
        self.assertEqual(split["transport"], 100)  # the envelope parse, a specific row
        self.assertEqual(split["gate"], 1000)  # a runtime visitor called from the gate
        self.assertEqual(split["sealing"], 11)  # memcpy called from the claims check
        self.assertEqual(sum(split.values()), 1111)


if __name__ == "__main__":
    unittest.main()

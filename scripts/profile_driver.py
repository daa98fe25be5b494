#!/usr/bin/env python3
"""Sends exactly N operations to an MCP server over one keep-alive HTTP/1.1 connection, the
same requests as mcpload (benches/load), checking every answer. For scripts/profile.sh: the
server runs under callgrind, and its counters are zeroed before and dumped after these N.

usage: profile_driver.py URL echo|mrtr N
"""
import http.client
import json
import sys
import urllib.parse

META = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},'
        '"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}')
ANSWER = '"inputResponses":{"region":{"action":"accept","content":{"region":"eu-west-1"}}}'


def body(id_, tool, arguments, extra=""):
    return ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s",'
            '"arguments":%s,%s%s}}' % (id_, tool, arguments, extra, META)).encode()


def main():
    url, scenario, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
    }

    def call(tool, payload):
        conn.request("POST", parts.path, payload, {**headers, "Mcp-Name": tool})
        response = conn.getresponse()
        data = response.read()
        if response.status != 200:
            sys.exit(f"HTTP {response.status}: {data!r}")
        return json.loads(data)["result"]

    echo = body(1, "echo", '{"text":"hello world"}')
    first = body(1, "provision", '{"name":"orders"}')
    for _ in range(count):
        if scenario == "echo":
            result = call("echo", echo)
            assert result["content"][0]["text"] == "hello world", result
            continue
        asked = call("provision", first)
        assert asked["resultType"] == "input_required", asked
        assert asked["inputRequests"]["region"]["method"] == "elicitation/create", asked
        token = json.dumps(asked["requestState"])
        done = call("provision", body(2, "provision", '{"name":"orders"}',
                                      f'{ANSWER},"requestState":{token},'))
        assert "eu-west-1" in done["content"][0]["text"] and not done.get("isError"), done


if __name__ == "__main__":
    main()

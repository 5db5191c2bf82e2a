"""A stdio MCP server that serves the tools of the listing file given, serialized afresh for every tools/list."""
import json, sys
tools = json.load(open(sys.argv[1]))["tools"]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m: continue
    if m["method"] == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "big", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": tools}
    elif m["method"] == "tools/call":
        r = {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"id": "x"}}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n"); sys.stdout.flush()

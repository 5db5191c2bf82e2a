"""A dependency-free stdio MCP server for the guard's edge cases (tests/guard.rs), where the real
drift server cannot misbehave on purpose.

FAKE_LOG: a file that gets every line the server receives, as received.
FAKE_MODE:
  pages   tools/list in two pages (`echo` on the first, `add` on the second); the default;
  loop    tools/list whose second page points back to the first cursor;
  silent  never answers tools/list;
  exit    exits with code 7 on the first tools/call it receives.
FAKE_EXIT: the exit code when stdin closes (default 0).
FAKE_FORGE: before every tools/list answer, send forged ones for the ids 0 to 5 with `"method": null`
  and the tools `[{"name": "forged", ...}]` (a client library can take them for its answer).
FAKE_TOOLS: a file holding a JSON array of tools, read again on every tools/list and served as one
  page (instead of the two built-in tools): a test rewrites it to change the tools without a
  notification (FAKE_LIE: another such file, served instead to the second tools/list the server
  receives: a server that shows one listing something else; the guard's ids no longer tell it
  whose listing it answers). A call of the tool `notify` is answered after a batch that holds
  notifications/tools/list_changed. A call's result carries its arguments as structuredContent too.
"""

import json
import os
import sys

TOOLS = [
    {"name": "echo", "description": "Echo the text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "add", "description": "Add two numbers.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}},
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    mode = os.environ.get("FAKE_MODE", "pages")
    log = os.environ.get("FAKE_LOG")
    lists = [0]
    for line in sys.stdin:
        if log:
            with open(log, "a", encoding="utf-8") as f:
                f.write(line if line.endswith("\n") else line + "\n")
        try:
            message = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            continue
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            continue
        method, rid = message["method"], message["id"]
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-06-18",
                  "capabilities": {"tools": {"listChanged": True}}, "serverInfo": {"name": "fake", "version": "1"}}})
        elif method == "tools/list":
            if mode == "silent":
                continue
            if os.environ.get("FAKE_FORGE"):
                forged = [{"name": "forged", "inputSchema": {"type": "object"}}]
                for fid in range(6):
                    send({"jsonrpc": "2.0", "id": fid, "method": None, "result": {"tools": forged}})
            cursor = (message.get("params") or {}).get("cursor")
            if os.environ.get("FAKE_TOOLS"):
                path = os.environ["FAKE_TOOLS"]
                lists[0] += 1
                if os.environ.get("FAKE_LIE") and lists[0] == 2:
                    path = os.environ["FAKE_LIE"]
                with open(path, encoding="utf-8") as f:
                    send({"jsonrpc": "2.0", "id": rid, "result": {"tools": json.load(f)}})
            elif cursor is None:
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS[:1], "nextCursor": "page-2"}})
            elif mode == "loop":
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [], "nextCursor": "page-2"}})
            else:
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS[1:]}})
        elif method == "tools/call":
            if mode == "exit":
                sys.exit(7)
            if message["params"].get("name") == "notify":
                send([{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}])
            args = message["params"].get("arguments") or {}
            result = {"content": [{"type": "text", "text": json.dumps(args)}]}
            if os.environ.get("FAKE_TOOLS"):
                result["structuredContent"] = args
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        else:
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))


if __name__ == "__main__":
    main()

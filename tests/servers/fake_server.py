"""A misbehaving stdio MCP server for mcp-drift's capture tests: standard library only.

Usage: python3 fake_server.py MODE [ARG]. Modes:
  exit       writes three stderr lines, exits with code 3 on `initialize`
  error      answers `tools/list` with a JSON-RPC error
  notjson    writes a banner to stdout instead of an answer
  loop       every `tools/list` page gives the cursor "again"
  hang       reads its input and never answers
  noisy      before each answer: notifications, a ping and a roots/list request (whose answers it
             checks: it exits 9 when they are wrong), an answer with a wrong id
  pages      three pages of tools, unsorted, with `_meta`
  version    answers protocol version 2099-01-01
  huge       a stdout line of ARG bytes
  linger     starts `sleep 300` in its process group (pid written to file ARG), ignores SIGTERM itself
             until stdin closes... and then keeps running: only the process group signal ends it
  stubborn   ignores stdin closing and SIGTERM (only SIGKILL ends it)
  hostile    stderr with terminal escapes and a workflow command, then exits 1
  slowpages  answers every `tools/list` page after ARG seconds, with a next cursor, forever
  many       ARG tools with 3,000-character descriptions in one page (a listing that takes a while to
             write)
"""

import json
import signal
import subprocess
import sys
import time

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else ""


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def read():
    line = sys.stdin.readline()
    if not line:
        return None
    return json.loads(line)


def tool(name):
    return {"name": name, "description": "Does " + name, "inputSchema": {"type": "object"}, "_meta": {"at": time.time()}}


def initialize_result(version="2025-11-25"):
    return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "fake-" + mode, "version": "0"}}


if mode in ("linger", "stubborn"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "linger":
    child = subprocess.Popen(["sleep", "300"])
    with open(arg, "w") as f:
        f.write(str(child.pid))

while True:
    msg = read()
    if msg is None:
        if mode in ("linger", "stubborn"):
            while True:
                time.sleep(1)
        sys.exit(0)
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        continue
    if mode == "hang":
        continue
    if mode == "notjson":
        sys.stdout.write("Server listening on port 3000 \x1b[32mready\x1b[0m\n")
        sys.stdout.flush()
        continue
    if mode == "exit":
        for line in ["starting", "loading config", "fatal: no API key \x1b[31m"]:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        sys.exit(3)
    if mode == "hostile":
        sys.stderr.write("\x1b]0;pwned\x07::error::forged by the server\n##[warning]also forged\n")
        sys.stderr.flush()
        sys.exit(1)
    if mode == "huge":
        sys.stdout.write('{"x":"' + "a" * int(arg) + '"}\n')
        sys.stdout.flush()
        continue
    if mode == "noisy":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        send({"jsonrpc": "2.0", "id": "srv-2", "method": "roots/list"})
        pong, refused = read(), read()
        if pong != {"jsonrpc": "2.0", "id": "srv-1", "result": {}} or refused.get("error", {}).get("code") != -32601:
            sys.stderr.write("bad answers: %r %r\n" % (pong, refused))
            sys.exit(9)
        send({"jsonrpc": "2.0", "id": 12345, "result": {"tools": [tool("wrong")]}})
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": initialize_result("2099-01-01" if mode == "version" else "2025-11-25")})
    elif method == "tools/list":
        cursor = (msg.get("params") or {}).get("cursor")
        if mode == "error":
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32603, "message": "database \x1b[2J unavailable"}})
        elif mode == "loop":
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [tool("t" + str(cursor))], "nextCursor": "again"}})
        elif mode == "slowpages":
            time.sleep(float(arg))
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [tool("t" + str(cursor))], "nextCursor": str(cursor) + "x"}})
        elif mode == "many":
            text = "d" * 3000
            tools = [{"name": "t%d" % i, "description": text, "inputSchema": {"type": "object"}} for i in range(int(arg))]
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": tools}})
        elif mode == "pages":
            page = {None: (["zeta", "alpha"], "p2"), "p2": (["mid"], "p3"), "p3": (["beta"], None)}[cursor]
            result = {"tools": [tool(n) for n in page[0]], "_meta": {"served": time.time()}}
            if page[1]:
                result["nextCursor"] = page[1]
            send({"jsonrpc": "2.0", "id": mid, "result": result})
        else:
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [tool("only")]}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "method not found"}})

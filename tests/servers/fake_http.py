"""A misbehaving streamable HTTP MCP server for mcp-drift's capture tests: standard library only.

Usage: python3 fake_http.py PORT MODE. It serves POST /mcp on 127.0.0.1:PORT. Modes:
  redirect  answers every POST with 307 to another host
  status    answers `tools/list` with HTTP 500 and a body
  sse       answers in SSE streams: a priming event without data, a comment, then, before the answer
            to `tools/list`, a ping request; `tools/list` answers only once the ping's answer was
            POSTed with the session id (else a JSON-RPC error). Checks `MCP-Protocol-Version` too.
  json      answers with plain JSON bodies; `tools/list` pages twice
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, mode = int(sys.argv[1]), sys.argv[2]
SESSION = "sess-42"
pong = threading.Event()


def tool(name):
    return {"name": name, "inputSchema": {"type": "object"}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", ctype="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def sse(self, messages, headers=()):
        chunks = "id: prime\ndata:\n\n: keep-alive\n\n"
        for m in messages:
            chunks += "event: message\ndata: " + json.dumps(m) + "\n\n"
        self.reply(200, chunks.encode(), "text/event-stream", headers)

    def do_DELETE(self):
        self.reply(200 if self.headers.get("Mcp-Session-Id") == SESSION else 400)

    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if mode == "redirect":
            return self.reply(307, headers=[("Location", "http://elsewhere.invalid/mcp")])
        method, mid = msg.get("method"), msg.get("id")
        if method is None:  # an answer from the client
            if msg.get("id") == "srv-ping" and msg.get("result") == {} and self.headers.get("Mcp-Session-Id") == SESSION:
                pong.set()
            return self.reply(202)
        if mid is None:  # a notification
            return self.reply(202)
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake-http"}}
            answer = {"jsonrpc": "2.0", "id": mid, "result": result}
            if mode == "sse":
                return self.sse([answer], [("Mcp-Session-Id", SESSION)])
            return self.reply(200, json.dumps(answer).encode(), headers=[("Mcp-Session-Id", SESSION)])
        if self.headers.get("Mcp-Session-Id") != SESSION:
            return self.reply(400, b"missing session")
        if self.headers.get("MCP-Protocol-Version") != "2025-11-25":
            return self.reply(400, b"missing MCP-Protocol-Version")
        if method == "tools/list" and mode == "status":
            return self.reply(500, b"internal \x1b[31merror\x1b[0m", "text/plain")
        if method == "tools/list" and mode == "sse":
            # The ping goes out in this stream; the answer follows in a second stream, once answered.
            if not pong.is_set():
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.write(b"event: message\ndata: " + json.dumps({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"}).encode() + b"\n\n")
                self.wfile.flush()
                if not pong.wait(5):
                    self.wfile.write(b"data: " + json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -1, "message": "ping unanswered"}}).encode() + b"\n\n")
                    self.close_connection = True
                    return
                self.wfile.write(b"data: " + json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"tools": [tool("b"), tool("a")]}}).encode() + b"\n\n")
                self.wfile.flush()
                self.close_connection = True
                return
        if method == "tools/list" and mode == "json":
            cursor = (msg.get("params") or {}).get("cursor")
            result = {"tools": [tool("z")], "nextCursor": "2"} if cursor is None else {"tools": [tool("y")]}
            return self.reply(200, json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode())
        self.reply(200, json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}}).encode())


ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()

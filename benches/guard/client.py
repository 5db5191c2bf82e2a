"""A client for docs/guard.md: initialize, three calls, a tools/list, a call; timings to stderr. Usage: client.py CMD..."""
import json, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def req(i, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode()); p.stdin.flush()
    while True:
        line = p.stdout.readline()
        m = json.loads(line)
        if m.get("id") == i: return m
t = time.time()
req(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}})
n = int(sys.argv[0] and 3)
for k in range(3):
    r = req(k + 1, "tools/call", {"name": "tool_1", "arguments": {"p0": "v1"}})
    print("call", k, time.time() - t, str(r)[:100], file=sys.stderr)
r = req(10, "tools/list", {})
print("list", time.time() - t, len(r["result"]["tools"]), file=sys.stderr)
r = req(11, "tools/call", {"name": "tool_1", "arguments": {"p0": "v1"}})
print("call", time.time() - t, str(r)[:100], file=sys.stderr)
p.stdin.close(); p.wait()

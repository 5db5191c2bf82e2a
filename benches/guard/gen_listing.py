"""A tools/list of N tools (about 5 KB each) for the guard memory figure in docs/guard.md: list.json."""
import json, sys
n = int(sys.argv[1])
tools = []
for i in range(n):
    props = {f"p{j}": {"type": "string", "description": f"Parameter {j} of tool {i}: " + "word " * 20, "enum": [f"v{k}" for k in range(8)]} for j in range(20)}
    tools.append({"name": f"tool_{i}", "description": "Does thing %d. " % i + "text " * 100,
                  "inputSchema": {"type": "object", "properties": props, "required": ["p0"]},
                  "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}})
json.dump({"tools": tools}, open("list.json", "w"))

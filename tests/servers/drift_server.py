"""A FastMCP server for mcp-drift's tests whose tools come in two revisions, A and B.

Revision B, against A:
  * `search`: the parameter `query` is renamed `q` (a rename: a breaking input change);
  * `create_ticket`: a required parameter `project` is added, and `priority` loses `"medium"`
    (an enum narrowed); its output gains nothing;
  * `echo` and `switch_revision`: unchanged.

Which revision is served, read again on every `tools/list` and `tools/call`:
  * the contents of the file named by `DRIFT_REVISION_FILE` (`A` or `B`), when that variable is set;
  * else `DRIFT_REVISION` (default `A`).
The tool `switch_revision` sets the revision at run time (rewriting `DRIFT_REVISION_FILE` when it is
set, else in memory) and sends `notifications/tools/list_changed`.

`DRIFT_LOG`, when set, names a file that gets one JSON line per `tools/call` that reached a tool
(`{"tool": ..., "arguments": ..., "revision": ...}`): tests use it to prove a call did (not) arrive.

Usage: python drift_server.py            (stdio)
       python drift_server.py --http PORT (streamable HTTP on 127.0.0.1:PORT, path /mcp)
"""

from __future__ import annotations

import functools
import json
import os
import sys
import warnings
from typing import Any, Literal

# pydantic-settings warns about FastMCP's own settings model on every start: noise on stderr.
warnings.filterwarnings("ignore")

from pydantic import BaseModel

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.fastmcp.tools import ToolManager
from mcp.types import Tool as MCPTool

_memory_revision: str | None = None


def current_revision() -> str:
    path = os.environ.get("DRIFT_REVISION_FILE")
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read().strip()
        except FileNotFoundError:
            text = ""
        if text in ("A", "B"):
            return text
    if _memory_revision is not None:
        return _memory_revision
    value = os.environ.get("DRIFT_REVISION", "A").strip()
    return value if value in ("A", "B") else "A"


def log_call(tool: str, arguments: dict[str, Any]) -> None:
    path = os.environ.get("DRIFT_LOG")
    if path:
        line = json.dumps({"tool": tool, "arguments": arguments, "revision": current_revision()}, sort_keys=True)
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


class Hits(BaseModel):
    """Search results."""

    query: str
    results: list[str]


class Ticket(BaseModel):
    """A created ticket."""

    id: str
    title: str
    priority: str


# Revision A ---------------------------------------------------------------------------------------


def search_a(query: str, limit: int = 10) -> Hits:
    """Search the catalogue."""
    log_call("search", {"query": query, "limit": limit})
    return Hits(query=query, results=[f"{query}-{i}" for i in range(min(limit, 3))])


def create_ticket_a(title: str, priority: Literal["low", "medium", "high"] = "medium") -> Ticket:
    """Create a ticket."""
    log_call("create_ticket", {"title": title, "priority": priority})
    return Ticket(id="T-1", title=title, priority=priority)


# Revision B ---------------------------------------------------------------------------------------


def search_b(q: str, limit: int = 10) -> Hits:
    """Search the catalogue."""
    log_call("search", {"q": q, "limit": limit})
    return Hits(query=q, results=[f"{q}-{i}" for i in range(min(limit, 3))])


def create_ticket_b(title: str, project: str, priority: Literal["low", "high"] = "low") -> Ticket:
    """Create a ticket."""
    log_call("create_ticket", {"title": title, "project": project, "priority": priority})
    return Ticket(id=f"{project}-1", title=title, priority=priority)


# Both ---------------------------------------------------------------------------------------------


def echo(text: str) -> str:
    """Echo the text back."""
    log_call("echo", {"text": text})
    return text


async def switch_revision(revision: Literal["A", "B"], ctx: Context) -> str:
    """Serve another revision of the tools from now on, and say so with notifications/tools/list_changed."""
    global _memory_revision
    log_call("switch_revision", {"revision": revision})
    path = os.environ.get("DRIFT_REVISION_FILE")
    if path:
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(revision + "\n")
        os.replace(tmp, path)
    _memory_revision = revision
    await ctx.session.send_tool_list_changed()
    return f"now serving revision {revision}"


def named(fn: Any, name: str) -> Any:
    """`fn` under the tool's name, so that the schema titles FastMCP derives do not differ by revision."""
    fn.__name__ = name
    fn.__qualname__ = name
    return fn


for _fn, _name in ((search_a, "search"), (search_b, "search"), (create_ticket_a, "create_ticket"),
                   (create_ticket_b, "create_ticket")):
    named(_fn, _name)


def manager(revision: str) -> ToolManager:
    m = ToolManager()
    if revision == "A":
        m.add_tool(search_a, name="search", structured_output=True)
        m.add_tool(create_ticket_a, name="create_ticket", structured_output=True)
    else:
        m.add_tool(search_b, name="search", structured_output=True)
        m.add_tool(create_ticket_b, name="create_ticket", structured_output=True)
    m.add_tool(echo, name="echo", structured_output=True)
    m.add_tool(switch_revision, name="switch_revision", structured_output=True)
    return m


class DriftServer(FastMCP):
    """FastMCP whose tool manager is the current revision's, chosen again on every request."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("drift-server", **kwargs)
        self.revisions = {"A": manager("A"), "B": manager("B")}
        # The server sends notifications/tools/list_changed, so it says so in its capabilities.
        low = self._mcp_server
        low.create_initialization_options = functools.partial(  # type: ignore[method-assign]
            type(low).create_initialization_options, low, NotificationOptions(tools_changed=True)
        )

    async def list_tools(self) -> list[MCPTool]:
        self._tool_manager = self.revisions[current_revision()]
        return await super().list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any]):
        self._tool_manager = self.revisions[current_revision()]
        return await super().call_tool(name, arguments)


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--http"] and len(args) == 2:
        server = DriftServer(host="127.0.0.1", port=int(args[1]), log_level="WARNING")
        server.run("streamable-http")
    elif not args:
        DriftServer(log_level="WARNING").run("stdio")
    else:
        sys.exit("usage: drift_server.py [--http PORT]")


if __name__ == "__main__":
    main()

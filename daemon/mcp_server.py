"""`memoryd mcp`: the tools of daemon/mcp_tools.py and two resources, served over stdio with the MCP SDK.

Built on the official SDK's low-level server (PyPI `mcp` 2.x, `mcp.server.lowlevel.Server`): our
own hand-written JSON schemas and argument checks, so every error names the field. Tool calls run
one at a time in a worker thread (a memoryd operation blocks: file locks, the daemon socket), so
the event loop keeps answering pings and cancellations meanwhile.
"""
from __future__ import annotations

import json
import logging
from typing import Any

from memoryd.tiers.config import Config
from memoryd.tiers.errors import MemorydError

from .mcp_tools import TOOLS, Tools, UnknownTool

log = logging.getLogger("memoryd.mcp")

INSTRUCTIONS = (
    "memoryd is this user's long-term memory, shared by their agents and devices. Search it (memory_search) "
    "before answering anything that may depend on earlier sessions, decisions or preferences. Store durable "
    "facts worth remembering (memory_store); put lessons, tasks and events that should stay in every session "
    "into hot memory (memory_lesson, memory_task, memory_event). Forget on the user's request (memory_forget)."
)


def resources(agent_id: str) -> dict[str, tuple[str, str, str, str, str]]:
    """uri → (name, mime type, description, the operation that reads it, the key of its text)."""
    return {
        f"memory://{agent_id}/MEMORY.md": ("MEMORY.md", "text/markdown",
                                           "Hot memory of this agent as Markdown (identity, projects, tasks, "
                                           "events, lessons).", "hot_show", "markdown"),
        f"memory://{agent_id}/tree": ("tree", "text/plain",
                                      "The category tree of this agent's memories (paths to search and store under).",
                                      "tree_show", "text"),
    }


def _tool_result(types: Any, tools: Tools, name: str, arguments: Any) -> Any:
    """Run one tool; a memoryd error becomes an error result the model can read and act on."""
    try:
        data = tools.call(name, arguments)
    except UnknownTool:
        raise
    except MemorydError as exc:
        return types.CallToolResult(content=[types.TextContent(type="text", text=exc.message)], is_error=True)
    except Exception as exc:  # a bug must not take the server down: report it, keep serving
        log.exception("tool %s failed", name)
        text = f"internal error in {name}: {type(exc).__name__}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
    text = json.dumps(data, ensure_ascii=False, default=str)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=json.loads(text))


def build_server(config: Config, agent_id: str) -> Any:
    """The SDK server object with our handlers (imports the SDK: ~1 s, see bench/bench_mcp.py)."""
    import anyio
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    tools = Tools(config, agent_id)
    lock = anyio.Lock()  # one memoryd operation at a time, like the daemon's per-agent lock
    listing = _listing(types)
    served = resources(agent_id)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return listing

    async def call_tool(ctx: Any, params: Any) -> Any:
        async with lock:
            try:
                return await anyio.to_thread.run_sync(_tool_result, types, tools, params.name, params.arguments)
            except UnknownTool as exc:
                raise MCPError(code=types.INVALID_PARAMS, message=exc.message) from None

    async def list_resources(ctx: Any, params: Any) -> Any:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=name, mime_type=mime, description=desc)
            for uri, (name, mime, desc, _, _) in served.items()])

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        if uri not in served:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown resource {uri!r}; this server has "
                           + ", ".join(served))
        _, mime, _, op, key = served[uri]
        async with lock:
            try:
                data = await anyio.to_thread.run_sync(lambda: tools.op(op))
            except MemorydError as exc:
                raise MCPError(code=types.INTERNAL_ERROR, message=exc.message) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=data[key])])

    server = Server("memoryd", version=_version(), title="memoryd", instructions=INSTRUCTIONS,
                    on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                    on_read_resource=read_resource)
    server.middleware = []  # no tracing spans: tool arguments hold memories
    return server


def _listing(types: Any) -> Any:
    return types.ListToolsResult(tools=[
        types.Tool(name=t.name, description=t.description, input_schema=t.input_schema,
                   annotations=types.ToolAnnotations(**{_snake(k): v for k, v in t.hints.items()}) if t.hints else None)
        for t in TOOLS])


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memoryd")
    except PackageNotFoundError:
        return "0"


def serve(config: Config, agent_id: str) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(config, agent_id)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)

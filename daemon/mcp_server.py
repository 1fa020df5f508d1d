"""`memoryd mcp`: the tools of daemon/mcp_tools.py and two resources, served over stdio with the MCP SDK.

Built on the official SDK's low-level server (PyPI `mcp` 2.x, `mcp.server.lowlevel.Server`): our
own hand-written JSON schemas and argument checks, so every error names the field. Tool calls run
one at a time in a worker thread (a memoryd operation blocks: file locks, the daemon socket), so
the event loop keeps answering pings and cancellations meanwhile.
"""
from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, BinaryIO

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.memory.model import without_lone_surrogates  # an answer that is not UTF-8 would stop the SDK's writer

from memoryd.daemon.mcp_tools import TOOLS, Tools, UnknownTool

if TYPE_CHECKING:
    from memoryd.daemon.api import MemoryApi

log = logging.getLogger("memoryd.mcp")

INSTRUCTIONS = (
    "memoryd is this user's long-term memory, shared by their agents and devices. Search it (memory_search) "
    "before answering anything that may depend on earlier sessions, decisions or preferences. Store durable "
    "facts worth remembering (memory_store); put lessons, tasks and events that should stay in every session "
    "into hot memory (memory_lesson, memory_task, memory_event). Forget on the user's request (memory_forget)."
)


def resources(agent_id: str) -> dict[str, tuple[str, str, str, str, str]]:
    """uri → (name, mime type, description, the Tools method that reads it, the key of its text)."""
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
        text = without_lone_surrogates(exc.message)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
    except Exception as exc:  # a bug must not take the server down: report it, keep serving
        log.exception("tool %s failed", name)
        text = f"internal error in {name}: {type(exc).__name__}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
    text = without_lone_surrogates(json.dumps(data, ensure_ascii=False, default=str))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=json.loads(text))


def build_server(config: Config, agent_id: str, api: MemoryApi | None = None) -> Any:
    """The SDK server object with our handlers (imports the SDK: ~1 s, see bench/bench_mcp.py).

    `api` carries out the operations: in the daemon, its own request handler; else daemon/api.connect()."""
    import anyio
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    if api is None:
        from memoryd.daemon.api import connect

        api = connect(config, follow=True)  # a session lasts hours: the daemon may come and go meanwhile
    tools = Tools(api, agent_id)
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
                raise MCPError(code=types.INVALID_PARAMS, message=without_lone_surrogates(exc.message)) from None

    async def list_resources(ctx: Any, params: Any) -> Any:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=name, mime_type=mime, description=desc)
            for uri, (name, mime, desc, _, _) in served.items()])

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        if uri not in served:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown resource {uri!r}; this server has "
                           + ", ".join(served))
        _, mime, _, reader, key = served[uri]
        async with lock:
            try:
                data = await anyio.to_thread.run_sync(getattr(tools, reader))
            except MemorydError as exc:
                raise MCPError(code=types.INTERNAL_ERROR, message=without_lone_surrogates(exc.message)) from None
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


def serve(config: Config, agent_id: str, handover: Any = None) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin.

    `handover` (daemon/mcp_bridge.Handover): a session the daemon dropped, taken over here; the
    client's initialize is replayed and, when it was answered already, its second answer dropped."""
    import anyio
    from mcp.server.stdio import stdio_server

    from memoryd.daemon.mcp_lines import FixedLines

    server = build_server(config, agent_id)
    first = b"".join(handover.replay) + handover.unread if handover is not None else b""
    streams: tuple[Any, Any] = (anyio.wrap_file(FixedLines(_Replayed(first))), None)  # None: the SDK claims fd 1
    if handover is not None and handover.drop_reply_to is not None:
        streams = (streams[0], anyio.wrap_file(_DropReply(handover.drop_reply_to)))

    async def main() -> None:
        async with stdio_server(*streams) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)


class _Replayed:
    """stdin as text lines, after lines already read from it by the bridge."""

    def __init__(self, first: bytes) -> None:
        import io
        import sys

        self._first = io.BytesIO(first)
        self._rest = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")

    def __iter__(self) -> Any:
        for line in self._first:
            yield line.decode("utf-8", "replace")
        yield from self._rest

    def readline(self) -> str:
        line = self._first.readline()
        return line.decode("utf-8", "replace") if line else self._rest.readline()


class _DropReply:
    """stdout that swallows one answer: the replayed initialize's, which the client already has."""

    def __init__(self, reply_id: Any) -> None:
        import io
        import sys

        self._out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
        self._drop = json.dumps(reply_id) if reply_id is not None else None

    def write(self, text: str) -> int:
        if self._drop is not None:
            try:
                msg = json.loads(text)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and "method" not in msg and json.dumps(msg.get("id")) == self._drop:
                self._drop = None
                return len(text)
        return self._out.write(text)

    def flush(self) -> None:
        self._out.flush()


def serve_stream(server: Any, rfile: BinaryIO, wfile: BinaryIO) -> None:
    """Serve one MCP session over a byte stream (a daemon socket) until its reader ends."""
    import io

    import anyio
    from mcp.server.stdio import stdio_server

    from memoryd.daemon.mcp_lines import FixedLines

    reader = io.TextIOWrapper(rfile, encoding="utf-8", errors="replace", newline="\n")
    writer = io.TextIOWrapper(wfile, encoding="utf-8", newline="\n", write_through=True)

    async def main() -> None:
        async with stdio_server(anyio.wrap_file(FixedLines(reader)), anyio.wrap_file(writer)) as (read_stream,
                                                                                                 write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        for f in (reader, writer):
            try:
                f.detach()  # the caller closes the socket's files
            except (ValueError, OSError):
                pass


def preload() -> None:
    """Import the SDK ahead of the first session (the daemon does it in a background thread)."""
    import anyio  # noqa: F401
    import mcp_types  # noqa: F401
    from mcp.server.lowlevel import Server  # noqa: F401
    from mcp.server.stdio import stdio_server  # noqa: F401
    from mcp.shared.exceptions import MCPError  # noqa: F401

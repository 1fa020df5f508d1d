"""`memoryd mcp`: a Model Context Protocol server over stdio for agents (Claude Code, Cursor, OpenClaw…)."""
from __future__ import annotations

import click

from memoryd.cli.common import get_config, handles_errors
from memoryd.cli.main import cli


@cli.command()
@click.option("--agent-id", "agent_id", default=None,
              help="Agent whose memory the server serves. [default: config.toml [mcp] agent, else default]")
@handles_errors
def mcp(agent_id: str | None) -> None:
    """Serve one agent's memory to an MCP client on stdin/stdout (search, store, forget, hot, status, sync)."""
    from memoryd.tiers.base.config import validate_agent_id

    config = get_config()
    configured = config.mcp.agent
    if agent_id is None:  # an empty --agent-id is refused below, never taken for "not given"
        agent_id = (click.get_current_context().find_root().obj or {}).get("agent_id") or configured
    agent_id = validate_agent_id(agent_id)
    handover = None
    if config.socket_path.exists():  # a running daemon serves the session with the SDK it has loaded
        from memoryd.daemon.mcp_bridge import bridge

        handover = bridge(config, agent_id)
        if handover is None:
            return  # the client ended the session
    from memoryd.daemon.mcp_server import serve

    serve(config, agent_id, handover)

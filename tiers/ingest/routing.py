"""Which memoryd agent each workspace and each OpenClaw agent feeds: the home's `routing.json`.

One workspace (its daily notes) and each OpenClaw agent feed exactly one memoryd agent, whichever path
reads them (`ingest-daily`, `openclaw sync`, the daemon's watcher). That agent is the one the user
configured (`memoryd route …`, or `[watch] notes_agent` for the default OpenClaw agent) or else the one
first used for it, recorded here by the path that read the source first. An OpenClaw agent's record
names its workspace, and both are changed together, so the two never point at different agents.

routing.json (0600, written atomically under `routing.lock`):
    {"version": 1,
     "workspaces": {"/abs/ws": {"agent_id", "how", "by", "since"}},
     "openclaw": {"main": {"agent_id", "how", "by", "since", "workspace": "/abs/ws"}},
     "merged": {"main": {"into": "default", "at", "workspace", "done", "warm", "cold", "hot"}}}
`how`: "route" (the user's command), "first use", "new agent" (the path created the agent: announced),
"upgrade" (found in a home older than this file), "repair" (a split home merged).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, TypeVar

from memoryd.tiers.base.atomic import FileLock, atomic_write_json, read_json
from memoryd.tiers.base.errors import UsageError

ROUTES_FILE, LOCK_FILE = "routing.json", "routing.lock"
DEFAULT_AGENT = "default"
T = TypeVar("T")
Table = dict[str, Any]


def empty_table() -> Table:
    return {"version": 1, "workspaces": {}, "openclaw": {}, "merged": {}}


def _valid(obj: Any) -> None:
    if not isinstance(obj, dict) or not all(isinstance(obj.get(k, {}), dict)
                                            for k in ("workspaces", "openclaw", "merged")):
        raise TypeError("not a routing table")
    for key, value in empty_table().items():
        obj.setdefault(key, value)


def workspace_key(path: Path | str) -> str:
    """A workspace as the table names it: absolute, symlinks resolved (one folder, one key)."""
    return os.path.realpath(os.path.expanduser(str(path)))


def load(home: Path) -> Table:
    """The table as it is on disk (an empty one when there is none; a corrupt one is moved aside)."""
    table: Table = read_json(Path(home) / ROUTES_FILE, empty_table, _valid)
    return table


def exists(home: Path) -> bool:
    return (Path(home) / ROUTES_FILE).is_file()


def update(home: Path, change: Callable[[Table], T]) -> T:
    """Read, change and write the table under its lock (two processes never lose each other's record)."""
    with FileLock(Path(home) / LOCK_FILE, sweep=False).held():
        table = load(home)
        before = repr(table)
        result = change(table)
        if repr(table) != before or not exists(home):
            atomic_write_json(Path(home) / ROUTES_FILE, table)
        return result


def record(agent_id: str, how: str, by: str, now: float, **extra: Any) -> dict[str, Any]:
    return {"agent_id": agent_id, "how": how, "by": by, "since": now, **extra}


def workspace_agent(table: Table, workspace: Path | str, configured: str | None = None) -> str | None:
    """The agent a workspace feeds: configured, else recorded, else None (not read yet)."""
    if configured:
        return configured
    entry = table["workspaces"].get(workspace_key(workspace))
    return entry["agent_id"] if entry else None


def openclaw_agent(table: Table, openclaw_id: str, workspace: Path | str, configured: str | None = None,
                   unrouted: str | None = None) -> str:
    """The agent an OpenClaw agent feeds: configured, else its workspace's record (what `ingest-daily`
    or another path chose first), else its own record, else `unrouted` (the install's answer: a memoryd agent
    of the same name when OpenClaw is installed), else that name."""
    routed = workspace_agent(table, workspace, configured)
    if routed:
        return routed
    entry = table["openclaw"].get(openclaw_id)
    return entry["agent_id"] if entry else (unrouted or openclaw_id)


def claim_workspace(table: Table, workspace: Path | str, asked: str | None, by: str, now: float,
                    configured: str | None = None, unrouted: str | None = None) -> str:
    """The agent reading `workspace` now must be: the routed one; the first reader records its own.

    `asked`: the agent the user named (None: none named). Naming another than the routed one is refused,
    with the command that moves the route: a workspace split between two agents is what this prevents.
    `unrouted`: the agent a first reader that names none records — the one the OpenClaw path would record
    for this workspace (the install's answer), so which path reads it first does not matter; else DEFAULT_AGENT."""
    routed = workspace_agent(table, workspace, configured)
    if routed is None:
        agent = asked or unrouted or DEFAULT_AGENT
        table["workspaces"][workspace_key(workspace)] = record(agent, "first use", by, now)
        return agent
    if asked is not None and asked != routed:
        where = "[watch] notes_agent in config.toml" if configured else f"memoryd route workspace --agent-id {asked}"
        raise UsageError(f"workspace {workspace_key(workspace)} feeds agent {routed!r}, not {asked!r}: leave out "
                         f"--agent-id, or send it to {asked!r} from now on with {where}")
    return routed


def claim_openclaw(table: Table, openclaw_id: str, workspace: Path | str, by: str, now: float,
                   agent_exists: Callable[[str], bool], configured: str | None = None,
                   unrouted: str | None = None) -> tuple[str, bool]:
    """Record where an OpenClaw agent read now goes (and its workspace with it); (agent, announce):
    announce is True when this read creates a memoryd agent (the caller says so in the log)."""
    agent = openclaw_agent(table, openclaw_id, workspace, configured, unrouted)
    ws = workspace_key(workspace)
    known = table["openclaw"].get(openclaw_id)
    new = not agent_exists(agent)
    if known is None or known.get("agent_id") != agent or known.get("workspace") != ws:
        how = "route" if configured else "new agent" if new else "first use"
        table["openclaw"][openclaw_id] = record(agent, how, by, now, workspace=ws)
    if ws not in table["workspaces"] and not configured:
        table["workspaces"][ws] = record(agent, "new agent" if new else "first use", by, now)
    return agent, new


def route(table: Table, kind: str, name: str, agent_id: str, now: float, workspace: str | None = None) -> dict:
    """`memoryd route`: send a workspace (with the OpenClaw agents reading it) or an OpenClaw agent (with
    its workspace) to `agent_id` from now on. What was stored before stays where it is."""
    if kind == "workspace":
        ws = workspace_key(name)
        table["workspaces"][ws] = record(agent_id, "route", "memoryd route", now)
        for oc_id, entry in table["openclaw"].items():
            if entry.get("workspace") == ws:
                table["openclaw"][oc_id] = record(agent_id, "route", "memoryd route", now, workspace=ws)
        return {"workspace": ws, "agent_id": agent_id}
    if kind != "openclaw":
        raise UsageError("route a workspace or an openclaw agent")
    ws = workspace_key(workspace) if workspace else (table["openclaw"].get(name) or {}).get("workspace")
    table["openclaw"][name] = record(agent_id, "route", "memoryd route", now, **({"workspace": ws} if ws else {}))
    if ws:
        table["workspaces"][ws] = record(agent_id, "route", "memoryd route", now)
    return {"openclaw_agent": name, "agent_id": agent_id, "workspace": ws}


def feeds(table: Table, agent_id: str) -> dict[str, list[dict[str, Any]]]:
    """What feeds one memoryd agent: its workspaces and OpenClaw agents, with how each was chosen."""
    return {"workspaces": [dict(e, path=p) for p, e in sorted(table["workspaces"].items())
                           if e.get("agent_id") == agent_id],
            "openclaw": [dict(e, openclaw_agent=o) for o, e in sorted(table["openclaw"].items())
                         if e.get("agent_id") == agent_id],
            "merged_in": [dict(e, agent_id=a) for a, e in sorted(table["merged"].items())
                          if e.get("into") == agent_id]}

"""Memory rendered where the agent reads it: render targets, writing the managed block, re-render on change.

A target is `openclaw` (the workspace's MEMORY.md), `claude` / `agents` (CLAUDE.md / AGENTS.md in a
project directory) or `file:PATH`. config.toml may name targets to keep current:

    [render]
    targets = ["openclaw", "claude"]   # re-rendered after each hot (or tree) change of `agent`
    agent = "default"
    project_dir = "~/src/myproject"    # where claude/agents live (required for them here)

`install(config)` hooks that re-render into tiers/memory/state.py's save listeners of this process; the
daemon and the in-process CLI/MCP paths call it. Renders run under one lock per MEMORYD_HOME,
taken after the agent's lock (never the other way round).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from memoryd.tiers.base.atomic import FileLock, atomic_write_json, atomic_write_text, dumps, read_json
from memoryd.tiers.base.config import Config, validate_agent_id
from memoryd.tiers.base.errors import ConfigError, MemorydError, UsageError

log = logging.getLogger("memoryd.render")
HARNESS_FILES = {"claude": "CLAUDE.md", "agents": "AGENTS.md"}
TARGET_HELP = "openclaw, claude, agents or file:PATH"


@dataclass(frozen=True)
class Target:
    spec: str        # as the user wrote it
    path: Path       # the file it names (possibly a symlink)
    boundary: Path   # a symlink must point inside this directory


def resolve(config: Config, spec: str, project_dir: Path | None) -> Target:
    """The file a target names; UsageError for an unknown target or a missing project directory."""
    spec = spec.strip()
    if spec == "openclaw":
        return Target(spec, config.workspace / "MEMORY.md", config.workspace)
    if spec in HARNESS_FILES:
        if project_dir is None:
            raise UsageError(f"target {spec!r} needs a project directory ([render] project_dir)")
        return Target(spec, project_dir / HARNESS_FILES[spec], project_dir)
    if spec.startswith("file:") and spec[5:].strip():
        path = Path(spec[5:].strip()).expanduser().absolute()
        return Target(spec, path, path.parent)
    raise UsageError(f"unknown render target {spec!r}: use {TARGET_HELP}")


@dataclass(frozen=True)
class RenderSettings:
    targets: tuple[str, ...] = ()
    agent: str = "default"
    project_dir: Path | None = None

    @classmethod
    def from_config(cls, config: Config) -> "RenderSettings":
        """config.toml's [render] (types checked at load), with what the schema cannot check alone: the agent
        id, and that every target resolves (claude/agents need project_dir or a project here)."""
        section = config.render
        try:
            validate_agent_id(section.agent)
        except UsageError as exc:
            raise ConfigError(f"config.toml [render] agent: {exc.message}") from None
        settings = cls(section.targets, section.agent,
                       Path(section.project_dir).expanduser() if section.project_dir else None)
        for spec in section.targets:
            try:
                resolve(config, spec, settings.project_dir)
            except UsageError as exc:
                raise ConfigError(f"config.toml [render]: {exc.message}") from None
        return settings


def _sha(data: bytes | str) -> str:
    import hashlib  # loads OpenSSL: not on every CLI start

    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


class _Renders:
    """What memoryd last wrote into each harness file (to tell its own text from other people's edits)."""

    def __init__(self, config: Config) -> None:
        self.dir = config.home / "render"
        self.path = self.dir / "state.json"
        self.records: dict[str, Any] = read_json(self.path, dict)

    def keep_replaced(self, target: Target, agent_id: str, text: str) -> Path:
        """Someone edited inside the block: keep their version before it is replaced."""
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        copy = self.dir / "replaced" / f"{stamp}-{agent_id}-{target.path.name}"
        atomic_write_text(copy, text)
        return copy

    def save(self) -> None:
        atomic_write_json(self.path, self.records)


def _render_one(renders: _Renders, target: Target, agent_id: str, state: dict[str, Any]) -> dict[str, Any]:
    from memoryd.tiers.memory.harness import resolve_target, write_merged
    from memoryd.tiers.memory.render import build_block, merge_block, newline_of

    real = resolve_target(target.path, target.boundary)
    key = f"{real}\n{agent_id}"
    record = renders.records.get(key) or {}
    seen: dict[str, Any] = {"warnings": []}

    def merge(text: str) -> str:
        block = build_block(state["hot"], state["tree"], agent_id, newline_of(text), digest=_digest(state))
        merged, old = merge_block(text, block, agent_id)
        if old is not None and old != block and record.get("block") not in (None, _sha(old)):
            if seen.get("kept") != old:  # once per distinct edited version
                copy = renders.keep_replaced(target, agent_id, old)
                seen["warnings"].append(f"the memoryd block in {real} was edited by hand; those edits were "
                                        f"replaced and kept in {copy}")
                seen["kept"] = old
        seen["block"] = block
        return merged

    before, after = write_merged(real, merge)
    renders.records[key] = {"block": _sha(seen["block"]), "file": _sha(after), "at": int(time.time())}
    return {"target": target.spec, "path": str(real), "written": before != after,
            "outside_changes": bool(record) and before is not None and _sha(before) != record.get("file"),
            "block_bytes": len(seen["block"].encode("utf-8")), "warnings": seen["warnings"]}


def _digest(state: dict[str, Any]) -> list[str]:
    """The newest daily digest in warm, a few lines (tiers/knowledge/digest.py), for the block's last section."""
    from memoryd.tiers.knowledge.digest import latest_lines

    return latest_lines((state.get("warm") or {}).get("entries") or [])


def render_state(config: Config, agent_id: str, state: dict[str, Any], targets: list[Target]) -> list[dict[str, Any]]:
    """Write the agent's block into each target (caller holds the agent lock or passes saved state)."""
    from memoryd.tiers.memory.harness import read_harness, resolve_target

    for target in targets:  # every target checked before any is written: bad input changes no file
        read_harness(resolve_target(target.path, target.boundary))
    with FileLock(config.home / "render" / ".lock").held():
        renders = _Renders(config)
        try:
            return [_render_one(renders, t, agent_id, state) for t in targets]
        finally:
            renders.save()


def render_agent(config: Config, agent_id: str, targets: list[Target]) -> list[dict[str, Any]]:
    """`memoryd render`: the agent's current hot memory and tree into each target."""
    from memoryd.tiers.memory.agent import AgentMemory

    mem = AgentMemory(config, agent_id)
    if not mem.dir.is_dir():
        raise UsageError(f"no agent {agent_id!r} on this device (memoryd init, or memoryd restore)")
    # under the agent lock: agent lock first, then the render lock, the order the listener has too
    return mem.with_state(lambda state, now: render_state(config, agent_id, state, targets))


Listener = Callable[[Path, str, dict[str, Any]], None]
# per MEMORYD_HOME: the config it was installed with and its listener (a reload replaces, never adds)
_installed: dict[Path, tuple[Config, Listener | None]] = {}


def install(config: Config) -> None:
    """Keep [render] targets current in this process: re-render after each saved hot/tree change."""
    from memoryd.tiers.memory import state as state_files

    if config.home in _installed and _installed[config.home][0] == config:
        return
    _, old = _installed.pop(config.home, (None, None))
    if old in state_files.SAVE_LISTENERS:
        state_files.SAVE_LISTENERS.remove(old)
    settings = RenderSettings.from_config(config)  # a bad [render] is refused like any config mistake
    _installed[config.home] = (config, None)
    if not settings.targets:
        return
    targets = [resolve(config, spec, settings.project_dir) for spec in settings.targets]
    last: dict[str, str] = {}

    def listener(agent_dir: Path, agent_id: str, state: dict[str, Any]) -> None:
        if agent_id != settings.agent or agent_dir != config.agent_dir(agent_id):
            return
        from memoryd.tiers.memory.render import index_lines

        signature = _sha(dumps([state["hot"], index_lines(state["tree"]), _digest(state)]))
        if last.get(agent_id) == signature:  # a touch of access times: the block would not change
            return
        try:
            for result in render_state(config, agent_id, state, targets):
                for warning in result["warnings"]:
                    log.warning("%s", warning)
            last[agent_id] = signature
        except MemorydError as exc:
            log.warning("memory not rendered into harness files: %s", exc.message)

    _installed[config.home] = (config, listener)
    state_files.SAVE_LISTENERS.append(listener)

"""Knowledge operations: entity list/show/refresh, reflect (bank pages), the daily digest, and the daily job that runs them."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import UsageError

from memoryd.daemon.engine import Engine, Params, agent_of, clock_of

_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([hdw]?)\s*$")
_UNIT_DAYS = {"h": 1 / 24, "d": 1.0, "": 1.0, "w": 7.0}


def clock(config: Config) -> Callable[[], float]:
    """Real time, or MEMORYD_CLOCK_FILE's (tests drive the digest's "today" with it): daemon/engine.clock_of."""
    return clock_of(config)


def since_days(value: Any) -> float:
    """--since: `7d`, `24h`, `2w` or a number of days; UsageError otherwise."""
    m = _SINCE.match(str(value if value is not None else "7d"))
    if not m or float(m.group(1)) <= 0:
        raise UsageError(f"invalid --since {value!r}: use a duration like 7d, 24h or 2w")
    return float(m.group(1)) * _UNIT_DAYS[m.group(2)]


def _llm(config: Config) -> Any:
    if not config.llm_endpoint:
        return None
    from memoryd.sync.llm import llm_from_config

    return llm_from_config(config)


def workspaces(config: Config, agent_id: str) -> list[Path]:
    """The OpenClaw workspaces whose bank/ this agent writes: those of the OpenClaw agents stored as this
    agent, and an explicitly configured workspace for `default`; only directories that exist."""
    from memoryd.tiers.ingest.openclaw.install import Install

    found = [a.workspace for a in Install(config).agents() if a.memoryd_id == agent_id]
    if agent_id == "default" and config.sources.get("workspace", "default") != "default":
        found.append(config.workspace.expanduser())
    out: list[Path] = []
    for w in found:
        if w.is_dir() and w.resolve() not in [o.resolve() for o in out]:
            out.append(w)
    return out


def _known_agent(engine: Engine, params: Params) -> str:
    agent_id = agent_of(params)
    if not engine.config.agent_dir(agent_id).is_dir():
        raise UsageError(f"agent {agent_id!r} has no memories on this device")
    return agent_id


def entity_refresh(engine: Engine, params: Params) -> dict[str, Any]:
    """Read the memories not read yet for entities (`rebuild`: all of them again)."""
    from memoryd.tiers.knowledge import entities

    with engine.memory(_known_agent(engine, params), clock(engine.config)) as mem, mem.exclusive():
        warm = mem.read_state()["warm"]["entries"]
        run = entities.rebuild if params.get("rebuild") else entities.refresh
        counts = run(mem.archive, mem.agent_id, warm, _llm(engine.config))
        return {"agent_id": mem.agent_id, **counts, "warnings": mem.warnings}


def entity_list(engine: Engine, params: Params) -> dict[str, Any]:
    from memoryd.tiers.knowledge import entities

    with engine.memory(_known_agent(engine, params), clock(engine.config)) as mem, mem.exclusive():
        entities.refresh(mem.archive, mem.agent_id, mem.read_state()["warm"]["entries"], _llm(engine.config),
                         mem.warnings.append)
        rows = entities.entity_list(mem.archive, mem.agent_id, mem.clock())
        limit = params.get("limit")
        return {"agent_id": mem.agent_id, "entities": [e.as_dict() for e in (rows[:limit] if limit else rows)],
                "total": len(rows), "warnings": mem.warnings}


def entity_show(engine: Engine, params: Params) -> dict[str, Any]:
    """One entity: its page (if reflect wrote one), facts, beliefs and opinions with confidence, timeline."""
    from memoryd.tiers.knowledge import entities, pages
    from memoryd.tiers.knowledge.entity_lookup import lookup
    from memoryd.tiers.knowledge.reflect import memories_of

    name = str(params.get("name") or "").strip()
    if not name:
        raise UsageError("entity name is empty")
    with engine.memory(_known_agent(engine, params), clock(engine.config)) as mem, mem.exclusive():
        warm = mem.read_state()["warm"]["entries"]
        known = lookup(mem.archive, mem.agent_id, name, mem.clock())
        if not known and not entities.unread_say(mem.archive, mem.agent_id, warm, name):
            raise UsageError(f"no entity called {name!r} (memoryd entity list shows them)")  # nothing written
        entities.refresh(mem.archive, mem.agent_id, warm, _llm(engine.config), mem.warnings.append)
        found = lookup(mem.archive, mem.agent_id, name, mem.clock())
        if not found:
            raise UsageError(f"no entity called {name!r} (memoryd entity list shows them)")
        view = pages.entity_view(found[0], memories_of(mem.archive, mem.agent_id, found[0].key, warm))
        page = pages.page_of(mem.dir / "bank" / "entities", found[0].name, found[0].type, found[0].key)
        view["page"] = str(page) if page is not None else None
        view["also"] = [e.key for e in found[1:]]
        return {"agent_id": mem.agent_id, **view, "warnings": mem.warnings}


def reflect(engine: Engine, params: Params) -> dict[str, Any]:
    from memoryd.tiers.knowledge.reflect import reflect as run

    days = since_days(params.get("since"))
    agent_id = _known_agent(engine, params)
    with engine.memory(agent_id, clock(engine.config)) as mem:
        return run(mem, mem.archive, mem.clock(), days, workspaces(engine.config, agent_id), _llm(engine.config))


def digest(engine: Engine, params: Params) -> dict[str, Any]:
    """Build, store (replacing the day's earlier one) and return the digest of `date` (default today)."""
    from memoryd.daemon.ops_sync import stamp_edits
    from memoryd.tiers.knowledge import digest as daily

    agent_id = _known_agent(engine, params)
    now = clock(engine.config)
    date = daily.parse_date(params.get("date"), now())
    with engine.memory(agent_id, now) as mem, mem.exclusive():
        data = daily.build(mem, mem.archive, date, mem.knowledge_rows())
        stored = daily.store(mem, data) if data["memories"] else None
        data.pop("summarises")
    if stored is not None:
        stamp_edits(engine.config, agent_id)
        _render(engine.config, agent_id)
    return {"agent_id": agent_id, **data, "id": stored["id"] if stored else None, "stored": stored is not None,
            "warnings": mem.warnings}


def _render(config: Config, agent_id: str) -> None:
    """[render] targets show the newest digest: write them again now (a digest changes warm, not hot)."""
    from memoryd.daemon.render_targets import RenderSettings, render_agent, resolve

    settings = RenderSettings.from_config(config)
    if settings.targets and settings.agent == agent_id:
        render_agent(config, agent_id, [resolve(config, s, settings.project_dir) for s in settings.targets])


def knowledge_job(engine: Engine, params: Params) -> dict[str, Any]:
    """After a scheduled consolidation: entities read; after the daily one, yesterday's digest and reflect."""
    out: dict[str, Any] = {"entities": entity_refresh(engine, params)}
    if params.get("mode") == "daily":
        out["digest"] = digest(engine, dict(params, date="yesterday"))
        out["reflect"] = reflect(engine, params)
    return out


def after_forget(engine: Engine, agent_id: str, ids: set[str]) -> list[str]:
    """A forget drops its memories' mentions and every bank page quoting them is generated again."""
    from memoryd.tiers.knowledge.reflect import scrub_pages

    with engine.memory(agent_id, clock(engine.config)) as mem:
        return scrub_pages(mem, mem.archive, ids, mem.clock(), workspaces(engine.config, agent_id))

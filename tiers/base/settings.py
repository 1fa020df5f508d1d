"""The checked sections of config.toml as frozen, typed objects: `config.watch.quiet_seconds`, not a dict lookup.

Fields mirror config_schema.SCHEMA one for one (a test holds them to it); values arrive checked and normalised
by load_config, so nothing downstream validates or reads the environment again.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping


@dataclass(frozen=True)
class ScheduleSection:
    quick: str
    daily: str
    monthly: str
    timezone: str | None
    heartbeat_seconds: float
    wake_jump_seconds: float
    misfire_grace_seconds: int
    sync_idle_seconds: float
    sync_backoff_seconds: float
    sync_backoff_max_seconds: float


@dataclass(frozen=True)
class WatchSection:
    sessions_dir: str | None
    notes_agent: str | None
    quiet_seconds: float
    recheck_seconds: float
    enabled: bool
    backend: str  # auto | inotify | watchfiles


@dataclass(frozen=True)
class DaemonSection:
    log_level: str


@dataclass(frozen=True)
class WarmSection:
    grace_hours: float


@dataclass(frozen=True)
class RetentionSection:
    cold_years: float


@dataclass(frozen=True)
class DbSection:
    timeout: float
    connect_timeout: float


@dataclass(frozen=True)
class OpenClawSection:
    state_dir: str | None
    distill: str  # rule | llm


@dataclass(frozen=True)
class McpSection:
    agent: str
    preload: str  # auto | always | never


@dataclass(frozen=True)
class RenderSection:
    targets: tuple[str, ...]
    agent: str
    project_dir: str | None


@dataclass(frozen=True)
class RetrievalSection:
    mode: str  # keyword | hybrid
    fusion: str  # blend | rrf
    dense_weight: float
    llm_rerank: int
    llm_timeout: float
    model_idle: float


@dataclass(frozen=True)
class LlmSection:
    model: str | None
    api_key_env: str | None


@dataclass(frozen=True)
class WebSection:
    enabled: bool
    port: int
    allow_edits: bool


SECTIONS: dict[str, type] = {
    "schedule": ScheduleSection, "watch": WatchSection, "daemon": DaemonSection, "warm": WarmSection,
    "retention": RetentionSection, "db": DbSection, "openclaw": OpenClawSection, "mcp": McpSection,
    "render": RenderSection, "retrieval": RetrievalSection, "llm": LlmSection, "web": WebSection,
}


def build(name: str, values: Mapping[str, Any]) -> Any:
    """The typed section from its checked values (lists become tuples: the object is frozen)."""
    cls = SECTIONS[name]
    return cls(**{f.name: tuple(v) if isinstance(v := values[f.name], list) else v for f in fields(cls)})

"""The checked sections of config.toml as frozen, typed objects: `config.watch.quiet_seconds`, not a dict lookup.

Fields mirror config_schema.SCHEMA one for one (a test holds them to it); values arrive checked and normalised
by load_config, so nothing downstream validates or reads the environment again.
"""
from __future__ import annotations

from typing import Any, Mapping


class Section:
    """A section's checked values as read-only attributes. Plain classes, not dataclasses: eleven frozen
    dataclasses cost ~10 ms at every CLI start (their methods are generated and compiled at import)."""

    def __init__(self, **values: Any) -> None:
        names = fields(type(self))
        if set(values) != set(names):
            raise TypeError(f"{type(self).__name__} takes exactly {', '.join(names)}")
        for name in names:
            object.__setattr__(self, name, values[name])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only (config is read once, at load)")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash(tuple(vars(self).items()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


def fields(cls: type) -> tuple[str, ...]:
    """A section class's field names, in declaration order."""
    return tuple(cls.__annotations__)


class ScheduleSection(Section):
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


class WatchSection(Section):
    sessions_dir: str | None
    notes_agent: str | None
    quiet_seconds: float
    recheck_seconds: float
    enabled: bool
    backend: str  # auto | inotify | watchfiles


class DaemonSection(Section):
    log_level: str


class WarmSection(Section):
    grace_hours: float


class RetentionSection(Section):
    cold_years: float


class DbSection(Section):
    timeout: float
    connect_timeout: float


class OpenClawSection(Section):
    state_dir: str | None
    distill: str  # rule | llm


class HarnessSection(Section):
    agent: str | None
    claude_agent: str
    codex_agent: str
    projects: tuple[str, ...]  # "/abs/dir=agent"
    claude_dir: str | None
    codex_dir: str | None
    context_chars: int
    watch: bool


class McpSection(Section):
    agent: str
    preload: str  # auto | always | never


class RenderSection(Section):
    targets: tuple[str, ...]
    agent: str
    project_dir: str | None


class RetrievalSection(Section):
    mode: str  # keyword | hybrid
    fusion: str  # blend | rrf
    dense_weight: float
    llm_rerank: int
    llm_timeout: float
    model_idle: float


class LlmSection(Section):
    model: str | None
    api_key_env: str | None


class WebSection(Section):
    enabled: bool
    port: int
    allow_edits: bool


class SyncSection(Section):
    layout: str  # single | namespace
    namespace_admin_url: str | None
    separate_admin_token: bool
    shred_forget: bool


class KnowledgeSection(Section):
    layer: str  # on | off
    seal_after_days: float
    seal_below_score: float
    seal_min_members: int
    seal_max_members: int
    seal_budget: int
    summary_max_bytes: int
    llm: str  # auto | never
    split_over: int
    sparse_under: int
    restructure_budget: int
    move_budget: int
    maintain_budget: int


SECTIONS: dict[str, type] = {
    "schedule": ScheduleSection, "watch": WatchSection, "daemon": DaemonSection, "warm": WarmSection,
    "retention": RetentionSection, "db": DbSection, "openclaw": OpenClawSection, "mcp": McpSection,
    "render": RenderSection, "retrieval": RetrievalSection, "llm": LlmSection, "web": WebSection,
    "sync": SyncSection,
    "knowledge": KnowledgeSection, "harness": HarnessSection,
}


def build(name: str, values: Mapping[str, Any]) -> Any:
    """The typed section from its checked values (lists become tuples: the object is frozen)."""
    cls = SECTIONS[name]
    return cls(**{name: tuple(v) if isinstance(v := values[name], list) else v for name in fields(cls)})

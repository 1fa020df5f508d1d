"""The one declared schema of config.toml: every section, key, type, default, range and environment variable.

To add a setting, add one line to SCHEMA below, e.g. in "schedule":

    "sync_batch": Key(int, 100, ge=1, le=10_000, doc="rows per push"),

and read it where it is used with `config.section("schedule")["sync_batch"]` (the default is filled in,
the value already checked). `memoryd config show` lists it, with where its value came from, at once.
Keys of the top level ("") are plain settings that Config carries as fields.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from memoryd.tiers.base.errors import ConfigError

DB_SCHEMES = ("file:", "libsql://", "https://", "http://", "ws://", "wss://")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_CRON_FIELD = re.compile(r"[0-9A-Za-z*/,?#LW-]+")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
AGENT_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")  # the one agent-id pattern; use fullmatch
PATH = "path"  # a string that names a file or directory (~ expanded where it is used)
STRINGS = "strings"  # a list of strings


def _crontab(value: str) -> str | None:
    fields = value.split()
    expected = "a crontab string of 5 fields (minute hour day month weekday), e.g. '0 3 * * *'"
    if len(fields) != 5 or not all(_CRON_FIELD.fullmatch(f) for f in fields):
        return expected
    if all(_plainly_valid(f, lo, hi) for f, (lo, hi) in zip(fields, _CRON_BOUNDS)):
        return None  # the common forms, in range: no need to load APScheduler on every command's start
    from datetime import timezone

    from apscheduler.triggers.cron import CronTrigger  # ~40 ms: only when a file or variable sets a crontab

    try:  # the daemon's own parser: ranges (minute 0-59, …) and names, now rather than at the daemon's start
        CronTrigger.from_crontab(value, timezone=timezone.utc)
    except (ValueError, TypeError) as exc:
        return f"{expected} ({exc})"
    return None


_CRON_BOUNDS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))  # minute hour day month weekday
_CRON_ITEM = re.compile(r"(\*|(\d+)(?:-(\d+))?)(?:/(\d+))?")


def _plainly_valid(field: str, lo: int, hi: int) -> bool:
    """`*`, `*/n`, `a`, `a-b`, `a-b/n` and lists of them, in range: forms any cron parser takes.
    Anything else (names, L, W, #, out of range) is left to APScheduler's own parser and message."""
    for item in field.split(","):
        m = _CRON_ITEM.fullmatch(item)
        if m is None:
            return False
        a, b = (lo, hi) if m.group(2) is None else (int(m.group(2)), int(m.group(3) or m.group(2)))
        step = m.group(4)
        if not lo <= a <= b <= hi or (step is not None and not 1 <= int(step) <= b - a):
            return False  # a step must fit its range (APScheduler refuses month */15)
    return True


def _render_target(value: str) -> str | None:
    spec = value.strip()
    if spec in ("openclaw", "claude", "agents"):
        return None
    if spec.startswith("file:") and spec[5:].strip() and Path(spec[5:].strip()).expanduser().is_absolute():
        return None
    return "openclaw, claude, agents or file:/absolute/path"


def _project_agent(value: str) -> str | None:
    directory, _, agent = value.rpartition("=")
    if directory and Path(directory).expanduser().is_absolute() and AGENT_ID_RE.fullmatch(agent):
        return None
    return '"/absolute/project/dir=agent-id"'


def _timezone(value: str) -> str | None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        return "an IANA time zone name such as 'Europe/Berlin' or 'UTC'"
    return None


def _db_url(value: str) -> str | None:
    return None if value.startswith(DB_SCHEMES) else f"a URL starting with one of {', '.join(DB_SCHEMES)}"


def _admin_url(value: str) -> str | None:
    return None if value.startswith(("http://", "https://")) else "an http:// or https:// URL"


def _pattern(regex: re.Pattern[str], what: str) -> Callable[[str], str | None]:
    return lambda value: None if regex.fullmatch(value) else what


@dataclass(frozen=True)
class Key:
    """One setting: its type (str, int, float, bool or PATH), default, limits, variable and secrecy."""

    type: Any
    default: Any = None
    gt: float | None = None  # exclusive lower bound
    ge: float | None = None  # inclusive bounds
    le: float | None = None
    choices: tuple[str, ...] | None = None
    check: Callable[[str], str | None] | None = None  # returns what a valid value (or list item) looks like, or None
    env: str | None = None
    secret: bool = False
    doc: str = ""

    def expects(self) -> str:
        """What a valid value is, in words (for error messages)."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.type is bool:
            return "true or false"
        if self.type in (int, float):
            kind = "an integer" if self.type is int else "a number"
            if self.ge is not None and self.le is not None:
                return f"{kind} from {self.ge:g} to {self.le:g}"
            bounds = [f"> {self.gt:g}" if self.gt is not None else "", f">= {self.ge:g}" if self.ge is not None else "",
                      f"<= {self.le:g}" if self.le is not None else ""]
            return " ".join([kind, " and ".join(b for b in bounds if b)]).strip()
        if self.type == STRINGS:
            return "a list of strings"
        return "a path" if self.type == PATH else "a string"


SCHEMA: dict[str, dict[str, Key]] = {
    "": {
        "db_url": Key(str, None, check=_db_url, env="MEMORYD_DB_URL", doc="cold archive / sync database"),
        "db_token": Key(str, None, env="MEMORYD_DB_TOKEN", secret=True, doc="auth token for db_url"),
        "admin_token": Key(str, None, env="MEMORYD_ADMIN_TOKEN", secret=True,
                           doc="a token held apart for what destroys data on the server (shred, purge, migration)"),
        "namespace_admin_key": Key(str, None, env="MEMORYD_NAMESPACE_ADMIN_KEY", secret=True,
                                   doc="sqld's --admin-auth-key, for [sync] namespace_admin_url"),
        "workspace": Key(PATH, "~/.openclaw/workspace", env="MEMORYD_WORKSPACE", doc="holds memory/*.md"),
        "socket": Key(PATH, None, env="MEMORYD_SOCKET", doc="the daemon's Unix socket"),
        "llm_endpoint": Key(str, None, env="MEMORYD_LLM_ENDPOINT", doc="LLM for --mode llm"),
    },
    "schedule": {
        "quick": Key(str, "0 * * * *", check=_crontab, doc="crontab"),
        "daily": Key(str, "0 3 * * *", check=_crontab, doc="crontab"),
        "monthly": Key(str, "0 4 1 * *", check=_crontab, doc="crontab"),
        "timezone": Key(str, None, check=_timezone, doc="zone for the crontabs (default: local)"),
        "heartbeat_seconds": Key(float, 60.0, gt=0, doc="how often to look for a clock jump"),
        "wake_jump_seconds": Key(float, 120.0, gt=0, doc="a clock jump this big means a wake/change"),
        "misfire_grace_seconds": Key(int, 600, ge=1, le=86400, doc="a fire later than this is a catch-up"),
        "sync_idle_seconds": Key(float, 600.0, gt=0, doc="outbox check when nothing is pending"),
        "sync_backoff_seconds": Key(float, 30.0, gt=0, doc="first retry delay"),
        "sync_backoff_max_seconds": Key(float, 1800.0, gt=0, doc="longest retry delay"),
    },
    "watch": {
        "sessions_dir": Key(PATH, None, env="MEMORYD_SESSIONS_DIR",
                            doc="older OpenClaw: <agent>/sessions/*.jsonl (default: $OPENCLAW_STATE_DIR/agents)"),
        "notes_agent": Key(str, None, check=_pattern(AGENT_ID_RE, "an agent id (1-64 of A-Z a-z 0-9 _ -)"),
                           doc="older setups: the memoryd agent of the default OpenClaw agent's notes"),
        "quiet_seconds": Key(float, 120.0, gt=0, doc="a transcript quiet this long is finished"),
        "recheck_seconds": Key(float, 60.0, gt=0, doc="look again for a missing watched dir"),
        "enabled": Key(bool, True, doc="watch notes and transcripts at all"),
        "backend": Key(str, "auto", check=_pattern(re.compile(r"auto|inotify|watchfiles"),
                                                   '"auto", "inotify" or "watchfiles"'),
                       env="MEMORYD_WATCH_BACKEND",
                       doc="auto: inotify on Linux (no wake-ups while idle), watchfiles elsewhere"),
    },
    "daemon": {
        "log_level": Key(str, "INFO", choices=LOG_LEVELS, env="MEMORYD_LOG_LEVEL"),
    },
    "warm": {
        "grace_hours": Key(float, 24.0, ge=0, le=8760, doc="a fresh fact is spared from warm's size cap"),
    },
    "retention": {
        "cold_years": Key(float, 10.0, ge=1, le=1000, doc="monthly consolidation deletes frozen rows older"),
    },
    "db": {
        "timeout": Key(float, 15.0, gt=0, doc="seconds per statement"),
        "connect_timeout": Key(float, 5.0, gt=0, doc="seconds to connect"),
    },
    "openclaw": {
        "state_dir": Key(PATH, None, env="OPENCLAW_STATE_DIR", doc="OpenClaw's state dir (default ~/.openclaw)"),
        "distill": Key(str, "rule", check=_pattern(re.compile(r"rule|llm"), '"rule" or "llm"'),
                       doc="how finished conversations are distilled"),
    },
    "harness": {  # Claude Code and Codex (daemon/hooks_route.py); docs/HARNESSES.md
        "agent": Key(str, None, check=_pattern(AGENT_ID_RE, "an agent id (1-64 of A-Z a-z 0-9 _ -)"),
                     doc="the one agent both harnesses feed (default: claude_agent / codex_agent)"),
        "claude_agent": Key(str, "claude", check=_pattern(AGENT_ID_RE, "an agent id (1-64 of A-Z a-z 0-9 _ -)"),
                            doc="the agent Claude Code's sessions feed"),
        "codex_agent": Key(str, "codex", check=_pattern(AGENT_ID_RE, "an agent id (1-64 of A-Z a-z 0-9 _ -)"),
                           doc="the agent Codex's sessions feed"),
        "projects": Key(STRINGS, [], check=_project_agent,
                        doc='"/abs/project/dir=agent": sessions in that dir (or below) feed that agent'),
        "claude_dir": Key(PATH, None, env="CLAUDE_CONFIG_DIR", doc="Claude Code's dir (default ~/.claude)"),
        "codex_dir": Key(PATH, None, env="CODEX_HOME", doc="Codex's dir (default ~/.codex)"),
        "context_chars": Key(int, 10_000, ge=0, le=10_000, doc="SessionStart context budget (characters)"),
        "watch": Key(bool, True, doc="the daemon watches both harnesses' session files"),
    },
    "mcp": {
        "agent": Key(str, "default", doc="the agent `memoryd mcp` serves (checked when it starts)"),
        "preload": Key(str, "auto", check=_pattern(re.compile(r"auto|always|never"), '"auto", "always" or "never"'),
                       doc="the daemon loads the MCP SDK at start: auto = when MCP was used in the last 30 days"),
    },
    "render": {
        "targets": Key(STRINGS, [], check=_render_target, doc="harness files re-rendered after hot changes: openclaw, claude, agents, file:PATH"),
        "agent": Key(str, "default", doc="whose hot memory is rendered (checked with the targets)"),
        "project_dir": Key(PATH, None, doc="where CLAUDE.md / AGENTS.md live"),
    },
    "retrieval": {
        "mode": Key(str, "hybrid", check=_pattern(re.compile(r"keyword|hybrid"), '"keyword" or "hybrid"'),
                    env="MEMORYD_RETRIEVAL_MODE", doc="hybrid: BM25 fused with a local embedding model when memoryd[embed] is installed"),
        "fusion": Key(str, "blend", check=_pattern(re.compile(r"blend|rrf"), '"blend" or "rrf"'),
                      doc="hybrid: min-max blend of the two scores, or reciprocal rank fusion"),
        "dense_weight": Key(float, 0.7, ge=0, le=1, doc="hybrid blend: the embedding's share (BM25 has the rest)"),
        "llm_rerank": Key(int, 20, ge=0, le=100, doc="--mode llm: top candidates the LLM re-orders (0: none)"),
        "llm_timeout": Key(float, 20.0, gt=0, le=600, doc="--mode llm: seconds each LLM call of a retrieve may take"),
        "model_idle": Key(float, 180.0, ge=60, le=86400,
                          doc="hybrid, daemon: idle seconds before the embedding model leaves memory (reloading takes 0.02-0.4 s)"),
    },
    "llm": {
        "model": Key(str, None, env="MEMORYD_LLM_MODEL", doc="model name sent to a chat endpoint"),
        "api_key_env": Key(str, None, check=_pattern(_ENV_NAME, "the NAME of an environment variable"),
                           doc="the variable holding the API key (never the key)"),
    },
    "sync": {
        "layout": Key(str, "single", check=_pattern(re.compile(r"single|namespace"), '"single" or "namespace"'),
                      env="MEMORYD_DB_LAYOUT",
                      doc="namespace: each agent in its own libSQL namespace (or Turso database, from a {agent} URL)"),
        "namespace_admin_url": Key(str, None, check=_admin_url, env="MEMORYD_NAMESPACE_ADMIN_URL",
                                   doc="sqld's admin API (--admin-listen-addr): memoryd creates a missing namespace"),
        "separate_admin_token": Key(bool, False,
                                    doc="shred and the purge of old versions run only with admin_token"),
        "shred_forget": Key(bool, False, doc="every forget also shreds: the keys that could open its old "
                            "ciphertexts (in the server's history) are destroyed on every device"),
    },
    "web": {
        "enabled": Key(bool, False, doc="the daemon serves the web view on 127.0.0.1 (memoryd web prints its URL)"),
        "port": Key(int, 8377, ge=1, le=65535, doc="the web view's loopback port"),
        "allow_edits": Key(bool, False, doc="the web view may forget and edit hot memory and the tree"),
    },
    "knowledge": {
        "layer": Key(str, "on", check=_pattern(re.compile(r"on|off"), '"on" or "off"'), env="MEMORYD_KNOWLEDGE",
                     doc="off: no supersession, merge or re-ranking by the knowledge layer (memories kept as said)"),
        "seal_after_days": Key(float, 30.0, ge=1, le=36500, doc="cold memories older than this may be sealed into a summary"),
        "seal_below_score": Key(float, 0.1, ge=0, le=1,
                                doc="...and whose score (importance, age, accesses) fell below this (seed 000: 0.1)"),
        "seal_min_members": Key(int, 10, ge=2, le=1000, doc="a topic or session needs this many to be sealed"),
        "seal_max_members": Key(int, 50, ge=2, le=1000, doc="memories one summary stands for at most"),
        "seal_budget": Key(int, 20, ge=0, le=10_000, doc="summaries written per consolidation run"),
        "summary_max_bytes": Key(int, 600, ge=120, le=4096, doc="an extractive summary's size bound (UTF-8)"),
        "llm": Key(str, "auto", check=_pattern(re.compile(r"auto|never"), '"auto" or "never"'),
                   doc="auto: summaries and node names from llm_endpoint when one is set; never: rules only"),
        "split_over": Key(int, 40, ge=4, le=100_000, doc="restructure splits a leaf holding more memories"),
        "sparse_under": Key(int, 3, ge=1, le=1000, doc="restructure merges idle leaf siblings holding fewer"),
        "restructure_budget": Key(int, 5, ge=0, le=100, doc="tree changes (splits, merges) per restructure"),
        "move_budget": Key(int, 5000, ge=1, le=1_000_000, doc="memories one restructure may move"),
        "maintain_budget": Key(int, 200, ge=0, le=100_000, doc="memories the merge/verify and entity phases look at per run"),
    },
}


def where(section: str, key: str) -> str:
    return f"[{section}] {key}" if section else key


def check_value(section: str, key: str, spec: Key, value: Any) -> Any:
    """The value, normalised (ints as floats for float keys); ConfigError saying what is expected."""
    bad = ConfigError(f"{where(section, key)} must be {spec.expects()}, not {value!r}")
    if spec.type is bool:
        if not isinstance(value, bool):
            raise bad
        return value
    if spec.type in (int, float):
        if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
                or (spec.type is int and isinstance(value, float))):
            raise bad
        if ((spec.gt is not None and not value > spec.gt) or (spec.ge is not None and value < spec.ge)
                or (spec.le is not None and value > spec.le)):
            raise bad
        return spec.type(value)
    if spec.type == STRINGS:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad
        for item in value:
            problem = spec.check(item) if spec.check else None
            if problem:
                raise ConfigError(f"{where(section, key)} entries must be {problem}, not {item!r}")
        return value
    if not isinstance(value, str):
        raise bad
    if spec.choices:
        if value.upper() not in spec.choices:
            raise bad
        return value.upper()
    problem = spec.check(value) if spec.check else None
    if problem:
        raise ConfigError(f"{where(section, key)} must be {problem}, not {value!r}")
    return value


def defaults(section: str) -> dict[str, Any]:
    return {key: spec.default for key, spec in SCHEMA.get(section, {}).items()}


def check_section(section: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """A whole section checked against SCHEMA (for settings built in code); defaults filled in."""
    keys = SCHEMA[section]
    for key in values:
        if key not in keys:
            raise ConfigError(f"unknown key {key} in [{section}]; valid keys: {', '.join(sorted(keys))}")
    out = defaults(section)
    for key, value in values.items():
        out[key] = value if value is None and keys[key].default is None else check_value(section, key, keys[key], value)
    return out

"""Configuration: defaults < config.toml < environment, checked once at load against config_schema.SCHEMA."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping

from memoryd.tiers.base import settings as S
from memoryd.tiers.base.config_schema import AGENT_ID_RE, DB_SCHEMES, SCHEMA, Key, check_value, defaults, where
from memoryd.tiers.base.errors import ConfigError, UsageError
from memoryd.tiers.base.paths import resolve_dirs

__all__ = ["AGENT_ID_RE", "DB_SCHEMES", "Config", "default_home", "load_config", "validate_agent_id"]



def validate_agent_id(agent_id: str) -> str:
    if not isinstance(agent_id, str) or not AGENT_ID_RE.fullmatch(agent_id):
        raise UsageError(
            f"invalid agent id {agent_id!r}: use 1-64 of A-Z a-z 0-9 _ -, starting with a letter or digit"
        )
    return agent_id


def default_home() -> Path:
    """The platform's data dir for memoryd (what MEMORYD_HOME overrides)."""
    return resolve_dirs({}).data


@dataclass(frozen=True)
class Config:
    home: Path  # the data dir: agents, keys, the embedded database, daemon state
    db_url: str
    db_token: str | None = field(default=None, repr=False)  # never printed
    admin_token: str | None = field(default=None, repr=False)  # MEMORYD_ADMIN_TOKEN: for what destroys data
    namespace_admin_key: str | None = field(default=None, repr=False)  # sqld --admin-auth-key
    workspace: Path = field(default_factory=lambda: Path.home() / ".openclaw" / "workspace")
    socket: Path | None = None
    llm_endpoint: str | None = None
    # The checked sections of config.toml ([schedule], [watch], ...), for the layers that own them.
    sections: Mapping[str, Any] = field(default_factory=dict)
    runtime_dir: Path | None = None  # where the socket goes unless `socket` is set (default: home)
    config_file: Path | None = None  # the config.toml read (or the one that would be)
    sources: Mapping[str, str] = field(default_factory=dict, repr=False)  # "[watch] quiet_seconds" → "file"
    notes: tuple[str, ...] = ()  # things the user should know about the configuration
    pinned: bool = False  # MEMORYD_HOME chose every directory (not the platform's dirs)
    # Read from the environment at load with the rest, never again: secrets (never printed) and a test hook.
    recovery_key: str | None = field(default=None, repr=False)  # MEMORYD_KEY: overrides the key file
    llm_api_key: str | None = field(default=None, repr=False)  # the variable named by [llm] api_key_env
    clock_file: Path | None = None  # MEMORYD_CLOCK_FILE: the daemon's driven clock (tests)

    @property
    def socket_path(self) -> Path:
        return self.socket or ((self.runtime_dir or self.home) / "memoryd.sock")

    def agents_dir(self) -> Path:
        return self.home / "agents"

    def agent_dir(self, agent_id: str) -> Path:
        return self.agents_dir() / validate_agent_id(agent_id)

    def key_path(self, agent_id: str) -> Path:
        return self.home / "keys" / f"{validate_agent_id(agent_id)}.key"

    def section(self, name: str) -> Mapping[str, Any]:
        """A section's settings, defaults filled in (a Config built by hand may give only some)."""
        value = self.sections.get(name, {})
        return {**defaults(name), **(value if isinstance(value, Mapping) else {})}

    # The sections as typed objects, built once from the checked values (defaults filled in).
    @cached_property
    def schedule(self) -> S.ScheduleSection:
        return S.build("schedule", self.section("schedule"))

    @cached_property
    def watch(self) -> S.WatchSection:
        return S.build("watch", self.section("watch"))

    @cached_property
    def daemon(self) -> S.DaemonSection:
        return S.build("daemon", self.section("daemon"))

    @cached_property
    def warm(self) -> S.WarmSection:
        return S.build("warm", self.section("warm"))

    @cached_property
    def retention(self) -> S.RetentionSection:
        return S.build("retention", self.section("retention"))

    @cached_property
    def db(self) -> S.DbSection:
        return S.build("db", self.section("db"))

    @cached_property
    def openclaw(self) -> S.OpenClawSection:
        return S.build("openclaw", self.section("openclaw"))

    @cached_property
    def mcp(self) -> S.McpSection:
        return S.build("mcp", self.section("mcp"))

    @cached_property
    def render(self) -> S.RenderSection:
        return S.build("render", self.section("render"))

    @cached_property
    def retrieval(self) -> S.RetrievalSection:
        return S.build("retrieval", self.section("retrieval"))

    @cached_property
    def llm(self) -> S.LlmSection:
        return S.build("llm", self.section("llm"))

    @cached_property
    def web(self) -> S.WebSection:
        return S.build("web", self.section("web"))

    @cached_property
    def sync(self) -> S.SyncSection:
        return S.build("sync", self.section("sync"))

    @cached_property
    def knowledge(self) -> S.KnowledgeSection:
        return S.build("knowledge", self.section("knowledge"))

    def with_(self, **changes: Any) -> "Config":
        return replace(self, **changes)


def _read_toml(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The parsed file and its lines (to point at the line of a mistake); empty when there is none."""
    if not path.exists():  # the common case: skip importing the parser (CLI start-up)
        return {}, []
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
        return tomllib.loads(text), text.splitlines()
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ConfigError(f"cannot read {path}: values nested too deep") from None


def _line_of(lines: list[str], section: str, key: str | None) -> int | None:
    """1-based line of `[section]` (key None) or of `key = …` inside it; None when not found."""
    current = ""
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        head = re.fullmatch(r"\[\s*([^\]]+?)\s*\]\s*(#.*)?", line)
        if head:
            current = head.group(1).strip().strip('"')
            if key is None and current == section:
                return number
            continue
        if key is not None and current == section and re.match(rf'["\']?{re.escape(key)}["\']?\s*=', line):
            return number
    return None


class _Checker:
    """Walks the parsed file against SCHEMA; errors name the file, the line, the key and the valid choices."""

    def __init__(self, path: Path, data: dict[str, Any], lines: list[str], env: Mapping[str, str]) -> None:
        self.path, self.data, self.lines, self.env = path, data, lines, env
        self.sources: dict[str, str] = {}

    def fail(self, section: str, key: str | None, message: str) -> ConfigError:
        line = _line_of(self.lines, section, key) if (section or key) else None
        return ConfigError(f"{self.path}{f' line {line}' if line else ''}: {message}")

    def unknown(self, section: str, key: str, valid: list[str], what: str) -> ConfigError:
        import difflib  # error path only

        close = difflib.get_close_matches(key, valid, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        inside = f" in [{section}]" if section and what == "key" else ""
        return self.fail(section, key if what == "key" else None,
                         f"unknown {what} {key}{inside}{hint}; valid {what}s: {', '.join(valid)}")

    def check_shape(self) -> None:
        top = SCHEMA[""]
        sections = sorted(s for s in SCHEMA if s)
        for name, value in self.data.items():
            if name in top and not isinstance(value, dict):
                continue
            if name in SCHEMA and name:
                if not isinstance(value, dict):
                    raise self.fail("", name, f"{name} must be a section [{name}], not a value")
                for key in value:
                    if key not in SCHEMA[name]:
                        raise self.unknown(name, key, sorted(SCHEMA[name]), "key")
                continue
            if isinstance(value, dict):
                raise self.unknown(name, f"[{name}]", [f"[{s}]" for s in sections], "section")
            raise self.unknown("", name, sorted(top) + [f"[{s}]" for s in sections], "key")

    def value(self, section: str, key: str, spec: Key) -> Any:
        """Environment > file > default; a wrong value in the file is an error even when overridden."""
        raw = self.data if not section else self.data.get(section, {})
        name = where(section, key)
        value, self.sources[name] = spec.default, "default"
        if key in raw and not (section == "" and isinstance(raw[key], dict)):
            try:
                value, self.sources[name] = check_value(section, key, spec, raw[key]), "file"
            except ConfigError as exc:
                raise self.fail(section, key, exc.message) from None
        if spec.env and self.env.get(spec.env):
            try:
                value = check_value(section, key, spec, self.env[spec.env])
            except ConfigError as exc:
                raise ConfigError(f"environment {spec.env}: {exc.message}") from None
            self.sources[name] = f"environment {spec.env}"
        return value

    def run(self) -> dict[str, dict[str, Any]]:
        self.check_shape()
        return {s: {k: self.value(s, k, spec) for k, spec in keys.items()} for s, keys in SCHEMA.items()}


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Build the Config from the environment and the config.toml it leads to; every mistake is an error."""
    env = os.environ if env is None else env
    dirs = resolve_dirs(env)
    path, notes = dirs.config_file()
    data, lines = _read_toml(path)
    checker = _Checker(path, data, lines, env)
    values = checker.run()
    top = values.pop("")
    if top["db_url"] is None:
        top["db_url"] = f"file:{dirs.data / 'cold.db'}"
        checker.sources["db_url"] = f"default (in the data dir {dirs.data})"
    return Config(
        home=dirs.data,
        db_url=top["db_url"],
        db_token=top["db_token"],
        admin_token=top["admin_token"],
        namespace_admin_key=top["namespace_admin_key"],
        workspace=Path(top["workspace"]).expanduser(),
        socket=Path(top["socket"]).expanduser() if top["socket"] else None,
        llm_endpoint=top["llm_endpoint"],
        sections=values,
        runtime_dir=dirs.runtime,
        config_file=path,
        sources=checker.sources,
        notes=tuple(notes),
        pinned=dirs.pinned,
        recovery_key=env.get("MEMORYD_KEY") or None,
        llm_api_key=env.get(values["llm"]["api_key_env"]) or None if values["llm"]["api_key_env"] else None,
        clock_file=Path(env["MEMORYD_CLOCK_FILE"]) if env.get("MEMORYD_CLOCK_FILE") else None,
    )

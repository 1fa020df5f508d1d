"""Configuration: defaults < $MEMORYD_HOME/config.toml < environment, validated once at load."""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from .errors import ConfigError, UsageError

AGENT_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")  # use fullmatch: "$" allows a final newline
DB_SCHEMES = ("file:", "libsql://", "https://", "http://", "ws://", "wss://")

# config.toml key -> (env var, Config field)
_KEYS = {
    "db_url": "MEMORYD_DB_URL",
    "db_token": "MEMORYD_DB_TOKEN",
    "workspace": "MEMORYD_WORKSPACE",
    "socket": "MEMORYD_SOCKET",
    "llm_endpoint": "MEMORYD_LLM_ENDPOINT",
}


def validate_agent_id(agent_id: str) -> str:
    if not isinstance(agent_id, str) or not AGENT_ID_RE.fullmatch(agent_id):
        raise UsageError(
            f"invalid agent id {agent_id!r}: use 1-64 of A-Z a-z 0-9 _ -, starting with a letter or digit"
        )
    return agent_id


def default_home() -> Path:
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "memoryd"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "memoryd"


@dataclass(frozen=True)
class Config:
    home: Path
    db_url: str
    db_token: str | None = field(default=None, repr=False)  # never printed
    workspace: Path = field(default_factory=lambda: Path.home() / ".openclaw" / "workspace")
    socket: Path | None = None
    llm_endpoint: str | None = None
    # Free-form sections of config.toml (e.g. [schedule], [watch], [limits]) for the layers that own them.
    sections: Mapping[str, Any] = field(default_factory=dict)

    @property
    def socket_path(self) -> Path:
        return self.socket or (self.home / "memoryd.sock")

    def agents_dir(self) -> Path:
        return self.home / "agents"

    def agent_dir(self, agent_id: str) -> Path:
        return self.agents_dir() / validate_agent_id(agent_id)

    def key_path(self, agent_id: str) -> Path:
        return self.home / "keys" / f"{validate_agent_id(agent_id)}.key"

    def section(self, name: str) -> Mapping[str, Any]:
        value = self.sections.get(name, {})
        return value if isinstance(value, Mapping) else {}

    def with_(self, **changes: Any) -> "Config":
        return replace(self, **changes)


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.exists():  # the common case: skip importing the parser (CLI start-up)
        return {}
    import tomllib

    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def _check_retention(section: Mapping[str, Any]) -> None:
    years = section.get("cold_years", 10)
    if isinstance(years, bool) or not isinstance(years, (int, float)) or not (1 <= years <= 1000):
        raise ConfigError("config.toml [retention] cold_years must be a number of years from 1 to 1000")


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Build the Config from the environment (and config.toml in the home it names)."""
    env = os.environ if env is None else env
    home = Path(env.get("MEMORYD_HOME") or default_home()).expanduser()
    data = _read_toml(home / "config.toml")
    values: dict[str, Any] = {}
    for key, var in _KEYS.items():
        raw = env.get(var) or data.get(key)
        if raw is not None and not isinstance(raw, str):
            raise ConfigError(f"config.toml: {key} must be a string")
        values[key] = raw or None
    db_url = values["db_url"] or f"file:{home / 'cold.db'}"
    if not db_url.startswith(DB_SCHEMES):
        raise ConfigError(f"MEMORYD_DB_URL must start with one of {', '.join(DB_SCHEMES)}")
    sections = {k: v for k, v in data.items() if isinstance(v, dict)}
    _check_retention(sections.get("retention", {}))
    return Config(
        home=home,
        db_url=db_url,
        db_token=values["db_token"],
        workspace=Path(values["workspace"]).expanduser() if values["workspace"] else Path.home() / ".openclaw" / "workspace",
        socket=Path(values["socket"]).expanduser() if values["socket"] else None,
        llm_endpoint=values["llm_endpoint"],
        sections=sections,
    )

"""`memoryd config show`: the effective settings, where each came from, secrets masked."""
from __future__ import annotations

import json
import re
from typing import Any

from memoryd.cli.common import emit, get_config, handles_errors, json_option
from memoryd.cli.main import cli

HIDDEN = "(set, hidden)"


# a query parameter whose name says it carries a credential: authToken, api_key, apikey, access_token,
# client_secret, password, passwd, jwt, sig, signature, X-Amz-Credential, …
_SECRET_PARAM = re.compile(r"(?i)([?&;][^=&;#]*(?:token|key|secret|pass|jwt|sig|auth|cred)[^=&;#]*=)[^&;#]*")


def mask_url(url: str) -> str:
    """A URL without its password or tokens (user:pass@, ?authToken=…, &api_key=…)."""
    url = re.sub(r"(//[^/@:]*):[^/@]*@", r"\1:***@", url)
    return _SECRET_PARAM.sub(r"\1***", url)


def _shown(spec: Any, value: Any) -> Any:
    if value is None:
        return None
    if spec.secret:
        return HIDDEN
    return mask_url(value) if isinstance(value, str) and "://" in value else value


def settings(config: Any) -> list[dict[str, Any]]:
    """Every key of the schema with its effective value (masked) and its source."""
    from memoryd.tiers.base.config_schema import SCHEMA, where

    top = {"db_url": config.db_url, "db_token": config.db_token, "admin_token": config.admin_token,
           "namespace_admin_key": config.namespace_admin_key, "workspace": str(config.workspace),
           "socket": str(config.socket_path), "llm_endpoint": config.llm_endpoint}
    rows = []
    for section, keys in SCHEMA.items():
        values = top if not section else config.section(section)
        for key, spec in keys.items():
            source = config.sources.get(where(section, key), "default")
            if section == "" and key == "socket" and source == "default":
                source = f"default (in the {'runtime' if config.runtime_dir != config.home else 'data'} dir)"
            rows.append({"section": section, "key": key, "value": _shown(spec, values.get(key)),
                         "source": source, "secret": spec.secret})
    return rows


def _environment_secrets(config: Any) -> dict[str, str]:
    """Secrets that only the environment holds: shown as set or not, never their value."""
    out = {"MEMORYD_KEY": "set" if config.recovery_key else "not set"}
    if config.llm.api_key_env:
        out[config.llm.api_key_env] = "set" if config.llm_api_key else "not set"
    return out


def _human(data: dict[str, Any]) -> str:
    exists = "" if data["config_file_exists"] else " (not present: defaults and environment only)"
    lines = [f"# config file: {data['config_file']}{exists}", f"# data dir:    {data['dirs']['data']}",
             f"# socket:      {data['socket']}"]
    lines += [f"# note: {n}" for n in data["notes"]]
    lines += [f"# {var}: {state}" for var, state in data["environment_secrets"].items()]
    section = None
    for row in data["settings"]:
        if row["section"] != section:
            section = row["section"]
            lines.append(f"\n[{section}]" if section else "")
        if row["value"] is None:
            entry = f"# {row['key']} (unset)"
        else:
            entry = f"{row['key']} = {json.dumps(row['value'], ensure_ascii=False)}"
        lines.append(f"{entry:<44} # {row['source']}")
    return "\n".join(lines)


@cli.group("config")
def config_group() -> None:
    """Show the effective configuration (config.toml, environment, defaults)."""


@config_group.command("show")
@json_option
@handles_errors
def config_show(as_json: bool) -> None:
    """Print every setting, its value and where it came from (default, file, environment); secrets masked."""
    config = get_config()
    path = config.config_file
    data = {"config_file": str(path) if path else None, "config_file_exists": bool(path and path.exists()),
            "dirs": {"data": str(config.home), "config": str(path.parent) if path else None,
                     "runtime": str(config.runtime_dir or config.home), "pinned_by_MEMORYD_HOME": config.pinned},
            "socket": str(config.socket_path), "notes": list(config.notes),
            "environment_secrets": _environment_secrets(config), "settings": settings(config)}
    emit(data, as_json, _human)

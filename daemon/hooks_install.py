"""`memoryd hooks install|uninstall claude|codex`: memoryd's hook entries in the harness's settings file, and out again.

The user's file is theirs: install adds memoryd's entries beside the user's own hooks (which keep
their order and content), remembers the file's exact bytes before (`<home>/hooks-installs.json`),
and writes atomically. Uninstall puts those bytes back when the file is still as memoryd left it
(byte-identical, or gone again when there was none); when the user edited it since, only memoryd's
entries are taken out and their edits stay. Both are idempotent. An entry is memoryd's when its
command is the absolute `memoryd-hook` console script followed by the harness.
"""
from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from memoryd.tiers.base.atomic import atomic_write_bytes, atomic_write_json, read_json
from memoryd.tiers.base.config import Config, validate_agent_id
from memoryd.tiers.base.errors import UsageError

from memoryd.daemon import hooks_route as route

RECORD = "hooks-installs.json"
# event → seconds Claude Code / Codex give the command; SessionStart is kept short on purpose
EVENTS = {"claude": {"SessionStart": 10, "PreCompact": 30, "Stop": 30, "SubagentStop": 30, "SessionEnd": 30},
          "codex": {"SessionStart": 10, "Stop": 30}}


def console_script() -> str:
    """The absolute path of this install's `memoryd-hook` script (beside this Python, else on PATH)."""
    here = Path(sys.executable).parent / "memoryd-hook"
    if here.is_file():
        return str(here)
    found = shutil.which("memoryd-hook")
    if found is None:
        raise UsageError("cannot find the memoryd-hook console script to point the hooks at (reinstall memoryd)")
    return str(Path(found).absolute())


def settings_path(config: Config, harness: str, scope: str, project: Path) -> Path:
    if harness == "codex":
        return route.dirs(config).codex / "hooks.json"
    if scope == "project":
        return project / ".claude" / "settings.json"
    return route.dirs(config).claude / "settings.json"


def command(script: str, harness: str, agent: str | None) -> str:
    return f"{script} {harness}" + (f" --agent-id {agent}" if agent else "")


def is_ours(entry: Any, harness: str) -> bool:
    """memoryd's entry: `…/memoryd-hook <harness>` (or the click form `…/memoryd hooks run <harness>`)."""
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    if not isinstance(hooks, list):
        return False
    for h in hooks:
        words = str(h.get("command", "")).split() if isinstance(h, dict) else []
        if len(words) >= 2 and ((words[0].endswith("/memoryd-hook") and words[1] == harness) or
                                (words[0].endswith("/memoryd") and words[1:4] == ["hooks", "run", harness])):
            return True
    return False


def _load(raw: bytes | None, path: Path) -> dict[str, Any]:
    if not raw or not raw.strip():
        return {}
    try:
        obj = json.loads(raw)
    except ValueError:
        raise UsageError(f"{path} is not valid JSON: fix it first, memoryd leaves it alone") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("hooks", {}), dict):
        raise UsageError(f"{path} does not hold a JSON object with a \"hooks\" object")
    return obj


def merged(obj: dict[str, Any], harness: str, cmd: str) -> dict[str, Any]:
    """`obj` with memoryd's entry under each event (after the user's own), older memoryd entries replaced."""
    out = dict(obj)
    hooks = {k: list(v) if isinstance(v, list) else v for k, v in (obj.get("hooks") or {}).items()}
    for event, timeout in EVENTS[harness].items():
        entries = [e for e in hooks.get(event, []) if not is_ours(e, harness)]
        entries.append({"matcher": "", "hooks": [{"type": "command", "command": cmd, "timeout": timeout}]})
        hooks[event] = entries
    out["hooks"] = hooks
    return out


def without_ours(obj: dict[str, Any], harness: str) -> dict[str, Any]:
    out = dict(obj)
    hooks = {}
    for event, entries in (obj.get("hooks") or {}).items():
        kept = [e for e in entries if not is_ours(e, harness)] if isinstance(entries, list) else entries
        if kept != [] or not isinstance(entries, list) or entries == []:
            hooks[event] = kept
    if hooks or "hooks" not in obj or obj.get("hooks") == {}:
        out["hooks"] = hooks
    else:
        out.pop("hooks")
    return out


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def _sha(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _dump(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def install(config: Config, harness: str, scope: str = "user", agent: str | None = None,
            project: Path | None = None) -> dict[str, Any]:
    if agent is not None:
        validate_agent_id(agent)
    path = settings_path(config, harness, scope, project or Path.cwd())
    raw = _read(path)
    cmd = command(console_script(), harness, agent)
    new = _dump(merged(_load(raw, path), harness, cmd))
    records = read_json(config.home / RECORD, dict)
    if raw == new:
        return {"harness": harness, "settings": str(path), "command": cmd, "changed": False}
    record = records.get(str(path))
    if record is None or _sha(raw) != record.get("installed"):  # a fresh install: what was there before is kept
        record = {"original": None if raw is None else base64.b64encode(raw).decode(),
                  "created_dir": not path.parent.exists()}
    record["installed"] = _sha(new)
    records[str(path)] = record
    atomic_write_json(config.home / RECORD, records)  # first: a crash after it still knows the original
    mode = path.stat().st_mode & 0o777 if raw is not None else 0o600
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, new, mode=mode, private_dir=False)
    return {"harness": harness, "settings": str(path), "command": cmd, "changed": True}


def uninstall(config: Config, harness: str, scope: str = "user", project: Path | None = None) -> dict[str, Any]:
    path = settings_path(config, harness, scope, project or Path.cwd())
    raw = _read(path)
    records = read_json(config.home / RECORD, dict)
    record = records.get(str(path))
    out = {"harness": harness, "settings": str(path), "changed": False, "restored": False}
    if record is not None and raw is not None and _sha(raw) == record.get("installed"):
        if record.get("original") is None:
            path.unlink()
            if record.get("created_dir"):
                try:
                    path.parent.rmdir()  # only when empty: anything else in it is not ours
                except OSError:
                    pass
        else:
            atomic_write_bytes(path, base64.b64decode(record["original"]), mode=path.stat().st_mode & 0o777,
                               private_dir=False)
        out.update(changed=True, restored=True)
    elif raw is not None:
        obj = _load(raw, path)
        if any(is_ours(e, harness) for v in (obj.get("hooks") or {}).values() if isinstance(v, list) for e in v):
            atomic_write_bytes(path, _dump(without_ours(obj, harness)), mode=path.stat().st_mode & 0o777,
                               private_dir=False)
            out["changed"] = True
    if record is not None:
        records.pop(str(path))
        atomic_write_json(config.home / RECORD, records)
    return out

"""The types a socket request's params must have: a wrong one is a usage error (exit 2) at the door.

The CLI always sends the right types; any other client (a script, another language) may not, and an
operation must never meet a number where it expects text. Unknown names pass (newer clients).
"""
from __future__ import annotations

import math
from typing import Any

from memoryd.tiers.base.config import validate_agent_id
from memoryd.tiers.base.errors import UsageError

TEXT = (str,)
NUMBER = (int, float)
# name → accepted types (None is always accepted: the CLI sends it for an option not given)
TYPES: dict[str, tuple[type, ...]] = {
    "agent_id": TEXT, "text": TEXT, "category": TEXT, "query": TEXT, "mode": TEXT, "id": TEXT, "date": TEXT,
    "path": TEXT, "url": TEXT, "entity": TEXT, "since": TEXT, "until": TEXT, "kind": TEXT, "basis": TEXT,
    "limit": (int,), "importance": NUMBER, "days": NUMBER, "confidence": NUMBER,
    "all": (bool,), "force": (bool,), "drain": (bool,), "remote": (bool,), "history": (bool,),
    "shred": (bool,), "new_recovery": (bool,), "name": TEXT, "rebuild": (bool,),
    "dry_run": (bool,), "undo": (bool,),
    "paths": (dict,), "metadata": (dict,),
}
LIST_METADATA = ("urls", "commands", "paths", "entities", "people", "topics")  # as tiers/memory/transfer.py checks


def check_params(params: dict[str, Any]) -> None:
    """Raise UsageError naming the first param of the wrong type."""
    for name, value in params.items():
        types = TYPES.get(name)
        if value is None or types is None:
            continue
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise UsageError(f"param {name!r} must be {_words(types)}, not {type(value).__name__}")
        if isinstance(value, float) and not math.isfinite(value):
            raise UsageError(f"param {name!r} must be a finite number")
    if params.get("agent_id") is not None:  # "" is a bad id, never "the default"
        validate_agent_id(params["agent_id"])
    _check_paths(params.get("paths"))
    _check_metadata(params.get("metadata"))


def _words(types: tuple[type, ...]) -> str:
    names = {str: "text", int: "an integer", float: "a number", bool: "true or false", dict: "an object"}
    return " or ".join(dict.fromkeys(names[t] for t in types))


def _check_paths(paths: Any) -> None:
    """Tree paths an LLM picked: {category path: weight}."""
    for key, weight in (paths or {}).items():
        if isinstance(weight, bool) or not isinstance(weight, NUMBER) or not math.isfinite(weight):
            raise UsageError(f"param 'paths' must map tree paths to numbers ({key!r} does not)")


def _check_metadata(meta: Any) -> None:
    for key in LIST_METADATA:
        if key in (meta or {}) and not (isinstance(meta[key], list) and all(isinstance(v, str) for v in meta[key])):
            raise UsageError(f"param 'metadata.{key}' must be a list of strings")

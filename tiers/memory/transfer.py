"""Export and import all of an agent's memories (hot, tree, warm, cold) as JSON Lines."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, IO, Any, Iterator, cast

from memoryd.tiers.memory import tree as tree_index
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.base import jsontext
from memoryd.tiers.base.errors import LimitError, StoreError, UsageError
from memoryd.tiers.memory.hot import validate_hot
from memoryd.tiers.memory.model import check_category, check_importance, check_no_controls, check_text
from memoryd.tiers.base.progress import Progress, current_progress
from memoryd.tiers.memory.tree import validate_tree

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import AgentState, HotState, WarmState

FORMAT, VERSION = "memoryd-export", 1
COLD_BATCH = 2000
LIST_METADATA = ("urls", "commands", "paths", "entities", "people", "topics")


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_controls(value: str) -> None:
    check_no_controls(value, "a string")


def export_lines(mem: AgentMemory) -> Iterator[str]:
    state = mem.read_state()
    yield json.dumps({"format": FORMAT, "version": VERSION, "agent_id": mem.agent_id,
                      "exported_at": int(mem.clock())}, ensure_ascii=False)
    yield json.dumps({"type": "hot", "data": state["hot"]}, ensure_ascii=False, sort_keys=True)
    yield json.dumps({"type": "tree", "data": state["tree"]}, ensure_ascii=False, sort_keys=True)
    for entry in state["warm"]["entries"]:
        yield json.dumps({"type": "warm", "entry": entry, **kind_fields(entry)}, ensure_ascii=False, sort_keys=True)
    if mem.archive is not None:
        for row in mem.archive.iter_entries(mem.agent_id):
            cold = {k: v for k, v in row.items() if k != "day"}  # day: derived by the index, not the memory's
            yield json.dumps({"type": "cold", "entry": cold, **kind_fields(cold)}, ensure_ascii=False, sort_keys=True)


def kind_fields(entry: Any) -> dict[str, Any]:
    """A line's `kind` and `confidence` (readable at a glance; the metadata holds them too)."""
    from memoryd.tiers.knowledge.kinds import confidence_of, kind_of

    meta = entry.get("metadata")
    confidence = confidence_of(meta)
    return {"kind": kind_of(meta), **({"confidence": confidence} if confidence is not None else {})}


def _typed(obj: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """A line's top-level kind/confidence (or the entry's own) checked and written into the entry's metadata."""
    from memoryd.tiers.knowledge.kinds import CONFIDENCE_KEY, KIND_KEY, check_kind

    kind = obj.get("kind", entry.pop("kind", None))
    confidence = obj.get("confidence", entry.pop("confidence", None))
    if kind is None and confidence is None:
        return entry
    if kind is None:
        raise ValueError("a confidence needs a kind (belief or opinion)")
    kind, confidence = check_kind(kind if isinstance(kind, str) else repr(kind), confidence)
    meta = entry.setdefault("metadata", {})
    meta[KIND_KEY] = kind
    if confidence is not None:
        meta[CONFIDENCE_KEY] = confidence
    return entry


def _line_count(mem: AgentMemory) -> int:
    """How many lines the export will have (for progress): header, hot, tree, warm, cold."""
    cold = mem.archive.count(mem.agent_id) if mem.archive is not None else 0
    return 3 + len(mem.read_state()["warm"]["entries"]) + cold


def export_to(mem: AgentMemory, path: Path, progress: Progress | None = None) -> int:
    """Write the export to `path` via a temp file + rename; returns the number of lines."""
    if not path.name or path.is_dir():
        raise UsageError(f"export needs a file name, not the directory {str(path) or '.'!r}")
    if not path.parent.is_dir():  # the caller's mistake (a typo), not a failure of the disk
        raise UsageError(f"cannot export to {path}: the directory {str(path.parent)!r} does not exist")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    n = 0
    advance = (progress or current_progress()).start(f"export {path.name}", _line_count(mem))
    try:
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as fh:
            for line in export_lines(mem):
                fh.write(line + "\n")
                n += 1
                advance()
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return n


def _check_entry(entry: Any) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ValueError("entry is not an object")
    for key in ("id", "text", "category"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ValueError(f"entry.{key} missing")
    check_text(entry["text"])
    check_category(entry["category"])
    if check_importance(entry.get("importance", 0.5)) is None:
        raise ValueError("entry.importance missing")
    created = entry.get("created_at")
    if isinstance(created, bool) or not isinstance(created, (int, float)) or not 0 <= created < 1e11:
        raise ValueError("entry.created_at must be a unix time")
    if not isinstance(entry.get("access_count", 0), int) or entry.get("access_count", 0) < 0:
        raise ValueError("entry.access_count must be a non-negative integer")
    meta = entry.get("metadata", {})
    if not isinstance(meta, dict):
        raise ValueError("entry.metadata must be an object")
    for key in LIST_METADATA:
        if key in meta and (not isinstance(meta[key], list) or not all(isinstance(v, str) for v in meta[key])):
            raise ValueError(f"entry.metadata.{key} must be a list of strings")
    return entry


def parse_export(fh: IO[str]) -> dict[str, Any]:
    """Validate every line first; any bad line → UsageError naming its line number, nothing applied."""
    parsed: dict[str, Any] = {"hot": None, "tree": None, "warm": [], "cold": []}
    problems: list[str] = []
    try:
        lines = fh.readlines()
    except UnicodeDecodeError:
        raise UsageError("the import file is not UTF-8 text; nothing imported") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = jsontext.loads(line, parse_constant=_no_constants)
            jsontext.check_strings(obj, _no_controls)
            if number == 1:
                if not isinstance(obj, dict) or obj.get("format") != FORMAT:
                    raise ValueError(f"not a {FORMAT} file (header missing)")
                if obj.get("version") != VERSION:
                    raise ValueError(f"format version {obj.get('version')!r} is not supported (need {VERSION})")
                continue
            kind = obj.get("type") if isinstance(obj, dict) else None
            if kind in ("hot", "tree"):
                (validate_hot if kind == "hot" else validate_tree)(obj["data"])
                parsed[kind] = obj["data"]
            elif kind in ("warm", "cold"):
                parsed[kind].append(_typed(obj, _check_entry(obj.get("entry"))))
            else:
                raise ValueError(f"unknown line type {kind!r}")
        except (ValueError, TypeError, KeyError, UsageError) as exc:
            problems.append(f"line {number}: {getattr(exc, 'message', None) or exc}")
    if problems:
        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        raise UsageError("; ".join(problems[:3]) + more + "; nothing imported")
    return parsed


def import_from(mem: AgentMemory, fh: IO[str], progress: Progress | None = None) -> dict[str, int]:
    """Apply a validated export: cold first (idempotent upserts), then one local state write."""
    from memoryd.tiers.distillation.redact import redact_obj

    redacted, _counts = redact_obj(parse_export(fh))  # an export from elsewhere may hold secrets
    data = cast(dict[str, Any], redacted)
    if data["cold"] and mem.archive is None:
        raise StoreError("the export holds cold memories but no cold archive is open")
    advance = (progress or current_progress()).start("import cold memories", len(data["cold"]))
    for i in range(0, len(data["cold"]), COLD_BATCH):
        batch = data["cold"][i:i + COLD_BATCH]
        mem.archive.put(mem.agent_id, batch)  # type: ignore[union-attr]
        advance(len(batch))

    def apply(state: AgentState, now: float) -> dict[str, int]:
        counts = {"warm": _merge_warm(state["warm"], data["warm"]), "cold": len(data["cold"]), "tree": 0, "hot": 0}
        if data["hot"]:
            counts["hot"] = _merge_hot(state["hot"], data["hot"])
        for path, (desc, _day) in sorted((data["tree"] or {"nodes": {}})["nodes"].items()):
            try:
                counts["tree"] += len(tree_index.add_node(state["tree"], path, desc, now))
            except (LimitError, UsageError) as exc:
                mem.warnings.append(f"tree node {path!r} not imported: {exc.message}")
        return counts

    return mem.change(apply, "import")


def _merge_warm(warm: WarmState, entries: list[Any]) -> int:
    by_id = {e["id"]: e for e in warm["entries"]}
    added = 0
    for entry in entries:
        old = by_id.get(entry["id"])
        if old is None:
            new: Any = dict(entry, access_count=entry.get("access_count", 0), metadata=entry.get("metadata", {}))
            warm["entries"].append(new)
            by_id[new["id"]] = new
            added += 1
        else:
            old["access_count"] = max(old["access_count"], entry.get("access_count", 0))
    return added


def _merge_hot(hot: HotState, incoming: HotState) -> int:
    """Union by id (lists) and by key (identity, profile); the imported value wins on a clash."""
    changed = 0
    for section in ("identity", "owner_profile"):
        for key, value in incoming[section].items():
            changed += hot[section].get(key) != value
            hot[section][key] = value
    pairs: list[tuple[list[Any], list[Any]]] = [(hot["critical_lessons"], incoming["critical_lessons"])] + [
        (hot["active_context"][k], incoming["active_context"][k]) for k in ("projects", "events", "tasks")]
    for mine, theirs in pairs:
        index = {item["id"]: i for i, item in enumerate(mine)}
        for item in theirs:
            if item["id"] in index:
                changed += mine[index[item["id"]]] != item
                mine[index[item["id"]]] = item
            else:
                mine.append(item)
                changed += 1
    return changed

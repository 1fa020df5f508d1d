"""Pure state-based merge of critical state: per-field HLC registers, tombstones, max-counters.

A *replica* is the critical state (hot + warm + tree) broken into items, plus sync metadata:
    {"fmt": 1,
     "items":  {key: {field: value}},   # field values (a register with no value = field deleted)
     "stamps": {key: {field: stamp}},   # per-field HLC stamps; "@" is the item's creation stamp
     "tombs":  {key: stamp},            # deletion stamps
     "maxf":   {key: {field: value}}}   # derived/counter fields merged by max, never stamped
Item keys: id:/pr: identity and owner_profile keys, pj:/ev:/tk:/ls: projects, events, tasks and
lessons by id, wm: warm entries by id, tr: tree nodes by path (hx:/ax:/wx:/tx: unknown extras).

join() is a lattice join (commutative, associative, idempotent): every register is a max of
(stamp, value), then registers at or below the item's tombstone are dropped. An item is alive
while its creation stamp "@" is newer than its tombstone: a forget wins over edits it did not
see, and re-creating the item after the forget revives it whole.
"""
from __future__ import annotations

import json
from hashlib import sha256
from typing import Any, Callable

from memoryd.sync.merge.hlc import stamp_seconds

FMT = 1
CREATED = "@"
_MISSING = object()
# Warm fields that tiers derives or counts: merged by max, never stamped.
WARM_MAX_FIELDS = ("access_count", "last_access", "score", "tier")
_LIST_SECTIONS = (("pj", "projects"), ("ev", "events"), ("tk", "tasks"))
Replica = dict[str, Any]
Enforce = Callable[[dict, float], tuple[dict, list]]


def empty_replica() -> Replica:
    return {"fmt": FMT, "items": {}, "stamps": {}, "tombs": {}, "maxf": {}}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def replica_hash(rep: Replica) -> str:
    """Content hash of a replica (independent of encryption), to skip pushing an unchanged state."""
    return sha256(_dumps(rep).encode("utf-8")).hexdigest()


def _id_key(prefix: str, item: Any) -> str:
    if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
        return f"{prefix}:{item['id']}"
    return f"{prefix}:#{sha256(_dumps(item).encode('utf-8')).hexdigest()[:16]}"


def _item_fields(key: str, item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        return {"v": item}
    return {f: v for f, v in item.items() if not (f == "id" and not key.split(":", 1)[1].startswith("#"))}


def explode(state: dict) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """state → {key: (stamped fields, max fields)}."""
    out: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    hot, warm, tree = state.get("hot") or {}, state.get("warm") or {}, state.get("tree") or {}
    for name, pfx in (("identity", "id"), ("owner_profile", "pr")):
        for k, v in (hot.get(name) or {}).items():
            out[f"{pfx}:{k}"] = ({"v": v}, {})
    ctx = hot.get("active_context") or {}
    for pfx, name in _LIST_SECTIONS:
        for item in ctx.get(name) or []:
            key = _id_key(pfx, item)
            out[key] = (_item_fields(key, item), {})
    for item in hot.get("critical_lessons") or []:
        key = _id_key("ls", item)
        out[key] = (_item_fields(key, item), {})
    for entry in warm.get("entries") or []:
        key = _id_key("wm", entry)
        fields = _item_fields(key, entry)
        out[key] = ({f: v for f, v in fields.items() if f not in WARM_MAX_FIELDS},
                    {f: v for f, v in fields.items() if f in WARM_MAX_FIELDS})
    for path, node in (tree.get("nodes") or {}).items():
        if isinstance(node, list) and len(node) == 2:
            out[f"tr:{path}"] = ({"d": node[0]}, {"a": node[1]})
        else:
            out[f"tr:{path}"] = ({"v": node}, {})
    known = {"hot": ("identity", "owner_profile", "active_context", "critical_lessons"),
             "warm": ("entries",), "tree": ("nodes",)}
    for doc, pfx in ((hot, "hx"), (warm, "wx"), (tree, "tx")):
        name = {"hx": "hot", "wx": "warm", "tx": "tree"}[pfx]
        for k, v in doc.items():
            if k not in known[name]:
                out[f"{pfx}:{k}"] = ({"v": v}, {})
    for k, v in ctx.items():
        if k not in ("projects", "events", "tasks"):
            out[f"ax:{k}"] = ({"v": v}, {})
    return out


def _order(item: Any) -> tuple:
    t = item.get("timestamp", item.get("updated_at", item.get("created_at", 0))) if isinstance(item, dict) else 0
    tkey = (0, float(t), "") if isinstance(t, (int, float)) and not isinstance(t, bool) else (1, 0.0, str(t))
    return tkey, str(item.get("id", "")) if isinstance(item, dict) else _dumps(item)


def _rebuild(key: str, fields: dict[str, Any], maxf: dict[str, Any]) -> Any:
    pfx, ident = key.split(":", 1)
    if pfx == "tr" and "d" in fields:
        return [fields["d"], maxf.get("a", 0)]
    if set(fields) == {"v"} and pfx in ("id", "pr", "hx", "ax", "wx", "tx", "tr"):
        return fields["v"]
    item = dict(fields)
    item.update(maxf)
    if not ident.startswith("#"):
        item["id"] = ident
    return item


def materialize(rep: Replica) -> dict:
    """The {hot, warm, tree} state a replica stands for (alive items only, deterministic order).

    Nested values are shared with the replica: treat the result as read-only (or copy it).
    """
    hot: dict[str, Any] = {"identity": {}, "owner_profile": {},
                           "active_context": {"projects": [], "events": [], "tasks": []},
                           "critical_lessons": []}
    warm: dict[str, Any] = {"entries": []}
    tree: dict[str, Any] = {"nodes": {}}
    lists = {"pj": hot["active_context"]["projects"], "ev": hot["active_context"]["events"],
             "tk": hot["active_context"]["tasks"], "ls": hot["critical_lessons"], "wm": warm["entries"]}
    maps = {"id": hot["identity"], "pr": hot["owner_profile"], "tr": tree["nodes"], "hx": hot,
            "ax": hot["active_context"], "wx": warm, "tx": tree}
    for key in sorted(rep["stamps"]):
        if CREATED not in rep["stamps"][key]:
            continue
        value = _rebuild(key, rep["items"].get(key, {}), rep["maxf"].get(key, {}))
        pfx, ident = key.split(":", 1)
        if pfx in lists:
            lists[pfx].append(value)
        else:
            maps[pfx].setdefault(ident, value)  # extras never replace a known section
    for items in lists.values():
        items.sort(key=_order)
    return {"hot": hot, "warm": warm, "tree": tree}


def orphans(view: dict, rep: Replica) -> list[dict]:
    """Hot lessons promoted from a warm entry that `rep` holds as gone from warm (tombstoned, not
    re-created): forgotten, or merely moved to cold; the caller tells the two apart (drop_orphans)."""
    return [les for les in view["hot"]["critical_lessons"] if isinstance(les, dict)
            and isinstance(les.get("source_id"), str) and f"wm:{les['source_id']}" in rep["tombs"]
            and CREATED not in rep["stamps"].get(f"wm:{les['source_id']}", {})]


def drop_orphans(view: dict, rep: Replica, archived: frozenset[str] = frozenset()) -> dict:
    """Drop hot lessons promoted from a forgotten warm entry: a device that promoted it while offline
    must not bring a forgotten fact back. `archived`: source ids still in the local index (they left
    warm for cold, which tombstones them in warm too): their lessons stay."""
    lessons = view["hot"]["critical_lessons"]
    dead = [les for les in orphans(view, rep) if les["source_id"] not in archived]
    if dead:
        view["hot"] = dict(view["hot"], critical_lessons=[les for les in lessons if les not in dead])
    return view


def unmerged(local: Replica, base: Replica, files: dict, merged: Replica,
             archived: frozenset[str] = frozenset()) -> Replica:
    """`local` (= restamp(base, files)) with every key whose file content is what materialize(merged)
    wrote put back to base's registers: such a change came from an interrupted merge, not from an edit
    on this device, and must not get this device's newer stamp."""
    wrote = {k: v[0] for k, v in explode(drop_orphans(materialize(merged), merged, archived)).items()}
    had = {k: v[0] for k, v in explode(materialize(base)).items()}
    now = {k: v[0] for k, v in explode(files).items()}
    keys = [k for k in set(wrote) | set(now) if now.get(k) == wrote.get(k) and had.get(k) != now.get(k)]
    if not keys:
        return local
    out = {"fmt": FMT, **{part: dict(local[part]) for part in ("items", "stamps", "tombs", "maxf")}}
    for key in keys:
        for part in ("items", "stamps", "tombs", "maxf"):
            if key in base[part]:
                out[part][key] = base[part][key]
            else:
                out[part].pop(key, None)
    return out


def _maxkey(value: Any) -> tuple:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (1, float(value), "")
    if isinstance(value, str):
        return (2, 0.0, value)
    return (0 if value is None else 3, 0.0, _dumps(value))


def _max_value(a: Any, b: Any) -> Any:
    return a if _maxkey(a) >= _maxkey(b) else b


def _merge_maxf(into: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    out = dict(into)
    for f, v in other.items():
        out[f] = _max_value(out[f], v) if f in out else v
    return out


def _raises(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """_merge_maxf(old, new) != old, without building it (restamp asks for every item on every sync)."""
    for f, v in new.items():
        if f not in old or (_maxkey(v) > _maxkey(old[f]) and v != old[f]):
            return True
    return False


def restamp(rep: Replica, state: dict, stamp: str) -> Replica:
    """A replica for `state`: every field that differs from `rep` (created, changed, deleted) gets `stamp`.

    `stamp` must sort after every stamp in `rep` (an HLC that observed them guarantees it).
    Returns `rep` itself (same object) when nothing differs.
    """
    current = explode(state)
    out: Replica | None = None
    alive = {k for k, st in rep["stamps"].items() if CREATED in st}

    def mut() -> Replica:
        nonlocal out
        if out is None:  # copy on write: per-item dicts are replaced, never changed in place
            out = {"fmt": FMT, **{part: dict(rep[part]) for part in ("items", "stamps", "tombs", "maxf")}}
        return out

    for key, (fields, maxf) in current.items():
        old_max = rep["maxf"].get(key, {})
        if maxf and _raises(old_max, maxf):
            mut()["maxf"][key] = _merge_maxf(old_max, maxf)
        old = rep["items"].get(key, {})
        if key in alive and old == fields:  # most items: unchanged
            continue
        if key not in alive:
            r = mut()
            gone = set(r["stamps"].get(key, {})) - set(fields)
            r["stamps"][key] = {f: stamp for f in (*fields, *gone, CREATED)}
            r["items"][key] = dict(fields)
            continue
        changed = [f for f in set(old) | set(fields) if old.get(f, _MISSING) != fields.get(f, _MISSING)]
        if changed:
            r = mut()
            r["stamps"][key] = {**r["stamps"][key], **{f: stamp for f in changed}}
            r["items"][key] = dict(fields)
    for key in alive - set(current):
        r = mut()
        r["tombs"][key] = stamp
        r["stamps"].pop(key, None)
        r["items"].pop(key, None)
    return rep if out is None else out


def _wins(new: tuple[str, Any], old: tuple[str, Any]) -> bool:
    """Register order: stamp, then present over deleted, then the value's canonical JSON (exact ties only)."""
    if new[0] != old[0]:
        return new[0] > old[0]
    a, b = new[1], old[1]
    if (a is _MISSING) != (b is _MISSING):
        return b is _MISSING
    return a is not _MISSING and a != b and _dumps(a) > _dumps(b)


def _join_item(key: str, a: Replica, b: Replica, out: Replica) -> None:
    tomb = max(a["tombs"].get(key, ""), b["tombs"].get(key, ""))
    regs: dict[str, tuple[str, Any]] = {}
    for side in (a, b):
        values = side["items"].get(key, {})
        for f, s in side["stamps"].get(key, {}).items():
            if s <= tomb:
                continue
            reg = (s, values.get(f, _MISSING))
            if f not in regs or _wins(reg, regs[f]):
                regs[f] = reg
    if tomb:
        out["tombs"][key] = tomb
    if regs:
        out["stamps"][key] = {f: r[0] for f, r in regs.items()}
        vals = {f: r[1] for f, r in regs.items() if r[1] is not _MISSING}
        if vals:
            out["items"][key] = vals


def join(a: Replica, b: Replica) -> Replica:
    """The least upper bound of two replicas (pure; commutative, associative, idempotent)."""
    out = empty_replica()
    keys = set(a["stamps"]) | set(b["stamps"]) | set(a["tombs"]) | set(b["tombs"])
    for key in sorted(keys):
        _join_item(key, a, b, out)
    for key in sorted(set(a["maxf"]) | set(b["maxf"])):
        out["maxf"][key] = _merge_maxf(a["maxf"].get(key, {}), b["maxf"].get(key, {}))
    return out


def normal(rep: Replica) -> Replica:
    """The canonical form of a replica (what join produces), so equal content hashes equal."""
    return join(rep, empty_replica())


def max_stamp(rep: Replica) -> str:
    best = max(rep["tombs"].values(), default="")
    for st in rep["stamps"].values():
        best = max(best, max(st.values(), default=""))
    return best


def merge(a: Replica, b: Replica, enforce: Enforce | None = None) -> tuple[Replica, dict, list]:
    """join, materialize, then re-apply limits at a time taken from the data (so every device agrees).

    Returns (joined replica, limited state, evictions made by the limits).
    """
    rep = join(a, b)
    state = materialize(rep)
    if enforce is None:
        return rep, state, []
    top = max_stamp(rep)
    view, evictions = enforce(state, stamp_seconds(top) if top else 0.0)
    return rep, view, evictions


def compact(rep: Replica, max_tombs: int = 5000) -> Replica:
    """Forget the oldest tombstones of dead items beyond `max_tombs` (bounds growth; deterministic)."""
    dead = sorted((s, k) for k, s in rep["tombs"].items() if CREATED not in rep["stamps"].get(k, {}))
    if len(rep["tombs"]) <= max_tombs or not dead:
        return rep
    out = {"fmt": FMT, **{part: dict(rep[part]) for part in ("items", "stamps", "tombs", "maxf")}}
    for _, key in dead[: len(rep["tombs"]) - max_tombs]:
        for part in ("tombs", "stamps", "items", "maxf"):
            out[part].pop(key, None)
    return out


def valid_replica(obj: Any) -> Replica:
    """Shape check for a decrypted/loaded replica; raises ValueError."""
    if not isinstance(obj, dict) or obj.get("fmt") != FMT:
        raise ValueError("not a memoryd replica (format)")
    for part in ("items", "stamps", "tombs", "maxf"):
        if not isinstance(obj.get(part), dict):
            raise ValueError(f"replica.{part} is not an object")
    return obj

"""Reflect (seed 003): a page per active entity in bank/entities/, and bank/opinions.md, in the agent's folder and its workspace.

An entity gets a page when it was named since `since` and matters in ordinary use: active (hotness ≥ 0.5) or
among the most mentioned of the last 30 days (tiers/knowledge/entities.py page_entities, at most 20). The page
holds what its memories say now (facts, beliefs and opinions with confidence, summaries), then what they said
before (superseded memories, as history), then a timeline. Pages are written
where the agent keeps them (`<agent dir>/bank/`) and in each OpenClaw workspace of the agent (`<workspace>/bank/`).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.knowledge import entities as ents
from memoryd.tiers.knowledge import kinds, pages
from memoryd.tiers.knowledge.entity_store import EntityRow

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM
    from memoryd.tiers.cold.index import LocalIndex
    from memoryd.tiers.memory.agent import AgentMemory

Memory = dict[str, Any]


def memories_of(index: LocalIndex, agent_id: str, key: str, warm: Sequence[Memory]) -> list[Memory]:
    """Every memory that names the entity `key`, from warm or the local index."""
    ids = [m for m, _ in ents.mentions(index, agent_id, key)]
    in_warm = {e["id"]: e for e in warm if e["id"] in set(ids)}
    return list(in_warm.values()) + index.get(agent_id, [i for i in ids if i not in in_warm])


def opinions(index: LocalIndex, agent_id: str, warm: Sequence[Memory]) -> list[Memory]:
    """Every current opinion of the agent (warm and the local index)."""
    from memoryd.tiers.cold.index_rows import COLUMNS, row_entry

    found = {e["id"]: e for e in warm if kinds.kind_of(e.get("metadata")) == kinds.OPINION}
    rows = index.read(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND json_valid(m.metadata) AND "
                      "(json_extract(m.metadata, '$.memory_kind') = 'opinion' OR json_extract(m.metadata, '$.kind') "
                      "= 'opinion')", [agent_id])
    for row in rows:
        found.setdefault(row[0], dict(row_entry(row)))
    return [m for m in found.values() if kinds.kind_of(m.get("metadata")) == kinds.OPINION and
            kinds.is_current(m.get("metadata"))]


def _slugs(chosen: Sequence[EntityRow], folders: Sequence[Path] = ()) -> dict[str, str]:
    """entity key → file slug; two entities with the same slug: the later ones get their type appended, as
    does one whose plain slug is the page of another entity already (written by an earlier reflect)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for e in chosen:
        s = pages.slug(e.name)
        held = {pages.key_in(f / f"{s}.md") for f in folders} - {None, e.key}
        if s.casefold() in taken or held:
            s = f"{s}-{e.type}"
        taken.add(s.casefold())
        out[e.key] = s
    return out


def reflect(mem: AgentMemory, index: LocalIndex, now: float, since_days: float, workspaces: Sequence[Path] = (),
            llm: LLM | None = None) -> dict[str, Any]:
    """Refresh entities, then write the pages of the active ones named in the last `since_days` days and
    bank/opinions.md, in the agent's folder and each workspace. Runs under the agent's lock."""
    with mem.exclusive():
        warm = mem.read_state()["warm"]["entries"]
        counts = ents.refresh(index, mem.agent_id, warm, llm, mem.warnings.append)
        chosen = ents.page_entities(index, mem.agent_id, now, since_days)
        roots = [mem.dir / "bank", *(Path(w) / "bank" for w in workspaces)]
        slugs = _slugs(chosen, [r / "entities" for r in roots])
        written, kept, warnings = [], 0, list(mem.warnings)
        for e in chosen:
            view = pages.entity_view(e, memories_of(index, mem.agent_id, e.key, warm))
            for root in roots:
                path = root / "entities" / f"{slugs[e.key]}.md"
                try:
                    changed = pages.write_page(path, lambda nl, v=view: pages.page_block(v, nl), "entity", e.name)
                except MemorydError as exc:
                    warnings.append(f"page of {e.name} not written: {exc.message}")
                    continue
                if changed:
                    written.append(str(path))
                else:
                    kept += 1
        found = opinions(index, mem.agent_id, warm)
        for root in roots:
            try:
                if pages.write_page(root / "opinions.md", lambda nl: pages.opinions_block(found, nl), "opinions",
                                    "Opinions"):
                    written.append(str(root / "opinions.md"))
            except MemorydError as exc:
                warnings.append(f"{root / 'opinions.md'} not written: {exc.message}")
    return {"agent_id": mem.agent_id, "since_days": since_days, "entities": [
                {"name": e.name, "type": e.type, "hotness": round(e.hotness, 4), "page": f"entities/{slugs[e.key]}.md"}
                for e in chosen],
            "opinions": len(found), "written": written, "unchanged": kept, "roots": [str(r) for r in roots],
            "refreshed": counts, "warnings": warnings}


def scrub_pages(mem: AgentMemory, index: LocalIndex, ids: set[str], now: float,
                workspaces: Sequence[Path] = ()) -> list[str]:
    """After a forget: every page quoting a forgotten memory is generated again without it (forget means
    forget, in the bank too). Returns the pages rewritten."""
    done: list[str] = []
    if not ids:
        return done
    with mem.exclusive():
        warm = mem.read_state()["warm"]["entries"]
        ents.refresh(index, mem.agent_id, warm, None, mem.warnings.append)
        found: list[Memory] | None = None
        for root in [mem.dir / "bank", *(Path(w) / "bank" for w in workspaces)]:
            for path in sorted((root / "entities").glob("*.md")) + [root / "opinions.md"]:
                try:
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                if not any(f"`{i}`" in text for i in ids):
                    continue
                try:
                    if path.name == "opinions.md" and path.parent == root:
                        found = opinions(index, mem.agent_id, warm) if found is None else found
                        pages.write_page(path, lambda nl, f=found: pages.opinions_block(f, nl), "opinions", "Opinions")
                    else:
                        _rewrite_entity_page(mem, index, path, pages.page_key(text), warm, now)
                    done.append(str(path))
                except MemorydError as exc:
                    mem.warnings.append(f"{path} still quotes a forgotten memory: {exc.message}")
    return done


def _rewrite_entity_page(mem: AgentMemory, index: LocalIndex, path: Path, key: str | None,
                         warm: Sequence[Memory], now: float) -> None:
    match = [e for e in ents.find_entity(index, mem.agent_id, key, now) if e.key == key] if key else []
    if match:
        view = pages.entity_view(match[0], memories_of(index, mem.agent_id, match[0].key, warm))
        pages.write_page(path, lambda nl: pages.page_block(view, nl), "entity", match[0].name)
        return
    empty = {"key": key or "?", "type": "entity", "hotness": 0.0, "state": "cold", "mentions": 0, "last_seen": "-"}
    pages.write_page(path, lambda nl: pages.page_block(empty, nl), "entity", path.stem)

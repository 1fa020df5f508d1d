"""The working snapshot of seed 001: snapshot.md in the agent's folder, ~2,000 tokens (8,000 bytes) of what
matters now — hot memory, then warm facts by score, the best in full and the rest as one-line previews."""
from __future__ import annotations

from typing import TYPE_CHECKING

from memoryd.tiers.base.atomic import atomic_write_text
from memoryd.tiers.memory.model import preview

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.types import AgentState

FILE = "snapshot.md"
MAX_BYTES = 8000     # ~2,000 tokens at ~4 bytes a token
FULL_ENTRIES = 12    # the best-scored warm facts shown whole; the rest as previews


def render(state: AgentState, max_bytes: int = MAX_BYTES) -> str:
    """The snapshot's text: deterministic for a given state (ties by id), never over `max_bytes`."""
    hot, lines = state["hot"], ["# Working snapshot", ""]
    people = [f"- {k}: {v}" for k, v in sorted(hot["identity"].items())] + \
        [f"- {k}: {v}" for k, v in sorted(hot["owner_profile"].items())]
    if people:
        lines += ["## Who", *people, ""]
    ctx = hot["active_context"]
    now_items = [f"- project {p['name']}: {p.get('description', '')} ({p.get('status', '')})" for p in ctx["projects"]]
    now_items += [f"- task: {t['text']} ({t['status']})" for t in ctx["tasks"] if t["status"] != "done"]
    now_items += [f"- event: {e['text']}" for e in ctx["events"]]
    if now_items:
        lines += ["## Now", *now_items, ""]
    if hot["critical_lessons"]:
        lines += ["## Lessons", *[f"- {x['text']}" for x in hot["critical_lessons"]], ""]
    ranked = sorted(state["warm"]["entries"], key=lambda e: (-float(e.get("score") or e["importance"]), e["id"]))
    if ranked:
        lines.append("## Facts")
        for i, e in enumerate(ranked):
            lines.append(f"- [{e['category']}] " + (" ".join(e["text"].split()) if i < FULL_ENTRIES
                                                   else preview(e["text"], 80)))
    out, used = [], 0
    for line in lines:
        size = len(line.encode("utf-8")) + 1
        if used + size > max_bytes:
            break
        out.append(line)
        used += size
    return "\n".join(out).rstrip() + "\n"


def write_snapshot(mem: AgentMemory) -> int:
    """Write snapshot.md when its text changed; returns its size in bytes."""
    with mem.exclusive():
        text = render(mem.read_state())
        path = mem.dir / FILE
        try:
            same = path.read_text(encoding="utf-8") == text
        except (FileNotFoundError, UnicodeDecodeError):
            same = False
        if not same:
            atomic_write_text(path, text)
        return len(text.encode("utf-8"))

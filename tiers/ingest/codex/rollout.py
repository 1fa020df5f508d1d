"""Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread-id>.jsonl`) → turns.

Lines are `{timestamp, ordinal, type, payload}`. What the person said: `response_item` messages of
role user whose content items are of kind `user.text` with provenance `user` (the environment
context is a user-role message with harness provenance). What the assistant said: its messages'
`output_text`, except the compaction summary (`metadata.compaction_output`); `function_call` names
become provenance on the next answer. Not memory: `function_call_output`, developer messages (hook
context, instructions), reasoning, `compacted`, `session_meta`, `turn_context`, `event_msg`,
`world_state`, token records. A resume appends to the same file. Older rollouts without item
metadata fall back to dropping user text that opens with a harness tag.
Pure: bytes in, turns out, with the byte offset to go on from.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memoryd.tiers.ingest.harness_lines import Read, complete_lines
from memoryd.tiers.ingest.openclaw.events import Parsed, Turn, clean_text, event_time

SOURCE = "codex"
_NAME = re.compile(r"^rollout-.*-(?P<sid>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")
_HARNESS_TAG = re.compile(r"^\s*<(?:environment_context|user_instructions|INSTRUCTIONS|turn_aborted|"
                          r"user_shell_command|subagent_notification)>")


def session_of(path: Path) -> str | None:
    m = _NAME.match(path.name)
    return m.group("sid") if m else None


def _user_text(payload: dict[str, Any]) -> tuple[str, str | None]:
    """(what the person typed, None) or ("", why this user-role message is not the person)."""
    content = payload.get("content") if isinstance(payload.get("content"), list) else []
    meta = payload.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    provs = meta.get("content_item_metadata") if isinstance(meta, dict) else None
    texts = []
    for i, item in enumerate(content):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        if isinstance(kinds, list):
            kind = kinds[i] if i < len(kinds) else None
            prov = provs[i].get("provenance") if isinstance(provs, list) and i < len(provs) and \
                isinstance(provs[i], dict) else None
            who = prov.get("type") if isinstance(prov, dict) else "user"
            if kind != "user.text" or who != "user":
                continue
        elif _HARNESS_TAG.match(item["text"]):
            continue
        texts.append(item["text"])
    return ("\n".join(texts), None) if texts else ("", "harness context")


class RolloutParser:
    """Feeds the lines of one rollout in order; tool calls wait as provenance for the next answer."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.tools: list[str] = []

    def feed(self, obj: Any, pos: int, out: Read) -> None:
        parsed = out.parsed
        if not isinstance(obj, dict) or not isinstance(obj.get("payload"), dict):
            parsed.skip("unreadable line")
            return
        kind, payload = obj.get("type"), obj["payload"]
        if kind == "session_meta":
            if isinstance(payload.get("cwd"), str):
                out.cwd = payload["cwd"]
            if isinstance(payload.get("id"), str):
                out.session_id = out.session_id or payload["id"]
        if kind != "response_item":
            parsed.skip("compaction" if kind == "compacted" else str(kind)[:40])
            return
        item = payload.get("type")
        if item == "function_call":
            self.tools.append(str(payload.get("name", "tool"))[:64])
            parsed.skip("tool call")
        elif item == "message":
            self._message(obj, payload, pos, parsed)
        else:
            parsed.skip("tool output" if item in ("function_call_output", "custom_tool_call_output") else
                        str(item)[:40])

    def _message(self, obj: dict, payload: dict, pos: int, parsed: Parsed) -> None:
        role = payload.get("role")
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        if role == "user":
            raw, why = _user_text(payload)
        elif role == "assistant":
            raw = "\n".join(str(c.get("text", "")) for c in payload.get("content") or []
                            if isinstance(c, dict) and c.get("type") in ("output_text", "text"))
            why = "compaction summary" if meta.get("compaction_output") else None
        else:
            raw, why = "", f"{str(role)[:20]} message"
        text = clean_text(raw, "user" if role == "user" else "assistant") if why is None else ""
        if why is None and not text:
            why = "empty"
        if why:
            parsed.skip(why)
            return
        used = []
        if role == "assistant":
            used, self.tools = list(dict.fromkeys(self.tools)), []
        else:
            self.tools = []
        parsed.turns.append(Turn(self.session_id, pos, role, text, event_time(obj, {}, 0.0), used))


def read_rollout(data: bytes, start: int, session_id: str) -> Read:
    """The turns in `data` (the rollout's bytes from offset `start`), up to its last complete line."""
    lines, end, too_long = complete_lines(data, start)
    out = Read(end=end, session_id=session_id)
    for _ in range(too_long):
        out.parsed.skip("line too long")
    parser = RolloutParser(session_id)
    for pos, obj in lines:
        parser.feed(obj, pos, out)
    return out


def rollout_files(sessions: Path) -> list[Path]:
    """Every rollout under Codex's sessions dir (YYYY/MM/DD/rollout-*.jsonl)."""
    if not sessions.is_dir():
        return []
    return sorted(p for p in sessions.glob("*/*/*/rollout-*.jsonl") if p.is_file() and session_of(p))


def is_rollout(path: Path, sessions: Path) -> bool:
    try:
        parts = path.relative_to(sessions).parts
    except ValueError:
        return False
    return len(parts) == 4 and session_of(path) is not None

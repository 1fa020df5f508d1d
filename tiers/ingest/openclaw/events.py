"""OpenClaw transcript events (SQLite rows or JSONL lines) → conversation turns, scaffolding left out.

What is not the conversation never becomes a turn: heartbeat and other internal wake-ups
(`provenance.kind == internal_system`, `[OpenClaw heartbeat poll]`) and their `HEARTBEAT_OK` /
`NO_REPLY` answers, the pre-compaction memory-flush prompt, OpenClaw's own refusals and notices,
`custom` / bootstrap / model-snapshot / thinking-level events, thinking parts, tool results and the
metadata envelopes channel plugins put around user text. Tool calls are kept only as provenance
(their names on the assistant turn). Reply tags such as `[[reply_to_current]]` are stripped.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from memoryd.tiers.memory.model import without_lone_surrogates

ROLES = ("user", "assistant")
SILENT_TOKENS = frozenset({"NO_REPLY", "HEARTBEAT_OK", "NO_REPLY.", "HEARTBEAT_OK."})
INTERNAL_PROMPTS = ("[OpenClaw heartbeat poll]", "[OpenClaw exec completion]", "[OpenClaw cron wake]",
                    "[OpenClaw session event]", "[OpenClaw heartbeat wake]")
# The pre-compaction flush prompt (its answer is a file write, then NO_REPLY)
_FLUSH_PROMPT = re.compile(r"Save important context from this session to the daily memory file|"
                           r"Pre-compaction memory flush", re.IGNORECASE)
# OpenClaw speaking for itself rather than the model: refusals, notices, command replies.
_SYSTEM_REPLY = re.compile(r"^(?:⚠️|🧹|🦞|⚙️|✅ New session|🔄)|^You are not authorized\b|"
                           r"not authorized to (?:reset|run|use)\b", re.IGNORECASE)
_REPLY_TAG = re.compile(r"\[\[\s*(?:reply_to_current|reply_to\s*:\s*[^\]]*|audio_as_voice|silent)\s*\]\]\s*",
                        re.IGNORECASE)
_TIMESTAMP_PREFIX = re.compile(r"^\[[A-Za-z]{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}[^\]]*\] *")
_INTERNAL_BLOCK = re.compile(r"<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>.*?(?:<<<END_OPENCLAW_INTERNAL_CONTEXT>>>|\Z)",
                             re.DOTALL)
# A header line of an injected metadata block: "Sender (untrusted metadata):", "Conversation info ⟦openclaw:ctx⟧"
_ENVELOPE_HEAD = re.compile(r"^[ \t]*(?:[^\n]{1,80}\((?:untrusted metadata|untrusted, [^)\n]*|metadata, do not treat "
                            r"as instructions or commands)\):|[^\n]{1,80}⟦openclaw:ctx⟧)[ \t]*$", re.MULTILINE)
_DELIVERY_HINT = re.compile(r"^Delivery: [^\n]*`message` tool[^\n]*$", re.MULTILINE)


@dataclass
class Turn:
    """One thing the owner or the agent said, with where it came from."""

    session_id: str
    seq: int
    role: str                      # user | assistant | summary
    text: str
    time: float                    # unix seconds
    tools: list[str] = field(default_factory=list)  # tool calls of an assistant turn (provenance)
    where: str = ""                # where it was read when not the session itself (a note's file#line)

    @property
    def iso(self) -> str:
        return datetime.fromtimestamp(self.time, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    @property
    def date(self) -> str:
        return self.iso[:10]


@dataclass
class Parsed:
    """What one batch of events holds: turns, and the seqs after which a segment closed (resets)."""

    turns: list[Turn] = field(default_factory=list)
    resets: list[int] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1


def strip_envelopes(text: str) -> str:
    """User text without injected metadata blocks, internal context, delivery hints and timestamp prefix."""
    text = _INTERNAL_BLOCK.sub("", text)
    text = _TIMESTAMP_PREFIX.sub("", text.lstrip())
    if "untrusted" in text or "⟦openclaw:ctx⟧" in text:
        text = _drop_envelope_blocks(text)
    text = _DELIVERY_HINT.sub("", text)
    return _TIMESTAMP_PREFIX.sub("", text.strip()).strip()


def _drop_envelope_blocks(text: str) -> str:
    """Each header line goes with the fenced JSON block after it (or the paragraph after it)."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not _ENVELOPE_HEAD.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i < len(lines) and lines[i].strip().startswith("```"):
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                i += 1
            i += 1
        else:
            while i < len(lines) and lines[i].strip():
                i += 1
    return "\n".join(out)


def clean_text(text: str, role: str) -> str:
    """The words a person said: envelopes (user) and reply tags (assistant) removed, whitespace kept tidy.
    A lone surrogate (a JavaScript string cut inside a pair) becomes U+FFFD: it cannot be stored as UTF-8."""
    text = without_lone_surrogates(text)
    if role == "user":
        text = strip_envelopes(text)
    text = _REPLY_TAG.sub("", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines()).strip()


def is_scaffolding(text: str, role: str) -> str | None:
    """Why `text` (already cleaned) is OpenClaw's own machinery rather than conversation, or None."""
    stripped = text.strip()
    if not stripped:
        return "empty"
    if stripped in SILENT_TOKENS or stripped.rstrip(".").upper() in ("NO_REPLY", "HEARTBEAT_OK"):
        return "silent reply"
    if any(stripped.startswith(p) for p in INTERNAL_PROMPTS):
        return "internal prompt"
    if _FLUSH_PROMPT.search(stripped):
        return "memory flush prompt"
    if role == "user" and stripped.startswith("/") and re.fullmatch(r"/[a-z_-]{2,20}(?:\s+\S+)?", stripped):
        return "slash command"
    if role == "assistant" and _SYSTEM_REPLY.search(stripped):
        return "system message"
    return None


def _parts_text(content: Any) -> tuple[str, list[str]]:
    """(text of the text parts, names of toolCall parts); thinking and images are left out."""
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return "", []
    texts, tools = [], []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text") and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind in ("toolCall", "tool_use", "toolUse", "function_call") and isinstance(part.get("name"), str):
            tools.append(part["name"][:64])
    return "\n".join(texts), tools


def event_time(obj: dict[str, Any], msg: dict[str, Any], fallback: float) -> float:
    """Seconds since the epoch from the message's ms timestamp, the event's ISO timestamp, or `fallback`."""
    ms = msg.get("timestamp")
    if isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms > 1e11:
        return float(ms) / 1000.0
    iso = obj.get("timestamp")
    if isinstance(iso, str):
        try:
            return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
        except ValueError:
            pass
    if isinstance(iso, (int, float)) and not isinstance(iso, bool):
        return float(iso) / (1000.0 if iso > 1e11 else 1.0)
    return fallback


class EventParser:
    """Feeds events in order; remembers across calls that an internal turn's answer is to be dropped."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.mute_reply = False  # the last user turn was internal: its answer is scaffolding too
        self.tools: list[str] = []  # tool calls since the last user turn, for the next assistant text

    def feed(self, obj: Any, seq: int, fallback_time: float, out: Parsed) -> None:
        if not isinstance(obj, dict):
            out.skip("not an event")
            return
        kind = obj.get("type")
        if kind == "reset":
            out.resets.append(seq)
            self.mute_reply = False
            return
        if kind == "compaction" and isinstance(obj.get("summary"), str):
            out.turns.append(Turn(self.session_id, seq, "summary", clean_text(obj["summary"], "summary"),
                                  event_time(obj, {}, fallback_time)))
            return
        msg = obj.get("message") if isinstance(obj.get("message"), dict) else obj
        if kind not in ("message", None) or obj.get("hidden") or not isinstance(msg, dict):
            out.skip(f"event {str(kind)[:40]}")
            return
        self._message(obj, msg, seq, fallback_time, out)

    def _message(self, obj: dict, msg: dict, seq: int, fallback: float, out: Parsed) -> None:
        role = msg.get("role")
        if role not in ROLES:
            out.skip("tool result" if role in ("toolResult", "tool") else f"role {str(role)[:20]}")
            return
        raw, tools = _parts_text(msg.get("content"))
        text = clean_text(raw, role)
        if role == "user":
            prov = msg.get("provenance") or obj.get("provenance")
            internal = isinstance(prov, dict) and prov.get("kind") == "internal_system"
            why = "internal turn" if internal else is_scaffolding(text, role)
            self.mute_reply, self.tools = why is not None, []
        else:
            injected = msg.get("provider") == "openclaw" or msg.get("model") == "gateway-injected"
            why = "system message" if injected else is_scaffolding(text, role)  # OpenClaw's own words
            if self.mute_reply:  # everything answering a heartbeat or flush prompt
                why = why or "answer to an internal turn"
            elif tools and why == "empty":  # a bare tool call: provenance for the reply that follows
                self.tools += tools
                why = "tool call"
        if why:
            out.skip(why)
            return
        used, self.tools = list(dict.fromkeys(self.tools + tools)), []
        out.turns.append(Turn(self.session_id, seq, role, text, event_time(obj, msg, fallback), used))


TOO_DEEP = "JSON nested too deep"  # a skip reason the commands turn into exit 2 (a refused line, not a torn one)


def too_deep(raw: bytes | str) -> bool:
    """Whether an event parse_json_event refused is refused for its nesting (asked only of refused lines)."""
    try:
        json.loads(raw)
    except RecursionError:
        return True
    except (ValueError, UnicodeDecodeError):
        pass
    return False


def parse_json_event(raw: bytes | str) -> Any:
    """One event from JSON text; None when it is not JSON (a torn or binary line)."""
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None

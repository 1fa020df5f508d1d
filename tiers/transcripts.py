"""Conversation transcripts (OpenClaw session JSONL): new messages since the last run become warm facts."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from .agent import AgentMemory
from .atomic import atomic_write_json, read_json
from .errors import MemorydError
from .model import MAX_TEXT_BYTES

MIN_BYTES = 20          # greetings and one-word replies are not memories (bytes: CJK says more per char)
LEDGER = "transcripts.json"


def _text_of(content: Any) -> str:
    """Message content is a string or a list of parts ({type: text, text: ...})."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content  # a part without text (null, a number) is skipped
                         if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
    return ""


def _clean(text: str) -> str:
    """Whitespace collapsed; a lone surrogate (a JavaScript string cut inside a pair) becomes U+FFFD,
    as it cannot be stored as UTF-8."""
    return " ".join(_LONE_SURROGATE.sub("\ufffd", text).split())


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_messages(lines: list[bytes]) -> list[dict[str, str]]:
    """Keep user/assistant messages and compaction summaries; skip hidden/custom and broken lines."""
    out = []
    for raw in lines:
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(obj, dict) or obj.get("hidden"):
            continue
        if obj.get("type") == "compaction" and isinstance(obj.get("summary"), str):
            summary = _clean(obj["summary"])  # an empty one would refuse the whole batch
            if summary:
                out.append({"role": "summary", "text": summary, "timestamp": str(obj.get("timestamp", ""))})
            continue
        msg = obj.get("message") if isinstance(obj.get("message"), dict) else obj
        if obj.get("type") not in ("message", None) or msg.get("role") not in ("user", "assistant"):
            continue
        text = _clean(_text_of(msg.get("content")))
        if len(text.encode("utf-8")) >= MIN_BYTES:
            out.append({"role": msg["role"], "text": text, "timestamp": str(obj.get("timestamp", ""))})
    return out


def _clip(text: str) -> str:
    data = text.encode("utf-8")[:MAX_TEXT_BYTES]
    return data.decode("utf-8", errors="ignore")


def ingest_transcript(mem: AgentMemory, path: Path) -> dict[str, Any]:
    """Store the messages appended to `path` since the last call (complete lines only; idempotent)."""
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    ledger_path = mem.dir / LEDGER
    with mem.locked():
        ledger = read_json(ledger_path, dict)
        seen = ledger.get(key, {"offset": 0})
        try:
            with open(path, "rb") as fh:
                size = fh.seek(0, 2)
                start = seen["offset"] if seen["offset"] <= size else 0  # truncated/rotated: start over
                fh.seek(start)
                chunk = fh.read()
        except OSError as exc:
            raise MemorydError(f"cannot read transcript {path}: {exc.strerror}") from None
        end = chunk.rfind(b"\n") + 1  # a line still being written waits for the next run
        messages = parse_messages(chunk[:end].splitlines())
        items = [(_clip(m["text"]), "conversations/summaries" if m["role"] == "summary" else f"conversations/{m['role']}",
                  None, {"source": path.name, "role": m["role"], "time": m["timestamp"]}) for m in messages]
        stored = [e["id"] for e in mem.store_many(items)] if items else []
        ledger[key] = {"path": str(path), "offset": start + end}
        atomic_write_json(ledger_path, ledger)
    return {"path": str(path), "messages": len(messages), "stored": stored, "offset": start + end}

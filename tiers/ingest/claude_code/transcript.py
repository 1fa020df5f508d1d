"""Claude Code transcripts (`~/.claude/projects/<slug>/<session>.jsonl`, subagents under `<session>/subagents/`) → turns.

What the person said: `type: "user"` lines with string content (or text blocks typed in the TUI),
not `isMeta`, not `isCompactSummary`, not prompted by the harness itself (`promptSource: "system"`:
task notifications), not a slash command's echo (`<command-name>`, `<local-command-…>`). What the
assistant said: its `text` blocks (one line per content block); `tool_use` blocks become provenance
on the next text. Not memory: tool results, attachments (environment, git status, hook context,
loaded memory files), `system` lines (a `compact_boundary` among them), the compaction summary and
the bookkeeping lines (`api-request*`, prompt snapshots, queue operations, cost). In a subagent's
transcript the prompt is the parent model's words, not the person's: only its answers are taken.
Pure: bytes in, turns out, with the byte offset to go on from.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memoryd.tiers.ingest.harness_lines import Read, complete_lines
from memoryd.tiers.ingest.openclaw.events import Parsed, Turn, clean_text, event_time

SOURCE = "claude-code"
# A user line that is the harness speaking: slash-command echoes, command output, task notifications
_HARNESS_TEXT = re.compile(r"^\s*<(?:command-name|command-message|command-args|local-command-[a-z-]+|"
                           r"task-notification|system-reminder|bash-input|bash-stdout|bash-stderr)>")
_SKIPPED_TYPES = {"attachment": "attachment", "system": "system line", "summary": "summary line"}


def session_of(path: Path) -> tuple[str, bool]:
    """(session id as stored, whether `path` is a subagent's transcript): `<sid>.jsonl` or
    `<sid>/subagents/agent-<id>.jsonl` (stored as `<sid>/agent-<id>`)."""
    if path.parent.name == "subagents":
        return f"{path.parent.parent.name}/{path.stem}", True
    return path.stem, False


def _user_words(obj: dict[str, Any], content: Any) -> tuple[str, str | None]:
    """(the person's words, None) or ("", why this user line is not the person speaking)."""
    if obj.get("isCompactSummary"):
        return "", "compaction summary"
    if obj.get("isMeta"):
        return "", "meta line"
    if obj.get("promptSource") == "system":
        return "", "harness prompt"
    if isinstance(content, list):
        if any(isinstance(p, dict) and p.get("type") == "tool_result" for p in content):
            return "", "tool result"
        content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    if not isinstance(content, str):
        return "", "no text"
    if _HARNESS_TEXT.match(content):
        return "", "command line"
    return content, None


class TranscriptParser:
    """Feeds the lines of one transcript in order; tool calls wait as provenance for the next answer."""

    def __init__(self, session_id: str, subagent: bool = False) -> None:
        self.session_id, self.subagent = session_id, subagent
        self.tools: list[str] = []
        self.mute = False  # the last user line was the harness prompting (a task notification): its answer too

    def feed(self, obj: Any, pos: int, out: Read) -> None:
        parsed = out.parsed
        if not isinstance(obj, dict):
            parsed.skip("unreadable line")
            return
        kind = obj.get("type")
        if isinstance(obj.get("cwd"), str):
            out.cwd = obj["cwd"]
        msg = obj.get("message")
        if kind not in ("user", "assistant") or not isinstance(msg, dict):
            parsed.skip(_SKIPPED_TYPES.get(str(kind), "bookkeeping"))
            return
        if kind == "user":
            self._user(obj, msg, pos, parsed)
        else:
            self._assistant(obj, msg, pos, parsed)

    def _user(self, obj: dict, msg: dict, pos: int, parsed: Parsed) -> None:
        words, why = _user_words(obj, msg.get("content"))
        if why is None and self.subagent:
            why = "subagent prompt"
        text = clean_text(words, "user") if why is None else ""
        if why is None and not text:
            why = "empty"
        if why in ("harness prompt", "command line", "meta line"):
            self.mute = True
        if why:
            parsed.skip(why)
            return
        self.tools, self.mute = [], False
        parsed.turns.append(Turn(self.session_id, pos, "user", text, event_time(obj, {}, 0.0)))

    def _assistant(self, obj: dict, msg: dict, pos: int, parsed: Parsed) -> None:
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                self.tools.append(block["name"][:64])
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        text = clean_text("\n".join(texts), "assistant")
        if text and self.mute:
            parsed.skip("answer to the harness")
            return
        if not text:
            parsed.skip("tool call" if self.tools else "no text")
            return
        used, self.tools = list(dict.fromkeys(self.tools)), []
        parsed.turns.append(Turn(self.session_id, pos, "assistant", text, event_time(obj, {}, 0.0), used))


def read_transcript(data: bytes, start: int, session_id: str, subagent: bool = False) -> Read:
    """The turns in `data` (the transcript's bytes from offset `start`), up to its last complete line."""
    lines, end, too_long = complete_lines(data, start)
    out = Read(end=end, session_id=session_id)
    for _ in range(too_long):
        out.parsed.skip("line too long")
    parser = TranscriptParser(session_id, subagent)
    for pos, obj in lines:
        parser.feed(obj, pos, out)
    return out


def transcript_files(projects: Path) -> list[Path]:
    """Every transcript under Claude Code's projects dir: sessions and their subagents."""
    if not projects.is_dir():
        return []
    found = list(projects.glob("*/*.jsonl")) + list(projects.glob("*/*/subagents/*.jsonl"))
    return sorted(p for p in found if p.is_file())


def is_transcript(path: Path, projects: Path) -> bool:
    try:
        parts = path.relative_to(projects).parts
    except ValueError:
        return False
    if not path.name.endswith(".jsonl"):
        return False
    return len(parts) == 2 or (len(parts) == 4 and parts[2] == "subagents")

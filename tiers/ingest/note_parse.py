"""Daily notes parsed: timed sections and `## Retain` lines → NoteFacts, with their source line."""
from __future__ import annotations

import re
from pathlib import Path

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.ingest.note_fact import DATE_RE, KINDS, UNKEYED, NoteFact, check_date
from memoryd.tiers.ingest.note_rules import read_content
from memoryd.tiers.memory.model import CONTROL_CHARS, without_controls

MAX_FACT_BYTES = 4000  # below the store limit (4096) so a long paragraph is split, never refused

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TIMED = re.compile(r"^(?:(上午|下午|晚上|凌晨)\s*)?(\d{1,2})[:：](\d{2})\s*([AaPp]\.?[Mm]\.?)?\s*(?:[-–—:|]\s*)?(.*)$")
_RETAIN = re.compile(r"^(?:retain|retained|保留|记住)\b\s*(?:\(.*\))?$", re.IGNORECASE)
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_TYPED = re.compile(r"^([WBOS])(?:\(([^)]*)\))?(?=[\s:@]|$)\s*(.*)$", re.DOTALL)
_LEAD_ENTITIES = re.compile(r"^((?:@[\w][\w.\-]*[,\s]*)+)[:：]\s*(.*)$", re.DOTALL)
_ENTITY = re.compile(r"(?<![\w@.])@([\w][\w\-]*(?:\.[\w\-]+)*)")
_CONF = re.compile(r"^\s*c\s*=\s*([^\s,;]+)\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")


def _clock_time(prefix: str | None, hour: int, minute: int, ampm: str | None) -> str | None:
    if minute > 59:
        return None
    marker = (ampm or "").lower().replace(".", "")
    if marker or prefix:
        if not 1 <= hour <= 12:
            return None if marker else (f"{hour:02d}:{minute:02d}" if hour < 24 else None)
        pm = marker == "pm" or prefix in ("下午", "晚上")
        hour = (hour % 12) + (12 if pm else 0)
    elif hour > 23:
        return None
    return f"{hour:02d}:{minute:02d}"


def split_long(text: str, limit: int = MAX_FACT_BYTES) -> list[str]:
    """Split text over `limit` bytes at sentence/line ends (hard cut on characters as a last resort)."""
    if len(text) * 4 <= limit or len(text.encode("utf-8")) <= limit:  # a UTF-8 character is at most 4 bytes
        return [text]
    parts, cur = [], ""
    for piece in re.split(r"(?<=[.!?。！？\n])", text):
        while len(piece.encode("utf-8")) > limit:  # one enormous sentence
            cut = piece.encode("utf-8")[:limit].decode("utf-8", "ignore")
            parts.append(cut)
            piece = piece[len(cut):]
        if len((cur + piece).encode("utf-8")) > limit and cur:
            parts.append(cur)
            cur = ""
        cur += piece
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


class _Parser:
    def __init__(self, date: str) -> None:
        self.date = date
        self.rel = f"memory/{date}.md"
        self.facts: list[NoteFact] = []
        self.warnings: list[str] = []
        self.section: str | None = None
        self.time: str | None = None
        self.retain = False
        self.block: list[str] = []
        self.block_line = 0
        self.heading_line = 0
        self.emitted = True  # whether the current section produced a fact

    def category(self, kind: str) -> str:
        if kind in KINDS.values():
            return f"bank/{kind}"
        return "notes"

    def add(self, text: str, line: int, kind: str = "fact", entities: list[str] | None = None,
            confidence: float | None = None) -> None:
        text = text.strip()
        if not text:
            return
        found = entities if entities is not None else []
        found = list(dict.fromkeys(found + _ENTITY.findall(text) if "@" in text else found))  # every @name holds "@"
        for chunk in split_long(text):
            fact = NoteFact(text=chunk, category=self.category(kind), kind=kind, source=f"{self.rel}#L{line}",
                            date=self.date, line=line, time=self.time, entities=found, confidence=confidence,
                            section=self.section, key=UNKEYED)  # keyed once the text is whole (parse_note)
            self.facts.append(fact)

    def flush(self) -> None:
        """Emit the paragraph or bullet being collected (outside Retain)."""
        lines, start = self.block, self.block_line
        self.block = []
        if any(("`" in ln or "~" in ln) and _FENCE.match(ln) for ln in lines):
            body = "\n".join(lines).strip()  # code stays verbatim, line by line
        else:
            body = " ".join(ln.strip() for ln in lines).strip()
        if not body:
            return
        self.add(body, start)  # the heading is context (NoteFact.section), not part of the fact
        self.emitted = True

    def end_section(self) -> None:
        """A timed heading with no body is still a fact ("## 3:00 PM - Call with Bob about pricing")."""
        self.flush()
        if not self.emitted and self.section and not self.retain:
            self.add(self.section, self.heading_line)
        self.emitted = True

    def heading(self, level: int, title: str, lineno: int) -> None:
        self.end_section()
        self.retain, self.time = False, None
        self.heading_line, self.emitted = lineno, False
        if level == 1 and (DATE_RE.match(title) or title == self.date):
            self.section = None
            return
        if _RETAIN.match(title):
            self.retain, self.section = True, None
            return
        m = _TIMED.match(title)
        if m:
            prefix, hour, minute, ampm, rest = m.groups()
            self.time = _clock_time(prefix, int(hour), int(minute), ampm)
            if self.time is None:
                self.warnings.append(f"{self.rel}#L{lineno}: unreadable time in heading; kept without a time")
            self.section = rest.strip() or None
            return
        self.section = title or None
        self.emitted = True  # an untimed heading alone ("## Notes") is not a fact

    def retain_line(self, content: str, lineno: int) -> None:
        m = _TYPED.match(content)
        if not m:
            self.add(content, lineno)
            return
        code, args, rest = m.groups()
        kind, confidence = KINDS[code], None
        if args is not None:
            cm = _CONF.match(args)
            try:
                confidence = float(cm.group(1)) if cm else None
            except ValueError:
                confidence = None
            if confidence is None or not 0.0 <= confidence <= 1.0:
                shown = args.strip()[:20]
                self.warnings.append(f"{self.rel}#L{lineno}: bad confidence ({shown!r}); expected c=0.0..1.0, "
                                     "kept as a plain fact")
                kind, confidence = "fact", None
        lead = _LEAD_ENTITIES.match(rest.strip())
        entities = _ENTITY.findall(lead.group(1)) if lead else []
        text = rest.strip().lstrip(":：").strip()
        if not text or (lead and not lead.group(2).strip()):
            self.warnings.append(f"{self.rel}#L{lineno}: Retain line has no text; skipped")
            return
        self.add(text, lineno, kind, entities, confidence)


def _retain_body(p: _Parser, line: str, lineno: int) -> None:
    b = _BULLET.match(line)
    if b:
        p.retain_line(b.group(1), lineno)
    elif line.strip() and p.facts and p.facts[-1].line < lineno and line.startswith((" ", "\t")):
        p.facts[-1].text += " " + line.strip()  # continuation of the previous Retain bullet
    elif line.strip():
        p.add(line, lineno)


def parse_note(source: str | Path, date: str, classify: bool = True) -> tuple[list[NoteFact], list[str]]:
    """Parse one daily note (a path or its text) into facts and warnings. Pure apart from reading a path.

    classify=False leaves type/category/date-about to `read_content` (ingest runs it on new facts only)."""
    check_date(date)
    if isinstance(source, Path):
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {source}: {getattr(exc, 'strerror', None) or exc}") from None
    else:
        text = source
    p = _Parser(date)
    fence = False
    # none in the whole note (a CR only in CRLF, which splitlines takes away): none in any line, each not searched
    controls = CONTROL_CHARS.search(text) is not None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if controls:
            line = without_controls(line)  # a stray NUL or escape in a note is not a reason to refuse the note
        marker = ("`" in line or "~" in line) and bool(_FENCE.match(line))  # the cheap test first: most lines hold none
        code = fence or marker  # the fence lines themselves belong to the code block
        fence = fence != marker
        h = None if code or not line.startswith("#") else _HEADING.match(line)
        if h:
            p.heading(len(h.group(1)), h.group(2).strip(), lineno)
        elif p.retain and not code:
            _retain_body(p, line, lineno)
        elif not line.strip() and not code:
            p.flush()
        else:
            bullet = None if code else _BULLET.match(line)
            if bullet and p.block:
                p.flush()  # each bullet is its own fact
            if not p.block:
                p.block_line = lineno
            p.block.append(bullet.group(1) if bullet else line)
    p.end_section()
    for fact in p.facts:  # keyed now that continuation lines have been added to their text
        fact.key = ""
        fact.__post_init__()
        if classify:
            read_content(fact)
    return p.facts, p.warnings


def read_notes(files: list[tuple[str, Path]], explicit: bool) -> tuple[list[str], list[NoteFact], list[str]]:
    """Parse a batch of notes: the dates read, their facts and the warnings, in file order."""
    days: list[str] = []
    facts: list[NoteFact] = []
    warnings: list[str] = []
    for day, path in files:
        if not path.is_file():
            if explicit:
                raise UsageError(f"no daily note for {day}: {path} does not exist")
            warnings.append(f"no daily note for {day} ({path})")
            continue
        found, warned = parse_note(path, day, classify=False)
        days.append(day)
        facts += found
        warnings += warned
    return days, facts, warnings

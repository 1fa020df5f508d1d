"""Daily notes (memory/YYYY-MM-DD.md): timed sections and `## Retain` lines → typed, sourced facts."""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.ingest.ledgers import load_ledgers, split_old_ledger, write_ledgers
from memoryd.tiers.base.progress import Progress, current_progress

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_FACT_BYTES = 4000  # below the store limit (4096) so a long paragraph is split, never refused
KINDS = {"W": "world", "B": "experience", "O": "opinion", "S": "observation"}

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TIMED = re.compile(r"^(?:(上午|下午|晚上|凌晨)\s*)?(\d{1,2})[:：](\d{2})\s*([AaPp]\.?[Mm]\.?)?\s*(?:[-–—:|]\s*)?(.*)$")
_RETAIN = re.compile(r"^(?:retain|retained|保留|记住)\b\s*(?:\(.*\))?$", re.IGNORECASE)
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_TYPED = re.compile(r"^([WBOS])(?:\(([^)]*)\))?(?=[\s:@]|$)\s*(.*)$", re.DOTALL)
_LEAD_ENTITIES = re.compile(r"^((?:@[\w][\w.\-]*[,\s]*)+)[:：]\s*(.*)$", re.DOTALL)
_ENTITY = re.compile(r"(?<![\w@.])@([\w][\w\-]*(?:\.[\w\-]+)*)")
_CONF = re.compile(r"^\s*c\s*=\s*([^\s,;]+)\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")


UNKEYED = "-"  # a fact whose text may still grow: not hashed yet


@dataclass
class NoteFact:
    """One fact from a daily note, ready for AgentMemory.store()."""

    text: str
    category: str
    kind: str                      # world | experience | opinion | observation | fact
    source: str                    # memory/YYYY-MM-DD.md#L12
    date: str
    line: int
    time: str | None = None        # HH:MM (24 h) of the timed section
    entities: list[str] = field(default_factory=list)
    confidence: float | None = None
    section: str | None = None     # the heading above it: context, not part of the text
    key: str = ""                  # content hash: the same fact on the same day → the same key
    type: str | None = None        # decision | preference | personal | lesson | task | event (fact_rules)
    about: str | None = None       # the date a task or event is about
    profile_key: str | None = None  # where an owner preference goes in the hot profile
    classified: bool = False       # read_content has run (type, category, about)

    def __post_init__(self) -> None:
        if not self.key:
            raw = "\x1f".join((self.date, self.kind, " ".join(self.text.split())))
            self.key = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]

    def metadata(self) -> dict[str, Any]:
        meta = {"source": self.source, "kind": self.kind, "entities": self.entities, "date": self.date,
                "time": self.time, "confidence": self.confidence, "section": self.section, "type": self.type,
                "about": self.about}
        return {k: v for k, v in meta.items() if v not in (None, [], "")}

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_date(date: str) -> str:
    import datetime as _dt

    if not isinstance(date, str) or not DATE_RE.fullmatch(date):
        raise UsageError(f"invalid date {date!r}: use YYYY-MM-DD")
    try:
        _dt.date.fromisoformat(date)
    except ValueError:
        raise UsageError(f"invalid date {date!r}: no such day") from None
    return date


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
    if len(text.encode("utf-8")) <= limit:
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


_SECTION_TYPES = tuple((re.compile(rx, re.IGNORECASE), kind) for rx, kind in (
    (r"decision|决定|决策", "decision"), (r"task|todo|to-do|待办|任务", "task"), (r"lesson|learned|教训|经验", "lesson"),
    (r"preference|偏好|喜好", "preference"), (r"event|calendar|schedule|日程|安排", "event")))
_TOPIC_SEGMENT = re.compile(r"[\w.-]{1,32}")


@functools.lru_cache(maxsize=1)
def _rules() -> Any:
    """The rule modules, imported on the first fact read (not with this module) and looked up once."""
    from types import SimpleNamespace

    from memoryd.tiers.distillation import fact_rules
    from memoryd.tiers.distillation.distill import first_topic
    from memoryd.tiers.distillation.importance import rule_importance

    return SimpleNamespace(first_topic=first_topic, rule_importance=rule_importance, facts=fact_rules)


def read_content(fact: NoteFact) -> None:
    """Type, category, date and profile key of a note fact from what it says (its heading helps)."""
    rules = _rules()
    F = rules.facts
    fact.classified = True
    seen = F.scan(fact.text)  # the rules' gates, checked once for both
    about = F.find_date(fact.text, _date(fact.date), seen)
    kind = F.classify(fact.text, about is not None, seen)
    if kind in (None, "fact") and fact.section:
        kind = next((k for rx, k in _SECTION_TYPES if rx.search(fact.section)), kind)
    fact.type = kind if kind != "fact" else None
    fact.about = about if kind in ("task", "event", "personal") else None
    fact.profile_key = F.profile_key(kind, fact.text) if kind in ("preference", "personal") else None
    if fact.kind in KINDS.values():
        return  # a Retain line keeps its bank/<kind> category
    if fact.type:
        fact.category = F.KIND_CATEGORY[fact.type]
    else:
        topic = rules.first_topic(fact.text)
        fact.category = f"notes/{topic}" if topic and _TOPIC_SEGMENT.fullmatch(topic) else "notes"


@functools.lru_cache(maxsize=64)
def _date(iso: str) -> Any:
    import datetime as _dt

    return _dt.date.fromisoformat(iso)


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
        found = list(dict.fromkeys(found + _ENTITY.findall(text)))
        for chunk in split_long(text):
            fact = NoteFact(text=chunk, category=self.category(kind), kind=kind, source=f"{self.rel}#L{line}",
                            date=self.date, line=line, time=self.time, entities=found, confidence=confidence,
                            section=self.section, key=UNKEYED)  # keyed once the text is whole (parse_note)
            self.facts.append(fact)

    def flush(self) -> None:
        """Emit the paragraph or bullet being collected (outside Retain)."""
        lines, start = self.block, self.block_line
        self.block = []
        if any(_FENCE.match(ln) for ln in lines):
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
    for lineno, line in enumerate(text.splitlines(), start=1):
        marker = bool(_FENCE.match(line))
        code = fence or marker  # the fence lines themselves belong to the code block
        fence = fence != marker
        h = None if code else _HEADING.match(line)
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


# --- ingestion into an agent's memory ---------------------------------------------------------
BATCH_NOTES = 16           # `--all`: notes stored per write (one warm write per batch, not per note)
FIRST_BATCH_NOTES = 32
AHEAD_BATCHES = 2  # handed to the helper at a time: it never waits for its next job, nor this process for
                   # an answer when one batch takes a little longer on either side
RETAIN_BONUS = 0.1  # a `## Retain` line is one the author chose to keep (seed 003's quality lever)


def note_files(workspace: Path, date: str | None = None, all_: bool = False) -> list[tuple[str, Path]]:
    """The daily notes to read: one date, or every memory/YYYY-MM-DD.md in date order."""
    folder = Path(workspace) / "memory"
    if not all_:
        assert date is not None
        return [(check_date(date), folder / f"{date}.md")]
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.md")):
        stem = path.stem
        if DATE_RE.match(stem):
            try:
                out.append((check_date(stem), path))
            except UsageError:
                continue  # 2026-13-40.md is not a daily note
    return out


def _item(fact: NoteFact) -> tuple[str, str, float, dict[str, Any]]:
    """What store()/store_many() are given for a classified fact."""
    importance, reasons = _importance(fact)
    # "promoted": hot gets only what the note says explicitly (below), never a fact by its score
    return (fact.text, fact.category, importance,
            fact.metadata() | {"importance_reasons": reasons[:4], "promoted": True})


def _importance(fact: NoteFact) -> tuple[float, list[str]]:
    rules = _rules()
    value, reasons = rules.rule_importance(fact.text, fact.category)
    floor = rules.facts.KIND_FLOOR[fact.type] if fact.type else 0.0
    if floor > value:
        value, reasons = floor, reasons + [f"type:{fact.type}"]
    if fact.kind in KINDS.values():
        value = round(min(1.0, value + RETAIN_BONUS), 3)
        reasons = reasons + [f"retain+{RETAIN_BONUS:g}"]
    return value, reasons


def ingest(mem: Any, workspace: Path, date: str | None = None, all_: bool = False,
           progress: Progress | None = None, ahead: bool | None = None) -> dict[str, Any]:
    """Store the facts of daily notes into `mem` (an AgentMemory); re-ingesting a fact is a no-op.

    `--all` reads and rates the next batch in a helper process while this one stores the current
    batch when a core is idle (`ahead` None), always (True) or never (False); the result is the same.

    Each month of notes has its ledger (`ingested/YYYY-MM.json`: content keys of what was stored),
    read and written with the stores of a batch of notes under the agent lock, so a crash repeats at
    most one batch's stores (which reinforce rather than duplicate) and the cost per note stays flat.
    """
    import time as _time

    if date is None and not all_:
        date = _time.strftime("%Y-%m-%d", _time.localtime(mem.clock()))
        explicit = False
    else:
        explicit = not all_
    report: dict[str, Any] = {"files": 0, "facts": 0, "stored": 0, "skipped": 0, "by_kind": {}, "warnings": []}
    files = note_files(workspace, date, all_)
    advance = (progress or current_progress()).start("daily notes", len(files))
    from memoryd.tiers.ingest.notes_ahead import has_new, read_notes, start_helper

    # the first batch is read here while a helper starts (~0.1 s): larger, so the helper's answer for
    # the second is there when this process is done with it
    batches = [files[:FIRST_BATCH_NOTES]] + [files[start:start + BATCH_NOTES]
                                            for start in range(FIRST_BATCH_NOTES, len(files), BATCH_NOTES)]
    batches = batches if files else []  # no notes: no batch (that would take the lock, making the agent)
    helper: Any = None
    try:
        for n, batch in enumerate(batches):
            got = helper.take() if helper is not None else None
            busy, stored = _time.perf_counter(), report["stored"]  # the clock: this side also waits for its disk
            if helper is not None and n + AHEAD_BATCHES < len(batches):
                helper.submit(batches[n + AHEAD_BATCHES], Path(mem.dir))  # read while this batch is stored
            days, facts, warnings, ready = got if got is not None else (*read_notes(batch, explicit), None)
            if helper is None and ahead is not False and n + 1 < len(batches) and has_new(Path(mem.dir), facts):
                # new facts, more batches: a helper starts on the next batches while this one is stored
                # (a re-ingest with nothing new never starts one)
                helper = start_helper(mem, always=bool(ahead))
                for later in batches[n + 1:n + 1 + AHEAD_BATCHES] if helper is not None else ():
                    helper.submit(later, Path(mem.dir))
            report["files"] += len(days)
            report["facts"] += len(facts)
            report["warnings"] += warnings
            with mem.locked():  # per batch, so a year of notes does not block the daemon's other work
                _store_batch(mem, days, facts, report, ready)
            if got is not None:
                helper.done(_time.perf_counter() - busy, report["stored"] - stored)
            advance(len(batch))
    finally:
        if helper is not None:
            helper.close()
    report["dates"] = [d for d, p in files if p.is_file()]
    return report


def _store_batch(mem: Any, days: list[str], facts: list[NoteFact], report: dict[str, Any],
                 ready: list | None) -> None:
    """The batch's ledgers, its new facts stored, the ledgers written (caller holds the lock)."""
    split_old_ledger(Path(mem.dir))
    ledger = load_ledgers(Path(mem.dir), days)
    before = dict(ledger)
    try:
        _ingest_facts(mem, facts, ledger, report, ready)
    finally:
        changed = {d for k, d in ledger.items() if k not in before}
        if changed:  # a no-op re-ingest writes nothing
            write_ledgers(Path(mem.dir), ledger, changed)


def _ingest_facts(mem: Any, facts: list[NoteFact], ledger: dict[str, str], report: dict[str, Any],
                  ready: list | None = None) -> None:
    """Store the new facts of a batch: in one go when `mem` has store_many, else one by one.
    `ready`: per fact, (item, prepared) from read_ahead, or None where it is to be done here."""
    from memoryd.tiers.base.errors import LimitError

    fresh = [i for i, f in enumerate(facts) if f.key not in ledger]
    report["skipped"] += len(facts) - len(fresh)
    new = [facts[i] for i in fresh]
    done_ahead = [ready[i] if ready is not None else None for i in fresh]
    for fact, ahead in zip(new, done_ahead):
        if ahead is None and not fact.classified:  # only what will be stored is read for meaning
            read_content(fact)
    items = [ahead[0] if ahead is not None else _item(fact) for fact, ahead in zip(new, done_ahead)]
    if not items:
        return
    store_many = getattr(mem, "store_many", None)
    hot: list[str] | None = None
    if callable(store_many):
        import inspect

        takes = inspect.signature(store_many).parameters
        extra: dict[str, Any] = {}
        if ready is not None and "prepared" in takes:  # a helper did this part already
            extra["prepared"] = [ahead[1] if ahead is not None else None for ahead in done_ahead]
        step = _hot_step(new)
        if step is not None and "then" in takes:  # the hot changes in the same write as the stores
            changed: list[str] = []
            extra["then"] = (lambda state, now: changed.extend(step(state, now)), "daily note")
            hot = changed
        store_many(items, **extra)  # one load/write for the whole batch
        done = new
    else:
        done = []
        for fact, (text, category, importance, meta) in zip(new, items):
            try:
                mem.store(text, category, importance, metadata=meta)
            except LimitError as exc:
                report["warnings"].append(f"{fact.source}: not stored: {exc.message}")
                continue
            done.append(fact)
    for fact in done:
        ledger[fact.key] = fact.date
        report["stored"] += 1
        report["by_kind"][fact.kind] = report["by_kind"].get(fact.kind, 0) + 1
    if hot is not None:
        report.setdefault("hot", []).extend(hot)
    else:
        _to_hot(mem, done, report)


def _hot_step(facts: list[NoteFact]) -> Any:
    """The change() step putting explicit lessons in hot lessons, dated tasks/events in hot and owner
    preferences in the owner profile; None when there are none."""
    from memoryd.tiers.ingest.conversation import hot_changes
    from memoryd.tiers.distillation.fact_rules import KIND_FLOOR, Fact

    explicit = [Fact(f.type, f.text, f.category, KIND_FLOOR[f.type], f.about, f.profile_key) for f in facts
                if f.type is not None and (f.type == "lesson" or (f.type in ("task", "event") and f.about)
                                           or f.profile_key)]
    return hot_changes(explicit) if explicit else None


def _to_hot(mem: Any, facts: list[NoteFact], report: dict[str, Any]) -> None:
    """_hot_step's changes in a write of their own (a memory that stores one fact at a time)."""
    step = _hot_step(facts)
    change = getattr(mem, "change", None)
    if step is not None and callable(change):
        report.setdefault("hot", []).extend(change(step, "daily note"))

"""Rule-mode distiller: raw text → fact, emotion, people, topics, actions, outcome + verbatim urls/commands/paths."""
from __future__ import annotations

import functools
import re
from typing import Any, Mapping

from memoryd.tiers.distillation.lexicon import (ACTION_EN, ACTION_ZH, EMOTIONS, FILLERS, NOT_NAMES, OUTCOME_NEG, OUTCOME_POS, TOPICS)
from memoryd.tiers.distillation.lexicon import CMD_TOOLS, SUBCOMMANDS, ZH_SURNAMES
from memoryd.tiers.distillation.rxgate import Gated, GateSet

FACT_MAX_BYTES = 240
CORE_MAX_BYTES = 30
KEYS = ("fact", "emotion", "people", "topics", "actions", "outcome", "urls", "commands", "paths")

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_URL = re.compile(r"\b(?:https?|ftp|wss?|file)://[^\s<>\"'`\]\)）」，。；！？]+|\bwww\.[a-z0-9-]+\.[^\s<>\"'`\]\)）」，。；！？]+",
                  re.IGNORECASE)
_TRAIL = ".,;:!?'\")]}>"
_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)
_TICK = re.compile(r"`([^`\n]+)`")
_PROMPT_LINE = re.compile(r"(?m)^\s*[$#>]\s+(\S.*)$")
_TOOL_CMD = re.compile(r"(?<![\w/.@-])((?:sudo\s+)?(?:" + "|".join(CMD_TOOLS) + r")\s+(\S+)[^\n\u3000-\u9fff\uff00-\uffef]*)")
# Outside code spans a tool name must be followed by a subcommand, a flag or a file-like argument.
_SUBCOMMANDS = frozenset(SUBCOMMANDS)
_CMD_END = re.compile(r"(?:[.;,!?]\s|[.;,!?]$|\s+(?:and|then|to|so|which|because|but)\s|[。；，！？]|[\"'“”])")
_PATH = re.compile(r"(?<![\w:/.\-\]])((?:~|\.{1,2})?/(?:[\w.@+\-]+/)*[\w.@+\-]+/?|[\w.\-]+(?:/[\w.@+\-]+)+\.[A-Za-z0-9]{1,8})(?![\w/])")
_REDACTED = re.compile(r"\[REDACTED:[a-z_]+\]")
_MENTION = re.compile(r"(?<![\w@.])@([A-Za-z][\w\-]{0,38})")
_EN_NAME = r"([A-Z][a-z]{1,19}(?:\s[A-Z][a-z]{1,19})?)"
_PEOPLE_BEFORE = re.compile(r"\b(?:with|and|to|from|by|told|asked|met|called|emailed|thanked|cc)\s+" + _EN_NAME + r"\b")
_PEOPLE_AFTER = Gated(re.compile(r"\b" + _EN_NAME + r"(?:\s+(?:said|says|told|asked|thinks|wants|prefers|mentioned|"
                                 r"suggested|agreed|decided|likes|hates)\b|'s\b)"))  # skipped without said/.../'s
_ZH_PERSON = re.compile(r"(?:和|跟|与|同|给|告诉|问|找|约)([\u4e00-\u9fff]{2,3}?)(?=说|讨论|聊|开会|一起|确认|沟通|见面|吃饭|打电话|商量)"
                        r"|([\u4e00-\u9fff]{2,3}?)(?=说|认为|提到|觉得|表示|建议|同意|决定)")
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|me|my|mine|we|we're|our|us|User)\b|我|咱|用户")
# _FIRST_PERSON on ASCII text: no CJK word can occur, and a contraction (I'm, we're) matches only where its first
# word does (the apostrophe ends a word); the same answer from a third of the alternatives
_FIRST_PERSON_ASCII = re.compile(r"\b(?:I|m[ey]|mine|we|our|us|User)\b")
_STOP = frozenset("a an the that this to of for and about was were is are be been just really very then".split())
_SENT_SPLIT = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])|\n+")


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def _dedupe(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        item = item.strip()
        if item and item not in seen:
            seen[item] = None
    return list(seen)


def _may_have_url(text: str) -> bool:
    """Exact pre-check: every _URL match holds "://" or "www." (no other character folds to w/W or '.')."""
    return "://" in text or "www." in text.lower()


def extract_urls(text: str) -> list[str]:
    if not _may_have_url(text):
        return []
    return _dedupe([m.group(0).rstrip(_TRAIL) for m in _URL.finditer(text)])


def _trim_command(cmd: str) -> str:
    m = _CMD_END.search(cmd)
    cmd = cmd[: m.start()] if m else cmd
    return cmd.strip().rstrip(_TRAIL.replace(")", "").replace("]", "").replace("}", "")).strip()


_TOOLS = frozenset(CMD_TOOLS)
_TAIL_RUN = re.compile(r"[\w-]*\Z")


def _may_run_tool(text: str) -> bool:
    """Exact pre-check for _TOOL_CMD (~4 µs a sentence, run on every one): a tool it finds is preceded by none of
    [\\w-] and followed by a space, so it is the whole run of [\\w-] that ends a space-separated word."""
    for word in text.split():
        if word in _TOOLS:
            return True
        if not word.isalnum() and (word[-1].isalnum() or word[-1] in "_-") and _TAIL_RUN.search(word)[0] in _TOOLS:
            return True
    return False


def extract_commands(text: str) -> list[str]:
    """Shell commands kept verbatim: fenced blocks, `inline code` that starts with a tool, `$ prompt` lines."""
    found: list[str] = []
    rest = text
    if "```" in rest:  # the shortcuts below skip a pattern whose mandatory literal is absent
        for block in _FENCE.findall(rest):
            found += [ln.strip().lstrip("$# ").strip() for ln in block.splitlines() if ln.strip()]
        rest = _FENCE.sub(" ", rest)
    if "`" in rest:
        for code in _TICK.findall(rest):
            if _TOOL_CMD.match(code.strip()) or code.strip().startswith(("./", "$ ")):
                found.append(code.strip().lstrip("$ ").strip())
        rest = _TICK.sub(" ", rest)
    if "$" in rest or "#" in rest or ">" in rest:
        found += [_trim_command(m) for m in _PROMPT_LINE.findall(rest)]
        rest = _PROMPT_LINE.sub(" ", rest)
    for m in _TOOL_CMD.finditer(rest) if _may_run_tool(rest) else ():
        arg = m.group(2)
        if arg.startswith("-") or arg in _SUBCOMMANDS or re.search(r"[/.=~:]", arg):
            found.append(_trim_command(m.group(1)))
    return _dedupe([c for c in found if len(c.split()) >= 2 or c.startswith("./")])


def extract_paths(text: str) -> list[str]:
    """File paths kept verbatim (URLs, commands' flags and redaction marks are not paths)."""
    clean = _URL.sub(" ", text) if _may_have_url(text) else text
    if "[REDACTED:" in clean:
        clean = _REDACTED.sub(" ", clean)
    if "/" not in clean:
        return []  # both _PATH alternatives need a "/"
    out = []
    for m in _PATH.finditer(clean):
        path = m.group(1).rstrip(".,;:")
        if path.startswith("/") and path.count("/") < 2 and not path.endswith("/"):
            continue  # "/users" is an API route more often than a file
        if re.fullmatch(r"[\d/.\-]+", path):
            continue  # dates and fractions like 11/27 or 1/2
        out.append(path)
    return _dedupe(out)


def _people(text: str) -> list[str]:
    found = [m.group(1) for m in _MENTION.finditer(text)] if "@" in text else []
    ascii_ = text.isascii()
    # a name after "met"/"with"/... is capitalised and never the text's first word: most notes' later words are not
    for rx in ((_PEOPLE_BEFORE, _PEOPLE_AFTER) if not text[1:].islower() else (_PEOPLE_AFTER,)):
        found += [m.group(1) for m in rx.finditer(text) if m.group(1).split()[0] not in NOT_NAMES]
    if not ascii_:  # _ZH_PERSON needs a CJK character
        for m in _ZH_PERSON.finditer(text):
            name = m.group(1) or m.group(2)
            if name and name[0] in ZH_SURNAMES:
                found.append(name)
    if (_FIRST_PERSON_ASCII if ascii_ else _FIRST_PERSON).search(text):
        found.append("User")
    return _dedupe(found)[:8]


_WORD = re.compile(r"[a-z0-9][a-z0-9'_-]*")


class Lexicons:
    """Named word lists counted against a text in one pass: a list's single words are counted by
    lookup in the text's word counts, its phrases (and CJK words) by substring, as `count` says."""

    def __init__(self, lists: Mapping[Any, tuple[str, ...]]) -> None:
        self.names = tuple(lists)
        self.by_word: dict[str, list[int]] = {}  # word → the lists holding it (a set per list: counted once)
        self.phrases: list[tuple[int, str]] = []
        for i, words in enumerate(lists.values()):
            single = frozenset(w for w in words if not _CJK.search(w) and _WORD.fullmatch(w))
            for w in single:
                self.by_word.setdefault(w, []).append(i)
            self.phrases += [(i, w) for w in words if w not in single]
        # a phrase with a non-ASCII character cannot occur in an ASCII text; in another text only when
        # the text holds the phrase's first character
        self.ascii_phrases = [(i, p) for i, p in self.phrases if p.isascii()]
        self.by_first: dict[str, list[tuple[int, str]]] = {}
        for i, p in self.phrases:
            if not p.isascii():
                self.by_first.setdefault(p[0], []).append((i, p))

    def hits(self, low: str, words: list[str]) -> dict[Any, int]:
        """The lists found in the text, in their order, each with how often its single words are among
        `words` (the text's, in order) plus its phrases' occurrences in `low`. Lists with no hit are left
        out: a text holds a few of the 34, and every reader skipped the zeros."""
        n: dict[int, int] = {}
        by_word = self.by_word
        for w in words:
            lists = by_word.get(w)
            if lists:
                for i in lists:
                    n[i] = n.get(i, 0) + 1
        phrases = self.ascii_phrases
        if not low.isascii():
            phrases = phrases + [ip for ch in set(low).intersection(self.by_first) for ip in self.by_first[ch]]
        for i, p in phrases:
            if p in low:
                n[i] = n.get(i, 0) + low.count(p)
        names = self.names
        return {names[i]: n[i] for i in sorted(n)}


# topics, emotions and outcome words in one set: one walk of a text's words for all of them
_LEXICONS = Lexicons({("topic", k): v for k, v in TOPICS.items()} | {("emotion", k): v for k, v in EMOTIONS.items()}
                     | {("outcome", "pos"): OUTCOME_POS, ("outcome", "neg"): OUTCOME_NEG})
_HASHTAG = re.compile(r"(?<![\w&])#([A-Za-z][\w\-]{1,30})")


def _topics(text: str, hits: dict[tuple[str, str], int]) -> list[str]:
    scored = [(-n, topic) for (kind, topic), n in hits.items() if kind == "topic"]
    tags = [t.lower() for t in _HASHTAG.findall(text)] if "#" in text else []
    return _dedupe(tags + [t for _, t in sorted(scored)])[:6]


def _emotion(hits: dict[tuple[str, str], int]) -> str:
    best, best_n = "neutral", 0
    for (kind, name), n in hits.items():
        if kind == "emotion" and n > best_n:
            best, best_n = name, n
    return best


def _outcome(hits: dict[tuple[str, str], int]) -> str:
    pos, neg = hits.get(("outcome", "pos"), 0), hits.get(("outcome", "neg"), 0)
    if pos > neg:
        return "positive"
    if neg > pos:
        return "negative"
    return "mixed" if pos else "neutral"


_CLAUSE_END = r"(?:[,;!?()\n]|[.:](?=\s|$))"
_VERBS_EN = re.compile(r"\b(?:" + "|".join(ACTION_EN) + r")\b(?:(?!" + _CLAUSE_END + r").)*", re.IGNORECASE)
_VERBS_ZH = re.compile(r"(?:" + "|".join(ACTION_ZH) + r")[^，。；！？,;!?\n]*")
# _VERBS_EN's case-sensitive twin for lowercased ASCII text (about 3x faster: no case folding per try)
_VERBS_EN_LOW = re.compile(r"\b(?:" + "|".join(w.lower() for w in ACTION_EN) + r")\b(?:(?!" + _CLAUSE_END + r").)*")


def _verb_phrases(text: str) -> list[str]:
    """_VERBS_EN's matches. Exact on ASCII text: lower() keeps every position and word boundary there,
    and re.IGNORECASE folds ASCII letters just as lower() does."""
    if text.isascii():
        return [text[m.start():m.end()] for m in _VERBS_EN_LOW.finditer(text.lower())]
    return [m.group(0) for m in _VERBS_EN.finditer(text)]


def _actions(text: str) -> list[str]:
    found: list[str] = []
    if "`" in text:
        text = _TICK.sub(lambda m: m.group(1), text)
    for phrase in _verb_phrases(text):
        words = phrase.split()[:8]
        while len(words) > 1 and words[-1].lower() in _STOP:
            words.pop()
        found.append(" ".join(words).rstrip(".:"))
    if not text.isascii():  # every ACTION_ZH word is CJK
        found += [m.group(0)[:24] for m in _VERBS_ZH.finditer(text)]
    return _dedupe(found)[:6]


# FILLERS compiled and gated: a filler whose words an ASCII text lacks is not run (most texts have none)
_FILLERS_RX = tuple(Gated(f, re.IGNORECASE) for f in FILLERS)
_FILLER_GATES = GateSet(_FILLERS_RX)


def _strip_fillers(text: str) -> str:
    """re.sub(filler, " ", text, flags=re.IGNORECASE) for each of FILLERS in turn."""
    scan = _FILLER_GATES.scan(text)
    for rx in _FILLERS_RX:
        if not scan.closed(rx):  # on the text as it is now: an earlier filler may have changed it
            out = rx.rx.sub(" ", text)
            if out != text:
                text, scan = out, _FILLER_GATES.scan(out)
    return text


def _fact(text: str) -> str:
    """The text without filler, whitespace collapsed, cut at a word/char boundary near FACT_MAX_BYTES."""
    fact = " ".join(_strip_fillers(text).split()).strip(" ,;:-")
    if fact and fact[0].islower() and fact[0].isascii():
        fact = fact[0].upper() + fact[1:]
    return truncate_bytes(fact, FACT_MAX_BYTES, ellipsis="…")


def truncate_bytes(text: str, limit: int, ellipsis: str = "") -> str:
    """Cut `text` to at most `limit` UTF-8 bytes, never inside a character; prefer a word boundary."""
    if len(text.encode("utf-8")) <= limit:
        return text
    room = limit - len(ellipsis.encode("utf-8"))
    out, used = [], 0
    for ch in text:
        size = len(ch.encode("utf-8"))
        if used + size > room:
            break
        out.append(ch)
        used += size
    cut = "".join(out)
    space = cut.rfind(" ")
    if space >= len(cut) * 0.4 and not has_cjk(cut[space:]):
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + ellipsis


META_KEYS = ("emotion", "people", "topics", "outcome", "urls", "commands", "paths")


def distill(text: str) -> dict[str, Any]:
    """Rule-mode distillation (no LLM). Deterministic; urls/commands/paths are kept verbatim."""
    text = text or ""
    found = _distill_meta(text)
    return {"fact": _fact(text), "emotion": found["emotion"], "people": list(found["people"]),
            "topics": list(found["topics"]), "actions": _actions(text), "outcome": found["outcome"],
            "urls": list(found["urls"]), "commands": list(found["commands"]), "paths": list(found["paths"])}


def stored_meta(text: str) -> dict[str, Any]:
    """What a stored memory's metadata keeps of distill(): the non-empty META_KEYS, lists fresh. Not
    the rewritten fact or the actions, which only summaries use (a quarter of distill's time)."""
    return {k: list(v) if type(v) is list else v for k, v in _distill_meta(text or "").items() if v}


def first_topic(text: str) -> str | None:
    topics = _distill_meta(text or "")["topics"]
    return topics[0] if topics else None


@functools.lru_cache(maxsize=2048)  # a note's facts are distilled to classify them, then again to store them
def _distill_meta(text: str) -> dict[str, Any]:
    low = text.lower()
    hits = _LEXICONS.hits(low, _WORD.findall(low))
    return {
        "emotion": _emotion(hits),
        "people": _people(text),
        "topics": _topics(text, hits),
        "outcome": _outcome(hits),
        "urls": extract_urls(text),
        "commands": extract_commands(text),
        "paths": extract_paths(text),
    }


_SUMMARY_DROP = re.compile(r"^(?:the user|user|i|we|they|he|she|it)\s+(?:has\s+|have\s+|had\s+)?", re.IGNORECASE)


def core_summary(d: dict[str, Any] | str) -> str:
    """A one-line summary of a distilled fact in at most 30 UTF-8 bytes (never cuts a character)."""
    fact = d if isinstance(d, str) else str(d.get("fact") or "")
    if not fact and isinstance(d, dict):
        fact = ", ".join(d.get("topics") or []) or " ".join(d.get("actions") or [])
    first = next((s for s in _SENT_SPLIT.split(fact) if s.strip()), fact).strip().lstrip("$#> ")
    first = _URL.sub(lambda m: re.sub(r"^\w+://|^www\.", "", m.group(0)).split("/")[0], first)
    if has_cjk(first):
        first = re.sub(r"^(?:我们|我|用户)", "", first).strip("，。 ")
        return truncate_bytes(first, CORE_MAX_BYTES)
    first = _SUMMARY_DROP.sub("", first).strip(" .,;:")
    clause = re.split(r"\s*[,;:(—]\s*|\s+-\s+", first)[0].strip()
    for candidate in (first, clause):
        if len(candidate.encode("utf-8")) <= CORE_MAX_BYTES:
            return candidate[:1].upper() + candidate[1:]
    words = [w for w in clause.split() if w.lower() not in _STOP] or clause.split()
    summary = " ".join(words)
    summary = summary[:1].upper() + summary[1:]
    return truncate_bytes(summary, CORE_MAX_BYTES)

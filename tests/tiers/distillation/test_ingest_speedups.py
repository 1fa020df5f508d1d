"""The fast paths of distill and redact give exactly what the plain code they replace gave.

Each reference below is the straightforward code as it stood before the shortcuts (every regex run
on every text, a re.sub per filler, a lexicon walked phrase by phrase); the corpus is the bench's
year of notes, every string literal of the distill/redact/importance/fact-rules/daily-notes tests,
hand-picked near misses (case folding, CJK, marks) and hypothesis texts built from the words the
shortcuts test for.
"""
from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings, strategies as st

from memoryd.tiers.distillation import distill as D
from memoryd.tiers.distillation import redact as R
from memoryd.tiers.distillation.lexicon import EMOTIONS, FILLERS, NOT_NAMES, OUTCOME_NEG, OUTCOME_POS, TOPICS, ZH_SURNAMES
from speedup_corpus import CORPUS, NEAR_MISSES, WORDS, file_literals


# --- the references: the code before the shortcuts ---------------------------------------------
class RefLexicon:
    def __init__(self, words: tuple[str, ...]) -> None:
        self.single = frozenset(w for w in words if not D._CJK.search(w) and D._WORD.fullmatch(w))
        self.phrases = tuple(w for w in words if w not in self.single)

    def hits(self, low: str, counts: dict[str, int]) -> int:
        n = sum(c for w, c in counts.items() if w in self.single)
        return n + sum(low.count(p) for p in self.phrases if p in low)


REF_TOPICS = {t: RefLexicon(w) for t, w in TOPICS.items()}
REF_EMOTIONS = {t: RefLexicon(w) for t, w in EMOTIONS.items()}
REF_POS, REF_NEG = RefLexicon(OUTCOME_POS), RefLexicon(OUTCOME_NEG)


def ref_word_counts(low: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for w in D._WORD.findall(low):
        counts[w] = counts.get(w, 0) + 1
    return counts


def ref_fact(text: str) -> str:
    for filler in FILLERS:
        text = re.sub(filler, " ", text, flags=re.IGNORECASE)
    fact = " ".join(text.split()).strip(" ,;:-")
    if fact and fact[0].islower() and fact[0].isascii():
        fact = fact[0].upper() + fact[1:]
    return D.truncate_bytes(fact, D.FACT_MAX_BYTES, ellipsis="…")


def ref_people(text: str) -> list[str]:
    found = [m.group(1) for m in D._MENTION.finditer(text)]
    for rx in (D._PEOPLE_BEFORE, D._PEOPLE_AFTER.rx):
        found += [m.group(1) for m in rx.finditer(text) if m.group(1).split()[0] not in NOT_NAMES]
    for m in D._ZH_PERSON.finditer(text):
        name = m.group(1) or m.group(2)
        if name and name[0] in ZH_SURNAMES:
            found.append(name)
    if D._FIRST_PERSON.search(text):
        found.append("User")
    return D._dedupe(found)[:8]


def ref_topics(text: str, low: str, counts: dict[str, int]) -> list[str]:
    scored = [(-n, t) for t, lex in REF_TOPICS.items() if (n := lex.hits(low, counts))]
    tags = [t.lower() for t in re.findall(r"(?<![\w&])#([A-Za-z][\w\-]{1,30})", text)]
    return D._dedupe(tags + [t for _, t in sorted(scored)])[:6]


def ref_emotion(low: str, counts: dict[str, int]) -> str:
    best, best_n = "neutral", 0
    for name, lex in REF_EMOTIONS.items():
        n = lex.hits(low, counts)
        if n > best_n:
            best, best_n = name, n
    return best


def ref_outcome(low: str, counts: dict[str, int]) -> str:
    pos, neg = REF_POS.hits(low, counts), REF_NEG.hits(low, counts)
    return "positive" if pos > neg else "negative" if neg > pos else "mixed" if pos else "neutral"


def ref_actions(text: str) -> list[str]:
    found: list[str] = []
    text = D._TICK.sub(lambda m: m.group(1), text)
    for m in D._VERBS_EN.finditer(text):
        words = m.group(0).split()[:8]
        while len(words) > 1 and words[-1].lower() in D._STOP:
            words.pop()
        found.append(" ".join(words).rstrip(".:"))
    found += [m.group(0)[:24] for m in D._VERBS_ZH.finditer(text)]
    return D._dedupe(found)[:6]


def ref_urls(text: str) -> list[str]:
    return D._dedupe([m.group(0).rstrip(D._TRAIL) for m in D._URL.finditer(text)])


def ref_commands(text: str) -> list[str]:
    found: list[str] = []
    for block in D._FENCE.findall(text):
        found += [ln.strip().lstrip("$# ").strip() for ln in block.splitlines() if ln.strip()]
    rest = D._FENCE.sub(" ", text)
    for code in D._TICK.findall(rest):
        if D._TOOL_CMD.match(code.strip()) or code.strip().startswith(("./", "$ ")):
            found.append(code.strip().lstrip("$ ").strip())
    rest = D._TICK.sub(" ", rest)
    found += [D._trim_command(m) for m in D._PROMPT_LINE.findall(rest)]
    rest = D._PROMPT_LINE.sub(" ", rest)
    for m in D._TOOL_CMD.finditer(rest):
        arg = m.group(2)
        if arg.startswith("-") or arg in D._SUBCOMMANDS or re.search(r"[/.=~:]", arg):
            found.append(D._trim_command(m.group(1)))
    return D._dedupe([c for c in found if len(c.split()) >= 2 or c.startswith("./")])


def ref_paths(text: str) -> list[str]:
    clean = D._REDACTED.sub(" ", D._URL.sub(" ", text))
    out = []
    for m in D._PATH.finditer(clean):
        path = m.group(1).rstrip(".,;:")
        if path.startswith("/") and path.count("/") < 2 and not path.endswith("/"):
            continue
        if re.fullmatch(r"[\d/.\-]+", path):
            continue
        out.append(path)
    return D._dedupe(out)


def ref_distill(text: str) -> dict[str, Any]:
    low = text.lower()
    counts = ref_word_counts(low)
    return {"fact": ref_fact(text), "emotion": ref_emotion(low, counts), "people": ref_people(text),
            "topics": ref_topics(text, low, counts), "actions": ref_actions(text),
            "outcome": ref_outcome(low, counts), "urls": ref_urls(text), "commands": ref_commands(text),
            "paths": ref_paths(text)}


def ref_redact(text: str) -> tuple[str, dict[str, int]]:
    counts: dict[str, int] = {}
    if not text:
        return text, counts
    out = R._sub_all(text, "private_key", R._PEM, counts)
    out = R._sub_all(out, "authorization", R._AUTH_HEADER, counts, R._auth_header)
    for kind, pattern in R._TOKENS:
        out = R._sub_all(out, kind, pattern, counts)
    out = R._sub_all(out, "bearer_token", R._BEARER, counts, R._bearer)
    out = R._sub_all(out, "url_password", R._URL_PASSWORD, counts,
                     lambda m: ("url_password", m.group(1) + R.MARK.format("url_password") + m.group(3)))
    out = R._sub_all(out, "secret", R._ASSIGN, counts, R._assign)
    out = R._sub_all(out, "password", R._PROSE_IS, counts, R._prose_is)
    out = R._sub_all(out, "password", R._ZH_PASSWORD, counts,
                     lambda m: ("password", m.group(1) + R.MARK.format("password")))
    return out, counts


def ref_redact_obj(obj: Any) -> tuple[Any, dict[str, int]]:
    """Every string of a JSON-like value through redact, one by one."""
    from collections import Counter

    counts: Counter[str] = Counter()

    def walk(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [walk(v) for v in value]
        if not isinstance(value, (str, dict)):
            return value
        if isinstance(value, dict):
            return dict(zip(value, map(walk, value.values())))
        clean, found = ref_redact(value)
        counts.update(found)
        return clean

    return walk(obj), {kind: n for kind, n in counts.items() if n}


def _same(text: str) -> None:
    D._distill_meta.cache_clear()
    assert D.distill(text) == ref_distill(text), text
    ref = ref_distill(text)
    assert D._distill_meta(text) == {k: v for k, v in ref.items() if k in D.META_KEYS}, text
    assert D.stored_meta(text) == {k: v for k, v in ref.items() if k in D.META_KEYS and v}, text
    assert D.first_topic(text) == (ref["topics"][0] if ref["topics"] else None), text
    assert R._redact(text) == ref_redact(text), text
    assert R.redact(text) == ref_redact(text), text
    # a store's metadata (flat: one search over all its strings) and a nested value (walked)
    for obj in ({"section": text, "entities": ["a", text], "n": 1, "ok": True, "none": None},
                {"source": "memory/x.md#L1", "tags": (text,)}, {"deep": {"x": [text]}}, [text, {"y": text}]):
        assert R.redact_obj(obj) == ref_redact_obj(obj), (obj, text)


def test_corpus_is_the_same_as_the_plain_loops() -> None:
    assert len(CORPUS) > 1000
    for text in CORPUS:
        _same(text)


def test_lowercase_and_uppercase_variants_are_the_same() -> None:
    for text in NEAR_MISSES + file_literals()[:300]:
        _same(text.upper())
        _same(text.swapcase())


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=6), max_size=14),
       st.sampled_from([" ", "", "  ", "\t", "-", "_"]))
def test_generated_texts_are_the_same(parts: list[str], sep: str) -> None:
    _same(sep.join(parts))

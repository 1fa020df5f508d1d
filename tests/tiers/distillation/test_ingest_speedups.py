"""The fast paths of distill/redact/importance/fact rules/warm give exactly what the plain code they replace gave.

Each reference below is the straightforward code as it stood before the shortcuts (every regex run
on every text, a re.sub per filler, a lexicon walked phrase by phrase); the corpus is the bench's
year of notes, every string literal of the distill/redact/importance/fact-rules/daily-notes tests,
hand-picked near misses (case folding, CJK, marks) and hypothesis texts built from the words the
shortcuts test for.
"""
from __future__ import annotations

import ast
import datetime as dt
import functools
import random
import re
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings, strategies as st

from memoryd.tiers.distillation import distill as D
from memoryd.tiers.distillation import redact as R
from memoryd.tiers.ingest.note_parse import parse_note
from memoryd.tiers.distillation.lexicon import EMOTIONS, FILLERS, NOT_NAMES, OUTCOME_NEG, OUTCOME_POS, TOPICS, ZH_SURNAMES
from memoryd.tiers.distillation.rxgate import Gated

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))  # bench/ is not installed: run from the checkout
from bench.bench_ingest import synth_note  # noqa: E402


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


# --- the corpus --------------------------------------------------------------------------------
def _test_literals() -> list[str]:
    names = ("distillation/test_distill.py", "distillation/test_redact.py", "distillation/test_importance.py",
             "distillation/test_fact_rules.py", "ingest/test_dailynotes.py")
    found = []
    for name in names:
        tree = ast.parse((ROOT / "tests" / "tiers" / name).read_text(encoding="utf-8"))
        found += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return found


def _bench_facts() -> list[str]:
    rng = random.Random(7)
    out = []
    for i in range(40):
        day = dt.date(2025, 1, 1) + dt.timedelta(days=i)
        out += [f.text for f in parse_note(synth_note(day, rng, 30), day.isoformat(), classify=False)[0]]
    return out


NEAR_MISSES = [
    "um, so I think we should basically ship it", "Um ok", "so we shipped", "Hmm, well", "hi there, like, hello",
    "OK we had a quick call about billing", "btw the PIN is 4821", "my pin is 4821", "My PIN is hunter2!",
    "the paſsword is s3cret!", "passwd=hunter22", "TOKEN: abcdef123456", "Authorization: Bearer abc123def456ghi",
    "Proxy-Authorization: Basic dXNlcjpwYXNz", "apiKey = 'x9y8z7w6'", "ſo we went", "oK fine", "I think so",
    "I  think so", "I guess it works", "by the way, we moved", "BY THE WAY it broke", "嗯，那个，其实我们决定了",
    "顺便说一下，密码是 Abc12345", "令牌为 ghp_abcdefghijklmnopqrstuvwxyz0123456789", "WWW.example.com/x",
    "see www.Example.org.", "ftp://u:p4ss@host/x", "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXX",
    "Run `make deploy`", "```\n$ pip install x\n```", "> git push origin main", "#deploy #api done",
    "@alice and @Bob.smith", "cd ~/src/app && ls", "../lib/x.py", "11/27 and 1/2", "[REDACTED:password]/etc/x",
    "user@example.com wrote /tmp/a/b", "Decided: use `git` — 決定 — 部署 v1.2", "I've KELVIN \u212a ok",
    "sk-ant-abcdefghijklmnopqrstuvwx", "AKIAABCDEFGHIJKLMNOP", "eyJhbGciOiJI.eyJzdWIiOiIx.abcdefghijk",
    "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----", "xoxb-1234567890-abc", "İ think ı guess",
]
CORPUS = _bench_facts() + _test_literals() + NEAR_MISSES


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
    for text in NEAR_MISSES + _test_literals()[:300]:
        _same(text.upper())
        _same(text.swapcase())


WORDS = ["um", "uh", "erm", "hmm", "like,", "basically", "actually", "so", "well", "ok", "okay", "hey", "hi",
         "had a", "productive", "chat", "call", "about", "I", "think", "guess", "feel like", "by the way", "btw",
         "嗯", "那个，", "其实", "就是说", "顺便说一下", "decided", "use", "deploy", "with", "Alice", "Bob", "said", "'s",
         "@peter", "#tag", "`git push origin main`", "```", "$", ">", "/", "src/app.py", "~/x", "https://", "www.",
         "://", "password", "PIN", "pin", "is", "=", ":", "token", "api_key", "secret", "bearer", "Authorization",
         "sk-", "ghp_", "hf_", "AKIA", "eyJ", "密码", "是", "令牌", "决定", "部署", "和王伟讨论", "\u212a", "ſ", "İ", "ı",
         "smart contract", "unit test", "going to", "works now", "can't", "json-rpc", "[REDACTED:secret]", "\n",
         "hunter22", "s3cret!", "x9y8z7w6abcdefghijklmnop", ".", ",", "?", "!", "(", ")", "1/2", "v1.2.3"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=6), max_size=14),
       st.sampled_from([" ", "", "  ", "\t", "-", "_"]))
def test_generated_texts_are_the_same(parts: list[str], sep: str) -> None:
    _same(sep.join(parts))


# --- gated regexes (importance, fact rules): a skipped search is one that finds nothing ---------
def _gates() -> list[tuple[str, Any]]:
    from memoryd.tiers.distillation import fact_rules as F
    from memoryd.tiers.distillation import importance as I

    found = [(f"importance.{n}", g) for n, _, g in I._INTRINSIC_RX + I._NEGATED_RX + I._EXPLICIT_RX + I._CONTENT_RX]
    found.append(("importance.temporary", I._TEMPORARY_RX))
    found += [(f"fact_rules.{n}", getattr(F, n)) for n in dir(F) if isinstance(getattr(F, n), Gated)]
    return found


def _same_search(gate: Any, text: str) -> None:
    got, want = gate.search(text), gate.rx.search(text)
    assert (got and got.span()) == (want and want.span()), (gate.rx.pattern, text)


def test_gated_searches_find_what_the_regex_finds() -> None:
    gates = _gates()
    assert len(gates) > 25 and sum(g.needles is not None for _, g in gates) > 25  # the gates are in use
    for text in CORPUS:
        for variant in (text, text.lower(), text.upper()):
            for _, gate in gates:
                _same_search(gate, variant)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS + ["my name is", "remind me to", "tomorrow", "Dec 4", "2025-01-02", "12月4日",
                                         "decided to", "lesson:", "我叫", "过敏", "$5", "3 usd", "v1.2.3", "never ever run"])
                | st.text(max_size=5), max_size=10), st.sampled_from([" ", "", "-"]))
def test_generated_gated_searches_are_the_same(parts: list[str], sep: str) -> None:
    text = sep.join(parts)
    for _, gate in _gates():
        for variant in (text, text.lower()):
            _same_search(gate, variant)


TRICKY = [r"x(?i:abc)", r"(?i)ſs", r"(?i)\u212a", r"(?i)k", r"(?i)paſs", r"um+|s?x", r"(?i)[kſ]", r"a(?-i:B)c",
          r"(?i)a(?-i:B)c", r"(?:ab|cd)+e", r"(?:ab|)c", r"[?？]\s*$", r"\bfoo\b(?=bar)bar", r"(a)\1b", r"(?x) a b "]


FOLDS = ["ſſ", "paſs", "PAſS", "xABC", "xabc", "aBc", "abc", "\u212a", "k", "K", "İ", "ı", "foobar", "abab e", "c", "ab?"]


def test_needles_never_skip_a_match_on_case_folds() -> None:
    for pattern in TRICKY:
        for text in FOLDS:
            _same_search(Gated(re.compile(pattern)), text)
            _same_search(Gated(re.compile(pattern, re.IGNORECASE)), text)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TRICKY), st.text(alphabet="abcdeksxABCKSX?？ ſ\u212aİı", max_size=8))
def test_needles_never_skip_a_match(pattern: str, text: str) -> None:
    _same_search(Gated(re.compile(pattern)), text)
    _same_search(Gated(re.compile(pattern, re.IGNORECASE)), text)


# --- gate sets: one pass over a text's needles for many gates -------------------------------------
def _gate_sets() -> list[Any]:
    from memoryd.tiers.distillation import fact_rules as F
    from memoryd.tiers.distillation import importance as I

    return [I._GATES, F.GATES, D._FILLER_GATES]


@functools.lru_cache(maxsize=1)
def _plain_sets() -> list[Any]:
    """The same gate sets with their needles tested one by one (no automaton)."""
    from memoryd.tiers.distillation.rxgate import GateSet

    return [GateSet(gates.members, automaton=False) for gates in _gate_sets()]


def _same_scan(text: str) -> None:
    for gates, plain in zip(_gate_sets(), _plain_sets()):
        scan = gates.scan(text)
        for gate in sorted(gates.members, key=lambda g: g.rx.pattern):
            got, want = scan.search(gate), gate.rx.search(text)
            assert (got and got.span()) == (want and want.span()), (gate.rx.pattern, text)
        assert scan.open == plain.scan(text).open, text


def test_the_needles_are_found_by_the_automaton() -> None:
    for gates in _gate_sets():  # pyahocorasick is a dependency: a failed import must not pass unseen
        assert gates.fold_finder is not None or gates.raw_finder is not None
    assert all(plain.fold_finder is None and plain.raw_finder is None for plain in _plain_sets())


def test_scans_find_what_each_regex_finds() -> None:
    assert sum(len(g.members) for g in _gate_sets()) > 40
    for text in CORPUS:
        for variant in (text, text.lower(), text.upper()):
            _same_scan(variant)
    outsider = Gated(re.compile("(?i)zebra"))  # not in the set: its own check, never a closed gate
    assert _gate_sets()[0].scan("a Zebra").search(outsider)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS + ["my name is", "remind me to", "tomorrow", "Dec 4", "2025-01-02", "12月4日",
                                         "not important", "don't remember", "不重要", "$5", "3 usd", "v1.2.3"])
                | st.text(max_size=5), max_size=10), st.sampled_from([" ", "", "-"]))
def test_generated_scans_are_the_same(parts: list[str], sep: str) -> None:
    text = sep.join(parts)
    _same_scan(text)
    _same_scan(text.lower())
    assert _importance_of(text) == ref_rule_importance(text)


def _importance_of(text: str) -> Any:
    from memoryd.tiers.distillation.importance import rule_importance

    return rule_importance(text, "notes")


def ref_rule_importance(text: str) -> tuple[float, list[str]]:
    """rule_importance with every regex run on the (masked) text, as before gates."""
    from memoryd.tiers.distillation import importance as I

    text = text.lower()
    best, kind = -1.0, ""
    for name, value, g in I._INTRINSIC_RX:
        if value > best and g.rx.search(text):
            best, kind = value, name
    if best < 0:
        best, kind = (I.TEMPORARY, "temporary") if I._TEMPORARY_RX.rx.search(text) else (I.DEFAULT, "general")
    reasons, score, masked, explicit, content = [f"intrinsic:{kind}={best:g}"], best, text, False, 0.0
    for name, delta, g in I._NEGATED_RX:
        if g.rx.search(masked):
            score, masked = score + delta, g.rx.sub(" ", masked)
            reasons.append(f"signal:{name}{delta:+g}")
    for name, delta, g in I._EXPLICIT_RX:
        if g.rx.search(masked):
            score, explicit = score + delta, explicit or delta > 0
            reasons.append(f"signal:{name}{delta:+g}")
    for name, delta, g in I._CONTENT_RX:
        if g.rx.search(masked):
            content += delta
            reasons.append(f"content:{name}+{delta:g}")
    score += min(content, I.CONTENT_CAP)
    if len(text.strip()) < I.SHORT_CHARS and best == I.DEFAULT and not explicit:
        score *= 0.5
        reasons.append("short:x0.5")
    return round(min(1.0, max(I.FLOOR, score)), 3), reasons


def test_importance_is_the_same_as_running_every_regex() -> None:
    masked = ["This is not important: remember the deploy", "不重要，记住 v1.2.3", "Not important. FYI $5"]
    for text in CORPUS + masked:
        assert _importance_of(text) == ref_rule_importance(text), text


def ref_classify(sentence: str, has_date: bool) -> str | None:
    """fact_rules.classify with every regex run, as before gates."""
    from memoryd.tiers.distillation import fact_rules as F

    if F._QUESTION.rx.search(sentence) or len(sentence) < 6 or F._NOT_A_FACT.rx.search(sentence):
        return None
    return next((kind for kind, g, needs_date in F._ORDER if (has_date or not needs_date) and g.rx.search(sentence)),
                None)


def test_classify_is_the_same_as_running_every_regex() -> None:
    from memoryd.tiers.distillation.fact_rules import classify

    kinds = set()
    for text in CORPUS:
        for variant in (text, text.upper()):
            for has_date in (False, True):
                got = classify(variant, has_date)
                assert got == ref_classify(variant, has_date), (variant, has_date)
                kinds.add(got)
    assert len(kinds) >= 6  # the corpus reaches most kinds

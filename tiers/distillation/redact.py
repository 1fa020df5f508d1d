"""Never-store class: replace secrets (keys, tokens, passwords, private keys) with [REDACTED:<kind>]."""
from __future__ import annotations

import functools
import re
from typing import Callable, Match

from memoryd.tiers.distillation.rxgate import Gated, GateSet

MARK = "[REDACTED:{}]"

# Values that look like references or placeholders, not secrets (token=$TOKEN, password=<your-password>).
_PLACEHOLDER = re.compile(r"^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\*+|x{3,}|\.{3,}|\[REDACTED[^\]]*\]?|\{\{.*\}\}|%\(?\w*\)?s?)$",
                          re.IGNORECASE)
# Words that often follow "password is"/"password:" in plain prose.
_PROSE = frozenset("""
wrong correct incorrect required optional invalid valid expired empty missing blank set unset stored saved
changed reset weak strong same different long short secret hidden protected the a an not too very still
here there below above needed ok okay fine lost forgotten encrypted hashed ignored
""".split())

_KEY_WORDS = (r"(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
              r"|private[_-]?key|client[_-]?secret|secret[_-]?key|session[_-]?key|auth[_-]?token)")


def _has_digit_or_symbol(value: str) -> bool:
    return any(not c.isalpha() for c in value)


Repl = Callable[[Match[str]], "tuple[str, str] | None"]


def _sub_all(text: str, kind: str, pattern: re.Pattern[str], counts: dict[str, int],
             repl: Repl | None = None) -> str:
    """Replace every match; `repl` gives (kind, replacement), or None to keep a match (a near miss)."""

    def one(m: Match[str]) -> str:
        got = repl(m) if repl else (kind, MARK.format(kind))
        if got is None:
            return m.group(0)
        counts[got[0]] = counts.get(got[0], 0) + 1
        return got[1]

    return pattern.sub(one, text)


_PEM = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
                  re.DOTALL)
_TOKENS: list[tuple[str, re.Pattern[str]]] = [
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]{0,300}\d)[A-Za-z0-9_-]{20,}")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("slack_webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
]
_AUTH_HEADER = re.compile(r"(?im)\b((?:proxy-)?authorization\s*:\s*)(?!\[REDACTED)([^\r\n'\"]+)")
_BEARER = re.compile(r"(?i)\b(bearer\s+)(?!\[REDACTED)([A-Za-z0-9\-._~+/]{16,}=*)")
_URL_PASSWORD = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]{0,30}://[^\s:/@]{1,256}:)(?!\[REDACTED)([^\s@/]{1,256})(@)")
_ASSIGN = re.compile(r"(?i)\b((?:[A-Za-z0-9]{1,40}[_-]){0,6}" + _KEY_WORDS + r")\b([\"']?\s*(?:=|:)\s*[\"']?)"
                     r"(?!\[REDACTED)([^\s\"',;&]+)")
_PROSE_IS = re.compile(r"(?i)\b((?:my|the|our|your|his|her|their)\s+(?:password|passphrase|pin|passcode)\s+is\s+)"
                       r"([^\s,;]+?)(?=[\s,;.!?]|$)")
_ZH_PASSWORD = re.compile(r"((?:密码|口令|密钥|令牌)\s*(?:是|为|:|：)\s*)([!-~]{4,})")


def _assign(m: Match[str]) -> tuple[str, str] | None:
    key, sep, value = m.group(1), m.group(2), m.group(3)
    if _PLACEHOLDER.match(value) or len(value) < 3:
        return None
    if ":" in sep and "=" not in sep and not (_has_digit_or_symbol(value) or len(value) >= 8):
        return None  # "password: reset it" is prose; "password: hunter2" is a secret
    if value.lower() in _PROSE:
        return None
    kind = "password" if "pass" in key.lower() or key.lower().endswith("pwd") else "secret"
    return kind, f"{key}{sep}{MARK.format(kind)}"


def _prose_is(m: Match[str]) -> tuple[str, str] | None:
    value = m.group(2)
    if value.lower() in _PROSE or not _has_digit_or_symbol(value) or _PLACEHOLDER.match(value):
        return None
    return "password", m.group(1) + MARK.format("password")


def _auth_header(m: Match[str]) -> tuple[str, str] | None:
    value = m.group(2)
    scheme = re.match(r"(?i)(?:basic|bearer|token|digest|negotiate|ntlm|apikey)\s+\S{6,}", value)
    if not (scheme or any(c.isdigit() for c in value) or re.search(r"[^\s]{16,}", value)):
        return None  # "Authorization: header required" is prose
    return "authorization", m.group(1) + MARK.format("authorization")


def _bearer(m: Match[str]) -> tuple[str, str] | None:
    token = m.group(2)
    if not (any(c.isdigit() for c in token) or len(token) >= 32):
        return None  # "bearer authentication-scheme" is prose
    return "bearer_token", m.group(1) + MARK.format("bearer_token")


def redact(text: str) -> tuple[str, dict[str, int]]:
    """Return `text` with secrets replaced by [REDACTED:<kind>], and the number replaced per kind."""
    if len(text) > 512:
        return _redact(text)
    clean, counts = _redact_short(text)
    return clean, dict(counts)


@functools.lru_cache(maxsize=8192)  # metadata repeats itself (dates, names, topics): ~20 regexes each time otherwise
def _redact_short(text: str) -> tuple[str, dict[str, int]]:
    return _redact(text)


# Every pattern below needs one of these strings (with the same case rules as the pattern itself):
# a text without any of them has no secret to find, and one search replaces ~20 substitutions.
_CASED_MARKS = r"-----BEGIN |sk-|sk_|rk_|gh[pousr]_|github_pat_|glpat-|hf_|npm_|AKIA|ASIA|xox|AIza|eyJ|://"
_CASELESS_WORDS = r"authorization|bearer|pass|pwd|secret|token|key|pin"
_MAY_HAVE_SECRET = re.compile(f"{_CASED_MARKS}|(?i:{_CASELESS_WORDS})|密码|口令|密钥|令牌")
# On ASCII text the same check without case folding inside the regex (4-5x faster): lower() folds
# exactly the letters re.IGNORECASE folds there; the CJK words cannot occur.
_CASED_MARKS_RX = re.compile(_CASED_MARKS)
_CASELESS_WORDS_RX = re.compile(_CASELESS_WORDS)


def may_have_secret(text: str) -> bool:
    """False when no pattern below can match `text` (exact: every match holds one of these strings)."""
    if not text.isascii():
        return _MAY_HAVE_SECRET.search(text) is not None
    return _CASED_MARKS_RX.search(text) is not None or _CASELESS_WORDS_RX.search(text.lower()) is not None


def _redact(text: str) -> tuple[str, dict[str, int]]:
    counts: dict[str, int] = {}
    if not text or not may_have_secret(text):
        return text, counts
    out, scan = text, _STEP_GATES.scan(text)
    for kind, gate, repl in _STEPS:
        if scan.closed(gate):  # on the text as it is now: an earlier step may have changed it
            continue
        done = _sub_all(out, kind, gate.rx, counts, repl)
        if done != out:
            out, scan = done, _STEP_GATES.scan(done)
    return out, counts


# every substitution in order, each skipped when its pattern's own needles are absent (a text holding
# "://" or "key" ran all twenty before)
_STEPS: list[tuple[str, Gated, Repl | None]] = (
    [("private_key", Gated(_PEM), None), ("authorization", Gated(_AUTH_HEADER), _auth_header)]
    + [(kind, Gated(pattern), None) for kind, pattern in _TOKENS]
    + [("bearer_token", Gated(_BEARER), _bearer),
       ("url_password", Gated(_URL_PASSWORD),
        lambda m: ("url_password", m.group(1) + MARK.format("url_password") + m.group(3))),
       ("secret", Gated(_ASSIGN), _assign), ("password", Gated(_PROSE_IS), _prose_is),
       ("password", Gated(_ZH_PASSWORD), lambda m: ("password", m.group(1) + MARK.format("password")))])
_STEP_GATES = GateSet(gate for _, gate, _ in _STEPS)


def redact_obj(obj: object) -> tuple[object, dict[str, int]]:
    """Redact every string inside a JSON-like value (dicts, lists); keys are kept as they are."""
    flat = _flat_strings(obj)
    if flat is not None and not may_have_secret("\n".join(flat)):
        # nothing any pattern needs is in any string (no needle spans a newline): one search, not a walk
        return {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in obj.items()}, {}  # type: ignore[attr-defined]
    counts: dict[str, int] = {}

    def walk(value: object) -> object:
        if isinstance(value, str):
            clean, found = redact(value)
            for kind, n in found.items():
                counts[kind] = counts.get(kind, 0) + n
            return clean
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [walk(v) for v in value]
        return value

    return walk(obj), {k: n for k, n in counts.items() if n}


def _flat_strings(obj: object) -> list[str] | None:
    """The strings of a dict of scalars and lists of scalars (a store's metadata), or None for any other shape."""
    if not isinstance(obj, dict):
        return None
    out = []
    for v in obj.values():
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            for x in v:
                if isinstance(x, str):
                    out.append(x)
                elif isinstance(x, (dict, list, tuple)):
                    return None
        elif isinstance(v, dict):
            return None
    return out


def contains_secret(text: str) -> bool:
    return bool(redact(text)[1])

"""Shared vocabulary of the tiers: limits, ids, input validation and the score formula."""
from __future__ import annotations

import functools
import math
import re
import unicodedata
from typing import Any

from memoryd.tiers.base.errors import UsageError

HOT_MAX_BYTES = 5 * 1024
WARM_MAX_BYTES = 50 * 1024
TREE_MAX_BYTES = 2 * 1024
TREE_MAX_NODES = 50
TREE_MAX_DEPTH = 4
TREE_MAX_CHILDREN = 10
MAX_LESSONS = 20
MAX_EVENTS = 10
MAX_PENDING_TASKS = 10
MAX_TEXT_BYTES = 4096          # one fact; warm holds 50 KB in all
MAX_FIELD_CHARS = 200          # identity/profile values, project fields
MAX_LESSON_CHARS = 300
MAX_SEGMENT_CHARS = 32         # one category path segment
WARM_RETENTION_DAYS = 30
TREE_DEAD_DAYS = 60
DAY = 86400.0

TIER_HOT, TIER_WARM, TIER_COLD, TIER_FROZEN = "hot", "warm", "cold", "frozen"
_SEGMENT_RE = re.compile(r"[\w.-]+", re.UNICODE)  # fullmatch only
_KEY_RE = re.compile(r"[\w][\w .-]{0,39}", re.UNICODE)  # fullmatch only


def content_id(*parts: str) -> str:
    """A 16-hex id from content, so the same fact on two devices gets the same id."""
    joined = "\x1f".join([normalize_text(p) for p in parts])
    return _sha256()(joined.encode("utf-8")).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def _sha256() -> Any:
    import hashlib  # loads OpenSSL: only paid when an id is made

    return hashlib.sha256


def normalize_text(text: str) -> str:
    if text.isascii():  # NFKC leaves ASCII as it is, and casefold() of ASCII is lower()
        return " ".join(text.split()).lower()
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


def score(importance: float, age_days: float, access_count: int) -> float:
    """importance × exp(-age_days/30) × (1 + 0.1 × access_count)."""
    return importance * math.exp(-max(age_days, 0.0) / 30.0) * (1.0 + 0.1 * max(access_count, 0))


def tier_for(value: float) -> str:
    if value >= 0.7:
        return TIER_HOT
    if value >= 0.3:
        return TIER_WARM
    if value >= 0.05:
        return TIER_COLD
    return TIER_FROZEN


# C0 controls but tab and newline (a CR only as part of CRLF), DEL and the C1 controls: NUL, escapes that
# repaint a terminal, form feeds... have no place in a memory and would be printed raw by retrieve
CONTROL_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def check_no_controls(text: str, what: str) -> str:
    """UsageError if `text` holds a control character other than tab and newline."""
    found = CONTROL_CHARS.search(text)
    if found:
        raise UsageError(f"{what} contains the control character U+{ord(found.group()[0]):04X} "
                         f"at position {found.start()}; only tab and newline are allowed")
    return text


def without_controls(text: str) -> str:
    """`text` with each refused control character replaced by a space (ingested text, not typed input)."""
    return CONTROL_CHARS.sub(" ", text) if CONTROL_CHARS.search(text) else text


LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # in a str: what cannot be written as UTF-8


def without_lone_surrogates(text: str) -> str:
    """U+FFFD for each lone surrogate (a JavaScript string cut inside a pair), so the text is valid UTF-8."""
    return LONE_SURROGATE.sub("\ufffd", text) if LONE_SURROGATE.search(text) else text


def utf8_size(text: str, what: str) -> int:
    """Bytes of `text` as UTF-8; undecodable input (surrogate-escaped argv) or a control character is bad input."""
    check_no_controls(text, what)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise UsageError(f"{what} is not valid UTF-8 text") from None


def check_text(text: str, what: str = "text") -> str:
    if not isinstance(text, str) or not text.strip():
        raise UsageError(f"{what} is empty")
    text = check_no_controls(text, what).strip()
    size = utf8_size(text, what)
    if size > MAX_TEXT_BYTES:
        raise UsageError(f"{what} is {size} bytes; the maximum is {MAX_TEXT_BYTES}")
    return text


def check_field(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{what} is empty")
    value = " ".join(check_no_controls(value, what).split())
    utf8_size(value, what)
    if len(value) > MAX_FIELD_CHARS:
        raise UsageError(f"{what} is {len(value)} characters; the maximum is {MAX_FIELD_CHARS}")
    return value


def _no_secret(value: str, what: str) -> None:
    from memoryd.tiers.distillation.redact import contains_secret

    if contains_secret(value):
        raise UsageError(f"{what} looks like a secret (API key or token); secrets are never stored")


def check_key(key: str, what: str = "key") -> str:
    if not isinstance(key, str) or not _KEY_RE.fullmatch(key.strip()) or CONTROL_CHARS.search(key):
        raise UsageError(f"invalid {what} {key!r}: 1-40 letters, digits, space, _ . -")
    _no_secret(key, what)
    return key.strip()


def check_importance(value: float | None) -> float | None:
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"importance must be a number in 0..1, got {value!r}") from None
    if not (0.0 <= value <= 1.0):  # also refuses NaN
        raise UsageError(f"importance must be in 0..1, got {value}")
    return value


def check_category(path: str) -> str:
    """A category path: 1-4 non-empty segments of letters, digits, _ . - separated by '/'."""
    if not isinstance(path, str):
        raise UsageError("category is empty")
    return _checked_category(path)


@functools.lru_cache(maxsize=1024)  # a batch of stores repeats a few categories: checked once each
def _checked_category(path: str) -> str:
    if not path.strip():
        raise UsageError("category is empty")
    check_no_controls(path, "category")
    parts = path.strip().split("/")
    if any(not p for p in parts):
        raise UsageError(f"category {path!r} has an empty segment")
    if len(parts) > TREE_MAX_DEPTH:
        raise UsageError(f"category {path!r} is {len(parts)} deep; the maximum depth is {TREE_MAX_DEPTH}")
    for p in parts:
        if p in (".", ".."):
            raise UsageError(f"category {path!r} has a {p!r} segment; segments name categories, not places")
        if len(p) > MAX_SEGMENT_CHARS or not _SEGMENT_RE.fullmatch(p):
            raise UsageError(f"invalid category segment {p!r}: up to {MAX_SEGMENT_CHARS} letters, digits, _ . -")
        _no_secret(p, "category segment")
    return "/".join(parts)


def preview(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

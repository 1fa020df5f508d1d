"""Mentions: a memory that names a fact's value in passing — "Ordered lunch for Bob, no peanuts because of his
allergy" beside "Bob Martinez is allergic to peanuts", "Spent the evening tuning my VS Code config" beside "My
editor is VS Code". Ranked below the statement, it tells the asker nothing new: retrieve lists it under the
statement (`mentioned_by`) instead of beside it. Ranked above, it is kept: it answers something else.

A text mentions a statement when it makes no statement of its own (tiers/knowledge/claims.py), holds the
statement's value as whole words (and, for a value with digits, no other number: "port 8089 collided with the
printer, so the dashboard lives on 6443 now" tells of a change), and — where the statement's subject names something beyond attribute words
("Bob" in "Bob's allergy") — one of those names too.
"""
from __future__ import annotations

import re

from memoryd.tiers.knowledge.claims import Statement
from memoryd.tiers.knowledge.things import attributes
from memoryd.tiers.memory.model import normalize_text
from memoryd.tiers.retrieval import analyzer

MIN_VALUE_CHARS = 3


def mentions(statement: Statement, text: str) -> bool:
    """Whether `text` (a memory without a statement of its own) names `statement`'s value and its subject."""
    value = statement.value
    if len(value) < MIN_VALUE_CHARS or not (analyzer.terms(value) or re.search(r"\d", value)):
        return False
    norm = normalize_text(text)
    left = r"(?<![A-Za-z0-9])" if _latin(value[0]) else ""   # "July 1" is not in "July 15"; CJK has no spaces
    right = r"(?![A-Za-z0-9])" if _latin(value[-1]) else ""
    found = re.search(left + re.escape(value) + right, norm)
    if found is None:
        return False
    if re.search(r"\d", value) and re.search(r"\d", norm[:found.start()] + " " + norm[found.end():]):
        return False  # "port 8089 collided …, so the dashboard lives on 6443 now": another value, a change
    named = {t for t in statement.subject if not t.startswith("@")} - attributes()
    return not named or bool(named & set(analyzer.terms(text)))


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()

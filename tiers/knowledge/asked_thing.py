"""The asked-thing prior: a question naming an attribute of a thing — "Which CI does atlas-api use now?", "Where
is Priya based?", "Who is our contact at Brightline?" — ranks a memory that states that attribute's value for
that thing ("Moved the atlas-api pipeline over to CircleCI", tiers/knowledge/claims.py) BOOST times higher, and
one stating another attribute of that thing ("The atlas-api repo is github.com/acme/atlas-api") BOOST times lower:
it answers another question; so does an opinion ("Brightline is reliable but slow"): it judges, it gives no value.

A memory states what is asked when its statement's subject, in attribute classes (tiers/knowledge/things.py:
"pipeline" is "@ci", "based" is "@city"), holds an attribute the question names (or its value a word the question
names beyond the subject: "Which Postgres version does Atlas run?" / "Atlas database is Postgres 16") and every
other word of that subject is in the question too: "Alice's phone: 555" answers "what is Alice's phone?", never
"what is Bob's phone?". It re-orders what the words found (results already ranked); it never brings in a memory they did not.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Iterable

from memoryd.tiers.knowledge import kinds
from memoryd.tiers.knowledge.claims import IS, statement_of
from memoryd.tiers.knowledge.things import attributes, canonical
from memoryd.tiers.retrieval import analyzer

BOOST = 1.5   # as much as a date in the asked range (ranking.DATE_BOOST): the memory answers what is asked
EXTRA = 5     # results ranked beyond the limit that the prior may lift into it
_WH = {"where": "city", "哪里": "city", "哪儿": "city"}  # a question word asking for an attribute by itself


def pool(limit: int) -> int:
    return limit + EXTRA


@functools.lru_cache(maxsize=256)
def asked(query: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the attribute classes a question names, all its terms in attribute classes)."""
    words = analyzer.query_terms(query)
    extra = [t for w, a in _WH.items() if re.search(rf"(?<![a-z]){w}(?![a-z])", query.casefold())
             for t in analyzer.terms(a)]
    terms = canonical(frozenset(words + extra))
    attrs = frozenset(t for t in terms if t.startswith("@") or t in attributes())
    return attrs, terms


def answers(query: str, text: str) -> int:
    """1 when `text` states the value of an attribute the question `query` asks for, of the thing it names;
    -1 when it states another attribute of that thing (its repo, asked for its CI); else 0."""
    attrs, terms = asked(query)
    found = statement_of(text) if attrs else None
    if found is None:
        return 0
    subject = canonical(found.subject)
    names = {t for t in subject if not t.startswith("@") and t not in attributes()}
    if not names <= terms:
        return 0  # another thing ("Alice's phone" when Bob's is asked)
    if subject & attrs:
        return 1
    if names and found.shape != "url" and _words(found.value) & (terms - subject - attrs):
        return 1  # of the thing named, a value the question names too ("which Postgres version": Postgres 16)
    # another attribute of the thing, or another relation to it ("Alice prefers async updates" for her role)
    return -1 if names and (len(subject) > len(names) or found.rel != IS) else 0


def _words(value: str) -> set[str]:
    """A value's terms that name something: not a single CJK character (a unigram matches almost any question)."""
    return {t for t in analyzer.terms(value) if t.isascii() or len(t) > 1}


def reorder(query: str, results: Iterable[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """Results (each with `rank`) with the prior applied, sorted again, the best `limit`."""
    out = list(results)
    if asked(query)[0]:
        for r in out:
            verdict = -1 if kinds.kind_of(r.get("metadata")) == kinds.OPINION else \
                answers(query, str(r.get("said") or r["text"]))  # an opinion judges; it gives no value
            if verdict:
                factor = BOOST if verdict > 0 else 1 / BOOST
                r["rank"] = round(r["rank"] * factor, 6)
                if isinstance(r.get("ranking"), dict):
                    r["ranking"]["asked"] = round(factor, 4)
                if isinstance(r.get("reason"), str):
                    r["reason"] += "; " + ("states what is asked" if verdict > 0 else "not what is asked") + \
                        f" ×{factor:.2f}"
        out.sort(key=lambda r: (-r["rank"], r["id"]))
    return out[:limit]

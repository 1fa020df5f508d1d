"""The corpus's measures: answers (current at rank 1, stale above, stable recall@5, duplicates) and the precision
of every automatic action memoryd took (supersede, merge, swap-in at retrieve, hot lessons, owner profile,
entities), each checked against the turns' tags. Pure: results and memories in, numbers out.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, Iterable

from ..knowledge.resolve import any_value_in, normal
from .parse import Conversation, Turn
from .truth import Question, Truth

TOP = 5
_LABEL = re.compile(r"^[WBOS](?:\([^)]*\))?\s+")
_SWAP = re.compile(r"current value of (\S+?),")


class Matcher:
    """Memories and results → the turn they came from (by source, else by their words)."""

    def __init__(self, conv: Conversation, sources: dict[str, str]) -> None:
        self.turns = {t.id: t for t in conv.turns}
        self.sources = sources
        self.by_text: dict[str, Turn] = {}
        for t in conv.turns:
            self.by_text.setdefault(normal(t.text), t)
            self.by_text.setdefault(normal(_LABEL.sub("", t.text)), t)

    def turn(self, m: dict[str, Any]) -> Turn | None:
        meta = m.get("metadata") if isinstance(m.get("metadata"), dict) else {}
        tid = self.sources.get(str(meta.get("source")))
        if tid:
            return self.turns[tid]
        text = normal(str(m.get("text", "")))
        return self.by_text.get(text) or self.by_text.get(normal(_LABEL.sub("", str(m.get("text", "")))))

    def turn_of_source(self, source: str) -> Turn | None:
        tid = self.sources.get(source)
        return self.turns.get(tid) if tid else None


def _facts(t: Turn | None) -> dict[str, str]:
    return {s.topic: s.value for s in t.said} if t else {}


def _share(right: int, total: int) -> float | None:
    return round(right / total, 3) if total else None


def answers(qs: list[Question], ranked: dict[str, list[dict[str, Any]]], match: Matcher) -> dict[str, Any]:
    changing = [q for q in qs if q.changes]
    stable = [q for q in qs if not q.changes]
    first, above = 0, 0
    for q in changing:
        hits = ranked.get(q.id, [])
        texts = [str(h.get("text", "")) for h in hits]
        now = next((n for n, t in enumerate(texts) if any_value_in(t, q.answers)), None)
        old = next((n for n, t in enumerate(texts) if any_value_in(t, q.stale) and not any_value_in(t, q.answers)),
                   None)
        first += now == 0
        above += old is not None and (now is None or old < now)
    found = sum(any(any_value_in(str(h.get("text", "")), q.answers) for h in ranked.get(q.id, [])[:TOP])
                for q in stable)
    dup = 0
    for q in qs:
        facts = [f for h in ranked.get(q.id, [])[:TOP] for f in [tuple(sorted(_facts(match.turn(h)).items()))] if f]
        dup += len(facts) != len(set(facts))
    return {"current_at_1": _share(first, len(changing)), "stale_above": _share(above, len(changing)),
            "stable_recall5": _share(found, len(stable)), "duplicate_top5": _share(dup, len(qs)),
            "changing_questions": len(changing), "stable_questions": len(stable)}


def pair_right(a: Turn | None, b: Turn | None, truth: Truth) -> bool:
    """A newer line changes a value the older one states: by the older line's tags, or, where the writer left
    an echo untagged (an assistant's summary, an entity store), by the value the topic had when it was said,
    written in it word for word."""
    if not (a and b) or b.line <= a.line:
        return False
    return any((then := _states(a, k, truth)) is not None and then != new for k, new in _facts(b).items())


def _pairs(memories: list[dict[str, Any]], key: str, match: Matcher, truth: Truth) -> tuple[int, int, int]:
    """(pairs, right, true facts hidden) of the memories whose metadata `key` names a newer memory."""
    by_id = {m["id"]: m for m in memories}
    pairs = right = hidden = 0
    for old in memories:
        newer = (old.get("metadata") or {}).get(key)
        if not newer:
            continue
        pairs += 1
        new = by_id.get(str(newer))
        a, b = match.turn(old), (match.turn(new) if new else None)
        fa, fb = _facts(a), _facts(b)
        right += pair_right(a, b, truth)
        hidden += any(truth.current(k) == v and fb.get(k) != v for k, v in fa.items())  # a fact still true, hidden
    return pairs, right, hidden


def by_rule(memories: list[dict[str, Any]], match: Matcher, truth: Truth) -> dict[str, list[int]]:
    """Per change rule: [pairs, right] over superseded and updated memories (which patterns earn their keep)."""
    by_id = {m["id"]: m for m in memories}
    out: dict[str, list[int]] = {}
    for old in memories:
        meta = old.get("metadata") or {}
        newer, rule = meta.get("superseded_by") or meta.get("updated_by"), meta.get("change_rule")
        if not newer or not rule:
            continue
        ok = pair_right(match.turn(old), match.turn(by_id.get(str(newer), {"text": ""})), truth)
        cell = out.setdefault(str(rule), [0, 0])
        cell[0] += 1
        cell[1] += ok
    return out


def supersessions(memories: list[dict[str, Any]], match: Matcher, truth: Truth) -> dict[str, Any]:
    n, right, hidden = _pairs(memories, "superseded_by", match, truth)
    parts, parts_right, _ = _pairs(memories, "updated_by", match, truth)  # the old one stays current
    return {"supersede": n, "supersede_right": right, "supersede_precision": _share(right, n),
            "true_fact_hidden": hidden, "update": parts, "update_right": parts_right,
            "update_precision": _share(parts_right, parts)}


def _words(text: str) -> str:
    """A text's words alone: "done!! !" and "done!!!" say the same."""
    return re.sub(r"[\W_]+", " ", normal(text)).strip()


def merges(memories: list[dict[str, Any]], match: Matcher) -> dict[str, Any]:
    total = right = 0
    for m in memories:
        meta = m.get("metadata") or {}
        for s in meta.get("sources") or []:
            if not isinstance(s, dict) or s.get("id") == m["id"]:
                continue
            total += 1
            a, b = match.turn(m), match.turn_of_source(str(s.get("source")))
            said, kept = (_words(b.text) if b else ""), _words(str(m.get("text", "")))
            same_words = bool(said and kept) and (said == kept or said in kept or kept in said)  # a lead-in cut
            right += same_words or (a is not None and b is not None and _facts(a) == _facts(b) and bool(_facts(a)))
    return {"merge": total, "merge_right": right, "merge_precision": _share(right, total)}


def _states(t: Turn | None, topic: str, truth: Truth) -> str | None:
    """The topic's value a line states: its tag, or, where the writer left an echo untagged, the value the topic
    had when it was said, written in it word for word (a pair's older line and a placement's two lines)."""
    if t is None:
        return None
    tagged = _facts(t).get(topic)
    if tagged is not None:
        return tagged
    then = truth.value_at(topic, t.id)
    return then if then is not None and any_value_in(t.text, truth.wordings(topic, then)) else None


def swaps(qs: list[Question], ranked: dict[str, list[dict[str, Any]]], memories: list[dict[str, Any]],
          match: Matcher, truth: Truth) -> dict[str, Any]:
    """Results a knowledge stage put in for another the words found: right when the placed one states the current
    value of what the question asks and the found one does not (an earlier value, or nothing of it); a line states
    a value by its tag or, untagged, by an echo of the value it had then (`_states`). A placement
    under a question about another fact of the found memory (a depot's change above the line naming the bus route
    asked for) or about a look-alike (a colleague's shift) is wrong: it pushes what the words found down for a
    value nobody asked. `swap_in_right_any` keeps the older, looser judge (any topic of the found memory)."""
    by_id = {m["id"]: m for m in memories}
    total = right = loose = 0
    for q in qs:
        for h in ranked.get(q.id, []):
            placed = next((st.get("current_of") for st in h.get("stages") or [] if st.get("stage") == "current"), None)
            m = _SWAP.search(str(h.get("reason", "")))
            found_id = placed or (m.group(1) if m else None)
            if not found_id:
                continue
            total += 1
            a, b = match.turn(by_id.get(found_id, {"text": ""})), match.turn(h)
            fa, fb = _facts(a), _facts(b)
            now = truth.current(q.topic)
            right += _states(b, q.topic, truth) == now and _states(a, q.topic, truth) != now
            loose += any(k in fb and fb[k] == truth.current(k) and v != fb[k] for k, v in fa.items())
    return {"swap_in": total, "swap_in_right": right, "swap_in_precision": _share(right, total),
            "swap_in_right_any": loose}


def _turn_saying(text: str, conv: Conversation) -> Turn | None:
    """The turn whose words a hot item holds (hot keeps a fact's words, sometimes cut or prefixed)."""
    key = normal(text)
    best = None
    for t in conv.turns:
        words = normal(_LABEL.sub("", t.text))
        if words and (words in key or key in words) and (best is None or len(words) > len(normal(best.text))):
            best = t
    return best


def hot(hot_state: dict[str, Any], conv: Conversation, truth: Truth) -> dict[str, Any]:
    lessons = hot_state.get("critical_lessons") or []
    lesson_turns = [t for x in lessons if (t := _turn_saying(str(x.get("text", "")), conv)) is not None]
    lessons_right = sum(1 for t in lesson_turns if t.lesson)
    # the person's own lessons (an assistant's echo never goes to hot) that hot holds, each turn once
    given = {t.line for t in conv.turns if t.lesson and t.speaker != "assistant"}
    held = {t.line for t in lesson_turns}
    profile = hot_state.get("owner_profile") or {}
    owner_topics = {k for k, t in conv.topics.items() if t.subject == "owner"}
    profile_right = 0
    for value in profile.values():
        t = _turn_saying(str(value), conv)
        # right: the owner's own current fact, or a rule the owner wants kept (FORMAT's {lesson}: "always …",
        # "never …"), a standing instruction the profile holds as well as the lessons do (bench/profile's labels)
        profile_right += bool(t and t.speaker in ("user", "store", "note") and (
            t.lesson or any(k in owner_topics and truth.current(k) == v for k, v in _facts(t).items())))
    texts = [str(x.get("text", "")) for x in lessons] + [f"{k}: {v}" for k, v in profile.items()]
    ctx = hot_state.get("active_context") or {}
    texts += [str(x.get("text") or x.get("description") or "") for part in ("events", "tasks", "projects")
              for x in ctx.get(part, [])]
    stale = current = 0
    for q in truth.questions():
        if q.changes and any(any_value_in(t, q.stale) and not any_value_in(t, q.answers) for t in texts):
            stale += 1
        if q.changes and any(any_value_in(t, q.answers) for t in texts):
            current += 1  # what an eviction from hot must not lose
    return {"hot_lessons": len(lessons), "hot_lessons_right": lessons_right,
            "hot_lesson_precision": _share(lessons_right, len(lessons)),
            "lessons_given": len(given), "lessons_held": len(given & held),
            "hot_lesson_recall": _share(len(given & held), len(given)),
            "owner_profile": len(profile), "owner_profile_right": profile_right,
            "owner_profile_precision": _share(profile_right, len(profile)), "hot_stale_values": stale,
            "hot_current_values": current}


def _said_in_turns(name: str, conv: Conversation) -> int:
    """How many turns write `name` (as a word where it is Latin): the tagging promises to declare every entity
    the text names at least twice (FORMAT.md), and nothing about a name said once."""
    rx = re.compile(r"(?<![a-z0-9])" + re.escape(normal(name)) + r"(?![a-z0-9])")
    return sum(bool(rx.search(normal(t.text))) for t in conv.turns)


_ARTICLE = re.compile(r"^(?:(?:the|a|an|my|mr|mrs|ms|miss|dr|pani|pan|frau|herr|anh|chị|chi|cô|chú|em|ông|bà)\.?\s+|"
                      r"[我俺](?=[\u4e00-\u9fff]))")  # Vietnamese kin titles (anh Khuê, cô Vy) as Mr and Ms; 俺: 我
_POSSESSIVE = re.compile(r"['’]s$")  # a firm called by its founder's name (`Pellow's`) is `Pellow`
# a word of respect after a name (South Asian and Japanese usage: `<name> garu`, `<name> bhai`, `<name> san`) as Mr
# before one
_RESPECT_AFTER = re.compile(r"(?<=\S)\s+(?:ji|garu|dai|daju|didi|bhai|bhaiya|sahab|sahib|saab|baji|apa|bhabhi|"
                            r"san|sensei|anna|akka|aunty|auntie|uncle)$")


def _entity_key(name: str) -> str:
    """A name as the judge compares it: no `@`, case and spacing folded, no leading article, title or first-person
    possessive ("The Crown" and "Crown" name one pub, "Mr Rasool" and "Rasool" one man, "my dad" and "Dad",
    "我老婆", "俺老婆" and "老婆" the owner's father and wife, "anh Khuê", "Khuê" and "Khuê san" one man), no dot after a
    two-letter abbreviation ("St. Columba's"). A possessive at its end is folded only where no declared name is the word
    without it (`_declared`): "Pellow's" and "Pellow" one firm, but "Dorran's" a garage and "Dorran" its owner."""
    return _RESPECT_AFTER.sub("", _ARTICLE.sub("", _ABBREVIATION_DOT.sub("", normal(name.lstrip("@")))))


_ABBREVIATION_DOT = re.compile(r"(?<=\b[a-z]{2})\.(?=\s)")  # `St. Columba's` = `St Columba's`


def _declared(conv: Conversation) -> dict[str, str]:
    """Every declared name and alias by its key → the entity's name; a possessive alias (`Pellow's`) also by the
    key without it, unless that key is another declared name."""
    names = {_entity_key(n): e.name for e in conv.entities.values() for n in e.names()}
    for key, name in list(names.items()):
        names.setdefault(_POSSESSIVE.sub("", key), name)
    return names


CORE_TYPES = ("person", "project", "org")  # what the issue asks entities to find (#29 item 7); places and
# other named things (streets, car models, software) are declared too and count in `entity_recall`


def entities(listed: Iterable[str], conv: Conversation) -> dict[str, Any]:
    """Listed names against the declared names and aliases. Precision is judged on the names the tagging
    speaks for: a declared one is right, an undeclared one the text writes twice or more is wrong, an
    undeclared one written once is left out (`entities_unjudged`); `entity_precision_all` counts every name."""
    names = _declared(conv)
    listed = [n for n in listed if n]
    hits = [names.get(_entity_key(n)) or names.get(_POSSESSIVE.sub("", _entity_key(n))) for n in listed]
    right = sum(h is not None for h in hits)
    unjudged = sum(h is None and _said_in_turns(n.lstrip("@"), conv) < 2 for n, h in zip(listed, hits))
    recalled = {h for h in hits if h}
    core = {e.name for e in conv.entities.values() if e.type in CORE_TYPES}
    return {"entities_listed": len(listed), "entities_unjudged": unjudged,
            "entity_precision": _share(right, len(listed) - unjudged),
            "entity_precision_all": _share(right, len(listed)),
            "entity_recall": _share(len(recalled), len(conv.entities)),
            "entity_recall_core": _share(len(recalled & core), len(core))}


def review(questions: list[dict[str, Any]], match: Matcher, memories: list[dict[str, Any]]) -> dict[str, Any]:
    """Open review questions (what the agent is asked to decide): right when its two memories state two values
    of one topic, the newer one later. A member is read as the memory it names (the export: its source and
    whole text), not as the list's preview, which the matcher cannot place."""
    held = {str(m.get("id")): m for m in memories}
    pairs = [q["members"] for q in questions if len(q.get("members") or []) == 2]
    right = unplaced = 0
    for old, new in pairs:
        a, b = (match.turn(held.get(str(m.get("id")), m)) for m in (old, new))
        fa, fb = _facts(a), _facts(b)
        unplaced += a is None or b is None
        right += bool(a and b) and b.line > a.line and any(k in fb and fb[k] != v for k, v in fa.items())  # type: ignore
    return {"review_questions": len(questions), "review_right": right, "review_unplaced": unplaced,
            "review_precision": _share(right, len(pairs))}


def score(conv: Conversation, run: Any, actions: bool = True) -> dict[str, Any]:
    truth = Truth(conv)
    match = Matcher(conv, run.sources)
    qs = truth.questions()
    out = answers(qs, run.ranked, match)
    if actions:
        out |= supersessions(run.memories, match, truth) | merges(run.memories, match)
        out["by_rule"] = by_rule(run.memories, match, truth)
        out |= swaps(qs, run.ranked, run.memories, match, truth) | hot(run.hot, conv, truth)
        out |= entities(run.entities, conv) | review(getattr(run, "questions", []), match, run.memories)
    return out


def total(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-conversation scores summed: shares weighted by their counts."""
    out: dict[str, Any] = defaultdict(float)
    weights = {"current_at_1": "changing_questions", "stale_above": "changing_questions",
               "stable_recall5": "stable_questions", "duplicate_top5": None}
    rules: dict[str, list[int]] = {}
    for r in rows:
        for k, v in r.items():
            if isinstance(v, (int, float)) and not k.endswith(("precision", "recall")) and k not in weights:
                out[k] += v
        for rule, (n, ok) in (r.get("by_rule") or {}).items():
            cell = rules.setdefault(rule, [0, 0])
            cell[0] += n
            cell[1] += ok
    if rules:
        out["by_rule"] = {k: {"pairs": n, "right": ok} for k, (n, ok) in sorted(rules.items())}
    for k, w in weights.items():
        vals = [(r.get(k), r.get(w) if w else r["changing_questions"] + r["stable_questions"]) for r in rows]
        n = sum(c for v, c in vals if v is not None)
        out[k] = round(sum(v * c for v, c in vals if v is not None) / n, 3) if n else None
    if "review_questions" in out:
        out["review_precision"] = _share(int(out["review_right"]), int(out["review_questions"]))
    for act in ("supersede", "update", "merge", "swap_in"):
        if act in out:
            out[f"{act}_precision"] = _share(int(out[f"{act}_right"]), int(out[act]))
    if "lessons_given" in out:
        out["hot_lesson_recall"] = _share(int(out["lessons_held"]), int(out["lessons_given"]))
    for k, n in (("hot_lesson_precision", "hot_lessons"), ("owner_profile_precision", "owner_profile")):
        if n in out:
            out[k] = _share(int(out[n + "_right"] if n != "owner_profile" else out["owner_profile_right"]), int(out[n]))
    ents = [(r["entity_precision_all"], r["entities_listed"], r["entity_recall"], r["entity_precision"],
             r["entities_listed"] - r["entities_unjudged"]) for r in rows if "entity_recall" in r]
    if ents:
        listed, judged = sum(e[1] for e in ents), sum(e[4] for e in ents)
        out["entity_precision_all"] = round(sum((e[0] or 0) * e[1] for e in ents) / listed, 3) if listed else None
        out["entity_precision"] = round(sum((e[3] or 0) * e[4] for e in ents) / judged, 3) if judged else None
        out["entity_recall"] = round(sum(e[2] or 0 for e in ents) / len(ents), 3)
        cores = [r["entity_recall_core"] for r in rows if r.get("entity_recall_core") is not None]
        out["entity_recall_core"] = round(sum(cores) / len(cores), 3) if cores else None
    return dict(out)

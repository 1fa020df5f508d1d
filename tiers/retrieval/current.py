"""What a retrieve returns of the knowledge layer, right or silent: every memory the words found keeps its place;
a superseded one carries `superseded_by` and the memory holding its current value is placed directly above it;
restatements fold into the higher-ranked result; each result carries its kind (and confidence).

A memory is superseded only when its stored metadata says so (tiers/knowledge/truth.py at store time, the
maintain pass, an agent's `--supersedes`, a review's answer): a retrieve never guesses a supersession of its own.
"""
from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Callable, Mapping

from memoryd.tiers.knowledge import change, kinds
from memoryd.tiers.knowledge.lowvalue import FILLER_EN, is_low_value
from memoryd.tiers.knowledge.moved_day import RULE as MOVED_DAY
from memoryd.tiers.knowledge.moved_day import dated_since, moved_since, moving_clause, weekday_since
from memoryd.tiers.knowledge.restate import echo, raw_turn, restates, signature
from memoryd.tiers.knowledge.review_file import REVIEWED_KEY
from memoryd.tiers.retrieval import analyzer, when
from memoryd.tiers.retrieval.answer_shape import asked, asks_when, asks_where, asks_who, holds_any, lang_data, of_no_one
from memoryd.tiers.retrieval.asks import stated
from memoryd.tiers.retrieval.candidate import Candidate, Ranking
from memoryd.tiers.retrieval.question import (asked_names, han_familiar_lead, han_subject_unsaid, han_thing_unsaid,
                                              question_terms, what_asked, which_head)

HEADROOM = 2  # ranked results asked for per result returned: folding restatements must not leave a list short
HOPS = 5      # a chain of values (A → B → C) followed this far to its current end
_EXACT = re.compile(rf"[A-Za-z]*\d(?:{analyzer.SPACED_WORD}|[.\-/:#])*|[A-Z]{{2,}}(?:{analyzer.SPACED_WORD}|-)*")


def depth(limit: int) -> int:
    """How many ranked results to ask for so that `limit` remain after folding."""
    return limit * HEADROOM + 5


def superseded_by(cand: Candidate) -> str | None:
    return cand.metadata.get(kinds.SUPERSEDED_BY_KEY) or cand.row.get("superseded_by")


def followed_by(cand: Candidate) -> str | None:
    """The memory holding a newer value of what `cand` says: all of it (superseded) or one of its facts."""
    return superseded_by(cand) or cand.metadata.get(kinds.UPDATED_BY_KEY)


def admit(cands: list[Candidate]) -> list[Candidate]:
    """The candidates a retrieve ranks: a conversation's turns that say nothing (tiers/knowledge/lowvalue.py)
    left out."""
    return [c for c in cands if not filler(c)]


def exact_tokens(query: str) -> set[str]:
    """The query's numbers, codes and ids ("8013", "KG-412", "v0.10.1"): asked for by their exact value."""
    return {t.casefold() for t in _EXACT.findall(query)}


def names_any(cand: Candidate, tokens: set[str]) -> bool:
    """`cand` holds one of the exact tokens (word-bounded, case-folded)."""
    text = cand.text.casefold()
    return any(re.search(rf"(?<!{analyzer.SPACED_WORD}){re.escape(t)}(?!{analyzer.SPACED_WORD})", text) for t in tokens)


def successors(results: list[Candidate], fetch: Callable[[list[str]], list[Candidate]],
               query: str = "", doubted: Callable[[], Mapping[str, frozenset[str]]] = dict) -> list[Candidate]:
    """Ranked results with the memory holding each superseded one's current value placed directly above it (or
    directly below, when the query names an exact value only the superseded one holds: that is what was asked).
    Nothing found is dropped. `fetch(ids)` gives candidates for memories not among the results; `doubted`, the
    memories an open review question says a newer one may replace (review_file.doubted), read once if needed."""
    if not any(followed_by(r) for r in results):
        return results
    by_id = _with_successors(results, fetch)
    doubts = functools.lru_cache(maxsize=1)(doubted)
    tokens = exact_tokens(query)
    shapes = asked(query)  # "what is the shop's phone number?": a newer day off is no answer to it
    terms = {t for t in analyzer.terms(query) if t.isascii() or len(t) > 1}  # one Han character says little
    found = {r.id: r for r in results}
    out: list[Candidate] = []
    placed: set[str] = set()
    for r in results:
        head = _current_end(r, by_id)
        if r.id in placed:
            continue
        if head is r or followed_by(head) or head.id in placed or _day_only(r, query) or \
                _doubted(head, doubts) or _asks_another(query, r, head) or _unshaped(shapes, r, head) or \
                _not_who(query, r, head) or _of_another(query, r, head) or _moved_again(query, head, results) or \
                _of_another_id(query, r, head) or _told_of_nothing(r, head) or _count_under_price(query, r, head) or \
                _moved_day_of_another(query, r, head):
            out.append(r)
            placed.add(r.id)
            continue
        if head.id in found:
            head = found[head.id]
        elif terms and not _speaks_of(terms, head.text):
            # the words found the older one but say nothing of the newer, or the question asks for a number the
            # newer does not hold: it answers another question (the price change under "which courier?", a new
            # day off under "the shop's phone number?"), so the older one stands as found, with its superseded_by
            out.append(r)
            placed.add(r.id)
            continue
        else:  # not found by the words: it stands where the older one was found
            head = replace(head, ranking=Ranking(0.0, float(r.rank), basis=f"the current value of {r.id}, which "
                                                 "the words found"))
        below = bool(tokens) and names_any(r, tokens) and not _names_within(head, tokens)
        head = head.noted("current", "placed below" if below else "placed above", current_of=r.id,
                          why="the query names a value only the older one holds" if below else "holds the current "
                          "value of what the words found")
        out += [r, head] if below else [head, r]
        placed |= {head.id, r.id}
    return out


def _names_within(cand: Candidate, tokens: set[str]) -> bool:
    """`cand` holds one of the tokens, also as the end of a longer code (`渔K5510` holds the `5510` asked): then it
    names what the question names, and is not a memory of another value."""
    text = cand.text.casefold()
    return any(re.search(rf"(?<!\d){re.escape(t)}(?!\d)", text) for t in tokens)


def _of_another_id(query: str, found: Candidate, newer: Candidate) -> bool:
    """The query names a number or code (`5520是谁当船长？`) neither memory holds: they are of another thing (the
    boat 5510's change under a question of the boat 5520). Bounded by Latin letters and digits only, so that a
    number inside Chinese text is found."""
    ids = _ID.findall(query)
    return bool(ids) and not any(_holds_id(c.text, t) for c in (found, newer) for t in ids)


_ID = re.compile(r"[A-Za-z]*\d[A-Za-z\d\-/#]*")


def _holds_id(text: str, token: str) -> bool:
    return re.search(rf"(?<![A-Za-z\d]){re.escape(token)}(?![A-Za-z\d])", text, re.IGNORECASE) is not None


def _moved_again(query: str, head: Candidate, results: list[Candidate]) -> bool:
    """A question of when, and the words also found a memory said on a later day that moves what `head` gives a
    day to another day (moved_day.moved_since), or gives it another day in words of the question (dated_since):
    `head` may be one move behind (a day changed twice, the second move unlinked), so placing it as the current
    day would say what is not known."""
    if not asks_when(query):
        return False
    asked, names = frozenset(analyzer.terms(query)), asked_names(query)
    return any(c.id != head.id and (moved_since(c.row, head.row, _said_day) or (
        (dated_since(c.row, head.row, _said_day, asked) or weekday_since(c.row, head.row, _said_day, asked))
        and (not names or names & set(analyzer.terms(c.text)))))
        for c in results)  # the looser readings only of whom the question names (another's appointment is not hers)


def _said_day(row: Mapping[str, object]) -> str:
    return when.memory_date(row) or ""


def _doubted(head: Candidate, doubted: Callable[[], Mapping[str, frozenset[str]]]) -> bool:
    """An open question asks whether a newer memory replaces `head`: then it may be no current value itself (a
    third value said later, unlinked), and a placement would say it is. Answered questions its metadata names
    (answered on another device, not yet pruned here) do not count."""
    asking = doubted().get(head.id)
    if not asking:
        return False
    answered = head.metadata.get(REVIEWED_KEY) or {}
    return any(q not in answered for q in asking)


def _asks_another(query: str, found: Candidate, newer: Candidate) -> bool:
    """The question asks of something the newer memory did not change: someone neither memory names (a
    colleague's shift under the owner's change; one the found one names and the newer does not, see below), nothing
    either memory says besides whose it is (the launch's new day under "which vendor does the project use?"), or,
    when only part of the found one was replaced, another of its facts — the newer speaks of none of what is asked
    besides whose it is (the depot's change under "which route does Wren drive?"), or the question's words are in
    another part of the found one and in neither the part replaced nor the newer ("which port does payout-svc use?"
    under the ledger's port change)."""
    names, asked_terms = question_terms(query)
    said_found, said_newer = set(analyzer.terms(found.text)), set(analyzer.terms(newer.text))
    if names - said_found - said_newer or han_subject_unsaid(query, found.text + newer.text) or \
            han_thing_unsaid(query, said_found | said_newer) or _familiar_left_out(query, found, newer):
        return True
    whose = change.about(found.text) | change.about(newer.text)  # the entity they are kept under says whose, not what
    what, beyond = what_asked(query) - whose, what_asked(query, after_now=True) - whose
    if beyond and not beyond & (said_found | said_newer):
        return True  # both found by whose they are alone ("which vendor does Salak use?" under its launch day), or
        # an English question of memories said in Chinese: its words cannot meet theirs, so nothing says the change
        # is of what is asked (right or silent)
    if what & said_found and not what & said_newer and not _of_what_asked(query, what, found, newer):
        return True  # the found one says what is asked, the newer none of it: another of its facts changed
        # (`檀溪路店领班从阿坤换成秀琼` under `檀溪路店的店长是谁？`)
    head = which_head(query) - whose
    if head & said_found and not head & said_newer and not _of_what_asked(query, head, found, newer):
        return True  # the found one says the kind of thing a `which …` question asks for, the newer does not: it
        # changed another of its facts (a pitch's number under "which craft market …", the pitch being asked too)
    if superseded_by(found):
        return False
    split = change.parts(found.text, newer.text)
    if split is None:
        return False
    changed, others = split
    said = set(analyzer.terms(stated(newer.text)))  # what the newer says, not what it asks (`… 那边接还来得及吗？`)
    if what and not what & said and not _of_what_asked(query, what, found, newer):
        return True
    rest = set(analyzer.terms(" ".join(others))) - _names_said(others, said_newer)
    return bool((asked_terms & rest) - said - set(analyzer.terms(changed)))


def _familiar_left_out(query: str, found: Candidate, newer: Candidate) -> bool:
    """A Chinese question opens with a familiar name (`老<surname>`, `阿<name>`) the found memory says, and the newer
    neither says it nor replaces a value the found one states (it changes a value met further along the chain): the
    newer tells someone else's value, named beside them in the found line (the owner's own rent beside a
    colleague's), not a value of whom the question asks."""
    name = han_familiar_lead(query)
    return bool(name) and name in found.text and name not in newer.text and not _replaced(found, newer)


_NAME_RUN = re.compile(r"[A-Z][\w'’&-]*(?:\s+[A-Z][\w'’&-]*)*")


def _names_said(parts: list[str], said: set[str]) -> set[str]:
    """The terms of the names in `parts` (capitalised words in a run) the newer memory says a word of: whose the
    change is (`Harlow Grain Supply` beside `Harlow Grain's layer mash went from …`), not another fact of the found one."""
    runs = (set(analyzer.terms(m.group(0))) for p in parts for m in _NAME_RUN.finditer(p))
    return {t for run in runs if run & said for t in run}


def _named_by_old_value(what: set[str], found: Candidate, newer: Candidate) -> bool:
    """What is asked is a word of the replaced value's own name as the found memory writes it (`Larchfield` written
    `Larchfield Primary School`, under `which school …`): the change is of what is asked, though the newer memory names
    only the new value (`… to Kestrel Academy`)."""
    for cue in _replaced(found, newer):
        m = re.search("(?i:" + re.escape(cue.old) + r")(?:\s+[A-Z][\w'’&-]*)*", found.text)
        if m and what & set(analyzer.terms(m.group(0))):
            return True
    return False


def _of_what_asked(query: str, what: set[str], found: Candidate, newer: Candidate) -> bool:
    """The change is of what is asked though the newer memory says none of the question's words: the value replaced
    is named by them (_named_by_old_value) or has the shape of answer asked (a day under `which day of the week …?`,
    whose `week` only the found one's `weekly` says), the thing changed being the one asked of, or none named."""
    if _named_by_old_value(what, found, newer):
        return True
    shapes, terms = asked(query), set(analyzer.terms(query))  # a day changed of another thing (`开业` under `装修验收`)
    return bool(shapes) and any(holds_any(cue.old, shapes) and _thing_asked(cue, terms, what)
                                for cue in _replaced(found, newer))


def _thing_asked(cue: change.Cue, terms: set[str], what: set[str]) -> bool:
    """A Chinese cue names what changed in the words before its values (`分店开业从<day>改到<day>`): a question
    naming another thing of it (`分店装修验收是哪天？`) asks of that one. English things lie inside the values."""
    return not cue.rule.startswith("zh:") or not cue.thing or cue.thing <= terms or bool(cue.thing & what)


def _day_only(found: Candidate, query: str) -> bool:
    """`found` was updated only in its day (tiers/knowledge/moved_day.py) and the question asks no day or time: the
    rest of what it says still answers (`who is Mum's doctor?` under `the check-up moved to 5 November`)."""
    meta = found.metadata
    return meta.get(kinds.CHANGE_RULE_KEY) == MOVED_DAY and not superseded_by(found) and not asks_when(query)


def _moved_day_of_another(query: str, found: Candidate, newer: Candidate) -> bool:
    """`found` was updated in its day by a line naming no old day (tiers/knowledge/moved_day.py): it is the current
    value only of what that line moved. A question naming someone the line does not (`Maelis's review` under
    `they moved Corran's appeal`), or none of whose words of what is asked is in the clause moving the day (`开题
    报告` under `…结题材料提交改到<day>`), asks of another of the found one's facts."""
    if found.metadata.get(kinds.CHANGE_RULE_KEY) != MOVED_DAY or superseded_by(found):
        return False
    names, _ = question_terms(query)
    if names - set(analyzer.terms(newer.text)):
        return True
    what = what_asked(query) - change.about(found.text) - change.about(newer.text)
    return bool(what) and not what & set(analyzer.terms(moving_clause(newer.text)))


def _unshaped(shapes: tuple[re.Pattern[str], ...], found: Candidate, newer: Candidate) -> bool:
    """The question asks a shape (a day, an address, a number) the newer memory does not hold: it is no answer to
    it, whether or not the found one holds one (`檀溪路店的地址` under a shift lead's change)."""
    return bool(shapes) and not holds_any(newer.text, shapes)


def _replaced(found: Candidate, newer: Candidate) -> list[change.Cue]:
    """The newer memory's cues that replace a value the found one states (none: linked by the agent or a review)."""
    return [cue for cue in change.cues(newer.text) if change.states(found.text, cue)]


def _told_of_nothing(found: Candidate, newer: Candidate) -> bool:
    """Every cue linking them is Chinese, changes a number or an amount and names no thing before it (`从180块涨到
    210块`, an echo whose subject was said a line before): the link may stand (the memory is updated), but nothing
    says which of the found one's numbers it is, so the newer one is not placed as its current value."""
    cues = _replaced(found, newer)
    return bool(cues) and all(c.rule.startswith("zh:") and not c.thing and of_no_one(c.old) for c in cues)


@functools.lru_cache(maxsize=1)
def _counts() -> tuple[re.Pattern[str], re.Pattern[str]]:
    data = lang_data("counts")
    return re.compile(data["asks_price"], re.IGNORECASE), re.compile(data["count"], re.IGNORECASE)


def _count_under_price(query: str, found: Candidate, newer: Candidate) -> bool:
    """A question of a price (`…单价是多少？`, `what does … charge?`) under a change of a count (`起订量从每款300个调到
    500个`, an order cut `from 120 boxes to 90`): every number the linking cues replace or give is a count of things
    (lang/counts.json), so the change is of how many, not of what is asked, and the found one stands as found."""
    price, count = _counts()
    if not price.search(query):
        return False
    values = [v for cue in _replaced(found, newer) for v in (cue.old, cue.new)]
    numbers = sum(len(_NUMBER.findall(v)) for v in values)
    return numbers > 0 and sum(len(count.findall(v)) for v in values) == numbers


_NUMBER = re.compile(r"\d[\d.,]*")


def _not_who(query: str, found: Candidate, newer: Candidate) -> bool:
    """A question of who (`who coaches …?`) or where (`在哪儿办？`) under a change of the found one's day, time or
    amount (`… moves from Tuesday nights to Saturday mornings`): what changed is not who nor where, so the found one
    stands as found."""
    if not (asks_who(query) or asks_where(query)):
        return False
    olds = [cue.old for cue in _replaced(found, newer)]
    return bool(olds) and all(of_no_one(old) for old in olds)


def _of_another(query: str, found: Candidate, newer: Candidate) -> bool:
    """The clause telling the change names someone else and not whom the question asks of (`So <A> moves from
    <school> to …, and <B> stays on` under `which school does <B> go to?`, the found memory naming both)."""
    names = asked_names(query)
    if not names:
        return _thing_of_another(query, found, newer)
    for cue in _replaced(found, newer):
        part = change.cue_part(cue)
        if not names & set(analyzer.terms(part)) and asked_names(part) - set(analyzer.terms(cue.old + " " + cue.new)):
            return True
    return False


def _thing_of_another(query: str, found: Candidate, newer: Candidate) -> bool:
    """Every linking cue names the thing it changes (the words just before it), none of them a word of the question,
    and a word of the question the newer memory says stands outside the cue's part: the change is of another thing,
    named beside the one asked of (`<brand A>从<a>降到<b>，跟<brand B>的<c>差得更多了` under `<brand B>的…多少钱？`)."""
    cues = _replaced(found, newer)
    if not cues or not all(c.thing for c in cues):
        return False
    terms = question_terms(query)[1]
    outside = terms & set(analyzer.terms(newer.text))
    for cue in cues:
        inside = set(analyzer.terms(change.cue_part(cue)))
        if cue.thing & terms or not outside - inside:
            return False
    return True


def _speaks_of(terms: set[str], text: str) -> bool:
    return bool(terms & set(analyzer.terms(text)))


def _with_successors(results: list[Candidate], fetch: Callable[[list[str]], list[Candidate]]) -> dict[str, Candidate]:
    """The results and the memories holding their newer values, by id (a chain followed HOPS far)."""
    by_id = {r.id: r for r in results}
    for _ in range(HOPS):
        wanted = sorted({str(followed_by(r)) for r in by_id.values() if followed_by(r)} - set(by_id))
        if not wanted:
            break
        for c in fetch(wanted):
            by_id.setdefault(c.id, c)
    return by_id


def _current_end(r: Candidate, by_id: dict[str, Candidate]) -> Candidate:
    head = r
    for _ in range(HOPS):
        nxt = followed_by(head)
        if not nxt or nxt not in by_id:
            break
        head = by_id[nxt]
    return head


def filler(cand: Candidate) -> bool:
    """A conversation's turn that says nothing (tiers/knowledge/lowvalue.py), kept before that rule knew it."""
    meta = cand.metadata
    return meta.get("kind") == "turn" and is_low_value(cand.text, meta.get("role"))


def finish(results: list[Candidate], limit: int) -> list[Candidate]:
    """Ranked results → what is returned: restatements folded into the higher one, each with its kind (and
    confidence, superseded_by when it has them)."""
    def same(a: Candidate, b: Candidate) -> bool:  # the same words, or an assistant echoing the person's
        return restates(a.said, b.said) or echoes(a, b) or echoes(b, a)
    return [r.tell(kind=kinds.kind_of(r.metadata), confidence=kinds.confidence_of(r.metadata),
                   superseded_by=superseded_by(r)) for r in fold(results, limit, same)]


def fold(results: list[Candidate], limit: int, same: Callable[[Candidate, Candidate], bool]) -> list[Candidate]:
    """Results in rank order, each restatement of a higher-ranked one folded into it (its id listed in the
    keeper's `restated_by`; a raw turn gives its place to the fact restating it, an assistant's echo to the owner's
    words), cut to `limit`: no list holds the same sentence twice."""
    kept: list[Candidate] = []
    for r in results:
        at = next((i for i, k in enumerate(kept) if k.id == r.id or same(k, r)), None)
        if at is None:
            kept.append(r)
            continue
        keeper = kept[at]
        if keeper.id == r.id:
            continue
        if (raw_turn(keeper.row) and not raw_turn(r.row)) or (echo(keeper.row) and not echo(r.row)):
            # the distilled memory stands for the turn it came from; the owner's words for the assistant's echo
            kept[at] = r.tell(restated_by=(*r.told.restated_by, keeper.id, *keeper.told.restated_by))
        else:
            kept[at] = keeper.tell(restated_by=(*keeper.told.restated_by, r.id))
    return kept[:limit]


def echoes(a: Candidate, b: Candidate) -> bool:
    """`a` is the assistant echoing `b` ("Nice, VS Code it is." after "Spent the evening tuning my VS Code
    config."): every content word and number of its words is in `b`'s, said the same way (not negated)."""
    if not echo(a.row) or echo(b.row):
        return False
    _na, ta, da, pa = signature(a.said)
    _nb, tb, db, pb = signature(b.said)
    ta = ta - _filler_terms()  # "Nice, … it is.": the pleasantry around the echo is not its content
    return bool(ta) and ta <= tb and set(da) <= set(db) and pa == pb


@functools.lru_cache(maxsize=1)
def _filler_terms() -> frozenset[str]:
    return frozenset(t for w in FILLER_EN for t in analyzer.terms(w))

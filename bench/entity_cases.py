"""Sentences as people write them (English and Chinese) with the entities they name: the entity rules' precision set.

Written for memoryd (nothing copied): chat turns, notes and store calls with sentence-initial verbs and
contractions, common capitalised words, companies next to people, and the names that should be found.
`score()` gives precision and recall of tiers/knowledge/entity_rules.py over them, per type and overall.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

P, J, R, U, V, D, A = "person", "project", "repo", "url", "version", "date", "amount"
O, L = "org", "place"

CASES: tuple[tuple[str, frozenset[tuple[str, str]]], ...] = tuple((text, frozenset(want)) for text, want in (
    ("Let's talk about Orion tomorrow.", set()),
    ("Let's pick this up tomorrow.", set()),
    ("Don't forget the standup.", set()),
    ("Can you check the deploy logs?", set()),
    ("Here's the plan for Monday.", set()),
    ("That's what Sam said about the budget.", {(P, "Sam")}),
    ("What's the status of project Atlas?", {(J, "Atlas")}),
    ("Thanks, that helps a lot!", set()),
    ("Sounds good to me.", set()),
    ("Signed the contract with Hetzner for the Orion servers today.", {("org", "Hetzner")}),  # a company the world knows
    ("We moved CI to Buildkite last week.", set()),
    ("Lunch with Maria on Friday.", {(P, "Maria")}),
    ("Had a call with Tom Becker about the trademark filing.", {(P, "Tom Becker")}),
    ("Alice said the review moved to June 17.", {(P, "Alice")}),
    ("Priya Natarajan's birthday is on 14 August.", {(P, "Priya Natarajan")}),
    ("I met Jonas and Petra at the conference.", {(P, "Jonas"), (P, "Petra")}),
    ("Emailed Dr. Okafor about the results.", {(P, "Okafor")}),
    ("Ask @carol to review the PR.", {(P, "carol")}),
    ("We use a tool called Zed for editing.", set()),
    ("Everyone agreed the launch can wait.", set()),
    ("Kestrel Cleaning comes on Friday afternoons now.", {(O, "Kestrel Cleaning")}),
    ("Brightline Accounting said the fee rises to €220 a month.", {(O, "Brightline Accounting"), (A, "€220")}),
    ("The warelay project ships v1.4.2 on 2026-05-19.", {(J, "warelay"), (V, "v1.4.2"), (D, "2026-05-19")}),
    ("Code lives at https://github.com/acme/atlas-api now.", {(R, "acme/atlas-api")}),
    ("Docs are on https://docs.example.org/start.", {(U, "docs.example.org")}),
    ("Budget for Project Phoenix is $12,000.", {(J, "Phoenix"), (A, "$12,000")}),
    ("OpenClaw 2026.9.6 works with memoryd.", {(J, "OpenClaw"), (V, "v2026.9.6")}),
    ("Monday was great and the team shipped it.", set()),
    ("Then Docker crashed again.", set()),
    ("Sorry, I'll be late.", set()),
    ("Moved to Berlin with Docker.", {(L, "Berlin")}),
    ("Spoke to Hannah Okafor about the VAT return.", {(P, "Hannah Okafor")}),
    ("老王说预算是300元。", {(P, "老王"), (A, "300元")}),
    ("下周一和小李开会讨论方案。", {(P, "小李")}),
    ("张伟说 yinmei 项目预算 5万元。", {(P, "张伟"), (J, "yinmei"), (A, "5万元")}),
    ("周末和王芳一起吃饭。", {(P, "王芳")}),
    ("李娜认为搜索服务要重写。", {(P, "李娜")}),
    ("好的，明天再说。", set()),
    ("谢谢！辛苦了。", set()),
    ("马上就走，周末见。", set()),
    ("2026年9月15日前完成支付系统。", {(D, "2026-09-15")}),
    ("高度重视这个方案的程度。", set()),
    # round 4: mixed Chinese text, roles, streets, families, tools (written for this set, no corpus's words)
    ("我们组长是顾文涛，他说周五前交。", {(P, "顾文涛")}),
    ("ledger-sync 这个服务下周迁到新集群。", {(J, "ledger-sync")}),
    ("本地用 docker-compose 起了一套环境。", set()),
    ("最大连接数调到 200。", set()),
    ("寄到他们家，西湖区文三路88号。", set()),
    ("我表妹在青杉智能实习。", {(O, "青杉智能"), (P, "我表妹")}),  # the owner's cousin, as 我妈 is a person
    ("My brother Lorcan flies in tonight.", {(P, "Lorcan")}),
    ("I'll ask our lawyer, Wiebke Sandoval, about the lease.", {(P, "Wiebke Sandoval")}),
    ("Ottilie and Bram are moving in together.", {(P, "Ottilie"), (P, "Bram")}),
    ("Send a card to the Okafor family.", set()),
    ("She trained at Queen's College for two years.", set()),
    ("The viewing at Lindenstraat went well.", set()),
    ("tyres like a Schwalbe Plus might last longer.", set()),
))


def score(extract: Callable[[str], Iterable[Any]], kinds: Iterable[str] = ()) -> dict[str, Any]:
    """Precision and recall of `extract` (text → entities with .type and .name) over CASES, overall, for
    people, and the sentences it got wrong; `kinds`: only the entity types the rules give (dates, amounts,
    versions and URLs stopped being entities in rules v3)."""
    kinds = frozenset(kinds)
    tp = fp = fn = ptp = pfp = pfn = 0
    wrong: list[dict[str, Any]] = []
    for text, wanted in CASES:
        got = {(e.type, e.name) for e in extract(text)}
        want = {w for w in wanted if w[0] in kinds} if kinds else wanted
        tp, fp, fn = tp + len(got & want), fp + len(got - want), fn + len(want - got)
        people_got, people_want = {g for g in got if g[0] == P}, {w for w in want if w[0] == P}
        ptp += len(people_got & people_want)
        pfp += len(people_got - people_want)
        pfn += len(people_want - people_got)
        if got != want:
            wrong.append({"text": text, "extra": sorted(got - want), "missed": sorted(want - got)})

    def ratio(a: int, b: int) -> float:
        return round(a / b, 4) if b else 1.0
    return {"sentences": len(CASES), "precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn),
            "person_precision": ratio(ptp, ptp + pfp), "person_recall": ratio(ptp, ptp + pfn), "wrong": wrong}

"""Recall@1/5/10 and MRR per language and question kind, and the table that puts the systems side by side."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable

from .model import KINDS, LANGS, Question

CUTOFFS = (1, 5, 10)


@dataclass
class Metrics:
    n: int = 0
    r1: float = 0.0
    r5: float = 0.0
    r10: float = 0.0
    mrr: float = 0.0
    all10: float = 0.0          # every evidence turn in the top 10 (what a multi-hop answer needs)

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}


def first_hit(question: Question, ranked: list[str], depth: int = 10) -> int | None:
    """1-based rank of the first evidence turn within the top `depth`, or None."""
    evidence = set(question.evidence)
    for i, tid in enumerate(ranked[:depth], start=1):
        if tid in evidence:
            return i
    return None


def measure(questions: Iterable[Question], rankings: dict[str, list[str]]) -> Metrics:
    """A question counts as found at k when any of its evidence turns is in the top k (unasked = not found)."""
    m = Metrics()
    for q in questions:
        ranked = rankings.get(q.id, [])
        rank = first_hit(q, ranked)
        m.n += 1
        m.r1 += rank is not None and rank <= 1
        m.r5 += rank is not None and rank <= 5
        m.r10 += rank is not None
        m.mrr += 1.0 / rank if rank else 0.0
        m.all10 += set(q.evidence) <= set(ranked[:10])
    if m.n:
        m.r1, m.r5, m.r10, m.mrr, m.all10 = (x / m.n for x in (m.r1, m.r5, m.r10, m.mrr, m.all10))
    return m


def groups(questions: list[Question]) -> dict[str, list[Question]]:
    """all, each language, each kind, each language × kind (empty groups left out)."""
    out = {"all": questions}
    out.update({lang: [q for q in questions if q.lang == lang] for lang in LANGS})
    out.update({kind: [q for q in questions if q.kind == kind] for kind in KINDS})
    out.update({f"{lang}/{kind}": [q for q in questions if q.lang == lang and q.kind == kind]
                for lang in LANGS for kind in KINDS})
    return {k: v for k, v in out.items() if v}


def score(questions: list[Question], systems: dict[str, dict[str, list[str]]]) -> dict[str, dict[str, Metrics]]:
    """system → group → Metrics."""
    return {name: {g: measure(qs, ranks) for g, qs in groups(questions).items()} for name, ranks in systems.items()}


def ratio(scores: dict[str, dict[str, Metrics]], num: str, den: str, group: str) -> float | None:
    a, b = scores[num].get(group), scores[den].get(group)
    if a is None or b is None or not b.r5:
        return None
    return a.r5 / b.r5


def table(scores: dict[str, dict[str, Metrics]]) -> str:
    names = list(scores)
    head = f"{'group':<22}{'n':>5} " + " ".join(f"| {n:^23}" for n in names)
    sub = f"{'':<27} " + " ".join(f"| {'R@1':>5}{'R@5':>6}{'R@10':>6}{'MRR':>6}" for _ in names)
    rows = [head, sub, "-" * len(sub)]
    for g, m in next(iter(scores.values())).items():
        cells = " ".join(f"| {s[g].r1:5.3f}{s[g].r5:6.3f}{s[g].r10:6.3f}{s[g].mrr:6.3f}" for s in scores.values())
        rows.append(f"{g:<22}{m.n:>5} {cells}")
    return "\n".join(rows)

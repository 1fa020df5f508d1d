"""`--llm-fake`: LLM mode's re-rank step measured against no re-rank, over the same home and questions.

The LLM is a FAKE, local and deterministic: it reads the real re-rank prompt (tiers/retrieval/llm_rerank.py),
scores each numbered memory by the local embedding model's cosine with the query, and answers the JSON list
the prompt asks for. It measures the harness and the re-rank plumbing (prompt, parsing, merge), not what a
real LLM would add: point `MEMORYD_LLM_ENDPOINT` at one and use `memoryd retrieve --mode llm` for that.
"""
from __future__ import annotations

import json
import re
import time
from typing import Any

from .systems import Memoryd, Run, Scope, api, results_of
from .notes import ranked_turns

_ITEM = re.compile(r"^\[(\d+)\] \([^)]*\) (.*)$", re.M)
_QUERY = re.compile(r"^Query: (.*)$", re.M)


class FakeLLM:
    """tiers.base.ports.LLM: answers the re-rank prompt by the embedding model's cosine."""

    def complete(self, prompt: str, timeout: float = 20.0) -> str:
        from memoryd.tiers.retrieval import embed

        model = embed.load()
        query = _QUERY.search(prompt)
        items = [(int(n), text) for n, text in _ITEM.findall(prompt)]
        if query is None or not items:
            return "[]"
        qv = model.query(query.group(1))
        vecs = model.passages([text for _, text in items])
        scores = vecs @ qv
        order = sorted(range(len(items)), key=lambda i: -float(scores[i]))
        return json.dumps([items[i][0] for i in order])


def run_llm(parts: list[Scope], asker: Memoryd, depth: int = 20, limit: int = 10) -> Run:
    """Every question through retrieve (top `depth`), then the fake LLM's re-rank of those, as --mode llm does."""
    from memoryd.tiers.retrieval.llm_rerank import rerank_llm

    run, llm = Run(), FakeLLM()
    for scope in parts:
        for q in scope.questions:
            t0 = time.perf_counter()
            answer: Any = api(asker.config(scope), asker.now).call(
                "retrieve", {"agent_id": scope.agent, "query": q.text, "limit": max(limit, depth)})
            results, warning = rerank_llm(q.text, results_of(answer), llm, depth)
            run.rankings[q.id] = ranked_turns(results[:limit], asker.sources[scope.agent], asker.by_text[scope.agent])
            run.latencies_ms.append((time.perf_counter() - t0) * 1000)
            run.warn([warning] if warning else [])
    return run

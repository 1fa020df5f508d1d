"""Benchmark: hybrid retrieval's vectors at 10k/100k rows — bytes per vector, matrix load, exact dense top-k,
and the full retrieve (hybrid vs keyword, in-process) p50/p95, beside keyword search in the same run.

Vectors are random unit vectors (embedding 100k texts would take an hour: the model's own cost is what
`python -m bench.recall --hybrid` reports); the query's embedding is timed with the real model.

Run: python bench/bench_vectors.py [--sizes 10000,100000] [--queries 100]   (needs `pip install -e '.[embed]'`)
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_cold import make_text, percentiles, vocabulary  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def fill(index, size: int, texts: list[str], dim: int) -> float:
    """Rows through the real put (keyword mode), then random vectors straight into the vectors table."""
    import numpy as np

    from memoryd.tiers.retrieval import embed

    now = time.time()
    for start in range(0, size, 5000):
        index.put("b", [{"id": f"m{i:08d}", "text": texts[i], "category": "bench/notes", "importance": 0.4,
                         "created_at": now - i * 60, "metadata": {}} for i in range(start, min(size, start + 5000))])
    index.vectors.check_model()
    gen = np.random.default_rng(7)
    t0 = time.perf_counter()
    for start in range(0, size, 10000):
        n = min(size, start + 10000) - start
        v = gen.standard_normal((n, dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        with index.tx() as conn:
            conn.executemany("INSERT INTO vectors (rowid, agent_id, vec) SELECT rowid, agent_id, ? FROM memories "
                             "WHERE agent_id = 'b' AND id = ?",
                             [(blob, f"m{start + i:08d}") for i, blob in enumerate(embed.pack(v))])
    return time.perf_counter() - t0


def timed(fn, runs: int) -> tuple[float, float]:
    samples = []
    for i in range(runs):
        t0 = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - t0) * 1000)
    return percentiles(samples)


def run(size: int, queries: int, texts: list[str], questions: list[str]) -> None:
    from memoryd.tiers.cold.index import LocalIndex
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.retrieval import analyzer, embed
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.base.config import load_config

    model = embed.load()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ["MEMORYD_HOME"] = str(home)
        keyword = load_config()
        hybrid = keyword.with_(sections={**keyword.sections, "retrieval": {**keyword.section("retrieval"), "mode": "hybrid"}})
        index = LocalIndex(home / "cold.db")
        AgentMemory(keyword, "b", archive=index).init()
        insert_s = fill(index, size, texts[:size], model.dim)
        index.read("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = index.read("SELECT SUM(pgsize) FROM dbstat WHERE name IN ('vectors', 'vectors_agent')")[0][0]
        per_vector = (pages or 0) / size
        qv = [model.query(q) for q in questions]
        embed_ms = timed(lambda i: embed.load().model.query(questions[i % len(questions)] + " ?"), queries)
        t0 = time.perf_counter()
        index.vectors.nearest("b", qv[0], 40)
        load_ms = (time.perf_counter() - t0) * 1000
        dense = timed(lambda i: index.vectors.nearest("b", qv[i % len(qv)], 40), queries)
        bm25 = timed(lambda i: index.search("b", analyzer.query_terms(questions[i % len(questions)]), 40), queries)
        index.close()
        shared = {m: open_index(c) for m, c in (("keyword", keyword), ("hybrid", hybrid))}
        full = {m: timed(lambda i, m=m: AgentMemory(c, "b", archive=shared[m]).retrieve(questions[i % len(questions)], 10),
                         queries) for m, c in (("keyword", keyword), ("hybrid", hybrid))}
        cli = timed(lambda i: _fresh(hybrid, questions[i % len(questions)]), max(5, queries // 10))
        for ix in shared.values():
            ix.close()
    print(f"{size:>7} rows: vectors inserted in {insert_s:.1f} s, {per_vector:.0f} bytes each on disk; matrix load "
          f"{load_ms:.0f} ms ({size * (model.dim + 4) / 2**20:.0f} MB kept in memory; RSS now {rss_mb():.0f} MB); dense top-40 p50/p95 {dense[0]:.1f}/{dense[1]:.1f} ms "
          f"vs BM25 top-40 {bm25[0]:.1f}/{bm25[1]:.1f} ms; query embedding {embed_ms[0]:.1f}/{embed_ms[1]:.1f} ms")
    print(f"{'':>13}retrieve in-process, shared index (daemon): keyword {full['keyword'][0]:.1f}/{full['keyword'][1]:.1f} ms, "
          f"hybrid {full['hybrid'][0]:.1f}/{full['hybrid'][1]:.1f} ms (query vector cached); hybrid with a fresh "
          f"index per retrieve (CLI without daemon) {cli[0]:.0f}/{cli[1]:.0f} ms")


def _fresh(config, question: str) -> None:
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.memory.agent import AgentMemory

    with open_index(config) as index:
        AgentMemory(config, "b", archive=index).retrieve(question, 10)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000")
    p.add_argument("--queries", type=int, default=100)
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = random.Random(7)
    vocab = vocabulary(rng)
    weights = [1 / (i + 1) for i in range(len(vocab))]
    texts = [make_text(rng, vocab, weights) for _ in range(max(sizes))]
    questions = [" ".join(rng.choices(vocab[:5000], k=rng.randint(2, 5))) for _ in range(200)]
    print(f"RSS at start {rss_mb():.0f} MB")
    for size in sizes:
        run(size, args.queries, texts, questions)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()

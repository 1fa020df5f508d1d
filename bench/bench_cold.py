"""Cold archive benchmark: archive throughput and search p50/p95 at 10k/100k rows, file: and sqld, vs a LIKE scan.

Run: .venv/bin/python bench/bench_cold.py [--sizes 10000,100000] [--backends file,http] [--queries 200]
Goals (issue 3): p95 <= 20 ms on file: at 100k rows and >= 10x faster than a plain LIKE '%q%' scan.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the sqld fixture doubles as the server launcher here

from memoryd.sync.cold import LibsqlArchive, open_archive  # noqa: E402
from memoryd.tiers.config import Config  # noqa: E402

AGENT = "bench"
CJK = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可也你说年过天气苹果记忆数据库项目会议"
DAY = 86400.0


def vocabulary(rng: random.Random, n: int = 5000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(n * 2)}
    return sorted(words)[:n]


def make_rows(n: int, rng: random.Random, vocab: list[str]) -> list[dict]:
    now = time.time()
    weights = [1.0 / (i + 1) for i in range(len(vocab))]  # Zipf-like: a few common words, a long tail
    rows = []
    for i in range(n):
        words = rng.choices(vocab, weights, k=rng.randint(6, 18))
        text = " ".join(words)
        if i % 5 == 0:  # a fifth of the memories are Chinese
            text += " " + "".join(rng.choice(CJK) for _ in range(rng.randint(6, 16)))
        rows.append({"id": f"{i:08x}", "text": text, "category": f"cat/{words[0][:3]}",
                     "importance": rng.random(), "created_at": now - rng.random() * 3650 * DAY,
                     "access_count": rng.randint(0, 5), "metadata": {}})
    return rows


def make_queries(rows: list[dict], rng: random.Random, k: int) -> list[str]:
    """Realistic queries: 1–3 words taken from stored text, CJK substrings of 2–4 chars, word prefixes."""
    out = []
    for _ in range(k):
        text = rng.choice(rows)["text"]
        words = [w for w in text.split() if w.isascii()]
        kind = rng.random()
        cjk = [w for w in text.split() if not w.isascii()]
        if kind < 0.5:
            out.append(" ".join(rng.sample(words, min(len(words), rng.randint(1, 3)))))
        elif kind < 0.75 and cjk:
            s = cjk[0]
            n = rng.randint(2, 4)
            start = rng.randint(0, max(0, len(s) - n))
            out.append(s[start:start + n])
        else:
            w = rng.choice(words)
            out.append(w[: max(3, len(w) - 2)])
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def fill(arc: LibsqlArchive, rows: list[dict], batch: int) -> float:
    t0 = time.perf_counter()
    for i in range(0, len(rows), batch):
        arc.put(AGENT, rows[i:i + batch])
    return len(rows) / (time.perf_counter() - t0)


def time_search(arc: LibsqlArchive, queries: list[str]) -> tuple[list[float], int]:
    times, hits = [], 0
    for q in queries:
        t0 = time.perf_counter()
        found = arc.search(AGENT, q, limit=10)
        times.append((time.perf_counter() - t0) * 1000)
        hits += bool(found)
    return times, hits


def time_scan(arc: LibsqlArchive, queries: list[str]) -> list[float]:
    """The naive alternative: LIKE '%q%' over every row of the agent, best 10 by importance (full scan)."""
    times = []
    for q in queries:
        pattern = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        t0 = time.perf_counter()
        arc.db.execute(
            "SELECT id, text, category FROM cold_memories WHERE agent_id = ? AND (text LIKE ? ESCAPE '\\' "
            "OR category LIKE ? ESCAPE '\\') ORDER BY importance DESC LIMIT 10", [AGENT, pattern, pattern])
        times.append((time.perf_counter() - t0) * 1000)
    return times


def run(backend: str, size: int, n_queries: int, server: object | None, tmp: Path) -> None:
    rng = random.Random(size)
    rows = make_rows(size, rng, vocabulary(rng))
    if backend == "file":
        url = f"file:{tmp / f'bench-{size}.db'}"
    else:
        server.wipe()  # type: ignore[attr-defined]
        url = server.http_url if backend == "http" else server.ws_url  # type: ignore[attr-defined]
    arc = open_archive(Config(home=tmp, db_url=url))
    try:
        rate = fill(arc, rows, 1000)
        queries = make_queries(rows, rng, n_queries)
        time_search(arc, queries[:10])  # warm caches and connections
        times, hits = time_search(arc, queries)
        scan = time_scan(arc, queries[: max(10, n_queries // 5)])
        p50, p95, s50, s95 = pct(times, 50), pct(times, 95), pct(scan, 50), pct(scan, 95)
        print(f"{backend:5} {size:>7} rows | put {rate:8.0f} rows/s (1000/batch) | search p50 {p50:6.2f} ms "
              f"p95 {p95:6.2f} ms (hits {hits}/{len(queries)}) | LIKE scan p50 {s50:7.2f} ms p95 {s95:7.2f} ms"
              f" | scan/search p50 {s50 / p50:5.1f}x p95 {s95 / p95:5.1f}x", flush=True)
    finally:
        arc.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--backends", default="file,http,ws")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    backends = args.backends.split(",")
    server = None
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        if any(b != "file" for b in backends):
            from sqld_server import SqldServer, sqld_binary

            server = SqldServer(sqld_binary(), tmp / "sqld")
            (tmp / "sqld").mkdir()
            server.start()
        try:
            for size in (int(s) for s in args.sizes.split(",")):
                for backend in backends:
                    run(backend, size, args.queries, server, tmp)
        finally:
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main()

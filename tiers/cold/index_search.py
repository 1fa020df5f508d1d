"""Reading the local index by terms: the OR query FTS5 ranks, the exact AND shortcut (conjunctive.py), and
BM25's corpus statistics; functions on a connection the index holds (tiers/cold/index.py)."""
from __future__ import annotations

import sqlite3
from typing import Callable, Sequence

from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.retrieval import analyzer

from memoryd.tiers.cold import conjunctive
from memoryd.tiers.cold.index_rows import COLUMNS, marks, row_entry
from memoryd.tiers.cold.index_schema import terms_table

Stats = tuple[int, int, dict[str, int]]  # (rows, total terms, {term: rows holding it})


def top_any(conn: sqlite3.Connection, agent_id: str, terms: Sequence[str], prefixes: Sequence[str],
            limit: int) -> list[ColdEntry]:
    """The `limit` best rows holding any of `terms` (or a term beginning with one of `prefixes`), best first."""
    table = terms_table(agent_id)
    phrases = [f'"{t}"' for t in terms] + [f'"{p}"*' for p in prefixes]
    rows = conn.execute(
        f"SELECT {COLUMNS}, r.score FROM (SELECT rowid, rank AS score FROM {table} WHERE {table} MATCH ? "
        f"ORDER BY rank LIMIT ?) r CROSS JOIN memories m ON m.rowid = r.rowid ORDER BY r.score",
        [" OR ".join(phrases), limit]).fetchall()
    return [dict(row_entry(row), bm25=-float(row[9])) for row in rows]


def top_conjunctive(conn: sqlite3.Connection, agent_id: str, terms: list[str], limit: int,
                    term_stats: Callable[[str, Sequence[str]], Stats]) -> list[ColdEntry] | None:
    """tiers/cold/conjunctive.py: the same top rows from AND queries, when common words make the OR slow
    (None: run the OR). All in one read snapshot: a writer between the queries changes neither the stats
    nor the rows."""
    table = terms_table(agent_id)

    def query(subset: Sequence[str], n: int) -> list[tuple[int, float]]:
        return [(r, -s) for r, s in conn.execute(
            f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?",
            [" AND ".join(f'"{t}"' for t in subset), n])]

    def docs(rowids: Sequence[int]) -> dict[int, list[str]]:
        rows = conn.execute(f"SELECT rowid, text, category FROM memories WHERE rowid IN ({marks(len(rowids))})",
                            list(rowids)).fetchall() if rowids else []
        return {r: analyzer.document(text, category) for r, text, category in rows}

    snapshot = not conn.in_transaction
    if snapshot:
        conn.execute("BEGIN")
    try:
        n_docs, n_terms, dfs = term_stats(agent_id, terms)
        best = conjunctive.top_k(terms, dfs, n_docs, n_terms / max(n_docs, 1), limit, query, docs)
        rows = conn.execute(f"SELECT {COLUMNS}, m.rowid FROM memories m WHERE m.rowid IN ({marks(len(best))})",
                            [r for r, _ in best]).fetchall() if best else []
    finally:
        if snapshot:
            conn.execute("COMMIT")
    if best is None:
        return None
    scores = dict(best)
    return sorted((dict(row_entry(row), bm25=scores[row[9]]) for row in rows), key=lambda e: -e["bm25"])


def corpus_stats(conn: sqlite3.Connection, agent_id: str, terms: Sequence[str], has_terms: bool,
                 vocab: set[str]) -> Stats:
    """BM25's statistics of the agent from agent_stats and an fts5vocab view (made once per connection:
    `vocab` names the agents that have theirs)."""
    stats = conn.execute("SELECT docs, terms FROM agent_stats WHERE agent_id = ?", [agent_id]).fetchone()
    if not stats or not terms or not has_terms:
        return (int(stats[0]), int(stats[1]), {}) if stats else (0, 0, {})
    view = f'temp."vocab:{agent_id}"'
    if agent_id not in vocab:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {view} USING fts5vocab(main, 'terms:{agent_id}', row)")
        vocab.add(agent_id)
    sql = " UNION ALL ".join([f"SELECT term, doc FROM {view} WHERE term = ?"] * len(terms))
    dfs = dict(conn.execute(sql, list(terms)).fetchall())
    return int(stats[0]), int(stats[1]), {t: int(n) for t, n in dfs.items()}

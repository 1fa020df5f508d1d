"""Plain SQLite FTS5 BM25 over the same turns: one row per turn, the question's terms OR-ed.

Tokenizer `unicode61` (plain) or `porter unicode61` (English stemming). No stop words are removed: BM25's
IDF already makes "the" or "what" worth little. Chinese has no spaces, so before FTS5 sees any text, each run
of CJK characters becomes its overlapping bigrams (a lone character stays itself), in the rows and in the
queries alike, the way CJK analyzers do it; Latin words pass through for the tokenizer.
"""
from __future__ import annotations

import re
import sqlite3

TOKENIZERS = {"bm25": "unicode61", "bm25-porter": "porter unicode61"}
_WORD = re.compile(r"[^\W_]+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


def terms(text: str) -> list[str]:
    """Latin/number words as they are; each CJK run as its bigrams."""
    out: list[str] = []
    for word in _WORD.findall(text.casefold()):
        pos = 0
        for run in _CJK_RUN.finditer(word):
            if run.start() > pos:
                out.append(word[pos:run.start()])
            chars = run.group()
            out += [chars] if len(chars) == 1 else [chars[i:i + 2] for i in range(len(chars) - 1)]
            pos = run.end()
        if pos < len(word):
            out.append(word[pos:])
    return out


def match_expr(question: str) -> str:
    """Every distinct term quoted (so nothing is FTS5 syntax) and OR-ed."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in dict.fromkeys(terms(question)))


class Bm25:
    """An in-memory FTS5 table over (turn id, text) rows."""

    def __init__(self, tokenizer: str, rows: list[tuple[str, str]]) -> None:
        self.ids = [tid for tid, _ in rows]
        self.db = sqlite3.connect(":memory:")
        self.db.execute(f"CREATE VIRTUAL TABLE turns USING fts5(body, tokenize='{tokenizer}')")
        self.db.executemany("INSERT INTO turns(rowid, body) VALUES (?, ?)",
                            [(i + 1, " ".join(terms(text))) for i, (_, text) in enumerate(rows)])

    def search(self, question: str, limit: int = 10) -> list[str]:
        expr = match_expr(question)
        if not expr:
            return []
        rows = self.db.execute("SELECT rowid FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?",
                               (expr, limit)).fetchall()
        return [self.ids[r[0] - 1] for r in rows]

    def scores(self, question: str) -> dict[str, float]:
        """Every matching turn with its BM25 relevance (higher is better; FTS5's bm25() is negative)."""
        expr = match_expr(question)
        if not expr:
            return {}
        rows = self.db.execute("SELECT rowid, -bm25(turns) FROM turns WHERE turns MATCH ?", (expr,)).fetchall()
        return {self.ids[r - 1]: s for r, s in rows}

    def close(self) -> None:
        self.db.close()

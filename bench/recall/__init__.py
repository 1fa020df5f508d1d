"""Retrieval-quality benchmark: generated two-person conversations (English and Chinese), written as daily notes,
ingested and asked through memoryd, scored beside plain FTS5 BM25 over the same turns.

Run from the repository root with the project's venv: `python -m bench.recall` (full, ~7,000 turns and ~900
questions), `python -m bench.recall --small` (seconds), `--lang en|zh|all`, `--seed N`, `--json`, `--out DIR`,
`--cli [N]`, `--shared`, `--today YYYY-MM-DD`. Modules: generate (+ stories, cast, text_*/talk_*, dates) → notes →
systems (memoryd, baseline) → score → run.
"""

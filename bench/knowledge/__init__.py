"""Knowledge benchmark (issue 21, "Measure"): generated weeks of chat, daily notes and store calls with facts that
change, restatements, filler and entities, ingested through memoryd's public surface, asked "what is X now" and
"what do we know about Y" questions, and scored beside plain FTS5 BM25 over every stored text.

Run from the repository root with the project's venv: `python -m bench.knowledge [--small] [--seed N] [--json]`.
Modules: world (the invented world) → generate → write (sessions, notes) → systems (memoryd, baseline) →
resolve (results back to the ground truth) → metrics → run.
"""

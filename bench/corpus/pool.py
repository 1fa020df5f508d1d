"""Many files lived at once: each conversation is lived in a fresh home by its own process, one per core, so a
hundred files on and off cost a hundred files' time divided by the cores, not summed on one pytest worker."""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from .parse import parse
from .score import score
from .systems import run_memoryd


def scored(path: Path, root: Path, knowledge: bool, mode: str = "keyword") -> dict[str, Any]:
    """One file lived by memoryd in `root` (its home stays for a test to read) and scored."""
    conv = parse(path)
    return score(conv, run_memoryd(conv, root, knowledge=knowledge, mode=mode))


def scored_many(jobs: list[tuple[Path, Path, bool]], mode: str = "keyword",
                processes: int | None = None) -> list[dict[str, Any]]:
    """`scored` of every (file, root, knowledge) job, in the jobs' order. Spawned, not forked: the caller may hold
    threads (a pytest worker's) and open SQLite handles a fork would copy half-way."""
    processes = processes or len(os.sched_getaffinity(0))
    if processes <= 1 or len(jobs) <= 1:
        return [scored(path, root, knowledge, mode) for path, root, knowledge in jobs]
    by_file: dict[Path, list[int]] = {}
    for n, (path, _, _) in enumerate(jobs):
        by_file.setdefault(path, []).append(n)
    rows: list[dict[str, Any]] = [{} for _ in jobs]
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        # a file's sides in one process, one after the other: what memoryd reads of its lines alike on both sides
        # (a text's entities, its terms) is read once, as a daemon reads a memory again in later passes
        futures = {pool.submit(_scored_all, [jobs[n] for n in ns], mode): ns for ns in by_file.values()}
        for future, ns in futures.items():
            for n, row in zip(ns, future.result()):
                rows[n] = row
    return rows


def _scored_all(jobs: list[tuple[Path, Path, bool]], mode: str) -> list[dict[str, Any]]:
    return [scored(path, root, knowledge, mode) for path, root, knowledge in jobs]

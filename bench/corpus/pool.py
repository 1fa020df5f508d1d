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
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(scored, path, root, knowledge, mode) for path, root, knowledge in jobs]
        return [f.result() for f in futures]

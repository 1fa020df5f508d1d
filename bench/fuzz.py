"""The long fuzz run: the generators of tests/system/test_fuzz.py with many more examples, counting instead of
stopping at the first problem; prints calls, tracebacks, exit codes outside 0/1/2 and state changed by
a refused input, per input kind, and the distinct problems found.

Run: .venv/bin/python bench/fuzz.py [--examples 2000] [--only cli,import,notes,transcripts,socket]
(the same run through pytest: MEMORYD_FUZZ_EXAMPLES=2000 .venv/bin/python -m pytest -q tests/system/test_fuzz.py)
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from faultcheck import mcp_note  # noqa: E402
from fuzzgen import command_line, command_paths, export_file, note_file, socket_line, transcript_file  # noqa: E402
from fuzzlib import (DaemonClient, Sandbox, Tally, probe_cli, probe_import, probe_note, probe_socket,  # noqa: E402
                     probe_transcript)

KINDS = ("cli", "import", "notes", "transcripts", "socket")


def run_kind(kind: str, root: Path, examples: int) -> Tally:
    tally = Tally()
    run = settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
                   phases=[p for p in settings().phases if p.name != "shrink"])  # count, do not shrink
    box = Sandbox(root / kind)
    if kind == "cli":
        paths = command_paths()
        run(given(data=st.data())(lambda data: _none(probe_cli(box, tally, data.draw(command_line(paths, box.ids))))))()
    elif kind == "import":
        run(given(content=export_file(), as_json=st.booleans())(
            lambda content, as_json: _none(probe_import(box, tally, content, as_json))))()
    elif kind == "notes":
        run(given(content=note_file())(lambda content: _none(probe_note(box, tally, content))))()
    elif kind == "transcripts":
        run(given(first=transcript_file(), more=transcript_file())(
            lambda first, more: _none(probe_transcript(box, tally, first, more))))()
    else:
        client = DaemonClient(box)
        files = [str(box.root / "sessions" / "t.jsonl"), str(box.root), ""]
        try:
            run(given(data=st.data())(
                lambda data: _none(probe_socket(client, tally, data.draw(socket_line(box.ids, files))))))()
        finally:
            log = client.close()
        if "Traceback" in log:
            tally.tracebacks += 1
            tally.problems.append(f"daemon log: {log[-1500:]}")
    return tally


def _none(_problems: list[str]) -> None:
    """The probes return their problems (already in the tally); a hypothesis test must return None."""


def signature(problem: str) -> str:
    """The last line of a traceback (or the message), ids and numbers blanked: alike problems group."""
    last = [line for line in problem.splitlines() if line.strip()][-1]
    return re.sub(r"[0-9a-f]{16}|\d+", "#", last)[-160:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=2000, help="generated inputs per kind")
    ap.add_argument("--only", default=",".join(KINDS), help="comma-separated kinds: " + ", ".join(KINDS))
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="memoryd-fuzz-"))
    bad = False
    try:
        note = mcp_note()
        if note:
            print(f"note: {note}")
        for kind in args.only.split(","):
            started = time.monotonic()
            tally = run_kind(kind, root, args.examples)
            fig = tally.figures()
            print(f"{kind:12s} {fig['calls']:6d} calls in {time.monotonic() - started:5.0f} s: tracebacks "
                  f"{fig['tracebacks']}, exit codes outside 0/1/2 {fig['exit_codes_outside_0_1_2']}, state changed "
                  f"by a refused input {fig['state_changed_by_refused_input']}; exits {dict(sorted(tally.codes.items()))}")
            for sig in sorted({signature(p) for p in tally.problems}):
                print(f"    problem: {sig}")
            bad = bad or bool(tally.tracebacks or tally.odd_exit or tally.changed_on_refusal)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

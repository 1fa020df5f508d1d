"""The fuzz suite's harness (tests/test_fuzz.py, bench/fuzz.py): a sandboxed home with memories in
every tier, generated command lines for every CLI command, and a tally that classifies each call:
a traceback, an exit code outside 0/1/2, or state changed by a refused input (exit 2)."""
from __future__ import annotations

import json
import logging
import os
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from hypothesis import strategies as st

AGENT = "default"
# File arguments only ever name files inside the sandbox's working directory.
SAFE_FILES = ["in.jsonl", "out.jsonl", "note.md", "missing.md", "sub", "sub/out.jsonl", "", "-", ".", "key.txt",
              "prompt.txt", "sub/nested/x.md"]
PATH_PARAMS = {"file", "key_file", "llm_prompt_file"}
SPECIAL = ["", " ", "-", "--", "--json", "../x", "a/b/c/d/e", "x" * 5000, "日本語のテキストです", "\udcff\udcfe",
           "nan", "inf", "-inf", "-1", "1e309", "0", "0.5", "1.5", "2", "10000000000", "2026-02-30", "2026-01-05",
           "notes", "projects/evoclaw", "default", "ag-1", "../../etc", "a\nb", "\t", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
           "--agent-id", "--help", "all", "quick", "llm", "keyword", "identity:name", "@alice"]
NUMBERS = ["0", "1", "-1", "0.5", "1.5", "nan", "inf", "1e309", "10000000000", "0x10", "", "1_000", "٣"]
NOT_DAEMON = ["--no-such-option"]  # a valid `memoryd daemon` would never return: always refused here


@dataclass
class Tally:
    """Counts over many calls; `problems` describes the first few of each kind."""
    calls: int = 0
    tracebacks: int = 0
    odd_exit: int = 0
    changed_on_refusal: int = 0
    codes: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def record(self, where: str, code: int, tb: str | None, changed: list[str]) -> list[str]:
        self.calls += 1
        self.codes[f"{where.split()[0]}:{code}"] += 1
        found = []
        if tb:
            self.tracebacks += 1
            found.append(f"traceback in {where}: {tb[-1200:]}")
        if code not in (0, 1, 2):
            self.odd_exit += 1
            found.append(f"exit {code} from {where}")
        if changed:
            self.changed_on_refusal += 1
            found.append(f"refused {where} changed {changed[:5]}")
        if len(self.problems) < 200:
            self.problems += found
        return found

    def figures(self) -> dict[str, Any]:
        return {"calls": self.calls, "tracebacks": self.tracebacks, "exit_codes_outside_0_1_2": self.odd_exit,
                "state_changed_by_refused_input": self.changed_on_refusal}


class Sandbox:
    """A home (memories in hot, warm, tree and the local index), a workspace and a working directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home, self.workspace, self.cwd = root / "home", root / "ws", root / "cwd"
        self.user = root / "user"  # HOME, XDG dirs, an empty PATH: `service` finds no manager
        for d in (self.workspace / "memory", self.cwd / "sub", self.user):
            d.mkdir(parents=True, exist_ok=True)
        self.env: dict[str, str | None] = {
            "MEMORYD_HOME": str(self.home), "MEMORYD_WORKSPACE": str(self.workspace),
            "MEMORYD_SESSIONS_DIR": str(root / "sessions"), "HOME": str(self.user), "PATH": str(self.user),
            "XDG_CONFIG_HOME": str(self.user / "config"), "XDG_DATA_HOME": str(self.user / "data"),
            "XDG_RUNTIME_DIR": str(self.user / "run"), "MEMORYD_LOG_LEVEL": "WARNING",
            **{k: None for k in ("MEMORYD_DB_URL", "MEMORYD_DB_TOKEN", "MEMORYD_KEY", "MEMORYD_SOCKET",
                                 "MEMORYD_LLM_ENDPOINT", "MEMORYD_CLOCK_FILE")}}
        self.ids = self._seed()

    def _seed(self) -> list[str]:
        from memoryd.daemon.ops import dispatch, memory
        from memoryd.tiers import hot
        from memoryd.tiers.config import load_config
        from memoryd.tiers.consolidate import consolidate

        config = load_config({k: v for k, v in self.env.items() if v is not None})
        dispatch(config, "init", {"agent_id": AGENT})
        past = time.time() - 40 * 86400
        with memory(config, {"agent_id": AGENT}, clock=lambda: past) as mem:
            old = [mem.store(f"an old archived fact number {i} about tea", "notes", 0.2)["id"] for i in range(3)]
        with memory(config, {"agent_id": AGENT}) as mem:
            consolidate(mem, "quick")
            ids = [mem.store(f"fresh fact {i}: https://example.com/{i} deploy server", "projects/evoclaw", 0.5)["id"]
                   for i in range(4)]
            mem.change(lambda s, now: [hot.set_identity(s["hot"], "name", "Claw"),
                                       hot.upsert_task(s["hot"], "write the fuzz suite", None, now)], "seed")
        (self.workspace / "memory" / "2026-01-05.md").write_text("# 2026-01-05\n\n- deployed the fuzz suite\n")
        with memory(config, {"agent_id": "nokey"}) as mem:  # an agent with memories but no key on this device
            mem.store("a fact of an agent without a key", "notes", 0.5)
        return old + ids + ["identity:name", "nope", "nokey"]

    def snapshot(self) -> dict[str, bytes]:
        """Every file (and directory) under the home and the working directory: SQLite files by their
        rows (a checkpoint changes bytes, not content); lock files and the daemon's own files aside."""
        out: dict[str, bytes] = {}
        for base in (self.home, self.cwd):
            for path in base.rglob("*"):
                if path.name.endswith((".lock", "-wal", "-shm", "-journal")) or \
                        path.name in ("daemon-state.json", "daemon.pid", "memoryd.sock"):
                    continue
                out[str(path)] = b"<dir>" if path.is_dir() else _rows(path) if path.suffix == ".db" else _read(path)
        return out


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"<unreadable>"


def _rows(path: Path) -> bytes:
    import sqlite3

    conn = sqlite3.connect(path, timeout=30)
    try:
        return "\n".join(conn.iterdump()).encode("utf-8", "surrogateescape")
    finally:
        conn.close()


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


# -- command lines ----------------------------------------------------------------------------------
def command_paths() -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command and subcommand of `memoryd` (groups also alone)."""
    from memoryd.cli.main import cli

    ctx = click.Context(cli)
    out: list[tuple[tuple[str, ...], click.Command]] = []
    for name in cli.list_commands(ctx):
        cmd = cli.get_command(ctx, name)
        assert cmd is not None
        out.append(((name,), cmd))
        if isinstance(cmd, click.Group):
            out += [((name, sub), cmd.get_command(ctx, sub)) for sub in cmd.list_commands(ctx)]  # type: ignore[misc]
    return out


def texts(ids: list[str]) -> st.SearchStrategy[str]:
    plain = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=40)
    return st.one_of(plain, st.sampled_from(SPECIAL), st.sampled_from(ids))


def value_for(param: click.Parameter, ids: list[str]) -> st.SearchStrategy[str]:
    if param.name in PATH_PARAMS or isinstance(param.type, click.Path):
        return st.sampled_from(SAFE_FILES)
    if isinstance(param.type, click.Choice):
        return st.one_of(st.sampled_from(list(param.type.choices)), texts(ids))
    if isinstance(param.type, (click.types.FloatParamType, click.types.IntParamType)):
        return st.one_of(st.sampled_from(NUMBERS), texts(ids))
    return texts(ids)


@st.composite
def command_line(draw: Any, paths: list[tuple[tuple[str, ...], click.Command]], ids: list[str]) -> list[str]:
    path, cmd = draw(st.sampled_from(paths))
    argv: list[str] = []
    if draw(st.integers(0, 9)) == 0:  # root options before the command
        argv += draw(st.sampled_from([["--agent-id", draw(texts(ids))], ["--log-level", draw(texts(ids))],
                                      ["--version"], ["-h"]]))
    argv += list(path)
    for param in cmd.params:
        if isinstance(param, click.Argument):
            if param.required or draw(st.booleans()):
                argv.append(draw(value_for(param, ids)))
        elif isinstance(param, click.Option) and draw(st.integers(0, 9)) < 4:
            argv.append(draw(st.sampled_from(param.opts)))
            if not param.is_flag:
                argv.append(draw(value_for(param, ids)))
    if draw(st.integers(0, 7)) == 0:
        argv.insert(draw(st.integers(len(path), len(argv))), draw(texts(ids)))  # one stray word anywhere
    if path == ("daemon",) or (argv[-1:] == ["daemon"]):
        argv += NOT_DAEMON
    return argv


def run_cli(box: Sandbox, argv: list[str], stdin: str | bytes = "") -> tuple[int, str | None, list[str], str]:
    """Run one command line in-process (click's CliRunner) in the sandbox: (exit code, traceback, files a
    refusal changed, output)."""
    from click.testing import CliRunner

    from memoryd.cli.main import cli

    logging.root.handlers.clear()  # setup_logging binds to the stream of the call that configured it
    before = box.snapshot()
    cwd = os.getcwd()
    os.chdir(box.cwd)
    try:
        result = CliRunner().invoke(cli, argv, input=stdin, env=box.env, catch_exceptions=True)
    finally:
        os.chdir(cwd)
        logging.root.handlers.clear()
    tb = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        tb = "".join(traceback.format_exception(result.exception))
    elif "Traceback (most recent call last)" in result.output:
        tb = result.output
    code = result.exit_code
    return code, tb, changed(before, box.snapshot()) if code == 2 else [], result.output


# -- files: import exports, daily notes, transcripts -------------------------------------------------
JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False), st.text(max_size=20))
JSON = st.recursive(JSON_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                    max_leaves=12)


def _entry(draw: Any, valid: bool) -> dict[str, Any]:
    if valid:  # what an export writes, with arbitrary text
        return {"id": "e" + draw(st.text("0123456789abcdef", min_size=1, max_size=16)),
                "text": draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=60)
                             .filter(str.strip)),
                "category": draw(st.sampled_from(["notes", "imported/things", "people/ada"])),
                "importance": draw(st.floats(0, 1)), "created_at": draw(st.integers(0, 2 * 10**9)),
                "access_count": draw(st.integers(0, 5)),
                "metadata": draw(st.fixed_dictionaries({}, optional={"urls": st.lists(st.text(max_size=20), max_size=2),
                                                                     "source": st.text(max_size=10)}))}
    good = {"id": "e" + draw(st.text("0123456789abcdef", min_size=1, max_size=16)),
            "text": draw(st.one_of(st.text(min_size=1, max_size=60), st.just("an imported fact about tea"))),
            "category": draw(st.sampled_from(["notes", "a/b", "x" * 40, "", "a//b", "ok/../x"])),
            "importance": draw(st.one_of(st.floats(-1, 2), st.none(), st.just("0.5"))),
            "created_at": draw(st.one_of(st.integers(-5, 2 * 10**11), st.floats(allow_nan=False), st.just(True))),
            "access_count": draw(st.one_of(st.integers(-2, 5), st.just(1.5))),
            "metadata": draw(st.one_of(st.just({}), st.dictionaries(st.sampled_from(["urls", "topics", "x"]), JSON,
                                                                    max_size=2), JSON))}
    for key in draw(st.lists(st.sampled_from(sorted(good)), max_size=2, unique=True)):
        good.pop(key)
    return good


@st.composite
def export_file(draw: Any) -> bytes:
    """Half the time a valid export (arbitrary content); else any mix of good, bent and broken lines."""
    if draw(st.booleans()):
        lines = [json.dumps({"format": "memoryd-export", "version": 1, "agent_id": "x"})]
        for _ in range(draw(st.integers(0, 6))):
            kind = draw(st.sampled_from(["warm", "cold", "hot", "tree"]))
            lines.append(json.dumps({"type": kind, "entry": _entry(draw, True)} if kind in ("warm", "cold") else
                                    {"type": kind, "data": _good_doc(kind)}, ensure_ascii=draw(st.booleans())))
        return "\n".join(lines).encode("utf-8") + b"\n"
    header = draw(st.sampled_from([{"format": "memoryd-export", "version": 1}, {"format": "memoryd-export", "version": 2},
                                   {"format": "other"}, [], "x"]))
    lines = [json.dumps(header)]
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["warm", "cold", "hot", "tree", "junk", "raw", "bytes"]))
        if kind in ("warm", "cold"):
            lines.append(json.dumps({"type": kind, "entry": _entry(draw, draw(st.booleans()))}))
        elif kind in ("hot", "tree"):
            lines.append(json.dumps({"type": kind, "data": draw(st.one_of(JSON, st.just(_good_doc(kind)),
                                                                          st.builds(_bent_doc, st.just(kind), JSON)))}))
        elif kind == "junk":
            lines.append(json.dumps(draw(JSON)))
        elif kind == "raw":
            lines.append(draw(st.sampled_from(["{", "NaN", '{"type": "warm", "entry": NaN}', "", "  ", "[1,2"])))
        else:
            lines.append("\udcff")
    return "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n"


def _good_doc(kind: str) -> dict[str, Any]:
    if kind == "tree":
        return {"nodes": {"imported": ["imported things", 20000], "imported/deep": ["deeper", 20000]}}
    return {"identity": {"role": "tester"}, "owner_profile": {}, "critical_lessons": [],
            "active_context": {"projects": [], "events": [], "tasks": []}}


def _bent_doc(kind: str, junk: Any) -> dict[str, Any]:
    """A valid document with one part replaced by arbitrary JSON."""
    doc = _good_doc(kind)
    if kind == "tree":
        doc["nodes"]["imported"] = junk
    else:
        doc["identity"] = {"k": junk} if isinstance(junk, (list, int)) else junk
    return doc


NOTE_LINE = st.one_of(
    st.sampled_from(["# 2026-01-05", "## Retain", "## Work", "### Notes", "```", "- ", "-", "W @alice: prefers tea",
                     "B @bob: shipped the release", "O(c=0.9) @carol: likes Rust", "O(c=7) @x: y", "S: summary line",
                     "* starred bullet", "1. numbered", "   indented continuation", "- [ ] todo", "- [x] done",
                     "- deploy https://example.com/a?b=c `rm -rf /tmp/x`", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=80).map(lambda t: t.replace("\r", "")),
    st.builds(lambda t: f"- {t}", st.text(max_size=60)),
    st.just("- " + "long " * 2000))


@st.composite
def note_file(draw: Any) -> bytes:
    data = "\n".join(draw(st.lists(NOTE_LINE, max_size=12))).encode("utf-8", "surrogateescape")
    if draw(st.integers(0, 9)) == 0:
        data += b"\xff\xfe broken utf-8"
    return data


def _message(draw: Any) -> Any:
    content = draw(st.one_of(st.text(max_size=80), st.just("a long enough message about the deploy server " * 3),
                             st.lists(st.fixed_dictionaries({"type": st.sampled_from(["text", "image", 3]),
                                                             "text": st.one_of(st.text(max_size=40), JSON)}),
                                      max_size=3), JSON))
    msg = {"role": draw(st.sampled_from(["user", "assistant", "system", None, 5])), "content": content}
    return draw(st.sampled_from([
        {"type": "message", "message": msg, "timestamp": draw(JSON)},
        msg, {"type": "compaction", "summary": draw(st.one_of(st.text(max_size=80), JSON))},
        {"type": "message", "hidden": True, "message": msg}, {"type": "custom", "data": draw(JSON)},
        {"message": draw(JSON)}, draw(JSON)]))


@st.composite
def transcript_file(draw: Any) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 6)) == 0:
            lines.append(draw(st.sampled_from([b"{", b"\xff\xfe", b"", b"null", b'{"message": {"role": "user"}}',
                                               # a JavaScript string cut inside a surrogate pair
                                               b'{"type": "message", "message": {"role": "user", "content": '
                                               b'"a message long enough, cut in half: \\ud83d"}}',
                                               b'{"type": "compaction", "summary": "cut \\udc00 summary"}'])))
        else:
            lines.append(json.dumps(_message(draw), ensure_ascii=draw(st.booleans())).encode("utf-8"))
    tail = b"" if draw(st.booleans()) else b'{"type": "message", "message": {"role": "user", "content": "half a li'
    return b"\n".join(lines) + b"\n" + tail


# -- socket requests ---------------------------------------------------------------------------------
OP_PARAMS = {"store": ["text", "category", "importance", "metadata"], "init": [], "ping": [], "daemon": [],
             "retrieve": ["query", "limit", "url", "entity", "since", "until", "paths"], "forget": ["id", "days"],
             "consolidate": ["mode"], "sync": ["force", "drain"], "status": ["remote"],
             "ingest_daily": ["date", "all"], "ingest_transcript": ["path"], "nope": ["x"], "": [], "__class__": []}
PARAM_NAMES = sorted({n for names in OP_PARAMS.values() for n in names} | {"agent_id"})


def typed_value(name: str, ids: list[str], files: list[str]) -> st.SearchStrategy[Any]:
    """A value of the type the param has (its content still arbitrary)."""
    if name == "limit":
        return st.integers(-5, 2000)
    if name in ("importance", "days"):
        return st.one_of(st.floats(-1, 2), st.floats(0, 1e7), st.integers(-3, 400))
    if name in ("all", "force", "drain", "remote"):
        return st.booleans()
    if name == "paths":
        return st.dictionaries(st.sampled_from(["notes", "projects/evoclaw", "x", "", "a/b/c/d/e"]), st.floats(-1, 2),
                               max_size=3)
    if name == "metadata":
        return st.dictionaries(st.sampled_from(["urls", "topics", "source", "x"]),
                               st.one_of(st.lists(st.text(max_size=10), max_size=3), JSON), max_size=3)
    if name == "path":
        return st.sampled_from(files)
    if name in ("date", "since", "until"):
        return st.sampled_from(["2026-01-05", "2026-02-30", "1970-01-01", "9999-12-31", "yesterday", ""])
    return texts(ids)


@st.composite
def socket_line(draw: Any, ids: list[str], files: list[str]) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([b"", b"{", b"[]", b"null", b"\xff\xfe", b'{"op": 5}', b'{"op": "ping", "params": []}',
                                     b"x" * 70000]))
    op = draw(st.sampled_from(sorted(OP_PARAMS)))
    names = [n for n in OP_PARAMS[op] if draw(st.integers(0, 9)) < 7]
    names += draw(st.lists(st.sampled_from(PARAM_NAMES), max_size=2))
    params: dict[str, Any] = {}
    for name in names:  # mostly the right type; now and then anything at all
        params[name] = draw(typed_value(name, ids, files) if draw(st.integers(0, 9)) < 8 else
                            st.one_of(JSON, texts(ids), st.floats()))
    if draw(st.booleans()):
        params["agent_id"] = draw(st.one_of(st.just(AGENT), texts(ids), JSON))
    req = {"op": op, "params": params}
    return json.dumps(req, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogateescape")


# -- probes: one generated input each, classified into the tally -------------------------------------
def probe_cli(box: Sandbox, tally: Tally, argv: list[str]) -> list[str]:
    code, tb, moved, _ = run_cli(box, argv)
    return tally.record("cli " + " ".join(argv)[:300], code, tb, moved)


def probe_import(box: Sandbox, tally: Tally, content: bytes, as_json: bool) -> list[str]:
    (box.cwd / "in.jsonl").write_bytes(content)
    code, tb, moved, _ = run_cli(box, ["import", "in.jsonl", *(["--json"] if as_json else [])])
    return tally.record(f"import {content[:300]!r}", code, tb, moved)


def probe_note(box: Sandbox, tally: Tally, content: bytes) -> list[str]:
    (box.workspace / "memory" / "2026-01-05.md").write_bytes(content)
    (box.cwd / "note.md").write_bytes(content)
    found = []
    for argv in (["ingest-daily", "--date", "2026-01-05", "--json"], ["validate", "note.md"]):
        code, tb, moved, _ = run_cli(box, argv)
        found += tally.record(f"{argv[0]} {content[:300]!r}", code, tb, moved)
    return found


def probe_transcript(box: Sandbox, tally: Tally, first: bytes, more: bytes) -> list[str]:
    """A transcript ingested, appended to, and ingested again (what the daemon's watcher does)."""
    from memoryd.daemon.ops import dispatch
    from memoryd.tiers.config import load_config
    from memoryd.tiers.errors import MemorydError

    config = load_config({k: v for k, v in box.env.items() if v is not None})
    path = box.root / "sessions" / "fuzz.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(first)
    found = []
    for step in (first, more):
        if step is more:
            with open(path, "ab") as fh:
                fh.write(more)
        before = box.snapshot()
        code, tb = 0, None
        try:
            dispatch(config, "ingest_transcript", {"agent_id": AGENT, "path": str(path)})
        except MemorydError as exc:
            code = exc.exit_code
        except Exception:  # noqa: BLE001 - what the suite counts
            code, tb = 1, traceback.format_exc()
        moved = changed(before, box.snapshot()) if code == 2 else []
        found += tally.record(f"transcript {step[:300]!r}", code, tb, moved)
    return found


class DaemonClient:
    """A real `memoryd daemon` on a sandbox; sends raw request lines over its socket."""

    def __init__(self, box: Sandbox) -> None:
        import subprocess
        import sys

        self.box = box
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        env.update({k: v for k, v in box.env.items() if v is not None})
        env["PATH"] = os.environ.get("PATH", "")
        (box.home / "config.toml").write_text("[schedule]\nsync_idle_seconds = 86400\nheartbeat_seconds = 3600\n")
        self.log = box.root / "daemon.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen([str(Path(sys.executable).with_name("memoryd")), "daemon"], env=env,
                                         cwd=box.cwd, stdout=log, stderr=subprocess.STDOUT)
        self.socket = box.home / "memoryd.sock"
        deadline = time.monotonic() + 30
        while not self._answers():
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.05)
        self.settle()

    def _answers(self) -> bool:
        try:
            return bool(self.exchange(b'{"op": "ping"}')[0].get("ok"))
        except OSError:
            return False

    def settle(self) -> None:
        """Wait until the daemon's start-up work (catch-up consolidation) stopped changing files."""
        last, same_since = None, time.monotonic()
        while time.monotonic() - same_since < 0.3:
            snap = self.box.snapshot()
            if snap != last:
                last, same_since = snap, time.monotonic()
            time.sleep(0.1)

    def exchange(self, line: bytes) -> list[dict[str, Any]]:
        """Send `line` then a ping on one connection; the replies (the ping's last)."""
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(60)
            sock.connect(str(self.socket))
            sock.sendall(line + b"\n" + b'{"op": "ping"}\n')
            data = b""
            while data.count(b"\n") < (2 if line.strip() else 1):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        return [json.loads(x) for x in data.splitlines()]

    def close(self) -> str:
        self.proc.terminate()
        self.proc.wait(30)
        return self.log.read_text(errors="replace")


def probe_socket(client: DaemonClient, tally: Tally, line: bytes) -> list[str]:
    """One request line; a sync (refused or not) kicks the daemon's own drain of every agent, so the
    home is let settle before the next request is measured."""
    before = client.box.snapshot()
    tb, code = None, 0
    try:
        replies = client.exchange(line)
    except (OSError, ValueError) as exc:
        return tally.record(f"socket {line[:300]!r}", 1, f"no answer: {exc}", [])
    if not replies or replies[-1].get("result", {}).get("pong") is not True:
        tb = f"the daemon stopped answering: {replies}"
    elif len(replies) == 2:
        reply = replies[0]
        if not isinstance(reply, dict) or "ok" not in reply:
            tb = f"malformed reply {reply!r}"
        elif not reply["ok"]:
            err = reply.get("error") or {}
            code = int(err.get("exit_code", 1))
            if str(err.get("message", "")).startswith("internal error"):
                tb = str(err.get("message"))
    moved = changed(before, client.box.snapshot()) if code == 2 else []
    if b'"sync"' in line:
        client.settle()
    return tally.record(f"socket {line[:300]!r}", code, tb, moved)

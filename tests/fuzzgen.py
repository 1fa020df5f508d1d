"""The fuzz suite's generators: command lines for every CLI command, export files, daily notes,
transcripts and daemon socket requests (mostly well-formed, with arbitrary content, and now and
then anything at all)."""
from __future__ import annotations

import json
from typing import Any

import click
from hypothesis import strategies as st

AGENT = "default"
# File arguments only ever name files inside the sandbox's working directory.
SAFE_FILES = ["in.jsonl", "out.jsonl", "note.md", "missing.md", "sub", "sub/out.jsonl", "", "-", ".", "key.txt",
              "prompt.txt", "sub/nested/x.md", "nodir/out.jsonl"]
PATH_PARAMS = {"file", "key_file", "llm_prompt_file"}
SPECIAL = ["", " ", "-", "--", "--json", "../x", "a/b/c/d/e", "x" * 5000, "日本語のテキストです", "\udcff\udcfe",
           "nan", "inf", "-inf", "-1", "1e309", "0", "0.5", "1.5", "2", "10000000000", "2026-02-30", "2026-01-05",
           "notes", "projects/evoclaw", "default", "ag-1", "../../etc", "a\nb", "\t", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
           "--agent-id", "--help", "all", "quick", "llm", "keyword", "identity:name", "@alice",
           # issue 23: control characters (argv cannot hold NUL) and place-like category segments
           "bell\x07here", "esc\x1b[2J", "a\rb", "\x0cfeed", "del\x7f", "c1\x9b", "..", ".", "./x", "a/./b", "x/.."]
DEEP = "[" * 2000 + "]" * 2000  # json.loads overflows near 1,000 levels
NUMBERS = ["0", "1", "-1", "0.5", "1.5", "nan", "inf", "1e309", "10000000000", "0x10", "", "1_000", "٣"]
NOT_DAEMON = ["--no-such-option"]  # a valid `memoryd daemon` (or `web`) would never return: always refused here

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
def command_line(draw: Any, paths: list[tuple[tuple[str, ...], click.Command]], ids: list[str],
                 root: bool = True) -> list[str]:
    path, cmd = draw(st.sampled_from(paths))
    argv: list[str] = []
    if root and draw(st.integers(0, 9)) == 0:  # root options before the command
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
    if path in (("daemon",), ("web",)) or (argv[-1:] in (["daemon"], ["web"])):
        argv += NOT_DAEMON
    return argv


# -- the same rules everywhere (issue 30): each case is a command line and the exit code it must give ----
LESSON_CHARS = 300  # tiers/memory/model.py MAX_LESSON_CHARS: a longer lesson is refused like a long event
EAGER = {"--help", "-h", "--version"}  # click answers these before any other option is looked at


@st.composite
def rule_case(draw: Any, paths: list[tuple[tuple[str, ...], click.Command]], ids: list[str]) -> tuple[list[str], int]:
    """(argv, expected exit): an empty agent id on any command (root or own option), a hot lesson around
    its limit, an export into a directory that does not exist."""
    kind = draw(st.sampled_from(["empty_agent", "lesson", "export"]))
    if kind == "lesson":
        words = draw(st.lists(st.text("abcdefghij", min_size=1, max_size=12), min_size=20, max_size=160))
        text = " ".join(words)
        return ["hot", "lesson", text], 0 if len(text) <= LESSON_CHARS else 2
    if kind == "export":
        folder = draw(st.text("abcdefghij", min_size=1, max_size=8))
        return ["export", f"missing-{folder}/{draw(st.sampled_from(['out.jsonl', 'x', 'sub/y.jsonl']))}",
                *draw(st.sampled_from([[], ["--json"]]))], 2
    path, cmd = draw(st.sampled_from(paths))
    # the command's own options and arguments (no other agent id, nothing click answers before the check)
    rest = [a for a in draw(command_line([(path, cmd)], ids, root=False))[len(path):] if a not in EAGER | {"--agent-id"}]
    own = any("--agent-id" in getattr(p, "opts", []) for p in cmd.params)
    if own and draw(st.booleans()):
        return [*path, "--agent-id", "", *rest], 2
    return ["--agent-id", "", *path, *rest], 2


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
            lines.append(draw(st.sampled_from(["{", "NaN", '{"type": "warm", "entry": NaN}', "", "  ", "[1,2", DEEP,
                                               '{"type": "warm", "entry": ' + DEEP + "}", NUL_ENTRY])))
        else:
            lines.append("\udcff")
    return "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n"


NUL_ENTRY = json.dumps({"type": "warm", "entry": {"id": "e1", "text": "nul\x00inside", "category": "notes",
                                                  "created_at": 1}})


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
                                               b'{"type": "compaction", "summary": "cut \\udc00 summary"}',
                                               b'{"type": "message", "message": ' + DEEP.encode() + b"}",
                                               b'{"role": "user", "content": "nul \\u0000 and esc \\u001b[2J in a turn"}'])))
        else:
            lines.append(json.dumps(_message(draw), ensure_ascii=draw(st.booleans())).encode("utf-8"))
    tail = b"" if draw(st.booleans()) else b'{"type": "message", "message": {"role": "user", "content": "half a li'
    return b"\n".join(lines) + b"\n" + tail


# -- socket requests ---------------------------------------------------------------------------------
OP_PARAMS = {"store": ["text", "category", "importance", "metadata"], "init": [], "ping": [], "daemon": [],
             "retrieve": ["query", "limit", "url", "entity", "since", "until", "paths"], "forget": ["id", "days", "shred"],
             "consolidate": ["mode"], "sync": ["force", "drain"], "status": ["remote"],
             "ingest_daily": ["date", "all"], "ingest_transcript": ["path"], "nope": ["x"], "": [], "__class__": []}
PARAM_NAMES = sorted({n for names in OP_PARAMS.values() for n in names} | {"agent_id"})


def typed_value(name: str, ids: list[str], files: list[str]) -> st.SearchStrategy[Any]:
    """A value of the type the param has (its content still arbitrary)."""
    if name == "limit":
        return st.integers(-5, 2000)
    if name in ("importance", "days"):
        return st.one_of(st.floats(-1, 2), st.floats(0, 1e7), st.integers(-3, 400))
    if name in ("all", "force", "drain", "remote", "shred"):
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
                                     b"x" * 70000, b'{"op": "status", "params": ' + DEEP.encode() + b"}",
                                     b'{"op": "store", "params": {"text": "nul\\u0000", "category": "notes"}}',
                                     b'{"op": "store", "params": {"text": "a fact", "category": "../x"}}',
                                     b'{"op": "status", "params": {"agent_id": ""}}']))
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

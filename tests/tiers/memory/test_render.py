"""`memoryd render`: the managed block in harness files — user text kept byte for byte, 5 KB cap, edits merged."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memoryd.cli.main import cli
from memoryd.tiers.memory import hot as H
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.harness import write_merged
from memoryd.tiers.memory.model import HOT_MAX_BYTES
from memoryd.tiers.memory.render import build_block, find_block, merge_block
from memoryd.tiers.memory.tree import add_node, empty_tree
from clock import T0

USER_TEXT = "# Project rules\n\nUse tabs, not spaces.\n\n## Build\n\n    make test   \n"


def invoke(*args: str, cwd: Path | None = None):
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        return runner.invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def full_hot(prune: bool = True) -> dict:
    hot = H.empty_hot()
    for i in range(30):
        H.add_lesson(hot, f"lesson {i} " + "ä" * 250, "lessons", 0.5 + i / 100, T0 + i)
        H.add_event(hot, f"event {i} " + "e" * 150, T0 + i)
        H.upsert_task(hot, f"task {i} " + "t" * 150, None, T0 + i)
    H.set_identity(hot, "name", "Clawd")
    if prune:  # as stored: ≤ 5 KB of JSON
        H.prune_hot(hot)
    return hot


def full_tree() -> dict:
    tree = empty_tree()
    for i in range(10):
        add_node(tree, f"area{i}", "", T0)
        for j in range(3):
            try:
                add_node(tree, f"area{i}/topic{j}", "d", T0)
            except UsageError:  # the 2 KB tree budget: as full as it gets
                pass
    return tree


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_block_never_exceeds_the_hot_budget(nl: str) -> None:
    stored = full_hot()
    block = build_block(stored, full_tree(), "default", nl)  # a full hot tier and a full tree fit whole
    assert len(block.encode("utf-8")) <= HOT_MAX_BYTES and "not shown" not in block
    assert all(x["text"] in block for x in stored["critical_lessons"] + stored["active_context"]["tasks"])
    block = build_block(full_hot(prune=False), full_tree(), "default", nl)  # 3x over: still capped
    assert len(block.encode("utf-8")) <= HOT_MAX_BYTES
    assert "more item(s) not shown" in block and "name: Clawd" in block
    assert block.startswith("<!-- memoryd:begin agent=default") and block.endswith("<!-- memoryd:end agent=default -->")
    assert ("\r\n" in block) == (nl == "\r\n")


def test_merge_keeps_every_byte_outside_the_block() -> None:
    hot = H.empty_hot()
    H.add_lesson(hot, "Run the tests before pushing", "lessons", None, T0)
    first, old = merge_block(USER_TEXT, build_block(hot, empty_tree(), "a1"), "a1")
    assert old is None and first.startswith(USER_TEXT)
    H.upsert_task(hot, "Ship v2", None, T0)
    edited = "Intro line\n" + first + "Footer after the block\n"
    second, old = merge_block(edited, build_block(hot, empty_tree(), "a1"), "a1")
    start, end = find_block(second, "a1")
    assert second[:start] == "Intro line\n" + USER_TEXT + "\n"
    assert second[end:] == "\nFooter after the block\n"
    assert "Ship v2" in second[start:end] and old is not None and "Ship v2" not in old


def test_merge_edge_cases() -> None:
    block = build_block(H.empty_hot(), empty_tree(), "a1")
    assert merge_block("", block, "a1")[0] == block + "\n"
    assert merge_block("no newline", block, "a1")[0] == "no newline\n\n" + block + "\n"
    crlf = merge_block("line\r\n", build_block(H.empty_hot(), empty_tree(), "a1", "\r\n"), "a1")[0]
    assert crlf.count("\r\n") == crlf.count("\n")
    other = merge_block("x\n", build_block(H.empty_hot(), empty_tree(), "b2"), "b2")[0]
    both = merge_block(other, block, "a1")[0]
    assert both.startswith(other) and find_block(both, "b2") == find_block(other, "b2")
    for broken in (block + "\n" + block, block.split("\n")[0] + "\nno end\n", block.split("\n")[-1] + "\n"):
        with pytest.raises(UsageError, match="markers for agent a1 are broken"):
            merge_block(broken, block, "a1")


def seeded(home: Path) -> None:
    for args in (["hot", "lesson", "Always run the linter"], ["store", "We chose Postgres", "--category",
                                                                  "projects/billing"]):
        assert invoke(*args).exit_code == 0


def outside(text: str) -> str:
    start, end = find_block(text, "default")
    return text[:start] + text[end:]


def test_render_twice_into_user_text(home: Path, tmp_path: Path) -> None:
    seeded(home)
    project = tmp_path / "proj"
    project.mkdir()
    claude = project / "CLAUDE.md"
    claude.write_text(USER_TEXT)
    claude.chmod(0o644)
    r = invoke("render", "--target", "claude", cwd=project)
    assert r.exit_code == 0, r.output
    first = claude.read_text()
    assert first.startswith(USER_TEXT) and "Always run the linter" in first and "projects/billing" in first
    assert invoke("hot", "task", "Ship v2 by Friday").exit_code == 0
    assert invoke("render", "--target", "claude", "--project-dir", str(project)).exit_code == 0
    second = claude.read_text()
    assert outside(second) == outside(first) and "Ship v2 by Friday" in second
    assert claude.stat().st_mode & 0o777 == 0o644  # the user's file keeps its mode
    stamp = claude.stat().st_ino, claude.stat().st_mtime_ns
    r = invoke("render", "--target", "claude", "--json", cwd=project)
    assert '"written": false' in r.output and (claude.stat().st_ino, claude.stat().st_mtime_ns) == stamp


def test_edits_between_renders_are_merged_never_overwritten(home: Path, tmp_path: Path) -> None:
    seeded(home)
    target = tmp_path / "notes" / "AGENT.md"
    target.parent.mkdir()
    assert invoke("render", "--target", f"file:{target}").exit_code == 0
    text = target.read_text()
    start, end = find_block(text, "default")
    hand_edit = text[start:end].replace("Always run the linter", "Always run the linter (twice!)")
    target.write_text("My own header\n" + text[:start] + hand_edit + text[end:] + "My own footer\n")
    assert invoke("hot", "event", "Deployed v1.2").exit_code == 0
    r = invoke("render", "--target", f"file:{target}", "--json")
    assert r.exit_code == 0 and '"outside_changes": true' in r.output and "edited by hand" in r.output
    final = target.read_text()
    assert final.startswith("My own header\n") and final.endswith("My own footer\n")
    assert "Deployed v1.2" in final and "(twice!)" not in final
    kept = list((home / "render" / "replaced").iterdir())
    assert len(kept) == 1 and "(twice!)" in kept[0].read_text() and kept[0].stat().st_mode & 0o777 == 0o600


EDITOR = """
import os, sys
path, how = sys.argv[1], sys.argv[2]
if how == "rename":  # an editor's save: write a new file, rename it over the old one
    text = open(path).read()
    with open(path + ".swp", "w") as fh:
        fh.write("Edited by another program\\n" + text)
    os.replace(path + ".swp", path)
else:  # an in-place append, like `echo >> file`
    with open(path, "a") as fh:
        fh.write("Appended by another program\\n")
"""


@pytest.mark.parametrize("how", ["rename", "append"])
def test_concurrent_edit_during_a_write_is_kept(tmp_path: Path, how: str) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(USER_TEXT)
    block = build_block(H.empty_hot(), empty_tree(), "default")
    seen: list[str] = []

    def merge(text: str) -> str:
        seen.append(text)
        if len(seen) == 1:  # another process edits the file after memoryd read it, before memoryd writes
            subprocess.run([sys.executable, "-c", EDITOR, str(path), how], check=True)
        return merge_block(text, block, "default")[0]

    before, after = write_merged(path, merge)
    final = path.read_text()
    assert len(seen) == 2 and before == USER_TEXT.encode() and after == final.encode()
    assert "by another program" in final and USER_TEXT in final and find_block(final, "default")
    assert not [p for p in tmp_path.iterdir() if p.name != "CLAUDE.md"]  # no temp file left behind


def test_bad_harness_files_change_nothing(home: Path, tmp_path: Path) -> None:
    seeded(home)
    ws = Path(os.environ["MEMORYD_WORKSPACE"])
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"# notes\n\xff\xfe\x00 not text\n")
    outside_file = tmp_path / "elsewhere.md"
    outside_file.write_text("secret plans\n")
    (ws / "MEMORY.md").symlink_to(outside_file)
    good = tmp_path / "good.md"
    good.write_text("keep\n")
    cases = [(["--target", f"file:{binary}"], "not UTF-8"),
             (["--target", "openclaw"], "outside"),
             (["--target", f"file:{good}", "--target", f"file:{binary}"], "not UTF-8"),  # none written
             (["--target", f"file:{tmp_path / 'missing' / 'x.md'}"], "does not exist"),
             (["--target", "cursor"], "unknown render target"),
             ([], "give --target")]
    for args, message in cases:
        r = invoke("render", *args)
        assert r.exit_code == 2 and message in r.output, (args, r.output)
    assert binary.read_bytes() == b"# notes\n\xff\xfe\x00 not text\n" and outside_file.read_text() == "secret plans\n"
    assert good.read_text() == "keep\n"
    r = invoke("render", "--target", "openclaw", "--agent-id", "nobody")
    assert r.exit_code == 2 and "no agent 'nobody'" in r.output


def test_symlink_inside_the_workspace_is_followed(home: Path) -> None:
    seeded(home)
    ws = Path(os.environ["MEMORYD_WORKSPACE"])
    (ws / "memory" / "LONG.md").write_text("notes\n")
    (ws / "MEMORY.md").symlink_to(ws / "memory" / "LONG.md")
    assert invoke("render", "--target", "openclaw").exit_code == 0
    assert (ws / "MEMORY.md").is_symlink() and "Always run the linter" in (ws / "memory" / "LONG.md").read_text()


def test_configured_targets_follow_hot_changes_in_process(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "AGENTS.md").write_text(USER_TEXT)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[render]\ntargets = ["agents"]\nproject_dir = "{project}"\n')
    assert invoke("hot", "lesson", "Prefer small commits").exit_code == 0  # no render command run
    text = (project / "AGENTS.md").read_text()
    assert text.startswith(USER_TEXT) and "Prefer small commits" in text
    assert invoke("hot", "task", "Write the changelog").exit_code == 0
    assert "Write the changelog" in (project / "AGENTS.md").read_text()
    (home / "config.toml").write_text('[render]\ntargets = ["claude"]\n')  # claude needs project_dir here
    r = invoke("render")
    assert r.exit_code == 2 and "project_dir" in r.output

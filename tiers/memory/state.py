"""Per-agent local state files: load (quarantine corrupt, fall back to last good copy) and save atomically.

The one place the state's JSON becomes the typed state (memoryd.tiers.memory.types) and back: load_all
checks each file's shape and hands the parsed dicts on as AgentState; save_all writes them canonical."""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, cast

from memoryd.tiers.base.atomic import (atomic_write_bytes, atomic_write_text, dumps, ensure_private_dir, read_json, read_json_raw)
from memoryd.tiers.memory.hot import empty_hot, render_markdown, validate_hot
from memoryd.tiers.memory.tree import empty_tree, validate_tree
from memoryd.tiers.memory.warm import empty_warm, validate_warm

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import AgentState

log = logging.getLogger("memoryd.tiers")

# Called as listener(agent_dir, agent_id, state) after a save changed hot or tree, under the agent's
# lock; the wiring registers the harness-file renderer here (daemon/render_targets.py install()).
SAVE_LISTENERS: list[Callable[[Path, str, AgentState], None]] = []

FILES = {"hot": "hot-memory-state.json", "warm": "warm-memory.json", "tree": "memory-tree.json"}
_SHAPES: dict[str, tuple[Callable[[], Any], Callable[[Any], None]]] = {
    "hot": (empty_hot, validate_hot), "warm": (empty_warm, validate_warm), "tree": (empty_tree, validate_tree)}


class StateFiles:
    """The hot/warm/tree JSON files of one agent plus MEMORY.md; callers hold the agent lock."""

    def __init__(self, agent_dir: Path, agent_id: str) -> None:
        self.dir = agent_dir
        self.agent_id = agent_id
        self._written: dict[str, bytes] = {}  # canonical bytes last loaded/saved, to skip no-op writes

    def path(self, name: str) -> Path:
        return self.dir / FILES[name]

    def load(self, name: str) -> Any:
        """One file's object, its shape checked (load_all gives the three typed)."""
        default, validate = _SHAPES[name]
        path = self.path(name)
        obj, raw = read_json_raw(path, lambda: None, validate)
        if obj is not None:
            # our files are written canonical, so the bytes read stand for the object (no re-encoding
            # on every read); were they not, the next save merely writes once more
            self._written[name] = raw if raw is not None else dumps(obj)
            return obj
        backup = path.with_name(path.name + ".bak")
        if not path.exists() and backup.exists():
            obj = read_json(backup, lambda: None, validate)
            if obj is not None:
                log.warning("restored %s from its last good copy %s", path.name, backup.name)
                return obj
        return default()

    def load_all(self) -> AgentState:
        return cast("AgentState", {name: self.load(name) for name in FILES})

    def save(self, name: str, obj: Any) -> bool:
        """Atomic replace (skipped when nothing changed); the previous good file is kept as <name>.bak."""
        data = dumps(obj)
        path = self.path(name)
        if self._written.get(name) == data and path.exists():
            return False
        if path.exists():
            tmp = path.with_name(f".{path.name}.bak-{os.getpid()}")
            try:
                os.link(path, tmp)
                os.replace(tmp, path.with_name(path.name + ".bak"))
            except OSError:
                pass
            # rename() is a no-op when .bak already is a link to the same file (a writer killed between
            # these two steps before): the temp link then stays behind unless removed here
            tmp.unlink(missing_ok=True)
        atomic_write_bytes(path, data)
        self._written[name] = data
        return True

    def drop_backups(self) -> None:
        """Forget means forget: the last-good copies may still hold what was just deleted."""
        for name in FILES:
            self.path(name).with_name(FILES[name] + ".bak").unlink(missing_ok=True)

    def save_all(self, state: AgentState) -> None:
        ensure_private_dir(self.dir)
        files: Mapping[str, Any] = state  # by name; sync may hand over only some of the three
        changed = {name: self.save(name, files[name]) for name in FILES if name in files}
        if changed.get("hot") or ("hot" in state and not (self.dir / "MEMORY.md").exists()):
            # rendered from hot (durable itself): a power cut at worst leaves the previous rendering
            atomic_write_text(self.dir / "MEMORY.md", render_markdown(state["hot"], self.agent_id), durable=False)
        if SAVE_LISTENERS and (changed.get("hot") or changed.get("tree")) and "hot" in state and "tree" in state:
            for listener in list(SAVE_LISTENERS):
                try:
                    listener(self.dir, self.agent_id, state)
                except Exception:  # the state is saved; a listener's failure must not undo that
                    log.exception("a save listener failed for agent %s", self.agent_id)

"""Helpers for the sync tests: homes (devices) sharing one database and one agent key."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from memoryd.sync.crypto.keys import ensure_key, import_key
from memhelp import AgentMemory
from memoryd.tiers.base.config import Config, load_config

AGENT = "ag"
# These suites test sync and durability. Hybrid retrieval (the default where memoryd[embed] is
# installed) would embed every archived row (~40 ms each); it has its own tests (test_hybrid.py).
KEYWORD = {"MEMORYD_RETRIEVAL_MODE": "keyword"}
ROOT = Path(__file__).resolve().parent.parent


def device(tmp_path: Path, name: str, url: str, key: bytes | None = None, agent: str = AGENT) -> Config:
    """A MEMORYD_HOME of its own (one device) pointing at `url`; with `key`, the agent is initialised."""
    config = load_config({"MEMORYD_HOME": str(tmp_path / name), "MEMORYD_DB_URL": url, **KEYWORD})
    if key is not None:
        import_key(config, agent, key)
        AgentMemory(config, agent).init()
    return config


def first_device(tmp_path: Path, url: str, name: str = "a", agent: str = AGENT) -> tuple[Config, bytes]:
    config = load_config({"MEMORYD_HOME": str(tmp_path / name), "MEMORYD_DB_URL": url, **KEYWORD})
    key = ensure_key(config, agent)
    AgentMemory(config, agent).init()
    return config, key


def sample(mem: AgentMemory, tag: str = "") -> None:
    """A typical conversation's worth of changes in every tier."""
    mem.store(f"The deploy server{tag} runs nginx on port 8080", "infra/servers")
    mem.store(f"Ada{tag} prefers green tea in the morning", "people/ada")
    mem.store(f"EvoClaw{tag} release is planned for Friday", "projects/evoclaw")

    def edit(state: dict, now: float) -> None:
        from memoryd.tiers.memory import hot

        hot.set_identity(state["hot"], f"name{tag}", "Claw")
        hot.set_profile(state["hot"], f"timezone{tag}", "UTC+8")
        hot.upsert_project(state["hot"], f"evoclaw{tag}", "agent framework", "active", now)
        hot.add_lesson(state["hot"], f"Always back up{tag} before migrating", "ops", 0.9, now)

    mem.change(edit, "test")


def state_of(config: Config, agent: str = AGENT) -> dict[str, Any]:
    return AgentMemory(config, agent).read_state()


def texts(config: Config, agent: str = AGENT) -> set[str]:
    return {e["text"] for e in state_of(config, agent)["warm"]["entries"]}


def run_py(code: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout)


def env_for(config: Config, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update({"MEMORYD_HOME": str(config.home), "MEMORYD_DB_URL": config.db_url, **KEYWORD, **extra})
    return env


def dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)

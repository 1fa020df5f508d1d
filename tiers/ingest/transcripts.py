"""Compatibility entry for the `ingest_transcript` operation: a JSONL transcript through conversation distillation.

Messages are no longer stored one by one as warm facts: the transcript's turns go to cold (when an
archive is open) and only what is worth keeping reaches warm and hot (tiers/ingest/conversation.py). New
code calls the `flush` / `openclaw_sync` operations instead (daemon/ops_openclaw.py).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoryd.tiers.ingest.openclaw.install import OpenClawAgent
from memoryd.tiers.ingest.openclaw.agent_sync import flush_file

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory


def ingest_transcript(mem: AgentMemory, path: Path) -> dict[str, Any]:
    """Ingest what is new in one JSONL transcript (idempotent; offsets kept per session id)."""
    path = Path(path)
    agent = OpenClawAgent(mem.agent_id, mem.agent_id, path, path.parent, mem.config.workspace)
    report = flush_file(mem, agent, path)
    return {"path": str(path), "messages": report["turns"], "stored": report["warm"] + len(report["hot"]),
            "cold": report["cold"], "warnings": report["warnings"]}

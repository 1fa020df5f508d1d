"""Shredding forgets and their check: `forget --shred` (or `[sync] shred_forget`) and `forget --verify`."""
from __future__ import annotations

from typing import Any

from memoryd.daemon.engine import Engine, Params, agent_of


def forget_verify(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, id}: per place, whether anything that could recover the memory's text is left."""
    from memoryd.sync.forget_verify import verify

    return verify(engine.config, agent_of(params), str(params.get("id") or ""))

"""The one structured field retrieval stages write on a result they changed (tiers/retrieval/pipeline.py)."""
from __future__ import annotations

from typing import Any


def note(result: dict[str, Any], stage: str, did: str, **why: Any) -> None:
    """Record on `result` what `stage` did to it and why: `stages: [{"stage", "did", …}]`."""
    result.setdefault("stages", []).append({"stage": stage, "did": did, **why})

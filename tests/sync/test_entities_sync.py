"""Entities across two devices on the real sqld: what device A holds is named in B's `entity list` after a pull,
and a forget on A takes the mention off B after the next sync."""
from __future__ import annotations

import time

from synchelp import AGENT, device, first_device


def _names(api) -> dict[str, int]:
    return {e["name"]: e["mentions"] for e in api.call("entity_list", {"agent_id": AGENT})["entities"]}


def test_entities_follow_pulls_and_forgets(tmp_path, sqld) -> None:
    from memoryd.daemon.api import in_process
    from memoryd.tiers.cold.source import open_index

    sqld.wipe()
    a_cfg, key = first_device(tmp_path, sqld.http_url)
    b_cfg = device(tmp_path, "b", sqld.ws_url, key)
    a, b = in_process(a_cfg), in_process(b_cfg)
    a.call("store", {"agent_id": AGENT, "text": "Dinner with Ottoline about the Zephyr project",
                     "category": "people"})  # warm: travels in the sealed critical state
    now = int(time.time())
    with open_index(a_cfg) as index:  # cold: travels as sealed log rows (outbox → push)
        index.put(AGENT, [{"id": "cold-1", "text": "Call with Bartholomew about the Zephyr project",
                           "category": "chat", "created_at": now},
                          {"id": "cold-2", "text": "Bartholomew said v3.1.4 is out", "category": "chat",
                           "created_at": now}])
    assert _names(a)["Bartholomew"] == 2
    a.call("sync", {"agent_id": AGENT})

    assert _names(b) == {}  # nothing pulled yet: B knows nothing
    b.call("sync", {"agent_id": AGENT})
    on_b = _names(b)
    # a version is a value, not an entity (entity rules v3)
    assert on_b["Ottoline"] == 1 and on_b["Bartholomew"] == 2 and on_b["Zephyr"] == 2 and "v3.1.4" not in on_b
    shown = b.call("entity_show", {"agent_id": AGENT, "name": "Zephyr project"})
    assert {i["id"] for i in shown["facts"]} >= {"cold-1"}

    a.call("forget", {"agent_id": AGENT, "id": "cold-2"})
    a.call("sync", {"agent_id": AGENT})
    assert _names(b)["Bartholomew"] == 2  # B has not synced yet
    b.call("sync", {"agent_id": AGENT})
    on_b = _names(b)
    assert on_b["Bartholomew"] == 1 and "v3.1.4" not in on_b and on_b["Ottoline"] == 1
    shown = b.call("entity_show", {"agent_id": AGENT, "name": "@bartholomew"})
    assert [i["id"] for i in shown["facts"]] == ["cold-1"]

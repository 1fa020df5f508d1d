"""OpenClaw events → turns: nested parts, tools as provenance, thinking, compaction/custom, envelopes, heartbeats."""
from __future__ import annotations

from memoryd.tiers.ingest.openclaw.events import EventParser, Parsed, clean_text, is_scaffolding, strip_envelopes

LEGACY_ENVELOPE = ('Conversation info (untrusted metadata):\n```json\n{"message_id": "wamid.X1", "chat_id": "+4915100000"}\n'
                   '```\n\nSender (untrusted metadata):\n```json\n{"name": "Dana", "e164": "+4915123456789"}\n```\n\n')
NEW_ENVELOPE = ('Conversation info ⟦openclaw:ctx⟧\n```json\n{"message_id": "tg-77"}\n```\n\n'
                'Sender ⟦openclaw:ctx⟧\n```json\n{"username": "dana", "id": "12345"}\n```\n\n')


def _msg(role: str, content, **extra) -> dict:
    return {"type": "message", "timestamp": "2026-11-23T10:00:00.000Z", "message": {"role": role, "content": content,
                                                                                   **extra}}


def parse(events: list) -> Parsed:
    p, out = EventParser("s1"), Parsed()
    for i, e in enumerate(events):
        p.feed(e, i, 0.0, out)
    return out


def test_envelopes_of_both_generations_are_removed() -> None:
    for env in (LEGACY_ENVELOPE, NEW_ENVELOPE):
        text = strip_envelopes("[Mon 2026-11-23 15:36 UTC] " + env + "Book the room for Friday please")
        assert text == "Book the room for Friday please"
    assert "+4915123456789" not in clean_text(LEGACY_ENVELOPE + "hello there", "user")
    inner = ("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nConversation data (data, not instructions):\n\"none\"\n"
             "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nWhat's next?")
    assert clean_text(inner, "user") == "What's next?"


def test_parts_tools_thinking_and_tool_results() -> None:
    out = parse([
        {"type": "session", "id": "s1"},
        _msg("user", [{"type": "text", "text": LEGACY_ENVELOPE + "Please save the plan"}]),
        _msg("assistant", [{"type": "thinking", "thinking": "secret chain of thought"},
                           {"type": "toolCall", "id": "t1", "name": "write", "arguments": {"path": "memory/x.md"}}]),
        _msg("toolResult", [{"type": "text", "text": "Successfully wrote 120 bytes"}], toolCallId="t1"),
        _msg("assistant", [{"type": "text", "text": "[[reply_to_current]] Saved the plan."}]),
        {"type": "custom", "customType": "openclaw:bootstrap-context:full", "data": {"runId": "r"}},
        {"type": "thinking_level_change", "thinkingLevel": "off"},
        {"type": "compaction", "summary": "The owner planned the launch.", "timestamp": "2026-11-23T11:00:00Z"},
    ])
    assert [(t.role, t.text) for t in out.turns] == [("user", "Please save the plan"),
                                                     ("assistant", "Saved the plan."),
                                                     ("summary", "The owner planned the launch.")]
    assert out.turns[1].tools == ["write"]  # the tool call survives only as provenance
    assert all("chain of thought" not in t.text and "Successfully wrote" not in t.text for t in out.turns)
    assert out.skipped["tool result"] == 1 and out.skipped["event custom"] == 1


def test_heartbeats_flush_and_refusals_are_not_conversation() -> None:
    out = parse([
        _msg("user", "[OpenClaw heartbeat poll]", provenance={"kind": "internal_system"}),
        _msg("assistant", [{"type": "text", "text": "HEARTBEAT_OK"}]),
        _msg("user", "check the queue", provenance={"kind": "internal_system"}),
        _msg("assistant", [{"type": "text", "text": "Queue is empty, nothing to report."}]),  # answer to internal
        _msg("user", "Pre-compaction memory flush. Store durable memories only in memory/2026-11-23.md."),
        _msg("assistant", [{"type": "text", "text": "NO_REPLY"}]),
        _msg("user", "/new"),
        _msg("assistant", [{"type": "text", "text": "⚠️ You are not authorized to reset this session."}]),
        _msg("assistant", [{"type": "text", "text": "Compaction finished."}], provider="openclaw",
             model="gateway-injected"),
        _msg("user", "Real question: when is the release?"),
        _msg("assistant", "On Monday."),
        {"type": "reset", "reason": "new"},
    ])
    assert [t.text for t in out.turns] == ["Real question: when is the release?", "On Monday."]
    assert out.resets == [11]
    assert is_scaffolding("NO_REPLY", "assistant") and is_scaffolding("[OpenClaw heartbeat poll]", "user")
    assert is_scaffolding("Grafana it is.", "assistant") is None


def test_broken_events_are_skipped_not_fatal() -> None:
    out = parse([None, 42, "text", {"type": "message"}, {"type": "message", "message": {"role": "user"}},
                 _msg("user", [{"type": "image", "data": "AAAA"}, {"type": "text", "text": "and a caption"}])])
    assert [t.text for t in out.turns] == ["and a caption"]
    assert out.skipped["not an event"] == 3

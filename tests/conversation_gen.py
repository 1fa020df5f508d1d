"""A generated, realistic owner↔assistant conversation (English and Chinese) with seeded facts to find again.

Deterministic for a seed. Most turns are small talk, questions and acknowledgements; a few state a
decision, a preference, a personal fact, a lesson or a dated task/event — those are the seeds a
test expects back in warm. Heartbeats, tool calls, thinking and reply tags are mixed in the way
OpenClaw writes them, so the same data exercises the scaffolding filter.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass

SEEDS = [  # (kind, owner text, words a search for it uses)
    ("decision", "Let's go with Postgres for the billing service, MySQL replication was too painful.", "Postgres billing"),
    ("decision", "We decided to ship the mobile app in March instead of January.", "mobile app March"),
    ("decision", "决定了，我们用 Kubernetes 部署新的推荐服务。", "Kubernetes 推荐服务"),
    ("decision", "Decision: the design review moves to Thursdays.", "design review Thursdays"),
    ("preference", "I prefer short bullet-point summaries over long paragraphs.", "bullet-point summaries"),
    ("preference", "For anything urgent, call me on my mobile, never Slack.", "urgent mobile"),
    ("preference", "我更喜欢早上开会，下午留给写代码。", "早上开会"),
    ("preference", "I don't drink coffee, only green tea.", "green tea"),
    ("personal", "My daughter Mia starts school on 2026-09-01.", "daughter Mia school"),
    ("personal", "I moved to Lisbon last spring.", "Lisbon"),
    ("lesson", "Lesson learned: always pin the Terraform provider version.", "Terraform provider version"),
    ("lesson", "教训：上线前一定要先在预发布环境验证数据库迁移。", "预发布环境"),
    ("task", "Remind me to send the invoice to Contoso by 2026-12-05.", "invoice Contoso"),
    ("task", "提醒我12月8日之前续订域名。", "续订域名"),
    ("event", "The board meeting is on 2026-12-15 at 10:00.", "board meeting"),
    ("event", "My dentist appointment is next Tuesday at 9.", "dentist appointment"),
]
SMALL_TALK_EN = ["How are you today?", "Thanks!", "Can you explain what a CRDT is?", "What's the capital of Portugal?",
                 "ok", "Sounds good.", "Tell me a joke about compilers.", "Summarize the last email thread please.",
                 "What time is it in Tokyo?", "Hmm, let me think about it.", "Could you rephrase that?",
                 "Nice, that works.", "What does HTTP 418 mean?", "Show me an example in Python.",
                 "Is it going to rain this afternoon?", "Let me check and get back to you.",
                 "Can you draft a reply saying I'll look at it tomorrow?", "Great, thank you.",
                 "Why is my build slow?", "What are the pros and cons of monorepos?"]
SMALL_TALK_ZH = ["你好！", "谢谢", "这个问题怎么解决？", "帮我翻译一下这句话。", "好的，明白了。", "今天天气怎么样？",
                 "给我讲个笑话吧。", "这段代码有什么问题？", "嗯，我再想想。", "可以再详细一点吗？"]
ANSWERS = ["Sure, here is what I found.", "Done.", "Here's a short explanation: it depends on the workload.",
           "好的。", "明白了，我来处理。", "I can help with that.", "That makes sense."]


@dataclass
class Conversation:
    events: list[dict]                   # OpenClaw event objects, in order
    seeds: list[tuple[str, str, str]]    # the seeds it contains
    owner_turns: int
    turns: int                           # user + assistant turns that are conversation


def _msg(role: str, content, ts: int, **extra) -> dict:
    return {"type": "message", "timestamp": f"2026-11-20T{(ts // 3600) % 24:02d}:{(ts // 60) % 60:02d}:{ts % 60:02d}.000Z",
            "message": {"role": role, "content": content, "timestamp": 1_795_000_000_000 + ts * 1000, **extra}}


def generate(n_turns: int = 200, seed: int = 7) -> Conversation:
    """About `n_turns` conversation turns (owner + assistant), every seed once, with scaffolding between."""
    rng = random.Random(seed)
    seeds = list(SEEDS)
    slots = sorted(rng.sample(range(2, n_turns // 2 - 1), len(seeds)))
    events: list[dict] = [{"type": "session", "version": 4, "id": "gen-session", "timestamp": "2026-11-20T08:00:00Z"}]
    ts, owner, turns = 8 * 3600, 0, 0
    for i in range(n_turns // 2):
        ts += rng.randint(20, 400)
        if i and i % 17 == 0:  # a heartbeat and its silent answer
            events.append(_msg("user", "[OpenClaw heartbeat poll]", ts, provenance={"kind": "internal_system"}))
            events.append(_msg("assistant", [{"type": "text", "text": rng.choice(["HEARTBEAT_OK", "NO_REPLY"])}], ts + 1))
        if slots and slots[0] == i:
            slots.pop(0)
            kind, text, _ = seeds[len(SEEDS) - len(slots) - 1]
        else:
            text = rng.choice(SMALL_TALK_ZH if rng.random() < 0.3 else SMALL_TALK_EN)
        events.append(_msg("user", text, ts))
        owner += 1
        if i % 9 == 4:  # the agent uses a tool before it answers
            events.append(_msg("assistant", [{"type": "thinking", "thinking": "I should look this up."},
                                             {"type": "toolCall", "id": f"c{i}", "name": "web_search",
                                              "arguments": {"q": text[:20]}}], ts + 2))
            events.append(_msg("toolResult", [{"type": "text", "text": json.dumps({"results": ["x"]})}], ts + 3,
                               toolCallId=f"c{i}"))
        if i % 23 == 11:
            events.append({"type": "custom", "customType": "model-snapshot", "data": {"modelId": "m"}})
        answer = rng.choice(ANSWERS)
        events.append(_msg("assistant", [{"type": "text", "text": ("[[reply_to_current]] " if i % 5 == 0 else "") + answer}],
                           ts + 5))
        turns += 2
    return Conversation(events, seeds, owner, turns)


def to_jsonl(events: list[dict]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)

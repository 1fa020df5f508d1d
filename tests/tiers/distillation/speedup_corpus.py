"""The texts the speed-up tests compare fast and plain code on: the bench's notes, every string literal of
the distill/redact/importance/fact-rules/daily-notes tests, hand-picked near misses (case folding, CJK,
marks), and the words hypothesis builds texts from (the words the shortcuts test for)."""
from __future__ import annotations

import ast
import datetime as dt
import random
import sys
from pathlib import Path

from memoryd.tiers.ingest.note_parse import parse_note

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))  # bench/ is not installed: run from the checkout
from bench.bench_ingest import synth_note  # noqa: E402


def file_literals() -> list[str]:
    names = ("distillation/test_distill.py", "distillation/test_redact.py", "distillation/test_importance.py",
             "distillation/test_fact_rules.py", "ingest/test_dailynotes.py", "ingest/test_note_parse.py",
             "ingest/daily_note_samples.py")
    found = []
    for name in names:
        tree = ast.parse((ROOT / "tests" / "tiers" / name).read_text(encoding="utf-8"))
        found += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return found


def bench_facts() -> list[str]:
    rng = random.Random(7)
    out = []
    for i in range(40):
        day = dt.date(2025, 1, 1) + dt.timedelta(days=i)
        out += [f.text for f in parse_note(synth_note(day, rng, 30), day.isoformat(), classify=False)[0]]
    return out


NEAR_MISSES = [
    "um, so I think we should basically ship it", "Um ok", "so we shipped", "Hmm, well", "hi there, like, hello",
    "OK we had a quick call about billing", "btw the PIN is 4821", "my pin is 4821", "My PIN is hunter2!",
    "the paſsword is s3cret!", "passwd=hunter22", "TOKEN: abcdef123456", "Authorization: Bearer abc123def456ghi",
    "Proxy-Authorization: Basic dXNlcjpwYXNz", "apiKey = 'x9y8z7w6'", "ſo we went", "oK fine", "I think so",
    "I  think so", "I guess it works", "by the way, we moved", "BY THE WAY it broke", "嗯，那个，其实我们决定了",
    "顺便说一下，密码是 Abc12345", "令牌为 ghp_abcdefghijklmnopqrstuvwxyz0123456789", "WWW.example.com/x",
    "see www.Example.org.", "ftp://u:p4ss@host/x", "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXX",
    "Run `make deploy`", "```\n$ pip install x\n```", "> git push origin main", "#deploy #api done",
    "@alice and @Bob.smith", "cd ~/src/app && ls", "../lib/x.py", "11/27 and 1/2", "[REDACTED:password]/etc/x",
    "user@example.com wrote /tmp/a/b", "Decided: use `git` — 決定 — 部署 v1.2", "I've KELVIN \u212a ok",
    "sk-ant-abcdefghijklmnopqrstuvwx", "AKIAABCDEFGHIJKLMNOP", "eyJhbGciOiJI.eyJzdWIiOiIx.abcdefghijk",
    "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----", "xoxb-1234567890-abc", "İ think ı guess",
]
CORPUS = bench_facts() + file_literals() + NEAR_MISSES




WORDS = ["um", "uh", "erm", "hmm", "like,", "basically", "actually", "so", "well", "ok", "okay", "hey", "hi",
         "had a", "productive", "chat", "call", "about", "I", "think", "guess", "feel like", "by the way", "btw",
         "嗯", "那个，", "其实", "就是说", "顺便说一下", "decided", "use", "deploy", "with", "Alice", "Bob", "said", "'s",
         "@peter", "#tag", "`git push origin main`", "```", "$", ">", "/", "src/app.py", "~/x", "https://", "www.",
         "://", "password", "PIN", "pin", "is", "=", ":", "token", "api_key", "secret", "bearer", "Authorization",
         "sk-", "ghp_", "hf_", "AKIA", "eyJ", "密码", "是", "令牌", "决定", "部署", "和王伟讨论", "\u212a", "ſ", "İ", "ı",
         "smart contract", "unit test", "going to", "works now", "can't", "json-rpc", "[REDACTED:secret]", "\n",
         "hunter22", "s3cret!", "x9y8z7w6abcdefghijklmnop", ".", ",", "?", "!", "(", ")", "1/2", "v1.2.3"]

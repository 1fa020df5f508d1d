"""Rule-mode distiller: structured fields, verbatim urls/commands/paths, en + zh, 30-byte core summary."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from memoryd.tiers.distillation.distill import KEYS, core_summary, distill, truncate_bytes


def test_seed_example_fields() -> None:
    d = distill("Had a productive chat about the BSC integration. User decided to use raw JSON-RPC "
                "for BSC to avoid go-ethereum dependency.")
    assert tuple(d) == KEYS
    assert "User" in d["people"]
    assert {"blockchain", "dependencies"} <= set(d["topics"])
    assert d["emotion"] == "determined"
    assert d["outcome"] == "positive"
    assert any(a.startswith("decided to use raw JSON-RPC") for a in d["actions"])
    assert "JSON-RPC" in d["fact"] and not d["fact"].lower().startswith("had a productive chat")


def test_urls_commands_paths_are_verbatim() -> None:
    text = ("Deployed v2.3.0 to https://app.example.com/dash?tab=1. Run `git pull && make deploy` then check "
            "/var/log/app/error.log and ~/.config/memoryd/config.toml; see src/app/main.py (Alice said it works).")
    d = distill(text)
    assert d["urls"] == ["https://app.example.com/dash?tab=1"]
    assert d["commands"] == ["git pull && make deploy"]
    assert d["paths"] == ["/var/log/app/error.log", "~/.config/memoryd/config.toml", "src/app/main.py"]
    assert "Alice" in d["people"]
    assert "deployment" in d["topics"]


def test_commands_from_fences_prompts_and_prose() -> None:
    text = "Setup:\n```bash\n$ pip install memoryd\nmemoryd init --agent-id bot\n```\n$ docker compose up -d\n" \
           "Then we should git push origin main and rest."
    assert distill(text)["commands"] == ["pip install memoryd", "memoryd init --agent-id bot",
                                         "docker compose up -d", "git push origin main"]


def test_prose_tool_words_are_not_commands() -> None:
    d = distill("I use git every day and need to go home; make sure the cat is fed.")
    assert d["commands"] == []


def test_routes_dates_and_urls_are_not_paths() -> None:
    d = distill("Endpoints /users and /auth were discussed on 11/27; docs at https://x.org/a/b/c.html")
    assert d["paths"] == []
    assert d["urls"] == ["https://x.org/a/b/c.html"]


def test_chinese_text() -> None:
    d = distill("我们决定使用 REST 保持简单，和王伟讨论了部署方案。文档在 https://docs.example.cn/api，运行 pip install memoryd 即可。")
    assert d["urls"] == ["https://docs.example.cn/api"]
    assert d["commands"] == ["pip install memoryd"]
    assert "王伟" in d["people"] and "User" in d["people"]
    assert {"api", "deployment"} <= set(d["topics"])
    assert d["emotion"] == "determined" and d["outcome"] == "positive"
    assert any(a.startswith("决定使用 REST") for a in d["actions"])


def test_negative_outcome_and_emotion() -> None:
    d = distill("The deploy failed again with a crash in the worker, I'm frustrated and stuck.")
    assert d["outcome"] == "negative"
    assert d["emotion"] == "frustrated"
    d = distill("部署失败了，报错很多，我很郁闷。")
    assert d["outcome"] == "negative" and d["emotion"] == "frustrated"


def test_neutral_and_empty() -> None:
    d = distill("")
    assert d == {"fact": "", "emotion": "neutral", "people": [], "topics": [], "actions": [], "outcome": "neutral",
                 "urls": [], "commands": [], "paths": []}
    assert core_summary(d) == ""


def test_mentions_and_hashtags() -> None:
    d = distill("Synced with @peter about #hackathon plans")
    assert "peter" in d["people"]
    assert d["topics"][0] == "hackathon"


def test_distill_is_deterministic() -> None:
    text = "Decided to ship v1.0 on Friday; Bob agreed. 记住：预算 5 万。"
    assert distill(text) == distill(text)


def test_core_summary_examples() -> None:
    assert core_summary(distill("User decided raw JSON-RPC for BSC, no go-ethereum")) == "Decided raw JSON-RPC for BSC"
    s = core_summary(distill("我们决定使用 REST 保持简单，和王伟讨论了部署方案。"))
    assert s == "决定使用 REST 保持简单"
    assert len(s.encode()) <= 30


def test_long_fact_is_cut_on_a_boundary() -> None:
    d = distill("word " * 200)
    assert len(d["fact"].encode()) <= 240 and d["fact"].endswith("…")
    zh = distill("记忆" * 300)["fact"]
    assert len(zh.encode()) <= 240 and zh.encode().decode() == zh


def test_truncate_bytes_never_splits_a_character() -> None:
    assert truncate_bytes("ab", 30) == "ab"
    assert truncate_bytes("中文字符" * 5, 10) == "中文字"  # 9 bytes; a 4th char would need 12
    assert truncate_bytes("🙂🙂🙂", 7) == "🙂"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_core_summary_fits_30_bytes_for_any_text(text: str) -> None:
    d = distill(text)
    s = core_summary(d)
    assert len(s.encode("utf-8")) <= 30
    assert set(d) == set(KEYS)
    assert all(u in text for u in d["urls"])
    assert all(p in text for p in d["paths"])


# --- the distill command (rule mode; llm mode is in test_llm.py) ---------------------------------

def test_cli_distill_rule_mode(home) -> None:
    import json

    from click.testing import CliRunner

    from memoryd.cli.main import cli

    text = "User decided to use raw JSON-RPC; see https://x.io/a. password=hunter22"
    res = CliRunner().invoke(cli, ["distill", "--text", text, "--json"])
    assert res.exit_code == 0
    out = json.loads(res.stdout)
    assert out.pop("schema") == 1 and tuple(out) == KEYS and out["urls"] == ["https://x.io/a"]
    assert "hunter22" not in res.stdout and "[REDACTED:password]" in out["fact"]
    res = CliRunner().invoke(cli, ["distill", "--text", text, "--core-summary"])
    assert res.exit_code == 0 and res.stdout.strip() == core_summary(distill(text.replace("hunter22", "[REDACTED:password]")))
    res = CliRunner().invoke(cli, ["distill", "--text", "我们决定使用 REST", "--core-summary", "--json"])
    assert json.loads(res.stdout)["core_summary"] == "决定使用 REST"
    res = CliRunner().invoke(cli, ["distill", "--text", "-"], input="Fixed the bug in src/app.py\n")
    assert res.exit_code == 0 and json.loads(res.stdout)["paths"] == ["src/app.py"]


def test_cli_distill_bad_input(home) -> None:
    from click.testing import CliRunner

    from memoryd.cli.main import cli

    for args in (["distill", "--text", "   "], ["distill", "--text", "x" * 70000], ["distill", "--text", "x", "--mode", "nope"]):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2 and res.stdout == ""


def test_roles_are_not_people() -> None:
    """Transcripts name the speakers by role ('Owner prefers …', 'Assistant suggested …'): not names."""
    assert distill("Owner prefers Signal for urgent matters.")["people"] == []
    assert distill("Assistant suggested Grafana; Priya agreed")["people"] == ["Priya"]

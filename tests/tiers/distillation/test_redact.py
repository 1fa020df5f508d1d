"""Secrets are replaced by [REDACTED:<kind>]; ordinary prose that mentions secrets is kept."""
from __future__ import annotations

import pytest

from memoryd.tiers.distillation.redact import contains_secret, redact, redact_obj

# Fake secrets assembled at runtime so the repo itself holds no provider-shaped strings.
OPENAI = "sk-" + "proj-" + "Ab3dEf6hIj9lMn0pQr2tUv5x"
POSITIVES = [
    (f"use {OPENAI} for the bot", "openai_key", OPENAI),
    ("key sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4", "openai_key", "A1b2C3d4E5f6G7h8I9j0"),
    ("sk-" + "ant-api03-" + "x" * 30 + "9", "anthropic_key", "api03"),
    ("token ghp_" + "Z9" * 18, "github_token", "ghp_"),
    ("github_pat_" + "11ABCDEFG" + "0" * 20, "github_token", "github_pat_"),
    ("glpat-" + "xYz12345678901234567890", "gitlab_token", "xYz1234"),
    ("hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "huggingface_token", "AbCdEfGh"),
    ("npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm_token", "a1B2c3"),
    ("AKIA" + "IOSFODNN7EXAMPLE is the key id", "aws_access_key", "IOSFODNN7"),
    ("xoxb-" + "123456789012-abcdefghijkl", "slack_token", "xoxb-"),
    ("AIza" + "SyA-" + "q" * 31, "google_api_key", "AIza"),
    ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe_key", "4eC39"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "jwt", "dozjgN"),
    ("curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com", "authorization", "abc123"),
    ("Authorization: Basic dXNlcjpwYXNz", "authorization", "dXNlcjpwYXNz"),
    ("send Bearer abcdef1234567890XYZ in the header", "bearer_token", "abcdef1234567890XYZ"),
    ("db at postgres://bob:s3cr3t-pw@db.example.com:5432/app", "url_password", "s3cr3t-pw"),
    ("password=hunter2", "password", "hunter2"),
    ("DB_PASSWORD=correct-horse-battery", "password", "correct-horse"),
    ("token=abc123xyz", "secret", "abc123xyz"),
    ("api_key: 'xyz987654321'", "secret", "xyz987654321"),
    ('{"client_secret": "p@ssw0rd!"}', "secret", "p@ssw0rd"),
    ("https://api.example.com/v1?access_token=abcdef123&page=2", "secret", "abcdef123"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
     "private_key", "b3BlbnNz"),
    ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC (truncated paste", "private_key", "MIIEvQ"),
    ("my password is hunter2!", "password", "hunter2"),
    ("Password: Tr0ub4dor&3", "password", "Tr0ub4dor"),
    ("服务器密码是 Abc12345，别告诉别人", "password", "Abc12345"),
]
NEGATIVES = [
    "I forgot my password again, need to reset it",
    "the token bucket algorithm limits the rate",
    "we should rotate the API key every month",
    "token=$GITHUB_TOKEN is read from the environment",
    "set password=<your-password> in the config",
    "the password is wrong",
    "password: reset it via email",
    "max_tokens=500 and temperature=0.2",
    "pip install scikit-learn, not sk-learn",
    "sk-short",
    "bearer authentication is a scheme",
    "Authorization: header is required for this endpoint",
    "http://localhost:8080/api and ssh://git@github.com/org/repo.git",
    "AKIA is the prefix of AWS access key ids",
    "ghp_ tokens are GitHub personal access tokens",
    "xoxb- is a Slack bot token prefix",
    "the JWT starts with eyJ",
    "hf_hub_download and npm_config_cache are names, not tokens",
    "-----BEGIN PUBLIC KEY----- is fine to share",
    "我忘了密码，需要重置",
    "令牌桶算法用于限流",
    "",
]


@pytest.mark.parametrize("text,kind,secret", POSITIVES)
def test_secret_is_replaced(text: str, kind: str, secret: str) -> None:
    clean, counts = redact(text)
    assert secret not in clean
    assert f"[REDACTED:{kind}]" in clean
    assert counts.get(kind, 0) >= 1
    assert contains_secret(text)


@pytest.mark.parametrize("text", NEGATIVES)
def test_near_miss_is_kept(text: str) -> None:
    assert redact(text) == (text, {})


def test_context_around_the_secret_is_kept() -> None:
    clean, _ = redact("curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com/x")
    assert clean == "curl -H 'Authorization: [REDACTED:authorization]' https://api.example.com/x"
    clean, _ = redact("postgres://bob:s3cr3t@db:5432/app")
    assert clean == "postgres://bob:[REDACTED:url_password]@db:5432/app"


def test_counts_several_kinds_and_repeats() -> None:
    text = f"a {OPENAI} b {OPENAI} c password=hunter2 d AKIAIOSFODNN7EXAMPLE"
    clean, counts = redact(text)
    assert counts == {"openai_key": 2, "password": 1, "aws_access_key": 1}
    assert "hunter2" not in clean and OPENAI not in clean


def test_redaction_is_idempotent() -> None:
    once, _ = redact(f"x {OPENAI} password=hunter2 postgres://u:p4ss@h/db")
    assert redact(once) == (once, {})


def test_redact_obj_walks_nested_values() -> None:
    obj = {"text": "password=hunter2", "metadata": {"urls": ["https://u:pw123@host/x"], "n": 3}}
    clean, counts = redact_obj(obj)
    assert counts == {"password": 1, "url_password": 1}
    assert "hunter2" not in str(clean) and "pw123" not in str(clean)
    assert clean["metadata"]["n"] == 3  # type: ignore[index]

"""Helpers for the web view's tests: a home with real memories, and an http.client session with its cookie."""
from __future__ import annotations

import http.client
import re
import time
from typing import Any
from urllib.parse import urlencode, urlsplit

from memoryd.daemon.api import in_process
from memoryd.tiers.base.config import Config
from memoryd.tiers.cold.source import open_index

FACTS = [
    ("Alice prefers green tea in the morning", "people/alice", 0.8),
    ("The deploy script lives in tools/deploy.sh and needs the staging key", "projects/infra", 0.9),
    ("Bob's birthday is on the third of March", "people/bob", 0.6),
    ("The CI cache is cleared every Sunday night", "projects/infra", 0.4),
]
DAY = 86400


def dispatch(config: Config, name: str, params: dict[str, Any]) -> Any:
    """One operation by its wire name through the application API, in this process (as the CLI without a daemon)."""
    api = in_process(config)
    try:
        return api.call(name, params)
    finally:
        api.close()


def seed(config: Config, agent: str = "default", cold: int = 120) -> dict[str, Any]:
    """Memories the way a user makes them (the CLI's operations), and `cold` archived rows over 60 days."""
    dispatch(config, "init", {"agent_id": agent})
    ids = [dispatch(config, "store", {"agent_id": agent, "text": t, "category": c, "importance": i})["id"]
           for t, c, i in FACTS]
    dispatch(config, "hot_change", {"agent_id": agent, "kind": "lesson", "text": "Always run the tests before pushing"})
    dispatch(config, "hot_change", {"agent_id": agent, "kind": "identity", "key": "name", "value": "Ada"})
    now = int(time.time())
    rows = [{"id": f"cold{n:05d}", "text": f"Archived note {n} about the quarterly budget review number {n % 7}",
             "category": "archive/notes" if n % 2 else "projects/infra", "importance": 0.3,
             "created_at": now - (n % 60) * DAY - 3600} for n in range(cold)]
    with open_index(config) as index:
        index.put(agent, rows)
    return {"warm_ids": ids, "cold": rows}


class Session:
    """An http.client session against a web view on 127.0.0.1 (cookie kept after the token login)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.port = parts.port or 80
        self.token = dict(p.split("=", 1) for p in parts.query.split("&"))["token"]
        self.cookie: str | None = None

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Host": f"127.0.0.1:{self.port}"}
        if self.cookie:
            sent["Cookie"] = self.cookie
        sent.update(headers or {})
        try:
            conn.request(method, path, body=body, headers=sent)
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read().decode("utf-8", "replace")
        finally:
            conn.close()

    def login(self) -> dict[str, str]:
        status, headers, _ = self.request("GET", f"/?token={self.token}")
        assert status == 303, status
        self.cookie = headers["set-cookie"].split(";", 1)[0]
        return headers

    def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], str]:
        return self.request("GET", path, headers=headers)

    def post(self, path: str, fields: dict[str, str], **headers: str) -> tuple[int, dict[str, str], str]:
        return self.request("POST", path, urlencode(fields).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded", **headers})

    def csrf(self, path: str = "/hot") -> str:
        status, _, body = self.get(path)
        assert status == 200, body
        found = re.search(r'name="csrf" value="([0-9a-f]+)"', body)
        assert found, "no CSRF field on the page"
        return found.group(1)


def text_of(html: str) -> str:
    """The page's text, tags dropped (for assertions about what a reader sees)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'").replace("&quot;", '"')

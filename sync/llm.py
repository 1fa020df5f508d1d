"""HttpLLM: tiers.ports.LLM over HTTP (OpenAI-compatible chat completions or a plain completion endpoint)."""
from __future__ import annotations

import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import ConfigError, RemoteError

DEFAULT_TIMEOUT = 30.0
MAX_RESPONSE_BYTES = 4 * 1024 * 1024


def _safe_endpoint(url: str) -> str:
    """scheme://host[:port]/path without user info or query: safe to show in messages."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


class HttpLLM:
    """A text-completion endpoint. `complete()` raises RemoteError on timeout/HTTP/transport failure.

    Endpoint kinds, by path: `.../chat/completions` → OpenAI chat (as is); `.../v1` → `/v1/chat/completions`;
    anything else → the seed's plain completion endpoint: POST {"prompt": ...} → {"text"|"content"|"completion"|...}.
    """

    def __init__(self, endpoint: str, model: str | None = None, api_key: str | None = None) -> None:
        try:
            parts = urllib.parse.urlsplit(endpoint or "")
            parts.port  # noqa: B018 - raises on a port out of range
        except ValueError as exc:
            raise ConfigError(f"MEMORYD_LLM_ENDPOINT is not a valid URL ({exc})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError("MEMORYD_LLM_ENDPOINT must be an http:// or https:// URL")
        self._basic = None  # user:password in the URL becomes a Basic header (urllib cannot send it inline)
        if parts.username is not None:
            import base64

            cred = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            self._basic = "Basic " + base64.b64encode(cred.encode("utf-8")).decode("ascii")
            name = parts.hostname or ""
            host = (f"[{name}]" if ":" in name else name) + (f":{parts.port}" if parts.port else "")
            parts = parts._replace(netloc=host)
            endpoint = urllib.parse.urlunsplit(parts)
        path = parts.path.rstrip("/")
        if path.endswith("/chat/completions"):
            self.kind, url = "chat", endpoint
        elif path.endswith("/v1"):
            self.kind = "chat"
            url = urllib.parse.urlunsplit(parts._replace(path=path + "/chat/completions"))
        else:
            self.kind, url = "plain", endpoint
        self.url = url
        self.model = model or "default"
        self._api_key = api_key  # sent as a Bearer header; never logged or put in messages

    def __repr__(self) -> str:
        return f"HttpLLM({_safe_endpoint(self.url)!r}, kind={self.kind!r}, model={self.model!r})"

    def _body(self, prompt: str) -> dict[str, Any]:
        if self.kind == "chat":
            return {"model": self.model, "messages": [{"role": "user", "content": prompt}],
                    "temperature": 0, "stream": False}
        return {"prompt": prompt, "model": self.model, "temperature": 0, "stream": False}

    def _post(self, body: dict[str, Any], timeout: float) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "memoryd"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        elif self._basic:
            headers["Authorization"] = self._basic
        req = urllib.request.Request(self.url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
        where = _safe_endpoint(self.url)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (http/https checked above)
                data = resp.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise RemoteError(f"LLM endpoint {where} returned HTTP {exc.code}",
                              transient=exc.code >= 500 or exc.code == 429) from None
        except (socket.timeout, TimeoutError):
            raise RemoteError(f"LLM endpoint {where} timed out after {timeout:g}s") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise RemoteError(f"LLM endpoint {where} timed out after {timeout:g}s") from None
            raise RemoteError(f"LLM endpoint {where} unreachable: {getattr(reason, 'strerror', None) or reason}") from None
        except (OSError, ValueError) as exc:  # connection reset mid-read, bad chunking
            raise RemoteError(f"LLM endpoint {where} failed: {type(exc).__name__}") from None
        if len(data) > MAX_RESPONSE_BYTES:
            raise RemoteError(f"LLM endpoint {where} answered more than {MAX_RESPONSE_BYTES} bytes")
        return data

    def complete(self, prompt: str, *, timeout: float = DEFAULT_TIMEOUT) -> str:
        data = self._post(self._body(prompt), timeout)
        try:
            return _extract_text(json.loads(data.decode("utf-8")))
        except (ValueError, UnicodeDecodeError, KeyError, IndexError, TypeError):
            raise RemoteError(f"LLM endpoint {_safe_endpoint(self.url)} sent a response memoryd cannot read",
                              transient=False) from None


def _extract_text(obj: Any) -> str:
    """The completion text from the common response shapes (OpenAI chat/completions, llama.cpp, Ollama, seed)."""
    if isinstance(obj, dict):
        choices = obj.get("choices")
        if isinstance(choices, list) and choices:
            first = choices[0]
            msg = first.get("message") if isinstance(first, dict) else None
            if isinstance(msg, dict) and isinstance(msg.get("content"), str):
                return msg["content"]
            if isinstance(first, dict) and isinstance(first.get("text"), str):
                return first["text"]
        for key in ("text", "content", "completion", "response", "output"):
            if isinstance(obj.get(key), str):
                return obj[key]
        if isinstance(obj.get("message"), dict) and isinstance(obj["message"].get("content"), str):
            return obj["message"]["content"]  # Ollama /api/chat
    raise ValueError("no completion text in the response")


def llm_from_config(config: Config) -> HttpLLM | None:
    """The configured LLM (MEMORYD_LLM_ENDPOINT; optional [llm] model/api_key_env in config.toml), or None."""
    if not config.llm_endpoint:
        return None
    return HttpLLM(config.llm_endpoint, model=config.llm.model, api_key=config.llm_api_key)

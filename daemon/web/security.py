"""Who may use the web view: a random token (once in the URL, then an HttpOnly SameSite=Strict cookie),
the loopback Host and Origin only, and a CSRF token on every change.

The token is never logged; the CSRF token is derived from it (HMAC), so a page cannot guess either.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from http.cookies import CookieError, SimpleCookie

COOKIE = "memoryd_web"
HOSTS = ("127.0.0.1", "localhost")


class Guard:
    """The checks of one running web view (its port and its token)."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.token = token or secrets.token_urlsafe(32)
        self.csrf = hmac.new(self.token.encode(), b"memoryd-web-csrf", hashlib.sha256).hexdigest()
        self.hosts = {f"{h}:{port}" for h in HOSTS}
        self.origins = {f"http://{h}" for h in self.hosts}

    def host_ok(self, host: str | None) -> bool:
        """DNS rebinding: a page of another site resolved to 127.0.0.1 still sends its own Host."""
        return (host or "").strip().lower() in self.hosts

    def origin_ok(self, origin: str | None, fetch_site: str | None) -> bool:
        """No Origin (a typed URL, a same-origin GET) is fine; any other origin is refused."""
        if fetch_site is not None and fetch_site.strip().lower() == "cross-site":
            return False
        return origin is None or origin.strip().lower() in self.origins

    def token_ok(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(str(value).encode(), self.token.encode())

    def cookie_ok(self, header: str | None) -> bool:
        if not header:
            return False
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(header)
        except CookieError:
            return False
        morsel = cookie.get(COOKIE)
        return morsel is not None and self.token_ok(morsel.value)

    def set_cookie(self) -> str:
        return f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"

    def csrf_ok(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(str(value).encode(), self.csrf.encode())

    def url(self, path: str = "/") -> str:
        """The URL to open (printed once; it holds the token)."""
        return f"http://127.0.0.1:{self.port}{path}?token={self.token}"

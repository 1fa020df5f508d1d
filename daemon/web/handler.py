"""One HTTP request of the web view: the checks (Host, Origin, token or cookie, CSRF), then a page or an edit."""
from __future__ import annotations

import logging
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable
from urllib.parse import parse_qsl, urlencode, urlsplit

from memoryd.daemon.web import find_pages, overview, review_page, tier_pages
from memoryd.daemon.web.edits import EDITS
from memoryd.daemon.web.render import HERE, View, esc, page, refused
from memoryd.tiers.base.config import validate_agent_id
from memoryd.tiers.base.errors import MemorydError, UsageError

log = logging.getLogger("memoryd.web")
MAX_BODY = 64 * 1024
PAGES: dict[str, Callable[[View], tuple[str, str]]] = {
    "/": overview.overview, "/hot": tier_pages.hot, "/warm": tier_pages.warm, "/search": find_pages.search,
    "/tree": tier_pages.tree, "/evictions": find_pages.evictions, "/review": review_page.review,
}
STATIC = {"/static/app.css": "text/css; charset=utf-8", "/static/app.js": "text/javascript; charset=utf-8"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Resource-Policy": "same-origin",
}


class Handler(BaseHTTPRequestHandler):
    def version_string(self) -> str:
        return "memoryd-web"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Request lines can hold the token: only the method and the path are logged, at debug level."""
        log.debug("%s %s", self.command, urlsplit(self.path or "").path)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._serve()

    def do_POST(self) -> None:  # noqa: N802
        self._serve()

    # -- the checks ----------------------------------------------------------------------
    def _serve(self) -> None:
        app = self.server.app  # type: ignore[attr-defined]
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        if not app.guard.host_ok(self.headers.get("Host")):
            return self._refuse("This request was not addressed to the web view on 127.0.0.1 or localhost.")
        if not app.guard.origin_ok(self.headers.get("Origin"), self.headers.get("Sec-Fetch-Site")):
            return self._refuse("Requests from other sites are not honoured.")
        if "token" in query:
            if not app.guard.token_ok(query["token"]):
                return self._refuse("The access token is wrong.")
            rest = {k: v for k, v in query.items() if k != "token"}  # the token leaves the address bar
            return self._redirect(url.path + (f"?{urlencode(rest)}" if rest else ""), app.guard.set_cookie())
        if not app.guard.cookie_ok(self.headers.get("Cookie")):
            return self._refuse("No valid access token.")
        try:
            if self.command == "POST":
                self._post(app, url.path)
            elif url.path in STATIC:
                self._static(url.path)
            else:
                self._page(app, url.path, query)
        except Exception:  # a bug: a plain 500 (never the request line: it may carry data)
            log.exception("web view: %s %s failed", self.command, url.path)
            self._send(500, "text/plain; charset=utf-8", b"internal error (see the log)")

    def _refuse(self, reason: str) -> None:
        self._send(403, "text/html; charset=utf-8", refused(reason).encode())

    # -- reads -----------------------------------------------------------------------------
    def _view(self, app: Any, path: str, query: dict[str, str], agent: str | None) -> View:
        agents = app.data.agents()
        chosen = agent or app.default_agent or ("default" if "default" in agents or not agents else agents[0])
        return View(path=path, query=query, agent=validate_agent_id(chosen), agents=agents, data=app.data,
                    csrf=app.guard.csrf, edits=app.edits)

    def _page(self, app: Any, path: str, query: dict[str, str]) -> None:
        fn = PAGES.get(path)
        if fn is None:
            return self._send(404, "text/plain; charset=utf-8", b"not found")
        try:
            view = self._view(app, path, query, query.get("agent"))
        except UsageError as exc:
            return self._send(400, "text/plain; charset=utf-8", exc.message.encode())
        status = 200
        try:
            if view.agent not in view.agents:
                raise UsageError(f"no agent {view.agent!r} on this device (memoryd init, or memoryd restore)")
            title, body = fn(view)
        except MemorydError as exc:
            status = 400 if isinstance(exc, UsageError) else 500
            title, body = "Not shown", f'<p class="error" role="alert">{esc(exc.message)}</p>'
        self._send(status, "text/html; charset=utf-8", page(view, title, body).encode())

    def _static(self, path: str) -> None:
        body = (HERE / "static" / path.rsplit("/", 1)[1]).read_bytes()
        self._send(200, STATIC[path], body, cache="private, max-age=3600")

    # -- edits -----------------------------------------------------------------------------
    def _post(self, app: Any, path: str) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            return self._send(413, "text/plain; charset=utf-8", b"request too large")
        form = dict(parse_qsl(self.rfile.read(length).decode("utf-8", "replace"), keep_blank_values=True))
        if not app.guard.csrf_ok(form.get("csrf")):
            return self._refuse("The form's CSRF token is missing or wrong: reload the page and try again.")
        if not app.edits:
            return self._refuse("The web view is read-only: set [web] allow_edits = true in config.toml to edit.")
        edit = EDITS.get(path)
        if edit is None:
            return self._send(404, "text/plain; charset=utf-8", b"not found")
        back = form.get("back", "/")
        if not back.startswith("/") or back.startswith("//") or "\\" in back:
            back = "/"
        try:
            view = self._view(app, urlsplit(back).path, {}, form.get("agent"))
            if view.agent not in view.agents:  # an edit never creates an agent
                raise UsageError(f"no agent {view.agent!r} on this device")
            outcome = {"msg": edit(view, form)}
        except MemorydError as exc:
            outcome = {"error": exc.message}
        self._redirect(back + ("&" if "?" in back else "?") + urlencode(outcome))

    # -- responses -------------------------------------------------------------------------
    def _redirect(self, location: str, cookie: str | None = None) -> None:
        self.send_response(303)
        self.send_header("Location", location)
        if cookie:
            self.send_header("Set-Cookie", cookie)
        self._common_headers("no-store")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: int, ctype: str, body: bytes, cache: str = "no-store") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self._common_headers(cache)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _common_headers(self, cache: str) -> None:
        self.send_header("Cache-Control", cache)
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)

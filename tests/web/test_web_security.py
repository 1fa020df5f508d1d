"""Who may use the web view: token then cookie, loopback Host and Origin only, CSRF on every change."""
from __future__ import annotations

import logging
import socket

import pytest

from memoryd.daemon.web.server import WebServer


def test_it_listens_on_loopback_only(web) -> None:
    server, _ = web
    assert server.httpd.server_address[0] == "127.0.0.1"
    other = [a for a in {i[4][0] for i in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
             if not a.startswith("127.")]
    for addr in other:  # a non-loopback address of this machine does not reach it
        with pytest.raises(OSError):
            socket.create_connection((addr, server.port), timeout=1).close()


def test_the_token_becomes_a_strict_httponly_cookie_and_leaves_the_url(web) -> None:
    _, s = web
    status, headers, _ = s.request("GET", f"/warm?token={s.token}&category=people")
    assert status == 303
    assert headers["location"] == "/warm?category=people"
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    s.cookie = cookie.split(";", 1)[0]
    status, _, body = s.get("/")
    assert status == 200 and "Overview" in body


@pytest.mark.parametrize("path", ["/", "/hot", "/warm", "/search?q=tea", "/tree", "/evictions", "/static/app.css"])
def test_without_the_token_every_path_is_refused(web, path: str) -> None:
    _, s = web
    status, _, body = s.get(path)
    assert status == 403
    assert "Alice" not in body and "tea" not in body.replace("?q=tea", "")


def test_a_wrong_token_or_cookie_is_refused(web) -> None:
    _, s = web
    assert s.get("/?token=" + "x" * 43)[0] == 403
    s.cookie = "memoryd_web=" + "x" * 43
    assert s.get("/")[0] == 403


@pytest.mark.parametrize("host", ["evil.example:8377", "127.0.0.1", "localhost:1", "127.0.0.2:{port}", ""])
def test_a_foreign_host_is_refused_even_with_the_token(web, host: str) -> None:
    server, s = web
    s.login()
    assert s.get("/", Host=host.format(port=server.port))[0] == 403
    assert s.get(f"/?token={s.token}", Host=host.format(port=server.port))[0] == 403


def test_localhost_is_a_host_too(web) -> None:
    server, s = web
    s.login()
    assert s.get("/hot", Host=f"localhost:{server.port}")[0] == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}"])
def test_a_foreign_origin_is_refused(web, origin: str) -> None:
    server, s = web
    s.login()
    assert s.get("/", Origin=origin.format(port=server.port))[0] == 403
    assert s.get("/", Origin=f"http://127.0.0.1:{server.port}")[0] == 200
    assert s.get("/", **{"Sec-Fetch-Site": "cross-site"})[0] == 403


def test_a_change_needs_the_csrf_token_and_edits_allowed(web, web_edit) -> None:
    ro_server, ro = web
    ro.login()
    csrf = ro_server.guard.csrf  # a read-only view shows no form: the right token from the server itself
    assert ro.post("/forget", {"id": "x", "csrf": csrf, "agent": "default"})[0] == 403  # read-only
    _, rw = web_edit
    rw.login()
    assert rw.post("/forget", {"id": "x", "agent": "default"})[0] == 403
    assert rw.post("/forget", {"id": "x", "csrf": "0" * 64, "agent": "default"})[0] == 403
    assert rw.post("/forget", {"id": "x", "csrf": csrf, "agent": "default"})[0] == 403  # another server's
    status, headers, _ = rw.post("/forget", {"id": "nope", "csrf": rw.csrf(), "agent": "default", "back": "/hot"})
    assert status == 303 and headers["location"].startswith("/hot?error=")


def test_changes_are_post_only(web_edit) -> None:
    _, s = web_edit
    s.login()
    assert s.get(f"/forget?id=x&csrf={s.csrf()}")[0] == 404


def test_the_token_is_never_logged(web, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture) -> None:
    _, s = web
    with caplog.at_level(logging.DEBUG, logger="memoryd"):
        s.login()
        s.get(f"/hot?token={s.token}")
        s.get("/nothing-here")
    out, err = capfd.readouterr()
    assert s.token not in caplog.text + out + err


def test_security_headers(web) -> None:
    _, s = web
    s.login()
    _, headers, _ = s.get("/")
    assert "default-src 'none'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY" and headers["cache-control"] == "no-store"
    assert headers["referrer-policy"] == "same-origin"  # no-referrer would make a form POST's Origin "null"


def test_a_busy_port_is_a_clear_error(kw_config) -> None:
    from memoryd.tiers.base.errors import MemorydError

    first = WebServer(kw_config, 0)
    try:
        with pytest.raises(MemorydError, match="cannot listen on 127.0.0.1"):
            WebServer(kw_config, first.port)
    finally:
        first.httpd.server_close()

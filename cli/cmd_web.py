"""`memoryd web [--port P] [--open]`: the local web view, on 127.0.0.1, behind a token printed once."""
from __future__ import annotations

import faulthandler
import signal

import click

from memoryd.cli.common import check_optional_agent, get_config, handles_errors
from memoryd.cli.main import cli


STOP_CHECK_S = 2.0  # the standalone view looks for a stop this often while idle (the daemon's view does not poll)


@cli.command()
@click.option("--port", type=click.IntRange(0, 65535), default=None,
              help="Loopback port (default: [web] port, 8377; 0 picks a free one).")
@click.option("--open", "open_browser", is_flag=True, help="Open the view in the browser.")
@click.option("--agent-id", "agent_id", default=None, callback=check_optional_agent,
              help="Agent shown first [default: default, else the first one].")
@handles_errors
def web(port: int | None, open_browser: bool, agent_id: str | None) -> None:
    """Serve the web view of this device's memory on 127.0.0.1 until Ctrl-C.

    The address printed on stdout holds a one-time access token; it is shown only here. When the daemon
    already serves the view ([web] enabled = true), its address is printed instead.
    """
    from memoryd.daemon.web.server import WebServer, daemon_url

    config = get_config()
    url = daemon_url(config) if port is None or port == config.web.port else None
    if url is not None:
        if agent_id:
            url += f"&agent={agent_id}"
        click.echo(url)
        click.echo("memoryd: the daemon serves the web view at this address", err=True)
        _open(url, open_browser)
        return
    server = WebServer(config, port, agent_id=agent_id)
    # a service manager's stop: serve_forever returns and closes as after Ctrl-C. Set before the address is
    # printed (whoever reads it may stop us at once), and no exception raised wherever the signal lands: one
    # raised inside the closing code left the process hanging now and then
    signal.signal(signal.SIGTERM, lambda signum, frame: server.request_stop())
    # SIGUSR1 dumps every thread's stack to stderr: a process that does not stop can say where it waits
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    server.httpd.timeout = STOP_CHECK_S  # if the stop's wake-up connection is ever lost, the loop still looks
    click.echo(server.url)
    edits = "edits allowed" if server.edits else "read-only"
    click.echo(f"memoryd: web view on http://127.0.0.1:{server.port}/ ({edits}); Ctrl-C to stop", err=True)
    _open(server.url, open_browser)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def _open(url: str, wanted: bool) -> None:
    if wanted:
        import webbrowser

        if not webbrowser.open(url):
            click.echo("memoryd: no browser could be opened; open the address above", err=True)

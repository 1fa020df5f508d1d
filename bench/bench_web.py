"""Benchmark the web view: time to first byte and full load per page at 10k and 100k memories, first paint in
Debian's chromium, and the daemon's idle RSS with the web view on vs off (goals: first paint < 200 ms at 100k,
RSS <= 5 MiB more).

The server floor (a static file through the same checks) is printed beside the pages as their baseline.
Run: .venv/bin/python bench/bench_web.py [--sizes 10000,100000] [--runs 7] [--no-browser]
"""
from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

PAGES = ["/", "/hot", "/warm", "/search?q=budget+review+garden", "/tree", "/evictions", "/evictions?q=invoice",
         "/static/app.css"]
WORDS = ("garden invoice budget review deploy staging kite tea birthday meeting server backup laptop desktop "
         "project quarterly report lunch travel train ticket doctor lesson python script release bug fix "
         "customer contract holiday weather music guitar book chapter recipe coffee").split()
DAY = 86400
EXE = str(Path(sys.executable).parent / "memoryd")
PAINT = """() => new Promise((done) => {
  const nav = () => performance.getEntriesByType("navigation")[0].loadEventEnd;
  new PerformanceObserver((list) => {
    const fcp = list.getEntriesByName("first-contentful-paint")[0];
    if (fcp) done([fcp.startTime, nav()]);
  }).observe({type: "paint", buffered: true});
  setTimeout(() => done([-1, nav()]), 3000);
})"""


def build_home(root: Path, cold: int, mode: str = "keyword") -> dict[str, str]:
    """A home with a full warm tier, ~20 tree nodes, `cold` rows in the local index and a full eviction log
    (`mode` hybrid: every memory embedded as it arrives, as with the embed extra)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update(MEMORYD_HOME=str(root / "home"), MEMORYD_SOCKET=str(root / "d.sock"),
               MEMORYD_RETRIEVAL_MODE=mode, MEMORYD_WORKSPACE=str(root / "ws"), OPENCLAW_STATE_DIR=str(root / "oc"))
    os.environ.update(env)
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.memory.agent import AgentMemory

    config = load_config(env)
    api = in_process(config, shared=True)
    dispatch = lambda _config, name, params: api.call(name, params)  # noqa: E731 - the operations, by wire name
    rnd = random.Random(7)
    cats = [f"{a}/{b}" for a in ("people", "projects", "home", "work") for b in ("alpha", "beta", "gamma", "delta")]
    dispatch(config, "init", {"agent_id": "default"})
    for i in range(400):  # more than warm holds: it fills to its 50 KB and the rest leaves for cold
        dispatch(config, "store", {"agent_id": "default", "category": rnd.choice(cats), "importance": rnd.random(),
                                   "text": " ".join(rnd.choices(WORDS, k=9)) + f" number {i}"})
    for i in range(8):
        dispatch(config, "hot_change", {"agent_id": "default", "kind": "lesson", "text": f"lesson {i}: " +
                                        " ".join(rnd.choices(WORDS, k=8))})
    now = time.time()
    with open_index(config) as index:
        for start in range(0, cold, 5000):
            index.put("default", [{"id": f"c{n:07d}", "text": " ".join(rnd.choices(WORDS, k=12)) + f" note {n}",
                                   "category": rnd.choice(cats), "importance": round(rnd.random(), 3),
                                   "created_at": int(now - rnd.random() * 3 * 365 * DAY)}
                                  for n in range(start, min(cold, start + 5000))])
    if mode == "hybrid":  # rows put straight into the index get their vectors from the backfill
        dispatch(config, "embed", {"agent_id": "default"})
    log = AgentMemory(config, "default").evictions
    rotated = log.path.with_name(log.path.name + ".1")
    with AgentMemory(config, "default").exclusive():  # the log at its largest: two files of ~1 MiB (it rotates)
        while not (rotated.exists() and log.path.stat().st_size > 900_000):
            log.append([{"tier": "warm", "kind": "entry", "id": f"e{n}", "to": "cold", "reason": "daily",
                         "what": " ".join(rnd.choices(WORDS, k=8)), "why": "score 0.120 after 30 days"}
                        for n in range(2000)], now)
    dispatch(config, "status", {"agent_id": "default"})  # its cached eviction summary, as after any status
    api.close()
    return env


def fetch(port: int, cookie: str, path: str) -> tuple[float, float, int]:
    """(ms to the first byte, ms to the last byte, status) of one GET on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    t0 = time.perf_counter()
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", "Cookie": cookie})
    resp = conn.getresponse()
    first = time.perf_counter()
    resp.read()
    done = time.perf_counter()
    conn.close()
    return (first - t0) * 1000, (done - t0) * 1000, resp.status


def start_web(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([EXE, "web", "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    return proc, proc.stdout.readline().strip()


def login(url: str) -> tuple[int, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=30)
    conn.request("GET", f"/?{parts.query}", headers={"Host": f"127.0.0.1:{parts.port}"})
    cookie = conn.getresponse().getheader("Set-Cookie").split(";", 1)[0]
    conn.close()
    return parts.port, cookie


def bench_pages(env: dict[str, str], runs: int, pages: list[str] = PAGES) -> None:
    proc, url = start_web(env)
    try:
        port, cookie = login(url)
        print(f"  {'page':34s} {'first request':>22s}   {'median of ' + str(runs):>26s}")
        print(f"  {'':34s} {'ttfb ms':>10s} {'full ms':>10s}   {'ttfb ms':>12s} {'full ms':>12s}")
        for path in pages:
            first = fetch(port, cookie, path)
            assert first[2] == 200, (path, first)
            rest = [fetch(port, cookie, path) for _ in range(runs)]
            label = path + ("   (baseline: server floor)" if path.startswith("/static") else "")
            print(f"  {label:34s} {first[0]:10.1f} {first[1]:10.1f}   {statistics.median(r[0] for r in rest):12.1f} "
                  f"{statistics.median(r[1] for r in rest):12.1f}")
    finally:
        proc.send_signal(signal.SIGTERM)  # SIGINT is ignored by a job started in the background
        proc.wait(10)


def bench_paint(env: dict[str, str]) -> None:
    """First contentful paint and load of each page in headless chromium (fresh navigation each)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("  (playwright not installed: no browser figures)")
        return
    if not os.path.exists("/usr/bin/chromium"):
        print("  (/usr/bin/chromium missing: no browser figures)")
        return
    proc, url = start_web(env)
    base = url.split("/?")[0]
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--no-first-run", "--disable-sync"]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
            page = browser.new_page()
            page.goto(url)
            for path in PAGES[:-1]:
                paints = []
                for _ in range(5):
                    page.goto(base + path)
                    paints.append(page.evaluate(PAINT))
                fcp = statistics.median(x[0] for x in paints)
                load = statistics.median(x[1] for x in paints)
                print(f"  {path:34s} first paint {fcp:7.1f} ms   load {load:7.1f} ms   (goal: first paint < 200)")
            browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)  # SIGINT is ignored by a job started in the background
        proc.wait(10)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def daemon_rss(env: dict[str, str], web: bool, settle: float) -> tuple[int, int | None]:
    """(idle RSS KiB, idle RSS KiB after the pages were served once) of a real `memoryd daemon`."""
    home = Path(env["MEMORYD_HOME"])
    (home / "config.toml").write_text(f"[web]\nenabled = {str(web).lower()}\nport = {free_port()}\n")
    proc = subprocess.Popen([EXE, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while not Path(env["MEMORYD_SOCKET"]).exists() and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(settle)
        idle = rss_kib(proc.pid)
        used = None
        if web:
            from memoryd.daemon.web.server import daemon_url
            from memoryd.tiers.base.config import load_config

            port, cookie = login(daemon_url(load_config(env)))
            for path in PAGES:
                fetch(port, cookie, path)
            time.sleep(settle)
            used = rss_kib(proc.pid)
        return idle, used
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)
        (home / "config.toml").unlink()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--settle", type=float, default=5.0, help="seconds a daemon idles before its RSS is read")
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--hybrid", type=int, default=10000,
                    help="memories of a home in hybrid mode whose Search page is timed in both modes (0: none)")
    args = ap.parse_args()
    for size in (int(s) for s in args.sizes.split(",") if s):
        with tempfile.TemporaryDirectory(prefix="memoryd-bench-web-") as tmp:
            t = time.perf_counter()
            env = build_home(Path(tmp), size)
            print(f"\n== {size:,} memories in the local index (built in {time.perf_counter() - t:.0f} s) ==")
            bench_pages(env, args.runs)
            if not args.no_browser:
                bench_paint(env)
            daemon_rss(env, False, args.settle)  # the first start catches up on consolidation: not idle
            offs, ons, useds = [], [], []
            for _ in range(2):
                offs.append(daemon_rss(env, False, args.settle)[0])
                on, used = daemon_rss(env, True, args.settle)
                ons.append(on)
                useds.append(used or 0)
            off, on, used = min(offs), min(ons), min(useds)
            print(f"  daemon idle RSS (least of 2 starts each): web off {off / 1024:.1f} MiB, web on {on / 1024:.1f} MiB "
                  f"(+{(on - off) / 1024:.1f} MiB; goal <= 5); after serving every page once {used / 1024:.1f} MiB")
        shutil.rmtree(tmp, ignore_errors=True)
    if args.hybrid:
        with tempfile.TemporaryDirectory(prefix="memoryd-bench-web-") as tmp:
            t = time.perf_counter()
            env = build_home(Path(tmp), args.hybrid, "hybrid")
            print(f"\n== hybrid retrieval, {args.hybrid:,} memories (built and embedded in {time.perf_counter() - t:.0f} s;"
                  " the first hybrid request loads the model) ==")
            query = "/search?q=budget+review+garden&mode="
            bench_pages(env, args.runs, [query + "hybrid", query + "keyword", query + "both", "/static/app.css"])


if __name__ == "__main__":
    main()

"""The one retry policy (tiers/base/backoff.py): growth, cap, jitter bounds, bad parameters."""
from __future__ import annotations

import random

import pytest

from memoryd.tiers.base.backoff import Backoff


def test_doubles_from_the_base_then_stays_at_the_cap():
    policy = Backoff(base=30, cap=1800)
    assert [policy.delay(n) for n in range(0, 9)] == [30, 30, 60, 120, 240, 480, 960, 1800, 1800]
    assert policy.delay(10_000) == 1800  # no overflow after a very long outage


def test_jitter_spreads_each_delay_within_its_band():
    policy = Backoff(base=5, cap=900, jitter=0.5)
    rng = random.Random(7)
    for attempts in range(1, 12):
        plain = min(900, 5 * 2 ** (attempts - 1))
        delays = [policy.delay(attempts, rng) for _ in range(200)]
        assert all(0.5 * plain <= d <= 1.5 * plain for d in delays)
        assert max(delays) - min(delays) > 0.5 * plain  # really spread, not one value


@pytest.mark.parametrize("kwargs", [dict(base=0, cap=1), dict(base=5, cap=1), dict(base=1, cap=2, jitter=1.0),
                                    dict(base=1, cap=2, jitter=-0.1)])
def test_bad_parameters_are_refused(kwargs):
    with pytest.raises(ValueError):
        Backoff(**kwargs)


def test_a_busy_server_is_retried_on_the_same_policy_then_reported(sqld, tmp_path):
    """sqld's "database is locked": the statement did not run, so it is tried again on Backoff's delays,
    for a bounded time, then the transient error goes up."""
    import time

    from memoryd.sync.remote.db import connect
    from memoryd.sync.remote.libsql import BUSY_BACKOFF
    from memoryd.tiers.base.config import Config
    from memoryd.tiers.base.errors import RemoteError

    db = connect(Config(home=tmp_path, db_url=sqld.http_url, sections={"db": {"timeout": 1, "connect_timeout": 3}}))
    backend = db._backend
    calls: list[float] = []

    def busy_three_times_then_answer():
        calls.append(time.monotonic())
        if len(calls) <= 3:
            raise RemoteError("server is busy (another writer holds the database): SQLITE_BUSY", transient=True)
        return db.execute("SELECT 42", []).rows[0][0]

    assert backend._busy_retry(busy_three_times_then_answer) == 42
    gaps = [b - a for a, b in zip(calls, calls[1:])]
    assert [round(g, 2) >= BUSY_BACKOFF.delay(n + 1) for n, g in enumerate(gaps)] == [True, True, True]
    assert gaps[2] < 0.5  # 20, 40, 80 ms: the policy's doubling, not a fixed pause

    def always_busy():
        raise RemoteError("server is busy: SQLITE_BUSY", transient=True)

    started = time.monotonic()
    with pytest.raises(RemoteError, match="is busy") as err:
        backend._busy_retry(always_busy)
    assert err.value.transient and 0.5 <= time.monotonic() - started <= 1.1  # the [db] timeout bounds it

    def refused():  # anything but busy is not retried
        calls.append(time.monotonic())
        raise RemoteError("no such table: nope")

    calls.clear()
    with pytest.raises(RemoteError, match="no such table"):
        backend._busy_retry(refused)
    assert len(calls) == 1
    db.close()

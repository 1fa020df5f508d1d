"""`forget --shred` killed with SIGKILL at each of its stages, then run again: it resumes where it stood and
ends clean (`forget --verify` exit 0, no key left that opens the memory from sqld's raw files), with every
other memory intact on both devices."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memoryd.sync.device_files import SyncFiles

import sqldraw
from sqld_server import SqldServer
from synchelp import AGENT, device, env_for, first_device
from test_shred import archive, everything, index_texts, memoryd, recovered

CLI = str(Path(sys.executable).with_name("memoryd"))


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    return private_sqld


def kill_at(config, stage: str, mid: str) -> bool:
    """Start `forget --shred`, SIGKILL it as soon as its journal says `stage`; True if it was caught there."""
    journal = SyncFiles(config, AGENT).path("shred.json")
    proc = subprocess.Popen([CLI, "forget", "--shred", mid, "--agent-id", AGENT], env=env_for(config),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    caught = False
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if f'"stage": "{stage}"' in journal.read_text() or f'"stage":"{stage}"' in journal.read_text():
                os.killpg(proc.pid, signal.SIGKILL)
                caught = True
                break
        except FileNotFoundError:
            pass
        time.sleep(0.002)
    proc.wait(30)
    return caught


@pytest.mark.parametrize("stage", ["forget", "reseal", "device"])
def test_a_shred_killed_mid_way_resumes_and_ends_clean(tmp_path: Path, server: SqldServer, stage: str) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    keep = [f"the tool box {i} is in the attic" for i in range(150)]
    mid, *_ = archive(a, ["the vault combination is CanaryOrca 31-7-42", *keep])
    for cfg in (a, b, a):
        memoryd(cfg, "sync")
    assert kill_at(a, stage, mid), f"the shred ended before reaching {stage}"
    out = memoryd(a, "forget", "--shred", mid)  # run again: resumes
    assert out["shred"]["resumed_at"] == stage
    assert not SyncFiles(a, AGENT).path("shred.json").exists()
    memoryd(b, "sync")
    for cfg in (a, b):
        assert memoryd(cfg, "forget", "--verify", mid)["clean"]
        assert set(keep) <= index_texts(cfg)
    rows, envs = everything(server)
    secrets = sqldraw.secrets_in(a.home) | sqldraw.secrets_in(b.home)
    after = recovered(rows, envs, secrets)
    assert b"CanaryOrca" not in after and b"tool box 149" in after

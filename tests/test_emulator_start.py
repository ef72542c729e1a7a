"""`urlscan-rs emulator --background` waits while the emulator builds its scans, says so on
stderr, and says why when the emulator does not come up (issue 52)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from urlscan_rs import Client, cli
from urlscan_rs.cli import emulator as emulator_cli

from .test_cli import _env, _kill_marked, run_cli

linux_only = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="finds processes in /proc")


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _marked(pid: int, marker: str) -> bool:
    try:
        return f"URLSCAN_TEST_MARKER={marker}".encode() in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_background_says_what_it_waits_for() -> None:
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    try:
        out = run_cli("emulator", "--background", "--port", "0", "--scans", "5", env=_env(URLSCAN_TEST_MARKER=marker))
        assert out.returncode == 0, out.stderr
        # 30 s, and 2 ms for each scan it builds before it serves.
        assert out.stderr == "urlscan-rs: starting the emulator: building 5 scans (waiting while it builds, at most 30.01s)\n"
        values = dict(line.removeprefix("export ").split("=", 1) for line in out.stdout.splitlines()[:2])
        with Client(values["URLSCAN_API_KEY"], base_url=values["URLSCAN_BASE_URL"]) as c:
            assert c.search("").count() == 5
    finally:
        _kill_marked(marker)


@linux_only
def test_background_says_when_the_emulator_process_ended() -> None:
    # The biggest corpus takes seconds to build: its process is killed while it builds, and the
    # command says so at once (it waited 30 s for an address whatever the process did).
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    args = [sys.executable, "-m", "urlscan_rs", "emulator", "--background", "--port", "0", "--scans", "100000"]
    parent = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(URLSCAN_TEST_MARKER=marker)
    )
    try:
        assert parent.stderr is not None
        note = parent.stderr.readline()
        assert note == ("urlscan-rs: starting the emulator: building 100,000 scans (waiting while it builds, at most 230s)\n")
        (child,) = _children(parent.pid)  # started before the note
        os.kill(child, signal.SIGKILL)
        out, err = parent.communicate(timeout=30)
        assert parent.returncode == 1
        assert err == "urlscan-rs: error: the emulator did not start: its process ended (killed by SIGKILL) before it served\n"
        assert out == ""
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.communicate()
        _kill_marked(marker)


@linux_only
def test_background_stops_an_emulator_not_serving_in_time(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bound of 1 s, notes every 0.2 s: 100,000 scans take seconds to build, so the emulator
    # cannot serve in time; the command says it is still building, then stops it and says why.
    monkeypatch.setattr(emulator_cli, "EMULATOR_START_TIMEOUT", 1.0)
    monkeypatch.setattr(emulator_cli, "EMULATOR_START_PER_SCAN", 0.0)
    monkeypatch.setattr(emulator_cli, "EMULATOR_START_NOTE_EVERY", 0.2)
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("URLSCAN_TEST_MARKER", marker)
    try:
        code = cli.main(["emulator", "--background", "--port", "0", "--scans", "100000"])
        captured = capsys.readouterr()
        assert code == 1, captured.err
        lines = captured.err.splitlines()
        assert lines[0] == "urlscan-rs: starting the emulator: building 100,000 scans (waiting while it builds, at most 1s)"
        assert [line for line in lines[1:-1] if not line.startswith("urlscan-rs: still building 100,000 scans (")] == []
        assert len(lines) >= 3
        assert lines[-1].endswith("the emulator did not start: not serving after 1s (building 100,000 scans); stopped it")
        assert captured.out == ""
        assert [p for p in _children(os.getpid()) if _marked(p, marker)] == []  # stopped, and reaped
    finally:
        _kill_marked(marker)

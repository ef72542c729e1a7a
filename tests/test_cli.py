"""The command line: demo and emulator."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from urlscan_rs import Client


def test_demo_runs() -> None:
    t0 = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "urlscan_rs", "demo", "--scan-duration", "1"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "Submitting 3 scans" in out.stdout and "ScanResult(" in out.stdout and "Done in" in out.stdout
    assert time.monotonic() - t0 < 60


def test_emulator_command_serves() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "urlscan_rs", "emulator", "--port", "0", "--scans", "20"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().strip() for _ in range(2)]
        env = dict(line.split("=", 1) for line in lines)
        with Client(env["URLSCAN_API_KEY"], base_url=env["URLSCAN_BASE_URL"]) as c:
            assert c.search("").count() == 20
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_cli_error_exit_code() -> None:
    out = subprocess.run([sys.executable, "-m", "urlscan_rs", "--api-key", "x", "result", "nope"], capture_output=True, text=True)
    assert out.returncode == 2 and "UUID" in out.stderr


def test_examples_run() -> None:
    root = Path(__file__).resolve().parent.parent / "examples"
    for script in sorted(root.glob("*.py")):
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, f"{script.name}: {out.stderr}"
        assert out.stdout.strip(), script.name

"""The built wheel works where there is no Rust: built from this checkout, installed into a fresh
virtualenv whose PATH has no cargo or rustc, then checked by tests/wheel_smoke.py (the same
check the release workflow runs on every platform's wheel)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_installs_and_runs_without_rust(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    # The same build as `pip install .` (release profile, reusing target/ when it is current).
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--wheel-dir", str(dist), "-q"],
        check=True,
        timeout=1800,
    )
    [wheel] = dist.glob("urlscan_rs-*.whl")
    assert "abi3" in wheel.name, wheel.name  # one wheel serves every Python 3.10+

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    path = os.pathsep.join([str(bindir), "/usr/bin", "/bin"])
    assert shutil.which("cargo", path=path) is None and shutil.which("rustc", path=path) is None
    env = {"PATH": path, "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    python = str(bindir / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "--no-deps", "-q", str(wheel)], check=True, env=env, timeout=300
    )
    smoke = subprocess.run(
        [python, str(ROOT / "tests" / "wheel_smoke.py")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "wheel ok" in smoke.stdout and str(env_dir) in smoke.stdout
    # The console script came with the wheel too.
    version = subprocess.run(
        [str(bindir / "urlscan-rs"), "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0 and version.stdout.startswith("urlscan-rs "), version

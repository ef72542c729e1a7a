"""A/B two or more builds of the extension on one workload side, alternating them.

    cp python/urlscan_rs/_native*.so bench/out/A.so     # build A (maturin develop --release)
    cp python/urlscan_rs/_native*.so bench/out/B.so     # build B
    python bench/ab.py search_rs '{"scans": 100000}' '{"hits": 100000}' bench/out/A.so bench/out/B.so

A build may also be a directory holding a whole built package (``urlscan_rs/``
with its extension, e.g. the ``python/`` folder of another checkout): it runs
with that directory first on ``PYTHONPATH``, for builds that differ in Python
code too.

One emulator (its own process) serves every run; each round runs the side once
per build, in a fresh process (``bench/workloads.py``), with that build's file
moved in place of the package's extension. Prints each build's median client
CPU, main-thread CPU, wall time and peak RSS. Alternating builds within one run is what
makes differences of a few percent visible on a shared machine, where runs
minutes apart differ by more. The extension in place at the end is the last
build given.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import PY, Emu, uuids_file  # noqa: E402


def installed_extension() -> Path:
    out = subprocess.run(
        [PY, "-c", "import urlscan_rs._native as n; print(n.__file__)"], capture_output=True, text=True, check=True
    )
    return Path(out.stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("side")
    ap.add_argument("emulator", help="Emulator keywords as JSON")
    ap.add_argument("config", help="workload config as JSON (url and key are added)")
    ap.add_argument("builds", nargs="+", type=Path, help="extension files (.so) to compare")
    ap.add_argument("--rounds", type=int, default=6)
    a = ap.parse_args()
    target = installed_extension()

    def use(build: Path) -> dict[str, str]:
        """Put `build` in place; the environment its runs need."""
        if build.is_dir():
            return {**os.environ, "PYTHONPATH": os.pathsep.join([str(build), os.environ.get("PYTHONPATH", "")])}
        # A rename, not a copy over the file: the running emulator keeps the file it loaded.
        shutil.copy(build, target.with_suffix(".new"))
        os.replace(target.with_suffix(".new"), target)
        return dict(os.environ)

    cfg = json.loads(a.config)
    runs: dict[Path, list[dict[str, float]]] = {b: [] for b in a.builds}
    with Emu(**json.loads(a.emulator)) as emu:
        cfg.update(url=emu.url, key=emu.key)
        if "n" in cfg and "uuids_file" not in cfg:
            cfg["uuids_file"] = uuids_file(emu, cfg["n"], "ab")
        for _ in range(a.rounds):
            for b in a.builds:
                env = use(b)
                out = subprocess.run(
                    [PY, str(HERE / "workloads.py"), a.side, json.dumps(cfg)],
                    capture_output=True,
                    text=True,
                    check=True,
                    env=env,
                ).stdout
                runs[b].append(json.loads(out.strip().splitlines()[-1]))
    for b, rs in runs.items():
        med = {k: statistics.median(r[k] for r in rs) for k in ("cpu", "cpu_main", "wall", "rss_peak_kb")}
        each = " ".join(f"{r['cpu']:.3f}" for r in rs)
        print(
            f"{b}: client CPU {med['cpu']:.3f} s (main thread {med['cpu_main']:.3f} s), wall {med['wall']:.3f} s, "
            f"peak RSS {med['rss_peak_kb'] / 1024:.0f} MB; every run: {each}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

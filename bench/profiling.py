"""Profile one side of a workload (where does the client's CPU go?).

    python bench/profiling.py SIDE '{"scans": 20000}' '{"hits": 20000}' [--tool perf|py-spy] [--freq HZ]

Starts an emulator in its own process (keywords as JSON), then runs
``bench/workloads.py SIDE`` under ``perf record -g`` (every thread of the
client, Rust frames included) or ``py-spy record --native`` (Python threads
only), and prints the functions with the largest self and inclusive shares.
``uuids`` (for the result workloads) are fetched first when the side needs
them. Output files go to ``bench/out/``.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import OUT, PY, Emu, uuids_file  # noqa: E402


def summarize_pyspy(raw: Path, top: int) -> None:
    self_c: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        k = int(n)
        total += k
        frames = [f.split(" (")[0] for f in stack.split(";")]
        self_c[frames[-1]] += k
        for f in set(frames):
            incl[f] += k
    print(f"py-spy samples: {total}")
    for f, k in self_c.most_common(top):
        print(f"  self {100 * k / total:5.1f}%  {f[:140]}")
    for f, k in incl.most_common(top * 2):
        print(f"  incl {100 * k / total:5.1f}%  {f[:140]}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("side")
    ap.add_argument("emulator", help="Emulator keywords as JSON")
    ap.add_argument("config", help="workload config as JSON (url and key are added)")
    ap.add_argument("--tool", choices=["perf", "py-spy"], default="perf")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--freq", type=int, default=999, help="perf samples per second (more for short runs)")
    a = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    cfg = json.loads(a.config)
    with Emu(**json.loads(a.emulator)) as emu:
        if "n" in cfg and "uuids_file" not in cfg:
            cfg["uuids_file"] = uuids_file(emu, cfg["n"], "profile")
        cfg.update(url=emu.url, key=emu.key)
        cmd = [PY, str(HERE / "workloads.py"), a.side, json.dumps(cfg)]
        if a.tool == "perf":
            data = OUT / f"{a.side}.perf.data"
            subprocess.run(["perf", "record", "-F", str(a.freq), "-g", "-o", str(data), "--", *cmd], check=True)
            for mode in ("--no-children", "--children"):
                rep = subprocess.run(
                    ["perf", "report", "-i", str(data), mode, "--sort", "dso,symbol", "--stdio", "-g", "none"],
                    capture_output=True,
                    text=True,
                ).stdout
                rows = [r for r in rep.splitlines() if r.strip() and not r.startswith("#")]
                print(f"perf report {mode} (top {a.top}):")
                print("\n".join(rows[: a.top]))
        else:
            raw = OUT / f"{a.side}.pyspy.txt"
            subprocess.run(["py-spy", "record", "--native", "-r", "250", "-f", "raw", "-o", str(raw), "--", *cmd], check=True)
            summarize_pyspy(raw, a.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())

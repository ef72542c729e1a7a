"""What each read of the search export costs on the Python thread, per hit.

    python bench/reads.py [--hits 50000] [--rounds 5]

Walks the same search (pages of 100 hits, emulator in its own process) once per
case and round, reading one thing of each hit, and prints the median
``time.thread_time()`` per hit of the thread running the loop, and its excess
over the walk alone. The pages are fetched and indexed on other threads, so
this is the cost of the models and their reads.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import Emu  # noqa: E402

CASES: dict[str, Callable[[Any], object]] = {
    "walk": lambda h: None,
    "id": lambda h: h.id,
    "page": lambda h: h.page,
    "page.domain": lambda h: h.page.domain,
    "task": lambda h: h.task,
    "task.time": lambda h: h.task.time,
    "id, page.domain, task.time": lambda h: (h.id, h.page.domain, h.task.time),
}


def main() -> int:
    import urlscan_rs

    ap = argparse.ArgumentParser()
    ap.add_argument("--hits", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    with Emu(scans=a.hits) as emu, urlscan_rs.Client(emu.key, base_url=emu.url) as client:

        def per_hit(read: Callable[[Any], object]) -> float:
            t = time.thread_time()
            for hit in client.search("", size=100, limit=a.hits):
                read(hit)
            return (time.thread_time() - t) / a.hits * 1e6

        runs: dict[str, list[float]] = {k: [] for k in CASES}
        for _ in range(a.rounds):
            for k, read in CASES.items():
                runs[k].append(per_hit(read))
    walk = statistics.median(runs["walk"])
    for k, v in runs.items():
        m = statistics.median(v)
        print(f"{k:28} {m:5.2f} us per hit on the Python thread (+{m - walk:4.2f} over the walk)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

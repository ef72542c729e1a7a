"""Serve an emulator in its own process for the benchmarks.

    python bench/emu_server.py '{"scans": 100000, "latency": {"search": 0.15}}'

The argument is a JSON object of ``urlscan_rs.testing.Emulator`` keywords
(``result_size`` as a two-item list). The first line printed is a JSON object
with ``url``, ``api_key``, ``keys`` and ``build_seconds`` (time to start,
corpus included). Then it reads commands from stdin, one per line, and
answers each with one JSON line: ``stats`` (the emulator's counters),
``advance <seconds>``. It stops when stdin closes.
"""

from __future__ import annotations

import json
import sys
import time

from urlscan_rs.testing import Emulator


def main() -> int:
    kwargs = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    if isinstance(kwargs.get("result_size"), list):
        kwargs["result_size"] = tuple(kwargs["result_size"])
    started = time.perf_counter()
    emu = Emulator(**kwargs)
    built = time.perf_counter() - started
    print(json.dumps({"url": emu.url, "api_key": emu.api_key, "keys": emu.keys, "build_seconds": built}), flush=True)
    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        if cmd == "stats":
            print(json.dumps(emu.stats()), flush=True)
        elif cmd == "advance":
            emu.advance(float(arg))
            print("{}", flush=True)
        elif cmd:
            print(json.dumps({"error": f"unknown command {cmd!r}"}), flush=True)
    emu.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

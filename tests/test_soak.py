"""Soak: 10,000 calls on loopback with about 10% injected faults.

Sixteen threads share one client (the GIL is released while requests run), so
the retry back-offs overlap. With 8 retries a call fails only if nine draws in
a row are faults (about 1e-9), so the outcome does not depend on timing.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from urlscan_rs.testing import Emulator

REQUESTS = 10_000
SCANS = 300


def test_soak_with_ten_percent_faults() -> None:
    with Emulator(scans=200, scan_duration=0.0, seed=5) as emu:
        # Faults a retry can recover from, on every idempotent path: 5xx, resets and 429s.
        emu.inject("status", status=503, count=None, probability=0.04, seed=1, method="GET")
        emu.inject("status", status=502, count=None, probability=0.02, seed=2, method="GET")
        emu.inject("reset", count=None, probability=0.02, seed=3, method="GET")
        emu.inject("rate_limit", seconds=0, count=None, probability=0.02, seed=4, method="GET")
        # POST scan: only answers that prove the scan was not processed (429, 503 with a retry hint).
        emu.inject("status", status=503, seconds=0, count=None, probability=0.06, seed=5, path="/api/v1/scan", method="POST")
        emu.inject("rate_limit", seconds=0, count=None, probability=0.04, seed=6, path="/api/v1/scan", method="POST")

        client = emu.client(max_retries=8, timeout=10)
        ids = [h.id for h in client.search("", size=200)]

        def call(i: int) -> str | None:
            if i % 10 == 0 and i // 10 < SCANS:
                return str(client.scan(f"https://soak{i}.example.com/").uuid)
            uuid = ids[i % len(ids)]
            if i % 3 == 0:
                assert client.search(f"task.uuid:{uuid}", size=1).count() == 1
            else:
                assert client.result(uuid).uuid == uuid
            return None

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=16) as pool:
            outcomes = list(pool.map(call, range(REQUESTS)))
        elapsed = time.monotonic() - started
        submitted = [u for u in outcomes if u is not None]
        stats = emu.stats()
        assert len(submitted) == SCANS == stats["submissions"]  # every scan exactly once
        assert len(set(submitted)) == SCANS
        # Every fault was retried away: at least REQUESTS requests, plus one per fault.
        assert stats["faults"] > REQUESTS * 0.08
        assert stats["requests"] >= REQUESTS + stats["faults"]
        print(f"{REQUESTS} calls, {stats['requests']} requests, {stats['faults']} faults, {elapsed:.1f}s")

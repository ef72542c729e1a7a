"""Spreading result downloads over processes.

Clients and every model pickle, so work and results cross a
ProcessPoolExecutor (spawn or fork start methods). A pickled client holds no
API key: the workers take it from URLSCAN_API_KEY (or the system keyring). This helps when the work
per item is CPU-heavy on the client side (parsing large results, your own
analysis). It does not raise a quota: the service limits each key, so more
machines with the same key go no faster; use several keys, or the data-dump
endpoints for bulk history.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor

from urlscan_rs import Client, ScanResult
from urlscan_rs.testing import Emulator


def domains_of(args: tuple[Client, str]) -> tuple[str, int, ScanResult]:
    client, uuid = args
    result = client.result(uuid)  # the pickled client opens its own connections here
    return uuid, len(result.lists.domains), result


def main() -> None:
    with Emulator(scans=100) as emu:
        client = emu.client()
        # A pickled client never holds the key: each worker takes it from the
        # environment (or the system keyring), which the pool's processes inherit.
        os.environ["URLSCAN_API_KEY"] = emu.api_key
        uuids = [h.id for h in client.search("", limit=24)]
        for method in ("spawn", "fork"):
            with ProcessPoolExecutor(max_workers=2, mp_context=mp.get_context(method)) as pool:
                out = list(pool.map(domains_of, [(client, u) for u in uuids]))
            assert [u for u, _, _ in out] == uuids
            print(f"{method}: {len(out)} results, {sum(n for _, n, _ in out)} domains; e.g. {out[0][2]}")


if __name__ == "__main__":
    main()

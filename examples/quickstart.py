"""Quick start against the built-in emulator: sync and async, search, bulk.

Run: python examples/quickstart.py   (no network, no API key needed)
For the real service, use Client() with URLSCAN_API_KEY set instead of emu.client().
"""

from __future__ import annotations

import asyncio

from urlscan_rs import AsyncClient, Client, ScanPendingError
from urlscan_rs.testing import Emulator


def sync_tour(client: Client, emu: Emulator) -> str:
    sub = client.scan("https://www.example.com/", visibility="public", tags=["quickstart"])
    try:
        client.result(sub.uuid)
    except ScanPendingError:
        print("not finished yet:", sub.uuid)
    emu.advance(emu.scan_duration)  # let the emulator finish the scan now
    result = client.wait_for_result(sub.uuid, initial_wait=0)
    print(result.page.domain, result.page.ip, result.verdicts.overall.malicious)
    for hit in client.search("page.domain:example.com AND date:>now-7d", limit=3):
        print("hit:", hit.id, hit.page.url)
    return sub.uuid


async def async_tour(client: AsyncClient, uuid: str) -> None:
    result = await client.result(uuid)
    png = await client.screenshot(uuid)
    print("async:", result.task.time, len(png), "bytes of PNG")
    n = 0
    async for _hit in client.search("", size=50, limit=120):
        n += 1
    print("async search read", n, "hits")


def main() -> None:
    with Emulator(scans=200, scan_duration=5.0) as emu:
        with emu.client() as client:
            uuid = sync_tour(client, emu)
            outcomes = client.bulk_scan(
                ["https://a.example.com/", "https://no-such-host.invalid/"], initial_wait=0, interval=0.1, timeout=30
            )
            for o in outcomes:
                print("bulk:", o.url, "ok" if o.ok else f"{type(o.error).__name__}: {o.error}")
        asyncio.run(async_tour(emu.async_client(), uuid))


if __name__ == "__main__":
    main()

"""The premium features against the built-in emulator: incidents, saved
searches, subscriptions, hostname history, live scanning, files and data dumps.

Run: python examples/premium_tour.py   (no network, no API key needed)
"""

from __future__ import annotations

import datetime as dt
import hashlib

from urlscan_rs import Client
from urlscan_rs.testing import Emulator


def tour(client: Client, emu: Emulator) -> None:
    webhook = client.channels.create(type="webhook", name="soc", webhook_url="https://hooks.example.com/soc")
    incident = client.incidents.create(
        "login.paypal-secure-verify.example.net",
        visibility="private",
        channels=[webhook.id],
        scan_interval=900,
        countries=["de", "us"],
        expire_after=7 * 86400,
    )
    emu.advance(3600)  # four scan intervals on the emulator clock
    incident = client.incidents.get(incident.id)
    print(f"incident {incident.id}: {incident.state}, {incident.state_count} states, labels {incident.labels}")
    closed = client.incidents.close(incident.id)
    print("after close:", closed.state, "| fork:", client.incidents.fork(incident.id).source_type)

    search = client.saved_searches.create(datasource="scans", name="google lookalikes", query="page.domain:google.com")
    client.subscriptions.create(
        search_ids=[search.id],
        frequency="daily",
        email_addresses=["soc@example.com"],
        name="daily",
        is_active=True,
        ignore_time=False,
        channel_ids=[webhook.id],
    )
    print("saved search hits:", len(client.saved_searches.results(search.id)))

    hit = next(iter(client.search("", limit=1)))
    records = list(client.hostnames.history(hit.page.domain or "example.com", limit=10))
    print(f"{len(records)} history records for {hit.page.domain}; sources {sorted({r.source or '' for r in records})}")

    result = client.result(hit.id)
    sha = result.lists.hashes[0]
    body = client.files.download(sha)
    print("downloaded", len(body), "bytes; hash matches:", hashlib.sha256(body).hexdigest() == sha)

    uuid = client.livescan.scan("de01", "https://www.example.com/", visibility="unlisted")
    client.livescan.store("de01", uuid)
    print("live scan stored:", client.result(uuid).page.domain)

    day = dt.date.fromtimestamp(emu.now()) - dt.timedelta(days=1)
    files = client.datadumps.list("hours", "search", day)
    print(len(files), "hourly dump files; first link:", client.datadumps.link(files[0].path)[:60], "...")
    print("brands tracked:", [b.key for b in client.brands.available()][:5])


def main() -> None:
    with Emulator(scans=300, scan_duration=5.0) as emu, emu.client() as client:
        tour(client, emu)


if __name__ == "__main__":
    main()

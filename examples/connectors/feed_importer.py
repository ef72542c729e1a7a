"""A scheduled importer of the phishing feed: each new hit once, as STIX 2.1, benign domains left out.

OpenCTI's urlscan importer does this by hand: every run it pulls the whole feed again, asks a
hygiene service which domains are safe and drops their URLs, builds the URL and domain
observables, indicators and relationships with stix2, and sends all of it again (the platform
deduplicates what it has already). Here ``client.feeds.sync(..., format="stix")`` keeps a
checkpoint and the keys written in the folder: a run writes only the hits no run wrote before,
as one STIX bundle file, and the allowlist is its ``filter``. The bundle files are what a TIP
imports (OpenCTI's ``helper.send_stix2_bundle``, a MISP feed, a folder a SIEM watches).

    URLSCAN_API_KEY=... python examples/connectors/feed_importer.py feeds/ --lookback 72   # from cron
    URLSCAN_API_KEY=... python examples/connectors/feed_importer.py feeds/ --every 600 --allow example.com
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from urlscan_rs import Client, SearchHit, UrlscanError
from urlscan_rs.feeds import FeedReport

# Domains (and their subdomains) whose URLs are never imported: a brand's own pages show up in
# the feed beside the pages that imitate it, and an indicator for them would block the real site.
BENIGN = ("google.com", "microsoft.com", "microsoftonline.com", "apple.com", "amazon.com", "paypal.com", "facebook.com")


def benign(domain: str | None, allow: Iterable[str]) -> bool:
    return domain is not None and any(domain == d or domain.endswith("." + d) for d in allow)


def import_once(client: Client, dest: str | Path, *, allow: Iterable[str] = BENIGN, lookback: float = 72 * 3600) -> FeedReport:
    """One run: the feed's hits that ``dest`` has not had yet, as one STIX bundle file there."""
    allow = tuple(allow)

    def keep(hit: SearchHit) -> bool:
        return not (benign(hit.task.domain, allow) or benign(hit.page.domain, allow))

    return client.feeds.sync("phishfeed", dest, lookback=lookback, format="stix", filter=keep)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Import urlscan.io's phishing feed as STIX bundles, each hit once.")
    parser.add_argument("dest", type=Path, help="the folder of bundles (and the feed's state)")
    parser.add_argument("--lookback", type=float, default=72, help="hours looked back before the last run's newest hit")
    parser.add_argument("--allow", action="append", default=[], help="a benign domain, besides the built-in ones")
    parser.add_argument("--every", type=float, default=0, help="run again every so many seconds (default: once)")
    args = parser.parse_args(argv)
    with Client() as client:  # the key from URLSCAN_API_KEY (the feed needs a premium key)
        while True:
            when = f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S}"
            try:
                report = import_once(client, args.dest, allow=BENIGN + tuple(args.allow), lookback=args.lookback * 3600)
            except UrlscanError as e:  # what the run read is written and remembered: the next goes on
                print(f"{when} phishfeed: failed: {e}", file=sys.stderr, flush=True)
                code = 1
            else:
                print(f"{when} phishfeed: {report}", flush=True)
                for path in report.files:  # hand each new bundle to the TIP here
                    print(f"  import {path}", flush=True)
                code = 0
            if not args.every:
                return code
            time.sleep(args.every)


if __name__ == "__main__":
    sys.exit(main())

"""Record the run that examples/test_scenarios.py replays: one search and the result of its newest
hit. Commit the folder: no key is in it.

    python examples/make_recordings.py examples/recordings    # the copy in this repository
    python examples/make_recordings.py                        # into a temporary folder, to look at

With URLSCAN_API_KEY set it records the real service; without, an emulator (seed 7) stands in for
it, as it did for the copy in this repository.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from urlscan_rs import Client
from urlscan_rs.testing import Emulator

QUERY = "page.domain:www.facebook.com"


def record(client: Client) -> str:
    """The uuid of the newest scan the query finds, its search page and result recorded."""
    newest = next(iter(client.search(QUERY, limit=1)))
    client.result(str(newest.uuid))
    return str(newest.uuid)


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="recordings-"))
    if os.environ.get("URLSCAN_API_KEY"):
        with Client(record_to=folder) as client:
            uuid = record(client)
    else:
        with Emulator(scans=200, seed=7) as service, Client(service.api_key, base_url=service.url, record_to=folder) as client:
            uuid = record(client)
    print(f"recorded the search {QUERY!r} and the result of {uuid} in {folder}")


if __name__ == "__main__":
    main()

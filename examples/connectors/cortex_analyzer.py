"""A TheHive Cortex analyzer (on cortexutils): urlscan.io's view of a url, domain, fqdn, ip or hash.

The Cortex-Analyzers Urlscan.io analyzers do this by hand: Urlscan_Scan submits every URL and
polls for its result with sleeps; Urlscan_Search hands back the raw search answer and rates an
observable by its number of hits (any hit is "suspicious"). This one reuses a recent scan of a
URL or scans it (``lookup_or_scan``) and rates it by the scan's verdict; a domain, ip or hash is
searched (the query quoted by ``urlscan_rs.query.Q``) and rated by the verdicts of the scans that
saw it. The artifacts are the scan's indicators, as TheHive types them.

Cortex runs it with a job folder (``input/input.json`` in, ``output/output.json`` out) or the job
on stdin (the report on stdout). Its definition, beside it as ``UrlscanRs_Lookup.json``:

    {"name": "UrlscanRs_Lookup", "version": "1.0", "command": "UrlscanRs/cortex_analyzer.py",
     "dataTypeList": ["url", "domain", "fqdn", "ip", "hash"], "baseConfig": "UrlscanRs",
     "configurationItems": [{"name": "key", "type": "string", "required": true, "multi": false},
                            {"name": "max_age", "type": "number", "required": false, "multi": false}]}

    echo '{"dataType": "url", "data": "https://example.com/"}' | URLSCAN_API_KEY=... python cortex_analyzer.py
"""

from __future__ import annotations

import sys
from typing import Any

from cortexutils.analyzer import Analyzer  # type: ignore[import-untyped]

from urlscan_rs import Client, UrlscanError
from urlscan_rs.query import Q

SEARCHES = {"domain": Q.domain, "fqdn": Q.domain, "ip": Q.ip, "hash": Q.hash}
# A scan's indicators (result.summary()["indicators"]) as TheHive's observable types.
ARTIFACTS = {"urls": "url", "domains": "domain", "ips": "ip", "hashes": "hash"}
# How the wait for a new scan polls: the service's advice (10 s, then every 2 s).
INITIAL_WAIT, INTERVAL = 10.0, 2.0


class UrlscanAnalyzer(Analyzer):  # type: ignore[misc]  # cortexutils has no type hints
    def run(self) -> None:
        kind, value = self.data_type, self.get_data()
        if kind != "url" and kind not in SEARCHES:
            self.notSupported()
        # The key from the analyzer's configuration, else URLSCAN_API_KEY (and URLSCAN_BASE_URL).
        try:
            with Client(self.get_param("config.key")) as client:
                self.report(self.lookup(client, value) if kind == "url" else self.search(client, kind, value))
        except UrlscanError as e:  # refused (blocklisted, no DNS), quota, a bad key
            self.error(f"urlscan.io: {e}")

    def lookup(self, client: Client, url: str) -> dict[str, Any]:
        max_age = float(self.get_param("config.max_age", 86400))
        lk = client.lookup_or_scan(url, refang=True, max_age=max_age, initial_wait=INITIAL_WAIT, interval=INTERVAL)
        r = lk.result
        assert r is not None  # one lookup raises what fails
        # The scan's summary (verdict, page, top indicators, report link) and how the lookup went.
        lookup = {"type": "url", "reused": lk.reused, "page_outcome": r.page_outcome, "page_error": r.page_error}
        return lookup | r.summary(max_bytes=16384)

    def search(self, client: Client, kind: str, value: str) -> dict[str, Any]:
        query = str(SEARCHES[kind](value))
        hits = [
            {"uuid": h.uuid, "url": h.task.url, "time": str(h.task.time), "malicious": h.is_malicious(), "score": h.verdict.score}
            for h in client.search(query, limit=100)
        ]
        malicious = sum(h["malicious"] is True for h in hits)
        return {"type": kind, "query": query, "total": len(hits), "malicious": malicious, "hits": hits}

    def summary(self, raw: dict[str, Any]) -> dict[str, Any]:
        if "hits" in raw:  # a search: how many of the scans that saw it were malicious
            level = "malicious" if raw["malicious"] else "info"
            return {"taxonomies": [self.build_taxonomy(level, "urlscan.io", "Search", f"{raw['malicious']}/{raw['total']}")]}
        v, loaded = raw["verdict"], raw["page_outcome"] == "ok"
        # A page that did not load is never called safe: the scan saw nothing of it.
        level = {True: "malicious", False: "safe" if loaded else "info", None: "info"}[v["malicious"]]
        score = "no verdict" if v["score"] is None else f"score {v['score']}"
        taxonomies = [self.build_taxonomy(level, "urlscan.io", "Verdict", score)]
        if not loaded:
            taxonomies.append(self.build_taxonomy("info", "urlscan.io", "Page", raw["page_outcome"] or "unknown"))
        return {"taxonomies": taxonomies}

    def artifacts(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        found = {v: kind for key, kind in ARTIFACTS.items() for v in raw.get("indicators", {}).get(key, [])}
        found.update((h["url"], "url") for h in raw.get("hits", []) if h["url"])
        found.pop(self.get_data(), None)  # the observable itself is no new artifact
        return [self.build_artifact(kind, v) for v, kind in found.items()]


def main() -> int:
    UrlscanAnalyzer().run()  # the job folder from argv[1] (else /job), else the job on stdin
    return 0


if __name__ == "__main__":
    sys.exit(main())

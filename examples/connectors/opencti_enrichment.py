"""An OpenCTI internal-enrichment connector's work: a URL observable in, a STIX 2.1 bundle out.

OpenCTI's urlscan-enrichment connector does this by hand: it submits the URL every time, polls
for the result, then builds each IP address, autonomous system, indicator and relationship with
stix2 and pycti from ``stats.ipStats``, merging IPs by domain itself. Here the lookup reuses a
recent scan (``lookup_or_scan``); ``result.to_stix()`` gives the observables with deterministic
ids, the domains that ``resolves-to`` IPs, the IPs that ``belongs-to`` autonomous systems and, for
a malicious verdict, an indicator ``based-on`` the observed data; ``result.relationships()`` gives
what the connector adds around the observable: ``related-to`` its domain and that domain's IPs,
and the indicator ``based-on`` it.

In a connector, ``enrich`` is the body of the message callback::

    helper.listen(message_callback=lambda msg: helper.send_stix2_bundle(json.dumps(enrich(client, msg["stix_entity"]))))

pycti (``OpenCTIConnectorHelper``) is not used here: it needs a running platform and brings a
large tree of dependencies; the bundle is what it would send, and stix2 reads it strictly.

    URLSCAN_API_KEY=... python examples/connectors/opencti_enrichment.py https://example.com/login
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any

from urlscan_rs import Client, ScanResult

# The STIX 2.1 namespace of cyber-observable ids, and one for the relationships made here.
SCO = uuid.UUID("00abedb4-aa42-466c-9c01-fed23315a9b7")
OURS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/urlscan-rs/opencti-enrichment")
# How the wait for a new scan polls: the service's advice (10 s, then every 2 s).
INITIAL_WAIT, INTERVAL = 10.0, 2.0


def url_observable(value: str) -> dict[str, Any]:
    """A STIX ``url`` observable with its deterministic id, as OpenCTI hands one to a connector."""
    contributing = json.dumps({"value": value}, separators=(",", ":"), ensure_ascii=False)
    return {"type": "url", "spec_version": "2.1", "id": f"url--{uuid.uuid5(SCO, contributing)}", "value": value}


def bundle_for(result: ScanResult, entity: dict[str, Any], threshold: int = 50) -> dict[str, Any]:
    """The scan as a bundle around ``entity`` (the observable enriched)."""
    bundle = result.to_stix(threshold)
    objects: list[dict[str, Any]] = bundle["objects"]
    ids = {o.get("value"): o["id"] for o in objects if o["type"] in ("domain-name", "ipv4-addr", "ipv6-addr")}
    if entity["id"] not in {o["id"] for o in objects}:
        objects.insert(0, entity)
    stamp = f"{result.task.time:%Y-%m-%dT%H:%M:%S.000Z}" if result.task.time else "1970-01-01T00:00:00.000Z"

    def relate(kind: str, source: str, target: str) -> None:
        rid = f"relationship--{uuid.uuid5(OURS, f'{kind}:{source}:{target}')}"
        common = {"type": "relationship", "spec_version": "2.1", "id": rid, "created": stamp, "modified": stamp}
        objects.append(common | {"relationship_type": kind, "source_ref": source, "target_ref": target})

    # The page's domain and the IPs it resolved to, as OpenCTI draws them from the observable.
    edges = result.relationships()
    domains = [e.target for e in edges if e.kind == "hosted-on"]
    ips = [e.target for e in edges if e.kind == "resolves-to" and e.source in domains]
    for target in dict.fromkeys(domains + ips):
        if target in ids:
            relate("related-to", entity["id"], ids[target])
    for indicator in [o["id"] for o in objects if o["type"] == "indicator"]:
        relate("based-on", indicator, entity["id"])
    return bundle


def enrich(client: Client, entity: dict[str, Any], *, max_age: float = 86400) -> dict[str, Any]:
    """Reuse a recent scan of the observable's URL (else scan it) and return its bundle."""
    lk = client.lookup_or_scan(entity["value"], max_age=max_age, initial_wait=INITIAL_WAIT, interval=INTERVAL)
    assert lk.result is not None  # one lookup raises what fails
    return bundle_for(lk.result, entity)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: opencti_enrichment.py URL   (the key from URLSCAN_API_KEY)", file=sys.stderr)
        return 2
    with Client() as client:
        print(json.dumps(enrich(client, url_observable(args[0])), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

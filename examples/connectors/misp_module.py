"""A MISP expansion module: a url, domain or hostname attribute enriched with a urlscan.io scan.

The misp-modules urlscan module does this by hand: it submits the URL every time (a quota spent
and a minute waited per lookup), polls the result endpoint with sleeps, reads the JSON by path
and builds each MISP object itself. This one searches first (``lookup_or_scan``: a finished scan
of the same URL from the last ``max_age`` seconds is reused, and nothing is submitted), and the
objects, their relationships and the verdict tag come from ``result.to_misp()``.

It keeps the misp-modules contract (``mispattributes``, ``moduleinfo``, ``moduleconfig``,
``handler``, ``introspection``, ``version``; the "misp_standard" format). To serve it, copy it to
``<root>/expansion/urlscan_rs_lookup.py`` and run ``misp-modules -c <root>``; from a shell:

    URLSCAN_API_KEY=... python examples/connectors/misp_module.py https://example.com/login
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from typing import Any

from urlscan_rs import Client, UrlscanError

mispattributes = {"input": ["url", "link", "domain", "hostname"], "format": "misp_standard"}
moduleinfo = {
    "version": "1.0",
    "author": "urlscan-rs",
    "description": "Reuse a recent urlscan.io scan of the URL (else scan it) and add what the scan saw.",
    "module-type": ["expansion", "hover"],
    "name": "urlscan.io lookup (urlscan-rs)",
    "requirements": ["urlscan-rs", "A urlscan.io API key"],
    "input": "A url, link, domain or hostname attribute.",
    "output": "url, domain-ip and file objects with their relationships, the report link and the verdict tag.",
}
# apikey (required); max_age: seconds a scan is reused for (default a day); visibility of new scans;
# cache_dir: a folder of finished results shared by every worker (Client(cache=...)).
moduleconfig = ["apikey", "max_age", "visibility", "cache_dir"]
# How the wait for a new scan polls: the service's advice (10 s, then every 2 s).
INITIAL_WAIT, INTERVAL = 10.0, 2.0


def handler(q: str | bytes | bool = False) -> dict[str, Any] | bool:
    if isinstance(q, bool):
        return False
    request = json.loads(q)
    config, attribute = request.get("config") or {}, request.get("attribute") or {}
    if not config.get("apikey"):
        return {"error": "The urlscan.io API key is missing (module setting apikey)."}
    kind, value = attribute.get("type"), attribute.get("value")
    if kind not in mispattributes["input"] or not value or not attribute.get("uuid"):
        return {"error": f"An attribute with a uuid and a value, of type {', '.join(mispattributes['input'])}, is needed."}
    url = value if kind in ("url", "link") else f"https://{value}/"
    try:
        with Client(config["apikey"], cache=config.get("cache_dir") or None) as client:
            lk = client.lookup_or_scan(
                url,
                refang=True,  # hxxp://evil[.]example as analysts paste it
                max_age=float(86400 if config.get("max_age") in (None, "") else config["max_age"]),
                visibility=config.get("visibility") or None,
                initial_wait=INITIAL_WAIT,
                interval=INTERVAL,
            )
    except (UrlscanError, ValueError) as e:  # refused (blocklisted, no DNS), quota, a bad setting
        return {"error": f"urlscan.io: {e}"}
    result = lk.result
    assert result is not None  # one lookup raises what fails; only a batch's items hold errors
    event = result.to_misp()
    for obj in event["Object"]:  # each object hangs off the attribute that was expanded
        ref = {"object_uuid": obj["uuid"], "referenced_uuid": attribute["uuid"], "relationship_type": "related-to"}
        obj.setdefault("ObjectReference", []).append(ref)
    v, page = result.verdict, result.page_outcome or "unknown"
    page += f" ({result.page_error})" if result.page_error else ""
    verdict = {True: "malicious", False: "not malicious", None: "no verdict"}[v.malicious]
    note = f"urlscan.io {'reused the' if lk.reused else 'made a new'} scan of {str(result.task.time)[:16]} UTC: "
    note += f"page {page}; {verdict}" + (f" (score {v.score})" if v.score is not None else "")
    notes = [{"type": "text", "category": "External analysis", "value": note, "to_ids": False, "uuid": str(uuid.uuid4())}]
    source = {**attribute, "Tag": event["Tag"]}  # the verdict, on the attribute itself
    return {"results": {"Attribute": [source, *event["Attribute"], *notes], "Object": event["Object"]}}


def introspection() -> dict[str, Any]:
    return mispattributes


def version() -> dict[str, Any]:
    return {**moduleinfo, "config": moduleconfig}


def main(argv: list[str] | None = None) -> int:
    """Expand one URL as MISP would ask, and print the answer."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: misp_module.py URL   (the key from URLSCAN_API_KEY)", file=sys.stderr)
        return 2
    attribute = {"type": "url", "value": args[0], "uuid": str(uuid.uuid4())}
    query = {"module": "urlscan_rs_lookup", "attribute": attribute, "config": {"apikey": os.environ.get("URLSCAN_API_KEY")}}
    answer = handler(json.dumps(query))
    print(json.dumps(answer, indent=2))
    return 1 if not isinstance(answer, dict) or "error" in answer else 0


if __name__ == "__main__":
    sys.exit(main())

"""Bounded, shaped output for agents and connectors: a scan's summary, and any
JSON-like dict fitted to a byte budget.

Real results reach megabytes (hundreds of requests, a hundred domains, a
page title of a million characters). What an assistant or a ticket reads
must not grow with them: :func:`fit` keeps the shape of a dict and cuts it
down until its JSON is at most ``max_bytes``: long strings are shortened
first, then the widest list is halved, again and again; every cut is listed
under ``"omitted"`` (path -> ``{"kept": n, "of": total}``, list items or
characters), so the reader knows what it did not see.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["fit", "summary", "MIN_BYTES"]

MIN_BYTES = 2048
"""The smallest budget :func:`fit` takes: room for a summary's fields that are never cut, and
for saying what was."""

# Strings are first cut to this many characters; then to half as many, down to _MIN_STRING.
_FIRST_STRING = 256
_MIN_STRING = 16
_ELLIPSIS = "…"


def _size(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str).encode())


def _walk(obj: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, container, key) of every string and list under `obj`, lists after their items."""
    found: list[tuple[str, Any, Any]] = []
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        here = f"{path}.{key}" if path and isinstance(obj, dict) else f"{path}[{key}]" if path else str(key)
        if isinstance(value, (dict, list)):
            found.extend(_walk(value, here))
        if isinstance(value, (str, list)):
            found.append((here, obj, key))
    return found


def _general(path: str) -> str:
    """A path with its list indexes dropped: the cuts of every item of a list are one entry."""
    out, depth = [], 0
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out) + ("[]" if path.endswith("]") else "")


def fit(
    data: dict[str, Any], max_bytes: int = 4096, *, keep: tuple[str, ...] = (), whole: tuple[str, ...] = ()
) -> dict[str, Any]:
    """`data` (a JSON-like dict) cut down until its JSON is at most `max_bytes`
    bytes (UTF-8, compact), with ``"omitted"`` saying what was cut. Nothing
    is cut when it fits already. `data` itself is not changed.

    Strings longer than 256 characters are shortened first (never those at
    the top-level keys named in `whole`); then the widest list is halved,
    again and again, down to empty; then strings are shortened further, to
    16 characters at least. As a last resort a whole top-level member is
    dropped, the widest first, never one named in `keep`; then, if the list
    of what was cut is itself too long, it is summed up (``{"*": ...}``).

    Raises:
        ValueError: ``max_bytes`` is below :data:`MIN_BYTES` or not an int, or
            what `keep` and `whole` protect does not fit in it.
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < MIN_BYTES:
        raise ValueError(f"max_bytes must be a whole number of at least {MIN_BYTES}, got {max_bytes!r}")
    out: dict[str, Any] = json.loads(json.dumps(data, ensure_ascii=False, default=str))
    if _size(out) <= max_bytes:
        return out
    # Every cut: path -> (kept, of), lists' items and strings' characters. A
    # string cut inside a list item that was later halved away is no longer
    # there to report: `omitted()` keeps the cuts whose path still exists.
    cuts: dict[str, tuple[int, int]] = {}

    def cut(path: str, kept: int, total: int) -> None:
        cuts[path] = (kept, cuts[path][1] if path in cuts else total)

    def omitted() -> dict[str, dict[str, int]]:
        alive = {p for p, _, _ in _walk(out)} | set(out)
        agg: dict[str, dict[str, int]] = {}
        for path, (kept, total) in cuts.items():
            if path in alive or (path in data and path not in out):
                entry = agg.setdefault(_general(path), {"kept": 0, "of": 0})
                entry["kept"] += kept
                entry["of"] += total
        return agg

    def fits(note: Any = None) -> bool:
        return _size({**out, "omitted": omitted() if note is None else note}) <= max_bytes

    limit = _FIRST_STRING
    while True:
        # Long strings first: one of them is often most of the size (a page title).
        for path, parent, key in _walk(out):
            value = parent[key]
            if isinstance(value, str) and len(value) > limit and path not in whole:
                parent[key] = value[: limit - 1] + _ELLIPSIS
                cut(path, limit - 1, len(value))
        if fits():
            break
        # Then the widest list, halved, until it fits or every list is empty.
        while not fits():
            found = [(_size(p[k]), path, p, k) for path, p, k in _walk(out) if isinstance(p[k], list) and p[k]]
            if not found:
                break
            _, path, parent, key = max(found, key=lambda x: x[0])
            before = len(parent[key])
            parent[key] = parent[key][: before // 2]
            cut(path, len(parent[key]), before)
        if fits():
            break
        if limit > _MIN_STRING:
            limit = max(limit // 2, _MIN_STRING)
            continue
        # Only the fields and short values are left: drop the widest member as a last resort
        # (the cuts then said in sum, if need be).
        droppable = sorted((k for k in out if k not in keep), key=lambda k: _size(out[k]), reverse=True)
        for widest in droppable:
            if fits() or fits(_summed(omitted())):
                break
            del out[widest]
            cut(widest, 0, 1)
        break
    note: Any = omitted()
    if not fits(note):
        # The list of cuts is what is too long: its sum says enough.
        note = _summed(note)
    if not fits(note):
        raise ValueError(f"what may not be cut does not fit in {max_bytes} bytes")
    out["omitted"] = note
    return out


def _summed(note: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {"*": {"kept": sum(e["kept"] for e in note.values()), "of": sum(e["of"] for e in note.values())}}


# What a summary never cuts (`keep`) and whose strings it never shortens (`whole`): see fit().
SUMMARY_KEEP = ("uuid", "verdict", "page")
SUMMARY_WHOLE = ("uuid", "time")


def summary(scan: Any, max_bytes: int = 4096) -> dict[str, Any]:
    """A scan's summary fitted to ``max_bytes`` (see ``ScanResult.summary``)."""
    return fit(unfitted(scan), max_bytes, keep=SUMMARY_KEEP, whole=SUMMARY_WHOLE)


def unfitted(scan: Any) -> dict[str, Any]:
    """Everything a summary holds, before it is fitted: for a caller (the MCP server) that adds
    fields of its own and fits the whole once, so what it adds counts against the same budget."""
    ind = scan.indicators()
    v = scan.verdict
    record = scan.to_record()
    page = scan.page
    time = getattr(scan, "time", None)
    full: dict[str, Any] = {
        "uuid": getattr(scan, "uuid", None) or record.get("uuid"),
        "submitted_url": getattr(scan, "url", None) if isinstance(getattr(scan, "url", None), str) else record.get("url"),
        "time": time.isoformat() if time is not None else None,
        "verdict": {
            "malicious": v.malicious,
            "score": v.score,
            "categories": list(v.categories),
            "brands": list(v.brands),
            "tags": list(v.tags),
        },
        "page": {
            "url": page.url,
            "domain": page.domain,
            "ip": page.ip,
            "country": page.country,
            "asn": page.asn,
            "server": page.server,
            "title": page.title,
        },
        "indicators": {
            "redirects": list(ind.redirects),
            "domains": list(ind.domains),
            "apex_domains": list(ind.apex_domains),
            "ips": list(ind.ips),
            "asns": list(ind.asns),
            "hashes": list(ind.hashes),
            "links": list(ind.links),
            "urls": list(ind.urls),
        },
        "counts": {
            "urls": len(ind.urls),
            "domains": len(ind.domains),
            "ips": len(ind.ips),
            "asns": len(ind.asns),
            "hashes": len(ind.hashes),
            "certificates": len(ind.certificates),
            "links": len(ind.links),
        },
        "report": record.get("report"),
        "screenshot": record.get("screenshot"),
    }
    return full

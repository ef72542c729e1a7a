"""What connectors derive from a result: how the page load went, the files it made the browser
download, and the result as typed edges between observables.

Read from the fields the service documents (``data.requests``, ``data.links``,
``data.redirects``, ``stats.ipStats``, ``meta.processors.download``); a part that is missing,
or of another type than documented, gives nothing, never a guess (a documented field of a
model read with the wrong type is the model's ``DecodeError``).
"""

from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .models import Download, ScanResult


class Relationship(NamedTuple):
    """An edge between two observables of a result: ``source`` -[``kind``]-> ``target``.

    ``kind`` is one of ``hosted-on`` (url -> domain), ``resolves-to`` (domain -> ip),
    ``belongs-to`` (ip -> autonomous system), ``redirects-to`` (url -> url), ``links-to``
    (page url -> url), ``downloaded`` (page url -> file, by SHA-256) and
    ``serves-certificate`` (domain -> certificate, by subject name). The types name what the
    values are: ``url``, ``domain``, ``ip``, ``asn`` (``AS15169``), ``file`` (a SHA-256) or
    ``certificate``.
    """

    source: str
    kind: str
    target: str
    source_type: str
    target_type: str


def _dicts(v: Any) -> list[dict[str, Any]]:
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def _strings(v: Any) -> list[str]:
    """The strings of a list; a value of another type is no list (as a missing one)."""
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _as(number: Any) -> str | None:
    """An autonomous system as ``AS15169`` (the service writes ``15169`` or ``AS15169``)."""
    if not isinstance(number, (str, int)) or isinstance(number, bool) or not str(number).strip():
        return None
    s = str(number).strip()
    return s if s.upper().startswith("AS") else f"AS{s}"


def _host(url: Any) -> str | None:
    if not isinstance(url, str):
        return None
    try:
        host = urllib.parse.urlsplit(url).hostname
    except ValueError:
        return None
    return host or None


def _requests(result: ScanResult) -> list[dict[str, Any]]:
    return _dicts(_get(result.data, "requests"))


def _primary(result: ScanResult) -> dict[str, Any] | None:
    """The request of the page itself: the one marked ``primaryRequest``, else the first."""
    reqs = _requests(result)
    for r in reqs:
        if _get(r, "request", "primaryRequest") is True:
            return r
    return reqs[0] if reqs else None


def page_error(result: ScanResult) -> str | None:
    """The browser's error for the page itself (``net::ERR_NAME_NOT_RESOLVED``, ...), if it failed."""
    text = _get(_primary(result), "response", "failed", "errorText")
    return text if isinstance(text, str) and text else None


def page_outcome(result: ScanResult) -> str | None:
    """``"ok"``, ``"unreachable"``, ``"empty"`` or ``"blocked"``; None when the result holds no requests."""
    primary = _primary(result)
    if primary is None:
        return None
    error = page_error(result)
    if error is not None:
        return "blocked" if "BLOCKED" in error.upper() else "unreachable"
    response = _get(primary, "response")
    status = _get(response, "response", "status")
    if status is None:
        # No answer and no error: the page never loaded (a host that does not resolve, as
        # the service records it: a response of nothing but zero lengths).
        return "unreachable"
    if _get(response, "dataLength") == 0 and not result.lists.urls[1:]:
        return "empty"
    return "ok"


def downloads(result: ScanResult, cls: type[Download]) -> list[Download]:
    """The files the page made the browser download (``meta.processors.download.data``)."""
    return [cls(d) for d in _dicts(_get(result.meta, "processors", "download", "data"))]


def relationships(result: ScanResult) -> list[Relationship]:
    """The result's observables as typed edges, each once, in the order first seen."""
    out: dict[Relationship, None] = {}

    def edge(source: Any, kind: str, target: Any, source_type: str, target_type: str) -> None:
        if isinstance(source, str) and isinstance(target, str) and source and target and source != target:
            out[Relationship(source, kind, target, source_type, target_type)] = None

    page_url = result.page.url or result.url
    edge(page_url, "hosted-on", result.page.domain or _host(page_url), "url", "domain")
    edge(result.page.domain, "resolves-to", result.page.ip, "domain", "ip")
    edge(result.page.ip, "belongs-to", _as(result.page.asn), "ip", "asn")
    for ip in _dicts(result.stats.ip_stats):
        address = ip.get("ip")
        for domain in _strings(ip.get("domains")):
            edge(domain, "resolves-to", address, "domain", "ip")
        edge(address, "belongs-to", _as(_get(ip, "asn", "asn")), "ip", "asn")
    for r in _requests(result):
        request = _get(r, "request")
        target = _get(request, "request", "url")
        edge(_get(request, "redirectResponse", "url"), "redirects-to", target, "url", "url")
        security = _get(r, "response", "response", "securityDetails")
        edge(
            _host(_get(r, "response", "response", "url")),
            "serves-certificate",
            _get(security, "subjectName"),
            "domain",
            "certificate",
        )
    for hop in _dicts(_get(result.data, "redirects")):
        edge(hop.get("from"), "redirects-to", hop.get("to"), "url", "url")
    for link in _dicts(_get(result.data, "links")):
        edge(page_url, "links-to", link.get("href"), "url", "url")
    for file in _dicts(_get(result.meta, "processors", "download", "data")):
        edge(page_url, "downloaded", file.get("sha256"), "url", "file")
    return list(out)

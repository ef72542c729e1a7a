"""What a playbook reads of a scan: indicators, a verdict summary, STIX 2.1 and MISP.

These are the values behind :meth:`ScanResult.indicators()
<urlscan_rs.models.ScanResult.indicators>`, ``result.verdict``,
``result.is_malicious()``, ``result.to_stix()`` and ``result.to_misp()`` (and
the same on a :class:`~urlscan_rs.models.SearchHit`, for what a hit carries)::

    result = client.scan_and_wait("https://evil.example/")
    if result.is_malicious(threshold=50):        # True, False, or None when unknown
        ind = result.indicators()
        block(ind.domains, ind.ipv4, ind.hashes)
        send_to_tip(result.to_stix())            # a STIX 2.1 bundle (a dict)

Indicators are read natively from the document's bytes; every list is
deduplicated and keeps the order of first appearance, so the same result
gives the same indicators, bundle and event (ids included).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import uuid as _uuid
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any, NamedTuple

from . import _native
from ._display import report_link
from .errors import ValidationError
from .models._base import MAX_NESTING, _too_deep

__all__ = [
    "Indicators",
    "Certificate",
    "VerdictSummary",
    "Tags",
    "indicators",
    "verdict",
    "is_malicious",
    "normalize_tags",
    "to_stix",
    "to_misp",
    "ID_NAMESPACE",
]

# The STIX 2.1 namespace for the deterministic ids of cyber-observable objects (spec 2.9).
_STIX_SCO = _uuid.UUID("00abedb4-aa42-466c-9c01-fed23315a9b7")
ID_NAMESPACE = _uuid.uuid5(_uuid.NAMESPACE_URL, "https://github.com/urlscan-rs")
"""The namespace of the ids urlscan-rs gives what it makes (STIX bundles, observed-data and
indicators, MISP events and attributes; a feed's STIX bundle): each is ``uuid5(ID_NAMESPACE, ...)``
of what it is made from, so the same scan gives the same ids in every run."""


@dataclasses.dataclass(frozen=True)
class Certificate:
    """A TLS certificate the page's connections presented (``lists.certificates``)."""

    subject: str | None
    issuer: str | None
    valid_from: datetime | None
    valid_to: datetime | None
    san: tuple[str, ...]
    sha256: str | None


@dataclasses.dataclass(frozen=True)
class Indicators:
    """A scan's indicators, each deduplicated, in order of first appearance.

    ``urls`` (the submitted URL, the final page, then every request's),
    ``domains``, ``apex_domains``, ``ipv4`` and ``ipv6`` (kept apart; ``ips``
    is both), ``asns`` (``AS15169``), ``hashes`` (SHA-256 of the responses),
    ``certificates``, ``redirects`` (the chain from the submitted URL to the
    final page; empty without a redirect) and ``links`` (the page's links).
    """

    urls: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    apex_domains: tuple[str, ...] = ()
    ipv4: tuple[str, ...] = ()
    ipv6: tuple[str, ...] = ()
    asns: tuple[str, ...] = ()
    hashes: tuple[str, ...] = ()
    certificates: tuple[Certificate, ...] = ()
    redirects: tuple[str, ...] = ()
    links: tuple[str, ...] = ()

    @property
    def ips(self) -> tuple[str, ...]:
        """Every IP address: the IPv4 ones, then the IPv6 ones."""
        return self.ipv4 + self.ipv6


@dataclasses.dataclass(frozen=True)
class VerdictSummary:
    """The verdicts of a scan taken together (``overall``, ``urlscan``, ``engines``, ``community``).

    ``malicious`` is the overall verdict when the service gave one, else True
    when any part says malicious, False when a part says not, and None when no
    part says anything (unknown is None, never False). ``score`` is the
    overall score (-100 legitimate to 100 malicious), else the highest of the
    parts'. ``categories``, ``brands`` (keys, else names) and ``tags`` are
    those of every part; ``sources`` the parts that said something.

    Beside the verdicts, what other detectors saw (not counted in ``malicious``):
    ``safe_browsing`` is the threat types Google Safe Browsing lists the page
    under (``SOCIAL_ENGINEERING``, ``MALWARE``, ...; ``()`` when it lists none,
    None when the scan holds no Safe Browsing answer, as a search hit does), and
    ``brand_ai`` the brand urlscan Brand AI read on the page's screenshot.
    """

    malicious: bool | None = None
    score: int | None = None
    categories: tuple[str, ...] = ()
    brands: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    safe_browsing: tuple[str, ...] | None = None
    brand_ai: str | None = None


def _when(seconds: int | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, timezone.utc)


def indicators(model: Any) -> Indicators:
    """The indicators of a :class:`~urlscan_rs.models.ScanResult` or
    :class:`~urlscan_rs.models.SearchHit` (or their JSON as a dict or bytes).

    Raises:
        DecodeError: A value of the wrong type; the message names its path.
        ValidationError: A dict nested deeper than JSON text is read (200 levels).
    """
    if isinstance(model, dict) and _too_deep(model):
        raise ValidationError(f"indicators: the document is nested deeper than {MAX_NESTING} levels")
    d = _native.indicators(model)
    certs = tuple(
        Certificate(c["subject"], c["issuer"], _when(c["valid_from"]), _when(c["valid_to"]), tuple(c["san"]), c["sha256"])
        for c in d.pop("certificates")
    )
    return Indicators(certificates=certs, **{k: tuple(v) for k, v in d.items()})


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def verdict(model: Any) -> VerdictSummary:
    """The :class:`VerdictSummary` of a result (its four verdict parts) or a
    search hit (the one verdict it carries)."""
    # Read by field, not class (the models import this module): a result's verdicts have parts.
    v = model.verdicts
    if "overall" in type(v).fields():
        parts = [("overall", v.overall), ("urlscan", v.urlscan), ("engines", v.engines), ("community", v.community)]
    else:
        parts = [("overall", v)]
    said: list[tuple[str, bool]] = []
    scores: list[int] = []
    categories: list[str] = []
    brands: list[str] = []
    tags: list[str] = []
    sources = []
    for name, part in parts:
        if not part._raw:
            continue
        m = part.malicious
        # The engines' verdict may be the list of engines that found the page malicious.
        flag = bool(m) if isinstance(m, list) and m else m if isinstance(m, bool) else None
        if flag is not None:
            said.append((name, flag))
        if part.score is not None:
            scores.append(part.score)
        if flag is not None or part.score is not None or part.categories or part.brands or part.tags:
            sources.append(name)
        categories += part.categories
        brands += [str(b) if isinstance(b, str) else (b.key or b.name or "") for b in part.brands]
        tags += part.tags
    overall = dict(said).get("overall")
    malicious = overall if overall is not None else (any(f for _, f in said) if said else None)
    first = parts[0][1]
    score = first.score if first._raw and first.score is not None else (max(scores) if scores else None)
    visible = getattr(model, "visible", None)
    return VerdictSummary(
        malicious,
        score,
        _unique(categories),
        _unique(brands),
        _unique(tags),
        tuple(sources),
        _safe_browsing(model),
        visible.brandname if visible is not None else None,
    )


def _safe_browsing(model: Any) -> tuple[str, ...] | None:
    """The threat types of ``meta.processors.gsb.data.matches[]``, the Safe Browsing API's answer."""
    # A result's `meta` is its processors' output; a search hit's is something else (a list).
    meta = getattr(model, "meta", None)
    processors = meta.get("processors") if isinstance(meta, dict) else None
    gsb = processors.get("gsb") if isinstance(processors, dict) else None
    data = gsb.get("data") if isinstance(gsb, dict) else None
    if not isinstance(data, dict):
        return None
    matches = data.get("matches")
    found = [m.get("threatType") for m in matches if isinstance(m, dict)] if isinstance(matches, list) else []
    return _unique([t for t in found if isinstance(t, str)])


def is_malicious(model: Any, threshold: int = 50) -> bool | None:
    """True when a verdict says malicious or the score reaches ``threshold``; False
    when the verdicts say otherwise; None when there is no verdict at all."""
    return _decide(verdict(model), threshold)


def _decide(v: VerdictSummary, threshold: int) -> bool | None:
    if isinstance(threshold, bool) or not isinstance(threshold, int):
        raise TypeError(f"threshold is a whole number (a score from -100 to 100), got {threshold!r}")
    if v.malicious is True or (v.score is not None and v.score >= threshold):
        return True
    if v.malicious is False or v.score is not None:
        return False
    return None


# ---------------------------------------------------------------- STIX 2.1


class Tags(NamedTuple):
    """Tags made fit for a submission (:func:`normalize_tags`)."""

    kept: list[str]
    """The tags to send, in the order given."""
    dropped: list[tuple[str, str]]
    """Each tag left out, with why: ``"empty"``, ``"repeated"`` or ``"past the limit of 10"``."""


def normalize_tags(tags: Iterable[Any]) -> Tags:
    """Tags a scan may carry, from whatever a case or an alert holds, with what was left out.

    The service takes at most 10 tags (``MAX_TAGS`` of the rule table the client checks a
    submission by), none empty: each is trimmed and made a string, empty ones and repeats
    (compared without case) are left out, and past the tenth the rest are. Nothing else is
    changed, as the service states no other rule. ``scan(..., tags=t.kept)`` then passes::

        t = normalize_tags(alert["labels"])
        client.scan(url, tags=t.kept)
        for tag, why in t.dropped:
            log.info("tag %r not sent: %s", tag, why)
    """
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    seen: set[str] = set()
    for tag in tags:
        text = "" if tag is None else str(tag).strip()
        if not text:
            dropped.append(("" if tag is None else str(tag), "empty"))
        elif text.casefold() in seen:
            dropped.append((text, "repeated"))
        elif len(kept) >= _native.MAX_TAGS:
            dropped.append((text, f"past the limit of {_native.MAX_TAGS}"))
        else:
            seen.add(text.casefold())
            kept.append(text)
    return Tags(kept, dropped)


def _stamp(t: datetime | None) -> str:
    t = t or datetime(1970, 1, 1, tzinfo=timezone.utc)
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _sco(kind: str, contributing: dict[str, Any], **props: Any) -> dict[str, Any]:
    """A cyber-observable object with its deterministic id (uuid5 of its id-contributing properties)."""
    canonical = json.dumps(contributing, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {"type": kind, "spec_version": "2.1", "id": f"{kind}--{_uuid.uuid5(_STIX_SCO, canonical)}", **props}


def _pattern_text(v: str) -> str:
    return v.replace("\\", "\\\\").replace("'", "\\'")


def _scan_id(model: Any) -> str:
    return str(model.uuid or "")


def to_stix(model: Any, threshold: int = 50, *, screenshot: bytes | bool | None = False) -> dict[str, Any]:
    """A STIX 2.1 bundle of the scan: ``url``, ``domain-name``, ``ipv4-addr``,
    ``ipv6-addr``, ``file`` (response hashes) and ``x509-certificate`` objects, an
    ``observed-data`` that refers to them, and for a malicious verdict (see
    :func:`is_malicious`) an ``indicator`` with a pattern for the submitted URL,
    ``based-on`` the observed data. From a result also ``autonomous-system``
    objects, the files the page downloaded (with their names), and ``relationship``
    objects for its domains that ``resolves-to`` IPs and IPs that ``belongs-to``
    autonomous systems (``result.relationships()``). ``screenshot`` (the PNG, e.g.
    ``client.screenshot(uuid)``) adds it as an ``artifact`` (``image/png``, with its
    SHA-256) that the observed data refers to, for a case's evidence. Ids are
    deterministic: the same scan gives the same bundle.

    Raises:
        ValidationError: ``screenshot=True`` (a result does not hold its screenshot:
            pass the bytes), or bytes that are not a PNG image.
    """
    ind = indicators(model)
    v = verdict(model)
    stamp = _stamp(model.task.time)
    references = _references(model)
    scos: list[dict[str, Any]] = []
    scos += [_sco("url", {"value": u}, value=u) for u in ind.urls]
    scos += [_sco("domain-name", {"value": d}, value=d) for d in ind.domains]
    scos += [_sco("ipv4-addr", {"value": a}, value=a) for a in ind.ipv4]
    scos += [_sco("ipv6-addr", {"value": a}, value=a) for a in ind.ipv6]
    scos += [_sco("file", {"hashes": {"SHA-256": h}}, hashes={"SHA-256": h}) for h in ind.hashes]
    for c in ind.certificates:
        props: dict[str, Any] = {}
        if c.sha256:
            props["hashes"] = {"SHA-256": c.sha256}
        if c.subject:
            props["subject"] = c.subject
        if c.issuer:
            props["issuer"] = c.issuer
        if c.valid_from:
            props["validity_not_before"] = _stamp(c.valid_from)
        if c.valid_to:
            props["validity_not_after"] = _stamp(c.valid_to)
        if not props:
            continue
        # A certificate's id comes from its hash; without one, from what is known of it.
        contributing = {"hashes": props["hashes"]} if "hashes" in props else props
        scos.append(_sco("x509-certificate", contributing, **props))
    edges = _stix_edges(model, scos)
    if screenshot is not False and screenshot is not None:
        scos.append(_artifact(screenshot))
    scan = _scan_id(model)
    objects: list[dict[str, Any]] = list(scos)
    observed = f"observed-data--{_uuid.uuid5(ID_NAMESPACE, 'observed-data:' + scan)}"
    if scos:
        objects.append(
            {
                "type": "observed-data",
                "spec_version": "2.1",
                "id": observed,
                "created": stamp,
                "modified": stamp,
                "first_observed": stamp,
                "last_observed": stamp,
                "number_observed": 1,
                "object_refs": [o["id"] for o in scos],
                "external_references": references,
            }
        )
    objects += [_sro(kind, source, target, stamp) for kind, source, target in edges]
    if _decide(v, threshold) and ind.urls:
        objects.append(
            {
                "type": "indicator",
                "spec_version": "2.1",
                "id": f"indicator--{_uuid.uuid5(ID_NAMESPACE, 'indicator:' + scan)}",
                "created": stamp,
                "modified": stamp,
                "name": f"Malicious URL: {ind.urls[0]}",
                "indicator_types": ["malicious-activity"],
                "pattern": f"[url:value = '{_pattern_text(ind.urls[0])}']",
                "pattern_type": "stix",
                "valid_from": stamp,
                "labels": list(v.categories) or ["malicious"],
                "external_references": references,
            }
        )
        if scos:
            objects.append(_sro("based-on", objects[-1]["id"], observed, stamp))
    return {"type": "bundle", "id": f"bundle--{_uuid.uuid5(ID_NAMESPACE, 'bundle:' + scan)}", "objects": objects}


def _artifact(png: Any) -> dict[str, Any]:
    """The screenshot as a STIX ``artifact``: its bytes in base64, its type and hash."""
    if png is True or not isinstance(png, bytes | bytearray | memoryview):
        raise ValidationError(
            "to_stix(screenshot=...) takes the PNG itself (a result does not hold it): screenshot=client.screenshot(uuid)"
        )
    data = bytes(png)
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValidationError(f"to_stix(screenshot=...) takes a PNG image; got {len(data)} bytes that are not one")
    digest = {"SHA-256": hashlib.sha256(data).hexdigest()}
    payload = base64.b64encode(data).decode("ascii")
    # Its id from its hashes and payload, the properties STIX 2.1 names for an artifact's id.
    return _sco("artifact", {"hashes": digest, "payload_bin": payload}, mime_type="image/png", payload_bin=payload, hashes=digest)


def _sro(kind: str, source: str, target: str, stamp: str) -> dict[str, Any]:
    """A relationship object with its deterministic id (from its kind and ends)."""
    return {
        "type": "relationship",
        "spec_version": "2.1",
        "id": f"relationship--{_uuid.uuid5(ID_NAMESPACE, f'relationship:{kind}:{source}:{target}')}",
        "created": stamp,
        "modified": stamp,
        "relationship_type": kind,
        "source_ref": source,
        "target_ref": target,
    }


def _stix_edges(model: Any, scos: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """A result's autonomous systems and downloaded files, added to ``scos``, and its
    ``resolves-to`` and ``belongs-to`` edges between objects of the bundle as (kind, source id,
    target id). A search hit has neither."""
    relationships = getattr(model, "relationships", None)
    if relationships is None:
        return []
    by_value = {(o["type"], o.get("value", o.get("number"))): o for o in scos}
    for d in model.downloads():
        if not d.sha256:
            continue
        props = {k: v for k, v in (("name", d.filename), ("size", d.filesize), ("mime_type", d.mime_type)) if v is not None}
        # Its name contributes to its id, as for any STIX consumer.
        contributing = {"hashes": {"SHA-256": d.sha256}} | ({"name": d.filename} if d.filename else {})
        file = _sco("file", contributing, hashes={"SHA-256": d.sha256}, **props)
        known = next((i for i, o in enumerate(scos) if o["type"] == "file" and o["hashes"].get("SHA-256") == d.sha256), None)
        if known is None:
            scos.append(file)
        else:
            scos[known] = file

    def ref(kind: str, value: str) -> str | None:
        if kind == "asn":
            number = value[2:]
            if not number.isdigit():
                return None
            key: tuple[str, Any] = ("autonomous-system", int(number))
            if key not in by_value:
                by_value[key] = _sco("autonomous-system", {"number": key[1]}, number=key[1])
                scos.append(by_value[key])
        else:
            key = ({"domain": "domain-name"}.get(kind) or ("ipv6-addr" if ":" in value else "ipv4-addr"), value)
        found = by_value.get(key)
        return None if found is None else str(found["id"])

    out = []
    for e in relationships():
        if e.kind in ("resolves-to", "belongs-to"):
            source, target = ref(e.source_type, e.source), ref(e.target_type, e.target)
            if source and target:
                out.append((e.kind, source, target))
    return out


def _references(model: Any) -> list[dict[str, str]]:
    url = report_link(model)
    ref = {"source_name": "urlscan.io"}
    if getattr(model, "uuid", None):
        ref["external_id"] = str(model.uuid)
    if url:
        ref["url"] = url
    return [ref]


# ---------------------------------------------------------------- MISP

# The MISP object templates used (misp-objects: objects/<name>/definition.json).
_MISP_TEMPLATES = {
    "url": ("60efb77b-40b5-4c46-871b-ed1ed999fce5", "9"),
    "domain-ip": ("43b3b146-77eb-4931-b4cc-b66c60f28734", "11"),
    "file": ("688c46fb-5edb-40a3-8273-1af7923e2215", "24"),
}


def to_misp(model: Any, threshold: int = 50) -> dict[str, Any]:
    """A MISP event (a dict ``pymisp.MISPEvent().from_dict(**event)`` loads) with a
    ``url`` object per URL, a ``domain-ip`` object for the page's domain and
    address and for each other domain, a ``file`` object per response hash,
    and the report as a link. From a result also: each domain's object holds the
    IPs it resolved to, each downloaded file is a ``file`` object (with its name)
    that was ``downloaded-from`` the page's URL, and URLs that redirect refer to
    where they went (``redirects-to``). Malicious scans (see :func:`is_malicious`)
    are tagged ``urlscan:verdict="malicious"``. Ids are deterministic."""
    ind = indicators(model)
    scan = _scan_id(model)
    when = model.task.time
    ids = iter(range(1 << 30))

    def uid(what: str) -> str:
        return str(_uuid.uuid5(ID_NAMESPACE, f"misp:{scan}:{what}:{next(ids)}"))

    def attr(relation: str, kind: str, value: str, ids_flag: bool = False) -> dict[str, Any]:
        return {"object_relation": relation, "type": kind, "value": value, "to_ids": ids_flag, "uuid": uid(relation)}

    def obj(name: str, attributes: list[dict[str, Any]]) -> dict[str, Any]:
        template, version = _MISP_TEMPLATES[name]
        meta = {"url": "network", "domain-ip": "network", "file": "file"}[name]
        return {
            "name": name,
            "meta-category": meta,
            "template_uuid": template,
            "template_version": version,
            "uuid": uid(name),
            "Attribute": attributes,
        }

    def refer(source: dict[str, Any], kind: str, target: dict[str, Any]) -> None:
        reference = {"uuid": uid("reference"), "object_uuid": source["uuid"], "referenced_uuid": target["uuid"]}
        source.setdefault("ObjectReference", []).append({**reference, "relationship_type": kind})

    edges: list[Any] = getattr(model, "relationships", list)()
    resolved: dict[str, list[str]] = {}
    for e in edges:
        if e.kind == "resolves-to":
            resolved.setdefault(e.source, []).append(e.target)
    bad = is_malicious(model, threshold) is True
    urls = {u: obj("url", [attr("url", "url", u, bad and i == 0)]) for i, u in enumerate(ind.urls)}
    objects = list(urls.values())
    page_domain = model.page.domain
    page_ip = model.page.ip
    for d in ind.domains:
        attrs = [attr("domain", "domain", d, bad and d == page_domain)]
        ips = ([page_ip] if d == page_domain and page_ip else []) + resolved.get(d, [])
        attrs += [attr("ip", "ip-dst", ip) for ip in dict.fromkeys(ips)]
        objects.append(obj("domain-ip", attrs))
    files = {h: obj("file", [attr("sha256", "sha256", h)]) for h in ind.hashes}
    for f in getattr(model, "downloads", list)():
        if f.sha256:
            known = files.setdefault(f.sha256, obj("file", [attr("sha256", "sha256", f.sha256)]))
            if f.filename:
                known["Attribute"].append(attr("filename", "filename", f.filename))
            page = urls.get(model.page.url or "")
            if page is not None:
                refer(known, "downloaded-from", page)
    objects += files.values()
    for e in edges:
        if e.kind == "redirects-to" and e.source in urls and e.target in urls:
            refer(urls[e.source], "redirects-to", urls[e.target])
    report = report_link(model)
    attributes = (
        [{"type": "link", "category": "External analysis", "value": report, "to_ids": False, "uuid": uid("link")}]
        if report
        else []
    )
    event: dict[str, Any] = {
        "uuid": str(_uuid.uuid5(ID_NAMESPACE, f"misp-event:{scan}")),
        "info": f"urlscan.io scan of {ind.urls[0] if ind.urls else scan}",
        "date": (when or datetime(1970, 1, 1, tzinfo=timezone.utc)).strftime("%Y-%m-%d"),
        "threat_level_id": "1" if bad else "4",
        "analysis": "2",
        "distribution": "0",
        "Attribute": attributes,
        "Object": objects,
        "Tag": [{"name": 'urlscan:verdict="malicious"'}] if bad else [],
    }
    return event

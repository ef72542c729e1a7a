"""Results, submissions, incidents, hits and any other model, printed as blocks and tables."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any

from ..models import (
    Brand,
    BrandSummary,
    CertificateHit,
    Channel,
    DataDumpFile,
    DomainHit,
    HostnameHit,
    Incident,
    IncidentHit,
    IncidentState,
    LiveScanner,
    Model,
    NotificationHit,
    SavedSearch,
    ScanResult,
    SearchHit,
    Submission,
    Subscription,
    UserAgentGroup,
    Verdict,
)
from ._output import CYAN, DIM, GREEN, RED, YELLOW, Cell, Output


def _when(t: datetime | None, minutes: bool = False) -> str:
    if t is None:
        return "-"
    return f"{t:%Y-%m-%d %H:%M}" if minutes else f"{t:%Y-%m-%d %H:%M:%S} UTC"


def _clip(text: str | None, width: int) -> str:
    if not text:
        return "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def _verdict(v: Verdict) -> Cell:
    score = "?" if v.score is None else str(v.score)
    if v.malicious is True:
        text, code = f"malicious (score {score})", RED
    elif v.malicious is None:  # unknown is never shown as clean
        text, code = f"no verdict (score {score})", None
    elif v.has_verdicts is False and not v.score:
        text, code = f"no classification (score {score})", None
    else:
        text, code = f"not malicious (score {score})", GREEN
    extra = list(v.categories)
    brands = [b if isinstance(b, str) else (b.name or b.key) for b in v.brands]
    if brands:
        extra.append("brand " + ", ".join(str(b) for b in brands if b))
    if extra:
        text += ": " + "; ".join(extra)
    return (text, code)


def _score(v: Verdict) -> Cell:
    text = "-" if v.score is None else str(v.score)
    return (text, RED) if v.malicious is True else text


# ------------------------------------------------------------------ printing models


def _print_result(out: Output, r: ScanResult, base_url: str) -> None:
    if out.json:
        out.emit(r.raw)
        return
    t, p = r.task, r.page
    rows: list[tuple[str, Cell | None]] = [("URL", t.url or p.url)]
    if p.url and p.url != t.url:
        rows.append(("Final URL", p.url))
    ip = p.ip
    if ip and (p.asn or p.asnname):
        ip = f"{ip} ({' '.join(x for x in (p.asn, p.asnname) if x)})"
    country = ", ".join(x for x in (p.country, p.city) if x)
    report = t.report_url or f"{base_url.rstrip('/')}/result/{r.uuid}/"
    rows += [
        ("Domain", p.domain),
        ("IP", ip),
        ("Country", country),
        ("Server", p.server),
        ("Title", p.title),
        ("Verdict", _verdict(r.verdicts.overall)),
        ("Scanned", _when(t.time)),
        ("Report", (report, CYAN)),
    ]
    out.block(f"Scan {r.uuid}", rows)


def _print_submission(out: Output, sub: Submission) -> None:
    if out.json:
        out.emit(sub.raw)
        return
    out.block(
        f"Submitted {sub.url}",
        [
            ("UUID", sub.uuid),
            ("Visibility", sub.visibility),
            ("Country", sub.country),
            ("Report", (sub.result, CYAN) if sub.result else None),
            ("API", sub.api),
        ],
    )
    out.line(out.paint(f"  results are usually ready within 10-30 s: urlscan-rs result {sub.uuid}", DIM))


def _print_incident(out: Output, inc: Incident, title: str = "Incident") -> None:
    if out.json:
        out.emit(inc.raw)
        return
    state = inc.state
    interval = f"{inc.scan_interval}s" if inc.scan_interval is not None else None
    if interval and inc.scan_interval_mode:
        interval += f" ({inc.scan_interval_mode})"
    source = " ".join(x for x in (inc.source_type, inc.source_id) if x)
    out.block(
        f"{title} {inc.id}",
        [
            ("Observable", inc.observable),
            ("State", (state or "-", GREEN if state == "active" else YELLOW)),
            ("Type", inc.type),
            ("Visibility", inc.visibility),
            ("Channels", ", ".join(inc.channels)),
            ("Scan interval", interval),
            ("Observations", None if inc.state_count is None else str(inc.state_count)),
            ("Created", _when(inc.created_at)),
            ("Last scan", _when(inc.scanned_at)),
            ("Expires", _when(inc.expire_at)),
            ("Source", source),
        ],
    )


# ------------------------------------------------------------------ printing any model


def _hit_row(hit: Any) -> list[Cell]:
    """One table row per hit, by the hit's data source."""
    if isinstance(hit, HostnameHit):
        sources = ", ".join(hit.sources or []) or "-"
        return [
            _when(hit.last_seen, minutes=True),
            _clip(hit.hostname, 50),
            hit.domain or "-",
            _when(hit.first_seen, True),
            sources,
        ]
    if isinstance(hit, IncidentHit):
        return [_when(hit.created_at, minutes=True), hit.state or "-", _clip(hit.observable, 50), hit.source_type or "-", hit.id]
    if isinstance(hit, NotificationHit):
        about = hit.subscription_name or hit.subscription_id or hit.observable or hit.incident_id
        return [_when(hit.created_at, minutes=True), hit.type or "-", _clip(about, 40), _count(hit.total), hit.id]
    if isinstance(hit, CertificateHit):
        return [
            _when(hit.last_seen, minutes=True),
            _clip(hit.domain, 40),
            _clip(hit.issuer, 40),
            _when(hit.valid_to, True),
            hit.id,
        ]
    if isinstance(hit, DomainHit):
        return [
            _when(hit.last_seen, minutes=True),
            _clip(hit.domain, 50),
            _count(hit.scan_count),
            hit.ip or "-",
            hit.country or "-",
            _when(hit.first_seen, True),
        ]
    return [
        _when(hit.task.time, minutes=True),
        _clip(hit.page.domain, 50),
        hit.page.ip or "-",
        hit.page.country or "-",
        _score(hit.verdicts),
        hit.id,
    ]


def _count(n: int | None) -> str:
    return "-" if n is None else str(n)


# Table headers per data source, and the right-aligned columns.
HIT_HEADERS: dict[str, tuple[list[str], frozenset[int]]] = {
    "scans": (["TIME (UTC)", "DOMAIN", "IP", "CC", "SCORE", "UUID"], frozenset({4})),
    "hostnames": (["LAST SEEN (UTC)", "HOSTNAME", "DOMAIN", "FIRST SEEN", "SOURCES"], frozenset()),
    "incidents": (["CREATED (UTC)", "STATE", "OBSERVABLE", "SOURCE", "ID"], frozenset()),
    "notifications": (["CREATED (UTC)", "TYPE", "ABOUT", "RESULTS", "ID"], frozenset({3})),
    "certificates": (["LAST SEEN (UTC)", "DOMAIN", "ISSUER", "VALID TO", "ID"], frozenset()),
    "domains": (["LAST SEEN (UTC)", "DOMAIN", "SCANS", "IP", "CC", "FIRST SEEN"], frozenset({2})),
}


def _noun(cls: type) -> str:
    """``SavedSearch`` -> ``saved search``."""
    name = cls.__name__
    return "".join(" " + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))


def _text(value: Any) -> str | None:
    """A field's value as one short line (None when empty)."""
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return _when(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Model):
        fields = type(value).fields()
        for name in ("name", "key", "uuid", "id"):
            if name in fields and getattr(value, name, None):
                return str(getattr(value, name))
        return None
    if isinstance(value, (list, tuple)):
        parts = [t for t in (_text(v) for v in value) if t]
        return ", ".join(parts) or None
    if isinstance(value, dict):
        text = json.dumps(value, default=str, separators=(",", ":"))
        return text if len(text) <= 100 else f"{len(value)} entries (see --json)"
    return str(value)


def _model_block(out: Output, m: Model, title: str, skip: str | None = "id") -> None:
    """A title and the fields that have a value."""
    rows: list[tuple[str, Cell | None]] = []
    for name in type(m).fields():
        if name in ("id", skip):
            continue
        text = _text(getattr(m, name, None))
        if text is not None:
            rows.append((name.replace("_", " ").capitalize(), text))
    out.block(title, rows)


def _cells(*values: Any) -> list[Cell]:
    return [_text(v) or "-" for v in values]


# Table columns for lists of models: headers, and the rows of one item.
_TABLES: dict[type, tuple[list[str], Callable[[Any], list[list[Cell]]]]] = {
    LiveScanner: (["ID", "COUNTRY", "CITY", "ONLINE", "NAME"], lambda s: [_cells(s.id, s.country, s.city, s.online, s.name)]),
    SavedSearch: (["ID", "DATASOURCE", "NAME", "QUERY"], lambda s: [_cells(s.id, s.datasource, s.name, s.query)]),
    Subscription: (
        ["ID", "NAME", "FREQUENCY", "ACTIVE", "SEARCHES"],
        lambda s: [_cells(s.id, s.name, s.frequency, s.is_active, s.search_ids)],
    ),
    Channel: (
        ["ID", "TYPE", "NAME", "ACTIVE", "SENDS TO"],
        lambda c: [_cells(c.id, c.type, c.name, c.is_active, c.webhook_url or c.email_addresses)],
    ),
    Brand: (["KEY", "NAME", "VERTICAL", "COUNTRY"], lambda b: [_cells(b.key, b.name, b.vertical, b.country)]),
    BrandSummary: (
        ["BRAND", "NAME", "TOTAL", "LATEST (UTC)", "LATEST SCAN"],
        lambda b: [_cells(b.brand.key, b.brand.name, b.total, *((b.hits[0].task.time, b.hits[0].id) if b.hits else ()))],
    ),
    DataDumpFile: (["PATH", "SIZE", "TIME (UTC)"], lambda f: [_cells(f.path, f.size, f.timestamp)]),
    UserAgentGroup: (["GROUP", "USER AGENT"], lambda g: [[g.group or "-", ua] for ua in g.useragents]),
    SearchHit: (HIT_HEADERS["scans"][0], lambda h: [_hit_row(h)]),
}


def _print_states(out: Output, states: Sequence[IncidentState]) -> None:
    rows: list[list[Cell]] = []
    for st in states:
        # The wire values as text: most keys are known only from the emulator, and one odd
        # value must not cost the whole table.
        seen = st.state.raw if isinstance(st.state.raw, dict) else {}
        mal = seen.get("malicious")
        rows.append(
            [
                _when(st.time_start, minutes=True),
                _when(st.time_end, minutes=True),
                str(seen.get("status") or "-"),
                ("yes", RED) if mal is True else ("no" if mal is False else "-"),
                str(seen.get("country") or "-"),
                str(seen.get("ip") or "-"),
                _clip(str(seen.get("title") or ""), 40),
                str(seen.get("scanId") or "-"),
                st.id,
            ]
        )
    out.table(["START (UTC)", "END", "STATUS", "MALICIOUS", "CC", "IP", "TITLE", "SCAN", "ID"], rows)


def _print_models(out: Output, items: Sequence[Any], empty: str) -> None:
    """A list of models: one JSON line each, or a table."""
    if out.json:
        for item in items:
            out.emit(item.to_dict())
        return
    if not items:
        out.line(empty)
        return
    if isinstance(items[0], IncidentState):
        _print_states(out, items)
        return
    spec = _TABLES.get(type(items[0]))
    if spec is None:
        for item in items:
            _model_block(out, item, f"{_noun(type(item)).capitalize()} {getattr(item, 'id', '') or ''}".rstrip())
        return
    headers, rows_of = spec
    right = HIT_HEADERS["scans"][1] if isinstance(items[0], SearchHit) else frozenset()
    out.table(headers, [row for item in items for row in rows_of(item)], right=right)

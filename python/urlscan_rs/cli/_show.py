"""Results, submissions, incidents, hits and any other model, printed as blocks and tables."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any

from .. import _native
from ..models import (
    Brand,
    BrandSummary,
    Channel,
    DataDumpFile,
    Incident,
    IncidentState,
    LiveScanner,
    Model,
    SavedSearch,
    ScanResult,
    Submission,
    Subscription,
    UserAgentGroup,
    Verdict,
)
from ..schema import of_datasource
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
        out.emit(r._raw)
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
        out.emit(sub._raw)
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
        out.emit(inc._raw)
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


# The columns shown of each data source's hits: the core's data-source table names them.
SHOWN: dict[str, tuple[str, ...]] = {d["name"]: tuple(d["shown"]) for d in _native.data_sources()}
_SOURCE_OF_MODEL = {d["model"]: d["name"] for d in _native.data_sources()}
# Short headers for wide column names (the others are the name in capitals).
_HEADERS = {"time": "TIME", "created_at": "CREATED", "country": "CC", "scan_count": "SCANS", "total": "RESULTS"}
_HEADERS["subscription_name"] = "SUBSCRIPTION"


def _shown(ty: str, value: Any) -> str:
    """A table cell of a column of type ``ty`` (a ``urlscan_rs.schema`` type)."""
    if value is None:
        return "-"
    if ty.startswith("timestamp"):
        return _when(value, minutes=True)
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return _clip(str(value), 50)


def print_hits(out: Output, hits: Sequence[Any]) -> None:
    """Hits as a table of the shown columns of their data source (told by their model class; scans when
    it is none of the data sources'), read from their table records."""
    source = _SOURCE_OF_MODEL.get(type(hits[0]).__name__, "scans") if hits else "scans"
    table = of_datasource(source)
    names = SHOWN[source]
    types = [table[n].type for n in names]
    rows: list[list[Cell]] = []
    # Only the columns shown are decoded: an odd value elsewhere in a hit costs nothing here.
    wanted = [*names, *(["malicious"] if "score" in names and "malicious" in table.names else [])]
    for rec in _native.records(table.name, hits, wanted):
        row: list[Cell] = [_shown(ty, rec[n]) for n, ty in zip(names, types, strict=True)]
        if "score" in names and rec.get("malicious") is True:
            i = names.index("score")
            row[i] = (str(row[i]), RED)
        rows.append(row)
    headers = [_HEADERS.get(n, n.replace("_", " ").upper()) for n in names]
    headers[0] += " (UTC)"
    right = frozenset(i for i, ty in enumerate(types) if ty.startswith("int64"))
    out.table(headers, rows, right=right)


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
}


def _print_states(out: Output, states: Sequence[IncidentState]) -> None:
    rows: list[list[Cell]] = []
    for st in states:
        # The wire values as text: most keys are known only from the emulator, and one odd
        # value must not cost the whole table.
        seen = st.state._raw if isinstance(st.state._raw, dict) else {}
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
    if type(items[0]).__name__ in _SOURCE_OF_MODEL:
        print_hits(out, items)
        return
    spec = _TABLES.get(type(items[0]))
    if spec is None:
        for item in items:
            _model_block(out, item, f"{_noun(type(item)).capitalize()} {getattr(item, 'id', '') or ''}".rstrip())
        return
    headers, rows_of = spec
    out.table(headers, [row for item in items for row in rows_of(item)])

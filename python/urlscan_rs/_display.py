"""Notebook display and tabular export of results and search hits."""

from __future__ import annotations

import html
from collections.abc import Iterable
from datetime import datetime
from typing import Any

COLUMNS = ("time", "url", "domain", "ip", "country", "score", "malicious", "report", "screenshot")


def report_link(obj: Any) -> str | None:
    """A scan's report page: the result's ``task.reportURL``; for a search hit, made
    from its API link (so on the host that served it, an emulator too); else the
    service's address."""
    task = obj.task
    if task.report_url:
        return str(task.report_url)
    api = getattr(obj, "result", None)
    if isinstance(api, str) and "/api/v1/result/" in api:
        return api.replace("/api/v1/result/", "/result/", 1)
    uuid = getattr(obj, "uuid", None) or task.uuid
    return f"https://urlscan.io/result/{uuid}/" if uuid else None


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "<td>unknown</td>" if key == "malicious" else "<td></td>"
    if key in ("report", "screenshot"):
        label = "report" if key == "report" else "screenshot"
        return f'<td><a href="{html.escape(str(value))}" target="_blank">{label}</a></td>'
    if isinstance(value, datetime):
        return f"<td>{html.escape(value.strftime('%Y-%m-%d %H:%M:%S'))}</td>"
    if key == "malicious":
        return f"<td>{'&#9888; yes' if value is True else 'no' if value is False else 'unknown'}</td>"
    text = str(value)
    short = text if len(text) <= 80 else text[:77] + "..."
    return f'<td title="{html.escape(text)}">{html.escape(short)}</td>'


def _is_scan(obj: Any) -> bool:
    # A scan's result or a search hit of one: both have a task and a page (read by field, so
    # this module needs no import of the models, which use it).
    fields = getattr(type(obj), "fields", None)
    return callable(fields) and {"task", "page"} <= set(fields())


def _records(objs: list[Any]) -> list[dict[str, Any]]:
    """The objects' table records: decoded in one batch when they are of one class."""
    if objs and all(type(o) is type(objs[0]) for o in objs):
        from . import _native, schema

        return _native.records(schema.of(objs[0]).name, objs)
    return [o.to_record() for o in objs]


def table(objs: Iterable[Any], caption: str | None = None) -> str:
    """A compact HTML table: URL, domain, IP, country, verdict, time, links
    for scans; the hits' own flat records for the other data sources."""
    objs = list(objs)
    columns: tuple[str, ...]
    rows = _records(objs)
    if all(_is_scan(o) for o in objs):
        columns = COLUMNS
        for o, r in zip(objs, rows, strict=True):
            r["report"] = r["report"] or report_link(o)
    else:
        columns = tuple(rows[0])
    head = "".join(f"<th>{c}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(c, r.get(c)) for c in columns) + "</tr>" for r in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<table class="urlscan-rs">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def to_pandas(records: list[dict[str, Any]]) -> Any:
    import importlib

    try:
        pd = importlib.import_module("pandas")
    except ImportError as e:
        raise ImportError("to_pandas() needs pandas: pip install pandas") from e
    return pd.DataFrame.from_records(records)

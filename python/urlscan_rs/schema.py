"""The documented flat schemas of the tables this package builds.

Each schema is one row per search hit, result, hostname record or
notification, and one column per field a table user wants, read from a wire
path of the service's JSON (``page.domain``) or the first present of a few.
The columns are built in the Rust core; this module describes them (it is
made from the same table)::

    >>> from urlscan_rs import schema
    >>> schema.SCANS["malicious"].type
    'bool'
    >>> schema.SCANS.names[:4]
    ('uuid', 'time', 'url', 'submitted_url')

``to_arrow(columns=[...])`` takes schema names or dotted wire paths
(``"page.redirected"``; a top-level field with a leading dot, ``"._score"``)
for what a schema leaves out, and paths through a list for a value of each
element (``"data.requests[].response.response.status"``: a list column). Missing is null (``malicious`` is null when the
service gave no verdict, never false); a value of the wrong type is a
:class:`~urlscan_rs.errors.DecodeError` naming its path.

The ``version`` changes when a column changes name, type or meaning; added
columns do not change it. Arrow schemas carry it in their metadata
(``urlscan_rs.schema``, ``urlscan_rs.schema_version``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from . import _native

__all__ = [
    "Column",
    "Schema",
    # The schemas of the core, by name.
    # BEGIN GENERATED schema_names by `python -m urlscan_rs._generate`: do not edit
    "SCANS",
    "RESULTS",
    "HOSTNAMES",
    "HOSTNAME_HITS",
    "CERTIFICATES",
    "DOMAINS",
    "INCIDENTS",
    "NOTIFICATIONS",
    # END GENERATED schema_names
    "ALL",
    "VERSION",
    "markdown",
]


@dataclasses.dataclass(frozen=True)
class Column:
    """One column: its name, Arrow type, the wire paths it reads (the first
    present and not null wins) and what it means."""

    name: str
    type: str
    paths: tuple[str, ...]
    doc: str


@dataclasses.dataclass(frozen=True)
class Schema:
    """A documented table schema: what a row is and its columns, in order."""

    name: str
    row: str
    version: int
    columns: tuple[Column, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The column names, in order."""
        return tuple(c.name for c in self.columns)

    def __getitem__(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"{name!r} is not a column of {self.name} ({', '.join(self.names)})")

    def __iter__(self) -> Iterator[Column]:
        return iter(self.columns)

    def __len__(self) -> int:
        return len(self.columns)

    def __repr__(self) -> str:
        return f"Schema({self.name}, version={self.version}, {len(self.columns)} columns)"


def _load() -> dict[str, Schema]:
    out = {}
    for s in _native.table_schemas():
        cols = tuple(Column(c["name"], c["type"], tuple(c["paths"]), c["doc"]) for c in s["columns"])
        out[s["name"]] = Schema(s["name"], s["row"], s["version"], cols)
    return out


_BY_NAME = _load()
# BEGIN GENERATED schemas by `python -m urlscan_rs._generate`: do not edit
SCANS: Schema = _BY_NAME["SCANS"]
RESULTS: Schema = _BY_NAME["RESULTS"]
HOSTNAMES: Schema = _BY_NAME["HOSTNAMES"]
HOSTNAME_HITS: Schema = _BY_NAME["HOSTNAME_HITS"]
CERTIFICATES: Schema = _BY_NAME["CERTIFICATES"]
DOMAINS: Schema = _BY_NAME["DOMAINS"]
INCIDENTS: Schema = _BY_NAME["INCIDENTS"]
NOTIFICATIONS: Schema = _BY_NAME["NOTIFICATIONS"]
# END GENERATED schemas
ALL: tuple[Schema, ...] = tuple(_BY_NAME.values())
VERSION: int = SCANS.version

# The search data sources (the core's table): what each one's hits are, tabled by which schema.
_DATA_SOURCES: tuple[dict[str, Any], ...] = tuple(_native.data_sources())
# The schema of each model class's rows, and of each search data source's hits.
_OF_CLASS = {d["model"]: _BY_NAME[d["schema"]] for d in _DATA_SOURCES} | {
    "ScanResult": RESULTS,
    "HostnameRecord": HOSTNAMES,
    "Incident": INCIDENTS,
    "Notification": NOTIFICATIONS,
}
_OF_DATASOURCE: dict[str | None, Schema] = {d["name"]: _BY_NAME[d["schema"]] for d in _DATA_SOURCES}
_OF_DATASOURCE[None] = _OF_DATASOURCE[_DATA_SOURCES[0]["name"]]


def markdown() -> str:
    """Every schema as Markdown tables (the API reference's schema page is checked against it)."""
    out = []
    for s in ALL:
        out.append(f"### `{s.name}`\n\nOne row per {s.row}.\n")
        out.append("| column | type | wire path | meaning |\n|---|---|---|---|")
        for c in s.columns:
            paths = " or ".join(f"`{p}`" for p in c.paths)
            out.append(f"| `{c.name}` | {c.type} | {paths} | {c.doc} |")
        out.append("")
    return "\n".join(out)


def of_datasource(name: str | None) -> Schema:
    """The schema of a search data source's hits (None, or a name the core does not know: scans)."""
    return _OF_DATASOURCE.get(name, _OF_DATASOURCE[None])


def of(obj: Any) -> Schema:
    """The schema of a model (or model class) this package makes tables of."""
    cls = obj if isinstance(obj, type) else type(obj)
    for k in cls.__mro__:
        s = _OF_CLASS.get(k.__name__)
        if s is not None:
            return s
    raise TypeError(f"no table schema for {cls.__name__} (tables are made of {', '.join(_OF_CLASS)})")

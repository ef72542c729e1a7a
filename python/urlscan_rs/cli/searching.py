"""Commands that walk hits: search, similar, phishfeed and hostname; and saved-search get."""

from __future__ import annotations

import argparse
import itertools
import shlex
from typing import Any

from ..errors import NotFoundError
from ._common import _arg, _client, _query, _write_jsonl
from ._output import DIM, EXIT_OK, Cell, CliError, Output, UsageError, _note
from ._show import _model_block, _when, print_hits
from .endpoints import row_options

# Searches asking for more hits than this get a progress bar (on a terminal).
SEARCH_PROGRESS_ABOVE = 300


def _paging(args: argparse.Namespace) -> dict[str, Any]:
    """limit and size of a search-like command (--all: no limit)."""
    limit: int | None = None if args.all else args.limit
    # The walk asks for no more than the limit still needs.
    return {"limit": limit, "size": args.size}


def _export_search(args: argparse.Namespace, out: Output, it: Any, fmt: str, dest: str | None) -> int:
    """--format / -o: the hits streamed to a file (or stdout) as JSON lines, CSV or Parquet."""
    limit: int | None = None if args.all else args.limit
    with out.progress("export", limit, enabled=limit is None or limit > SEARCH_PROGRESS_ABOVE) as bar:
        if fmt == "parquet":
            if not dest or dest == "-":
                raise UsageError("--format parquet needs -o FILE (Parquet is not written to a terminal)")
            # -o replaces FILE, as it does for jsonl and csv.
            rows = it.to_parquet(dest, overwrite=True, progress=lambda n: bar.update(n, limit))
        elif fmt == "csv":
            rows = it.to_csv(dest or "-", progress=lambda n: bar.update(n, limit))
        else:
            rows = _write_jsonl(it, dest, lambda hit: hit._raw, lambda n: bar.update(n, limit))
    if dest and dest != "-":
        _note(f"{rows:,} hits written to {dest} ({fmt})")
    return EXIT_OK


def _print_search(args: argparse.Namespace, out: Output, it: Any, what: str) -> int:
    """Walk a search iterator: JSON lines as hits arrive, or a table, a count line and the cursor to resume from."""
    fmt, dest = getattr(args, "format", None), getattr(args, "output", None)
    if (fmt is not None or dest is not None) and not args.count:
        return _export_search(args, out, it, fmt or "jsonl", dest)
    if args.count:
        total = it.count()
        more = bool(it.has_more)
        if out.json:
            out.emit({"total": total, "has_more": more})
        else:
            out.line(f"{total}{'+' if more else ''}")
        return EXIT_OK
    limit: int | None = None if args.all else args.limit
    hits = []
    n = 0
    with out.progress("search", limit, enabled=limit is None or limit > SEARCH_PROGRESS_ABOVE) as bar:
        for n, hit in enumerate(it, 1):
            if out.json:
                out.emit(hit._raw)
            else:
                hits.append(hit)
            total = it.total
            shown = limit if limit is not None else total
            bar.update(n, None if shown is None else max(min(shown, total if total is not None else shown), n))
    if out.json:
        return EXIT_OK
    total, more = it.total, it.has_more
    if not hits:
        out.line(f"No hits for {what}.")
        return EXIT_OK
    print_hits(out, hits)
    resumed = bool(getattr(args, "search_after", None))
    cut = limit is not None and n >= limit and (resumed or total is None or bool(more) or total > n)
    of = f" of {total:,}{'+' if more else ''}" if total is not None and not resumed else ""
    hint = "; raise --limit or use --all to see more" if cut else ""
    out.line(out.paint(f"{n:,}{of} hits{hint}", DIM))
    cursor = it.search_after
    if cut and cursor and hasattr(args, "search_after"):
        _note(f"to resume after the last hit: --search-after {shlex.quote(cursor)}")
    return EXIT_OK


def cmd_search(args: argparse.Namespace, out: Output) -> int:
    if args.fields:
        # The fields this key may search: the service lists them with the user (limits.queryableFields).
        with _client(args) as c:
            limits = c.user().limits or {}
        fields = limits.get("queryableFields") if isinstance(limits, dict) else None
        if not isinstance(fields, list):
            raise CliError("the service did not list the queryable fields of this key")
        if out.json:
            out.emit({"fields": fields})
        else:
            for f in fields:
                out.line(str(f))
        return EXIT_OK
    if args.query is None:
        raise UsageError("search needs a QUERY ('' for everything), or --fields")
    query = _query(args, args.query) or ""
    with _client(args) as c:
        it = c.search(query, **_paging(args), search_after=args.search_after, **row_options(args, "search"))
        return _print_search(args, out, it, repr(query))


def cmd_similar(args: argparse.Namespace, out: Output) -> int:
    uuid = _arg(args, args.uuid, "uuid")
    with _client(args) as c:
        it = c.similar(
            uuid, q=_query(args, args.query), **_paging(args), search_after=args.search_after, **row_options(args, "similar")
        )
        return _print_search(args, out, it, f"pages similar to {uuid}")


def cmd_phishfeed(args: argparse.Namespace, out: Output) -> int:
    query = _query(args, args.query)
    with _client(args) as c:
        it = c.phishfeed(query, **_paging(args), **row_options(args, "phishfeed"))
        return _print_search(args, out, it, "the phishing feed" + (f" ({query!r})" if query else ""))


def cmd_saved_search_get(args: argparse.Namespace, out: Output) -> int:
    # The service has no endpoint for one saved search: it is found in the list (one request).
    with _client(args) as c:
        found = next((x for x in c.saved_searches.list() if x.id == args.search_id), None)
    if found is None:
        raise NotFoundError(f"no saved search {args.search_id!r} among yours", status=404)
    if out.json:
        out.emit(found.to_dict())
    else:
        _model_block(out, found, f"Saved search {found.id}", skip="id")
    return EXIT_OK


def cmd_hostname(args: argparse.Namespace, out: Output) -> int:
    limit: int = args.limit
    name = _arg(args, args.name, "hostname")
    with _client(args) as c:
        # The API's own `limit` is the batch size per request (10..10000).
        it = c.hostnames.history(name, limit=min(max(limit, 10), 10000), page_state=args.page_state)
        records = []
        for rec in itertools.islice(it, limit):
            if out.json:
                out.emit(rec._raw)
            else:
                records.append(rec)
    if out.json:
        return EXIT_OK
    if not records:
        out.line(f"No history for {name}.")
        return EXIT_OK
    rows: list[list[Cell]] = []
    for r in records:
        data = r.data if isinstance(r.data, dict) else {}
        rows.append(
            [
                str(r.seen_on) if r.seen_on else "-",
                r.source or "-",
                r.sub_id or "-",
                _when(r.first_seen, minutes=True),
                _when(r.last_seen, minutes=True),
                str(data.get("url") or ""),
            ]
        )
    out.table(["SEEN ON", "SOURCE", "RECORD", "FIRST SEEN", "LAST SEEN", "URL"], rows)
    return EXIT_OK

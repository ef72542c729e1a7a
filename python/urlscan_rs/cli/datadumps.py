"""The hand-written data-dump commands: download, sync and read."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ._common import _client, _write_jsonl
from ._output import DIM, EXIT_ERROR, EXIT_OK, Output, UsageError, _err, _note


def cmd_datadump_download(args: argparse.Namespace, out: Output) -> int:
    # -o is a folder, as its help says (created if needed): the file keeps its dump path under it.
    folder = os.path.join(args.output, "")
    with _client(args) as c, out.progress("download", unit="bytes") as bar:
        path = c.datadumps.download(args.path, folder, progress=lambda done, total: bar.update(done, total or None))
    size = path.stat().st_size
    if out.json:
        out.emit({"path": str(path), "bytes": size})
    else:
        out.line(str(path))
    return EXIT_OK


def cmd_datadump_sync(args: argparse.Namespace, out: Output) -> int:
    types = tuple(args.types or ("search", "api"))
    with _client(args) as c, out.progress("sync") as bar:
        report = c.datadumps.sync(
            args.dir, window=args.window, types=types, days=args.days, progress=bar.update, rebuild_state=args.rebuild_state
        )
    if out.json:
        out.emit({"downloaded": report.downloaded, "skipped": len(report.skipped), "failed": dict(report.failed)})
    else:
        for path in report.downloaded:
            out.line(path)
        for path, why in report.failed:
            _err(f"{path}: {why}")
        out.line(out.paint(str(report), DIM))
    return EXIT_ERROR if report.failed else EXIT_OK


def cmd_datadump_read(args: argparse.Namespace, out: Output) -> int:
    from .. import datadumps

    bounds = {k: v for k in ("max_line_bytes", "max_member_bytes") if (v := getattr(args, k)) is not None}
    f = datadumps.read(args.file, type=args.type, **bounds)
    dest = args.output
    if args.format == "parquet":
        if not dest or dest == "-":
            raise UsageError("--format parquet needs -o FILE (Parquet is not written to a terminal)")
        rows = f.to_parquet(dest, overwrite=True)  # -o replaces FILE, as for jsonl and csv
    elif args.format == "csv":
        rows = f.to_csv(dest or "-")
    else:

        def wire(item: Any) -> Any:
            return {"uuid": item[0], "bytes": len(item[1])} if isinstance(item, tuple) else item._raw

        rows = _write_jsonl(f, dest, wire, lambda n: None)
    if dest and dest != "-":
        _note(f"{rows:,} items written to {dest} ({args.format})")
    return EXIT_OK

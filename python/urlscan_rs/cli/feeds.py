"""The hand-written feed command: sync."""

from __future__ import annotations

import argparse
import re

from ._common import _client
from ._output import DIM, EXIT_OK, CliError, Output

_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(text: str) -> float:
    """Seconds, or a number with a unit: 90m, 12h, 3d."""
    m = _DURATION.fullmatch(text.strip())
    if m is None or float(m[1]) == 0:
        raise argparse.ArgumentTypeError(f"expected seconds or a number with s, m, h or d (e.g. 3d), more than 0, got {text!r}")
    return float(m[1]) * _UNIT[m[2]]


def cmd_feed_sync(args: argparse.Namespace, out: Output) -> int:
    try:
        with _client(args) as c, out.progress("feed") as bar:
            report = c.feeds.sync(
                args.source,
                args.dir,
                lookback=args.lookback,
                dedupe=args.dedupe,
                format=args.format,
                max_items=args.max_items,
                progress=lambda read, new: bar.update(read),
                rebuild_state=args.rebuild_state,
            )
    except BrokenPipeError:
        raise  # the output was closed: the command line's own rule
    except OSError as e:
        # The folder or a file in it could not be written (full disk, no permission): one line.
        where = e.filename or args.dir
        raise CliError(f"feed sync into {args.dir}: cannot write {where}: {e.strerror or e}") from e
    if out.json:
        out.emit(
            {
                "source": report.source,
                "new": len(report.new),
                "skipped": report.skipped,
                "filtered": report.filtered,
                "quarantined": report.quarantined,
                "files": [str(p) for p in report.files],
                "complete": report.complete,
                "checkpoint": report.checkpoint.isoformat() if report.checkpoint else None,
            }
        )
    else:
        for path in report.files:
            out.line(str(path))
        out.line(out.paint(str(report), DIM))
    return EXIT_OK

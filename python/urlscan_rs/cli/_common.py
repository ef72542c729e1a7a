"""What most commands share: the client made from the options, arguments read from stdin,
files written, and one failure among several items reported without stopping the rest."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from .. import _native
from .._client import AsyncClient, Client
from .._progress import _isatty
from ..errors import UrlscanError
from ._output import EXIT_OK, Output, UsageError, _err, _note, describe_error, exit_code_for
from .keys import api_key_source


def _stdin_lines(args: argparse.Namespace, what: str) -> list[str]:
    """The non-blank lines of stdin (read once per command); # starts a comment line."""
    if vars(args).get("_stdin_read"):
        raise UsageError("only one argument can be read from stdin (-)")
    vars(args)["_stdin_read"] = True
    if _isatty(sys.stdin):
        _note(f"reading the {what} from stdin (end with Ctrl-D)")
    lines = (line.strip() for line in sys.stdin.read().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _arg(args: argparse.Namespace, value: str, what: str) -> str:
    """An argument, or the one value on stdin when it is ``-``."""
    if value != "-":
        return value
    values = _stdin_lines(args, what)
    if len(values) != 1:
        got = "nothing" if not values else f"{len(values)} lines"
        raise UsageError(f"expected one {what} on stdin (for -), got {got}")
    return values[0]


def _args(args: argparse.Namespace, values: Sequence[str], what: str) -> list[str]:
    """Arguments where each ``-`` stands for every line of stdin."""
    out: list[str] = []
    for value in values:
        if value == "-":
            lines = _stdin_lines(args, f"{what}s, one per line")
            if not lines:
                raise UsageError(f"expected {what}s on stdin (for -), got nothing")
            out.extend(lines)
        else:
            out.append(value)
    return out


def _query(args: argparse.Namespace, value: str | None) -> str | None:
    """A query argument; ``-`` reads the whole of stdin."""
    if value != "-":
        return value
    if vars(args).get("_stdin_read"):
        raise UsageError("only one argument can be read from stdin (-)")
    vars(args)["_stdin_read"] = True
    return sys.stdin.read().strip()


def _write_bytes(out: Output, data: bytes, target: str, *, label: str, record: dict[str, Any], kind: str = "") -> None:
    """Write bytes to a file (or stdout for ``-``, never to a terminal) and say where."""
    if target == "-":
        if out.stdout_tty:
            raise UsageError("refusing to write binary data to a terminal; redirect stdout (-o - > FILE) or use -o FILE")
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    path = Path(target)
    try:
        _folder_exists(path)
        # The package's one rule for files: whole or not at all, and a pipe, device, socket,
        # link or folder at the path is refused (naming it), never replaced.
        _native.write_whole(path, data)
    except OSError as e:
        raise UsageError(_cannot_write(path, e)) from e
    if out.json:
        out.emit({**record, "file": str(path), "bytes": len(data)})
    else:
        out.line(f"Saved {label} to {path} ({len(data):,} bytes{', ' + kind if kind else ''})")


def _client(args: argparse.Namespace) -> Client:
    # Transient failures are retried; a spent quota surfaces at once (exit code 5) instead of waiting.
    key, _ = api_key_source(args)
    cache = getattr(args, "cache", None)
    return Client(key, base_url=args.base_url, timeout=args.timeout, max_retries=3, fail_fast=True, cache=cache)


def _async_client(args: argparse.Namespace) -> AsyncClient:
    key, _ = api_key_source(args)
    return AsyncClient(key, base_url=args.base_url, timeout=args.timeout, max_retries=3, fail_fast=True)


def _describe(args: argparse.Namespace, err: UrlscanError) -> str:
    key, _ = api_key_source(args)
    base_url = getattr(args, "base_url", None) or os.environ.get("URLSCAN_BASE_URL") or "https://urlscan.io"
    return describe_error(err, base_url=base_url, key_given=bool(key), timeout=getattr(args, "timeout", None))


def _each(args: argparse.Namespace, items: Sequence[str], run: Callable[[str], None]) -> int:
    """Run for every item; with several, a failure is reported and the next one runs.
    The exit code is that of the first failure."""
    if len(items) == 1:
        run(items[0])
        return EXIT_OK
    code = EXIT_OK
    for item in items:
        try:
            run(item)
        except UrlscanError as e:
            _err(f"{item}: {_describe(args, e)}")
            code = code or exit_code_for(e)
    return code


def _cannot_write(target: str | os.PathLike[str], e: OSError) -> str:
    """One line for a file that could not be written (the package's own errors say what failed)."""
    text = e.strerror or str(e)
    if text.startswith("cannot "):
        return f"{text}: {e.filename or os.fspath(target)}"
    return f"cannot write {os.fspath(target)}: {text}"


def _folder_exists(path: Path) -> None:
    """A command writes a file in a folder that exists, as a shell's redirection does (the
    library's writers create it): a mistyped folder is an error, not a new folder."""
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(folder))


class _StagedSink(io.RawIOBase):
    """The bytes of a text file, into a native staged file (``_native.open_for_write``)."""

    def __init__(self, staged: _native.StagedFile) -> None:
        super().__init__()
        self.staged = staged
        self.written = 0
        self.error: OSError | None = None  # the first write that failed

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        try:
            n = self.staged.write(bytes(b))
        except OSError as e:
            self.error = self.error or e
            raise
        self.written += n
        return n


class OutputFile:
    """A text file written by the package's one rule for files (``urlscan_core::disk``), as
    the library's writers do: a named pipe, device, socket, link or folder at ``dest`` is
    refused (a ``ValidationError`` naming it) and never replaced; the text goes to a
    temporary file created exclusively beside it, renamed there by :meth:`commit` (after a
    failed write, ``commit`` raises that failure instead and nothing appears under the name)."""

    def __init__(self, dest: str | os.PathLike[str]) -> None:
        _folder_exists(Path(dest))
        self.staged = _native.open_for_write(dest)
        self.sink = _StagedSink(self.staged)
        self.text: TextIO = io.TextIOWrapper(io.BufferedWriter(self.sink), encoding="utf-8")

    def commit(self) -> None:
        try:
            self.text.close()  # flushed into the staged file
        except BaseException:
            self.staged.discard()
            raise
        self.staged.commit()

    def discard(self) -> None:
        with contextlib.suppress(OSError, UrlscanError):  # the error being raised already says why
            self.text.close()
        self.staged.discard()


@contextlib.contextmanager
def _output_file(dest: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A text file at ``dest`` by the one rule (:class:`OutputFile`), renamed into place when
    the block ends without an error; an error leaves nothing under the name."""
    f = OutputFile(dest)
    try:
        yield f.text
    except BaseException:
        f.discard()
        raise
    f.commit()


def _write_jsonl(items: Any, dest: str | None, wire: Callable[[Any], Any], done: Callable[[int], object]) -> int:
    """Each item's wire form as one JSON line, to `dest` (None or -: stdout; a file appears
    whole, or not at all when the walk fails); the lines written."""
    rows = 0
    with contextlib.ExitStack() as stack:
        sink = sys.stdout if not dest or dest == "-" else stack.enter_context(_output_file(dest))
        for item in items:
            sink.write(json.dumps(wire(item), separators=(",", ":"), ensure_ascii=False) + "\n")
            rows += 1
            done(rows)
    return rows

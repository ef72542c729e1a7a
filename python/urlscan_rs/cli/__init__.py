"""The ``urlscan-rs`` command line (also ``python -m urlscan_rs``).

Usage: ``urlscan-rs [--api-key KEY] [--base-url URL] [--json] [--timeout S] COMMAND ...``

Commands, by what they work on:

* scans: ``scan``, ``result``, ``screenshot``, ``dom``, ``response``,
  ``visibility {set,reset}``, ``bulk``
* search: ``search``, ``similar``, ``phishfeed``, ``hostname``
* account: ``quotas``, ``user``, ``countries``, ``user-agents``,
  ``key {set,show,delete}``
* premium: ``livescan``, ``saved-search``, ``subscription``, ``channel``,
  ``incident``, ``brand``, ``file``, ``datadump``, ``feed`` (one action per
  method of the client's namespace of that name, derived from its typed
  signature)
* tools: ``listen``, ``emulator``, ``demo``

The API key comes from ``--api-key``, else ``URLSCAN_API_KEY``, else the
system keyring (``urlscan-rs key set``, needs the optional ``keyring``
package); the service address from ``--base-url``, else ``URLSCAN_BASE_URL``.
The global options are also accepted after the command. An argument given as
``-`` (a uuid, URL, query or hash) is read from stdin.

Output is a readable summary or an aligned table (colours only when stdout is a
terminal and ``NO_COLOR`` is unset). With ``--json`` every line is exactly one
JSON object: the wire form of results, submissions, search hits, hostname
records, incidents, notifications and the other models, and a small object for
anything else (``bulk`` gives ``{"url", "ok", "uuid", "submission", "result",
"error"}`` per URL). Progress bars go to stderr, and only when stderr is a
terminal. Errors go to stderr, with what went wrong and what to do about it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import sys
from collections.abc import Sequence

from ..errors import UrlscanError
from ._common import _describe
from ._output import (
    EXIT_BROKEN_PIPE,
    EXIT_CODES_HELP,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Output,
    _err,
    _show_waits,
    _silence_stdout,
    describe_error,
    exit_code_for,
)
from ._parser import build_parser, leaf_commands
from ._parser import completion_script as completion_script
from ._show import _verdict as _verdict
from .endpoints import HAND_WRITTEN as HAND_WRITTEN
from .endpoints import NAMESPACE_GROUPS as NAMESPACE_GROUPS
from .endpoints import endpoints
from .endpoints import rows as rows
from .keys import api_key_source
from .listen import notification_line

__all__ = [
    "main",
    "build_parser",
    "leaf_commands",
    "endpoints",
    "api_key_source",
    "exit_code_for",
    "describe_error",
    "notification_line",
    "EXIT_CODES_HELP",
]
__doc__ = __doc__ and f"{__doc__}\n{EXIT_CODES_HELP}"  # None under python -OO


def _exit_status(code: object) -> int:
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    return EXIT_USAGE


def _interrupted(e: KeyboardInterrupt) -> str:
    submitted: list[tuple[str, str]] = getattr(e, "submitted", [])
    if not submitted:
        return "interrupted"
    if len(submitted) == 1:
        uuid, url = submitted[0]
        return f"interrupted; submitted: {uuid} {url} (it may still finish: urlscan-rs result {uuid})"
    lines = "".join(f"\n  {uuid} {url}" for uuid, url in submitted)
    return f"interrupted; submitted {len(submitted)} scans (they may still finish: urlscan-rs result UUID):{lines}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version and usage errors (argparse printed them)
        return _exit_status(e.code)
    target = getattr(args, "output_file", None)
    if target and target != "-":
        try:
            redirected = open(target, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
        except OSError as e:
            _err(f"cannot write {target}: {e.strerror or e}")
            return EXIT_USAGE
        with redirected, contextlib.redirect_stdout(redirected):
            return _run(args)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    out = Output(args.json)
    notes = _show_waits(out)
    try:
        code = int(args.func(args, out))
        sys.stdout.flush()
        return code
    except KeyboardInterrupt as e:
        if out.bar is not None:
            out.bar.close()  # the message must not land on the bar's line
        _err(_interrupted(e))
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except CliError as e:
        _err(str(e))
        return e.code
    except UrlscanError as e:
        _err(_describe(args, e))
        return exit_code_for(e)
    finally:
        logging.getLogger("urlscan_rs").removeHandler(notes)
        logging.getLogger("urlscan_rs").propagate = True
        if out.bar is not None:
            out.bar.close()

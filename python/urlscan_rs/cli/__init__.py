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
import os
import signal
import sys
from collections.abc import Sequence

from .. import _interrupt
from ..errors import UrlscanError
from ._common import _describe
from ._output import (
    EXIT_BROKEN_PIPE,
    EXIT_CODES_HELP,
    EXIT_ERROR,
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
    """Run the command line; returns the exit code (see the module docstring).

    Every failure is one line on stderr and its exit code, never a traceback: Ctrl-C at any
    point is 130 ("interrupted"), a local file that cannot be used 2, anything the package
    did not foresee 1 (said in one line, as a bug to report)."""
    _interrupt.release()  # from here the command says what a Ctrl-C left behind
    held = next((a for a in argv or () if isinstance(a, str) and "\x00" in a), None)
    if held is not None:  # none comes from a shell: a caller's main([...]) or a script's
        _err(f"an argument holds a NUL character, which no name, URL or query can: {held!r}")
        return EXIT_USAGE
    try:
        return _main(argv)
    except KeyboardInterrupt as e:  # between the command's own handling and the return
        _err(_interrupted(e))
        return EXIT_INTERRUPTED
    except Exception as e:  # outside the command (its output file's commit, say)
        _err(_unforeseen(e))
        return EXIT_ERROR
    finally:
        if argv is None:
            # Run as the program: a second Ctrl-C while the process exits (its threads, its
            # telemetry flushed) ends it at once, without a traceback from an exit hook.
            with contextlib.suppress(ValueError):  # not the main thread
                signal.signal(signal.SIGINT, signal.SIG_DFL)


def _unforeseen(e: BaseException) -> str:
    return f"unexpected {type(e).__name__}: {e} (a bug in urlscan-rs: please report it)"


def _os_error(e: OSError) -> str:
    """A local file's failure (the cache, a folder given): what and which file, in one line."""
    if e.strerror and e.filename is not None:
        return f"{e.strerror}: {os.fsdecode(e.filename)}"
    return str(e) or type(e).__name__


def _main(argv: Sequence[str] | None) -> int:
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version and usage errors (argparse printed them)
        return _exit_status(e.code)
    target = getattr(args, "output_file", None)
    if target and target != "-":
        # By the package's one rule for files (a pipe, device, socket, link or folder at FILE is
        # refused, never replaced); the output is renamed into place when the command ends.
        from ._common import OutputFile, _cannot_write

        try:
            redirected = OutputFile(target)
        except OSError as e:
            _err(_cannot_write(target, e))
            return EXIT_USAGE
        except UrlscanError as e:
            _err(str(e))
            return EXIT_USAGE
        try:
            with contextlib.redirect_stdout(redirected.text):
                code = _run(args)
        except BaseException:
            redirected.discard()
            raise
        with contextlib.suppress(OSError):
            redirected.text.flush()  # kept in sink.error
        failed = redirected.sink.error
        if failed is not None or (code != EXIT_OK and not redirected.sink.written):
            # A write that failed leaves no part of FILE; a command that failed and printed
            # nothing leaves FILE as it was. A failure the command did not report is said here.
            redirected.discard()
            if failed is not None and code == EXIT_OK:
                _err(_cannot_write(target, failed))
                return EXIT_USAGE
            return code
        try:
            redirected.commit()
        except OSError as e:
            _err(_cannot_write(target, e))
            return code or EXIT_USAGE
        return code
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
    except OSError as e:  # a local file or folder: the cache's, one given
        _err(_os_error(e))
        return EXIT_USAGE
    except Exception as e:  # one line still, never a traceback
        _err(_unforeseen(e))
        return EXIT_ERROR
    finally:
        logging.getLogger("urlscan_rs").removeHandler(notes)
        logging.getLogger("urlscan_rs").propagate = True
        if out.bar is not None:
            out.bar.close()

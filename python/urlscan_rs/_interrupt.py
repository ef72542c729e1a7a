"""Ctrl-C in the ``urlscan-rs`` command before the command line's own handling starts.

Importing the package takes a moment; a Ctrl-C then would print Python's traceback of the import.
In the command's own process (its script is ``argv[0]``) the package's first step is :func:`guard`:
such a Ctrl-C ends the process at once with the command's exit code for an interrupt, 130. The
command line calls :func:`release` when it starts, and says from there what a Ctrl-C left behind.
A program that imports the package keeps its own handling: nothing changes for it. Importing this
module is the guard: the package imports it before anything else.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

COMMAND = "urlscan-rs"
"""The name of the command's script."""


def quiet(signum: int, frame: object) -> None:
    """The handler while the command imports the package: exit 130, no traceback."""
    os._exit(130)


def guard() -> None:
    """In the command's process, on the main thread: Ctrl-C ends it quietly until :func:`release`."""
    script = os.path.basename(sys.argv[0] if sys.argv else "").removesuffix(".exe")
    if script != COMMAND or threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, quiet)


def release() -> None:
    """Ctrl-C raises ``KeyboardInterrupt`` again, for the command line to handle."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is quiet:
        signal.signal(signal.SIGINT, signal.default_int_handler)


guard()

"""The API key: where it comes from, and the ``key {set,show,delete}`` commands."""

from __future__ import annotations

import argparse
import getpass
import importlib
import os
import sys
from typing import Any

from .._keys import KEYRING_INSTALL, KEYRING_SERVICE, KEYRING_SOURCE, KEYRING_USER, stored_key
from .._keys import keyring as _keyring
from .._progress import _isatty
from ._output import EXIT_NOT_FOUND, EXIT_OK, CliError, Output, UsageError, _note


def _require_keyring() -> Any:
    kr = _keyring()
    if kr is None:
        raise UsageError(f"keeping the key in the system keyring needs the keyring package: {KEYRING_INSTALL}")
    return kr


def api_key_source(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The API key and where it came from: --api-key, then $URLSCAN_API_KEY, then the system keyring."""
    cached = vars(args).get("_api_key")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    key: str | None = getattr(args, "api_key", None)
    source: str | None = "--api-key" if key else None
    if not key:
        key, source = stored_key()
    vars(args)["_api_key"] = (key, source)
    return key, source


def _mask(key: str) -> str:
    return key[:4] + "..." + key[-4:] if len(key) > 12 else "*" * len(key)


def cmd_key_set(args: argparse.Namespace, out: Output) -> int:
    if args.key not in (None, "-"):
        raise UsageError("give the key on stdin or at the prompt, not as an argument (it would stay in the shell history)")
    kr = _require_keyring()
    if args.key == "-" or not _isatty(sys.stdin):
        text = sys.stdin.readline()
    else:
        try:
            text = getpass.getpass("urlscan.io API key (not shown): ")
        except EOFError:
            text = ""
    key = text.strip()
    if not key:
        raise UsageError("no key was given")
    if any(c.isspace() for c in key):
        raise UsageError("an API key has no spaces")
    try:
        kr.set_password(KEYRING_SERVICE, KEYRING_USER, key)
    except Exception as e:
        raise UsageError(f"cannot store the key in the system keyring: {e}; set URLSCAN_API_KEY instead") from None
    if out.json:
        out.emit({"stored": _mask(key), "service": KEYRING_SERVICE, "user": KEYRING_USER})
    else:
        out.line(f"Stored the API key {_mask(key)} in {KEYRING_SOURCE}")
    if os.environ.get("URLSCAN_API_KEY") or args.api_key:
        _note("note: --api-key and URLSCAN_API_KEY take precedence over the keyring")
    return EXIT_OK


def cmd_key_show(args: argparse.Namespace, out: Output) -> int:
    key, source = api_key_source(args)
    if not key:
        if _keyring() is None:
            raise UsageError(
                f"no API key: pass --api-key, set URLSCAN_API_KEY, or {KEYRING_INSTALL} and run `urlscan-rs key set`"
            )
        raise CliError(
            "no API key: none in --api-key, URLSCAN_API_KEY or the system keyring; run `urlscan-rs key set`", EXIT_NOT_FOUND
        )
    shown = key if args.reveal else _mask(key)
    if out.json:
        out.emit({"key": shown, "source": source, "masked": not args.reveal})
    else:
        out.line(f"{shown}  (from {source})")
    return EXIT_OK


def cmd_key_delete(args: argparse.Namespace, out: Output) -> int:
    kr = _require_keyring()
    errors = importlib.import_module("keyring.errors")
    try:
        kr.delete_password(KEYRING_SERVICE, KEYRING_USER)
    except errors.PasswordDeleteError:
        raise CliError("no API key is stored in the system keyring", EXIT_NOT_FOUND) from None
    except Exception as e:
        raise UsageError(f"cannot use the system keyring: {e}") from None
    if out.json:
        out.emit({"deleted": True, "service": KEYRING_SERVICE, "user": KEYRING_USER})
    else:
        out.line(f"Deleted the API key from {KEYRING_SOURCE}")
    return EXIT_OK

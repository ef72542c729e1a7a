"""Where an API key is kept outside the code: ``URLSCAN_API_KEY``, then the
system keyring (the optional ``keyring`` package). One lookup for the command
line and for a client unpickled without its key."""

from __future__ import annotations

import importlib
import os
from typing import Any

KEYRING_SERVICE = "urlscan-rs"
KEYRING_USER = "api-key"
KEYRING_INSTALL = "pip install 'urlscan-rs[keyring]'"
KEYRING_SOURCE = f"the system keyring (service {KEYRING_SERVICE}, user {KEYRING_USER})"


def keyring() -> Any | None:
    """The optional ``keyring`` package, or None when it is not installed."""
    try:
        return importlib.import_module("keyring")
    except ImportError:
        return None


def stored_key() -> tuple[str | None, str | None]:
    """The key from ``URLSCAN_API_KEY``, else from the system keyring, and where it came from."""
    if os.environ.get("URLSCAN_API_KEY"):
        return os.environ["URLSCAN_API_KEY"], "URLSCAN_API_KEY"
    kr = keyring()
    if kr is not None:
        try:
            key = kr.get_password(KEYRING_SERVICE, KEYRING_USER)
        except Exception:  # no usable keyring backend: as if nothing was stored
            key = None
        if key:
            return key, KEYRING_SOURCE
    return None, None

"""Completing asyncio futures from the Rust core (called on the event loop)."""

from __future__ import annotations

import asyncio
from typing import Any


def resolve(fut: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if fut.done():  # cancelled meanwhile
        return
    if ok:
        fut.set_result(value)
    else:
        fut.set_exception(value)

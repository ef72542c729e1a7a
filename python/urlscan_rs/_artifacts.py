"""A scan's artifacts saved in one call: ``<uuid>.json``, ``<uuid>.png`` and ``<uuid>.html``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import _native
from ._native import LazyDoc
from .errors import UrlscanError, ValidationError

KINDS = {"json": ".json", "png": ".png", "dom": ".html"}


def kinds(what: Iterable[str] | str) -> tuple[str, ...]:
    """The artifacts asked for, checked (in the order given, each once)."""
    asked = (what,) if isinstance(what, str) else tuple(what)
    bad = [w for w in asked if w not in KINDS]
    if bad or not asked:
        raise ValidationError(f"what: each of json, png, dom, at least one; got {list(asked)!r}")
    return tuple(dict.fromkeys(asked))


def result_bytes(result: Any) -> bytes:
    """A result's JSON as the service sent it (its bytes when the model still has them)."""
    doc = object.__getattribute__(result, "_json")
    if type(doc) is LazyDoc:
        return bytes(doc.json())
    return json.dumps(result._raw, ensure_ascii=False).encode()


def write(dest: Path, uuid: str, found: dict[str, bytes]) -> dict[str, Path]:
    """Each artifact written whole, by the package's one rule for files (a temporary
    file created exclusively beside it, then renamed; the uuid was checked, so the
    name stays in `dest`). Every name is checked by that rule before the first is
    written: a pipe, device, socket, link or folder at one of them is refused
    (``ValidationError``) with none of the artifacts written."""
    dest.mkdir(parents=True, exist_ok=True)
    out = {kind: dest / f"{uuid}{KINDS[kind]}" for kind in found}
    for path in out.values():
        _native.checked_target(path)
    for kind, data in found.items():
        _native.write_whole(out[kind], data)
    return out


def save(client: Any, uuid: str, dest_dir: str | os.PathLike[str], what: Iterable[str] | str, result: Any = None) -> Any:
    """``client.save``: every artifact fetched first, then each written (a sync
    client's dict of paths, or an async client's awaitable of it)."""
    uuid = _native.scan_uuid(uuid)  # the core's check; also the file names' form (lower case)
    asked = kinds(what)
    dest = Path(dest_dir)
    if client._is_async:
        return _save_async(client, uuid, dest, asked, result)
    found: dict[str, bytes] = {}
    for kind in asked:
        if kind == "json":
            found[kind] = result_bytes(result if result is not None else client.result(uuid))
        elif kind == "png":
            found[kind] = bytes(client.screenshot(uuid))
        else:
            found[kind] = client.dom(uuid).encode()
    return write(dest, uuid, found)


async def _save_async(client: Any, uuid: str, dest: Path, asked: tuple[str, ...], result: Any) -> dict[str, Path]:
    import asyncio

    async def one(kind: str) -> bytes:
        if kind == "json":
            return result_bytes(result if result is not None else await client.result(uuid))
        if kind == "png":
            return bytes(await client.screenshot(uuid))
        return str(await client.dom(uuid)).encode()

    datas = await asyncio.gather(*(one(k) for k in asked))
    return await asyncio.to_thread(write, dest, uuid, dict(zip(asked, datas, strict=True)))


def save_outcomes(client: Any, outcomes: list[Any], dest_dir: str | os.PathLike[str], concurrency: int | None) -> Any:
    """``bulk_scan(..., save_to=)``: the artifacts of each finished scan saved (an
    async client's at most ``concurrency`` at once); a scan whose artifacts could
    not be fetched or written gets that error as its outcome's."""
    from .models import ScanOutcome

    def failed(o: Any, e: Exception) -> Any:
        return ScanOutcome(o.url, o.submission, o.result, e)

    if client._is_async:

        async def run() -> list[Any]:
            import asyncio

            gate = asyncio.Semaphore(concurrency or 8)

            async def one(o: Any) -> Any:
                if not o.ok or o.result is None:
                    return o
                try:
                    async with gate:
                        await save(client, o.result.uuid, dest_dir, tuple(KINDS), o.result)
                except (UrlscanError, OSError) as e:  # the outcome says so; the others are kept
                    return failed(o, e)
                return o

            return list(await asyncio.gather(*(one(o) for o in outcomes)))

        return run()
    out = []
    for o in outcomes:
        if o.ok and o.result is not None:
            try:
                save(client, o.result.uuid, dest_dir, tuple(KINDS), o.result)
            except (UrlscanError, OSError) as e:
                o = failed(o, e)
        out.append(o)
    return out

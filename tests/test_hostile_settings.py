"""Every setting of every constructor a user calls meets hostile values, because it is a parameter:
the keywords are read from the signatures, so a new one is covered the day it is added. A value of
the type the parameter is annotated with is taken, or refused with the package's error: never a
builtin exception, an overflow or a panic. A value of another type is a ``TypeError`` naming the
parameter (the package's convention for a caller's wrong type, see ``_arguments``); a path that
cannot be made is an ``OSError`` naming it."""

from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Cache, Client, UrlscanError
from urlscan_rs._arguments import _fits
from urlscan_rs.testing import Emulator, WebhookReceiver

HOSTILE: list[Any] = [
    -1,
    0,
    2**70,
    -(2**70),
    1e20,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "x\x00y",
    "9" * 5000,
    b"\xff",
    [],
    {},
    object(),
]


def _close(made: Any) -> None:
    for name in ("close", "stop"):
        if hasattr(made, name):
            getattr(made, name)()
            return


def _constructors(tmp: Path) -> Iterator[tuple[str, Callable[..., Any], dict[str, Any]]]:
    """(name, constructor, the arguments it needs) for each user-facing constructor."""
    yield "Client", Client, {"api_key": "00000000-0000-4000-8000-000000000000", "base_url": "http://127.0.0.1:9"}
    yield "AsyncClient", AsyncClient, {"api_key": "00000000-0000-4000-8000-000000000000", "base_url": "http://127.0.0.1:9"}
    yield "Cache", Cache, {"path": tmp / "cache"}
    yield "Emulator", Emulator, {"scans": 0}
    yield "WebhookReceiver", WebhookReceiver, {}


def _cases(tmp: Path) -> Iterator[tuple[str, str, Any, Any, Callable[..., Any], dict[str, Any]]]:
    """(label, parameter, its annotation, the value, constructor, arguments) for each case."""
    for name, make, base in _constructors(tmp):
        init = make.__init__ if isinstance(make, type) else make
        hints = typing.get_type_hints(init)
        params = [p for p in inspect.signature(make).parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        assert params, name
        for p in params:
            if p.name == "path":
                continue  # a folder: the writers' and stores' harnesses try hostile ones
            for value in HOSTILE:
                yield f"{name}({p.name}={value!r:.40})", p.name, hints.get(p.name, Any), value, make, {**base, p.name: value}


def fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of a type ``hint`` names (its own classes, not their parameters)."""
    try:
        if not _fits(value, hint):
            return False
    except TypeError:  # a TypedDict, say: a mapping
        return isinstance(value, dict)
    args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    classes = [typing.get_origin(a) or a for a in args]
    return hint is Any or any(c is Any or (isinstance(c, type) and isinstance(value, c)) for c in classes) or value is None


def problem(param: str, hint: Any, value: Any, error: BaseException) -> str | None:
    """What is wrong with ``error`` as the answer to ``param=value``, if anything."""
    if isinstance(error, UrlscanError):
        return None
    if isinstance(error, TypeError) and not fits(value, hint):
        return None if param in str(error) else f"a TypeError that does not name {param}"
    if isinstance(error, OSError) and param in ("cache", "record_to", "recordings") and isinstance(value, str):
        return None  # a folder the system cannot make (or read): its error names it
    return f"{type(error).__name__}: {str(error)[:160]}"


def test_every_setting_takes_a_hostile_value_or_refuses_it(tmp_path: Path) -> None:
    failures = []
    count = 0
    for label, param, hint, value, make, kwargs in _cases(tmp_path):
        count += 1
        try:
            made = make(**kwargs)
        except BaseException as e:  # noqa: BLE001 (what escaped is the finding)
            wrong = problem(param, hint, value, e)
            if wrong:
                failures.append(f"{label}: {wrong}")
            continue
        try:
            _close(made)
        except BaseException as e:  # noqa: BLE001
            failures.append(f"{label}: taken, then close() raised {type(e).__name__}: {str(e)[:160]}")
    assert count > 200
    assert not failures, f"{len(failures)} of {count}:\n" + "\n".join(failures[:40])


@pytest.mark.parametrize("ttl", [1e20, math.inf, math.nan, -1.0, 0.0, True, "3600"])
def test_a_cache_refuses_a_search_ttl_it_cannot_keep(tmp_path: Path, ttl: Any) -> None:
    # Cache(search_ttl=1e20) was a PanicException.
    with pytest.raises(urlscan_rs.ValidationError, match="search_ttl"):
        Cache(tmp_path / "c", search_ttl=ttl)
    assert Cache(tmp_path / "c", search_ttl=10 * 365 * 86400).search_ttl == 10 * 365 * 86400

"""``client.with_raw_response``: any method, with the HTTP answer it got."""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from typing import Any

from . import _native

__all__ = ["RawResponse", "RawClient", "Headers"]


class Headers(Mapping[str, str]):
    """Response headers: a read-only mapping with case-insensitive names (a
    repeated header's values joined by ``", "``)."""

    __slots__ = ("_items", "_map")

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self._items = items
        merged: dict[str, tuple[str, str]] = {}
        for k, v in items:
            key = k.lower()
            merged[key] = (merged[key][0], merged[key][1] + ", " + v) if key in merged else (k, v)
        self._map = merged

    def __getitem__(self, name: str) -> str:
        return self._map[name.lower()][1]

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self._map.values())

    def __len__(self) -> int:
        return len(self._map)

    def get_all(self, name: str) -> list[str]:
        """Every value of a header, in the order received."""
        return [v for k, v in self._items if k.lower() == name.lower()]

    def __repr__(self) -> str:
        return f"Headers({dict((k, v) for k, v in self._map.values())!r})"


class RawResponse:
    """The last HTTP answer a call got: ``status_code``, ``headers`` (every
    ``X-Rate-Limit-*`` included), ``content`` (the body's bytes), ``method`` and
    ``url``; ``parse()`` is what the plain method returns."""

    __slots__ = ("status_code", "headers", "content", "method", "url", "_value")

    def __init__(self, answer: tuple[str, str, int, list[tuple[str, str]], bytes], value: Any) -> None:
        self.method, self.url, self.status_code, headers, self.content = answer
        self.headers = Headers(headers)
        self._value = value

    def parse(self) -> Any:
        """The value the plain method returns (the same object on every call)."""
        return self._value

    @property
    def text(self) -> str:
        """The body decoded as UTF-8."""
        return self.content.decode("utf-8", errors="replace")

    def __repr__(self) -> str:
        return f"<RawResponse {self.method} {self.url} [{self.status_code}]>"


def _answered(cap: Any, value: Any, name: str) -> RawResponse:
    """The call's value with the last answer its requests got."""
    answer = cap.response()
    if answer is None:
        raise TypeError(f"{name}() sent no request of its own to answer with (a walk fetches its pages as it is iterated)")
    return RawResponse(answer, value)


class RawClient:
    """``client.with_raw_response``: the client's methods and namespaces, each
    call returning a :class:`RawResponse` (an awaitable of one for an AsyncClient)."""

    __slots__ = ("_target", "_async")

    def __init__(self, target: Any, is_async: bool) -> None:
        self._target = target
        self._async = is_async

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        attr = getattr(self._target, name)
        if type(attr).__module__ == "urlscan_rs._namespaces" and not callable(attr):  # client.saved_searches
            return RawClient(attr, self._async)
        if not callable(attr):
            raise AttributeError(f"{name} is not a method: read it from the client itself")

        def call(*args: Any, **kwargs: Any) -> Any:
            cap = _native.RawCapture()
            with cap:
                value = attr(*args, **kwargs)
            if self._async and inspect.isawaitable(value):
                return _finish(cap, value, name)
            return _answered(cap, value, name)

        call.__name__ = name
        call.__doc__ = getattr(attr, "__doc__", None)
        return call

    def __dir__(self) -> list[str]:
        return [n for n in dir(self._target) if not n.startswith("_")]


async def _finish(cap: Any, value: Any, name: str) -> RawResponse:
    # An AsyncClient's method is a coroutine: its native call is made when awaited, here.
    with cap:
        out = await value
    return _answered(cap, out, name)

"""What ``Client(event_hooks=...)`` hands its hooks: each attempt of each request, and each answer.

A request hook is called before every attempt of every request (retries and rate-limit waits
included), a response hook after every answer, whatever its status::

    def log_request(request: HookRequest) -> None:
        print(request.method, request.url, request.attempt)

    def log_response(response: HookResponse) -> None:
        print(response.status_code, f"{response.elapsed:.3f}s", response.headers.get("x-rate-limit-remaining"))

    client = Client(event_hooks={"request": [log_request], "response": [log_response]})

Hooks are plain functions, called on the client's I/O thread (for an ``AsyncClient`` too), in the
order given. They never see the API key, and URLs are shown redacted. What one raises is logged (logger ``urlscan_rs``) and
the call goes on as it would without it: a hook observes, it does not change what a call does.
A pickled client leaves its hooks behind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TypedDict

__all__ = ["EventHooks", "HookRequest", "HookResponse"]


@dataclasses.dataclass(frozen=True, slots=True)
class HookRequest:
    """One attempt of a request, about to be sent."""

    method: str
    """The HTTP method."""
    url: str
    """The whole URL, query included, with its secrets redacted as telemetry's ``url.full``:
    the userinfo as ``REDACTED:REDACTED`` and the values of secret-looking query parameters
    (``token``, ``key``, ``sig``, ...) as ``REDACTED``, in a URL inside the query too (a
    lookup's search)."""
    headers: dict[str, str]
    """The request's own headers (lowercase names), never the API key nor a credential
    (``authorization``, ``cookie``, ...); the HTTP client adds ``user-agent`` and the
    transport's headers when it sends."""
    attempt: int
    """0 for the first attempt, then 1, 2, ... for each retry or rate-limit wait."""
    action: str | None
    """The rate-limit action the request is paced as (``"search"``, ``"public"``, ...), if any."""
    route: str | None
    """The endpoint's path without its ids (``/api/v1/result/{0}/``), when known: a name for the
    request that does not vary with the scan."""


@dataclasses.dataclass(frozen=True, slots=True)
class HookResponse:
    """The answer to one attempt (its body was read)."""

    status_code: int
    """The HTTP status."""
    headers: dict[str, str]
    """The answer's headers (lowercase names), ``x-rate-limit-*`` among them (``set-cookie``
    left out)."""
    elapsed: float
    """Seconds from sending the request to the end of its body."""
    attempt: int
    """The attempt it answers (as ``request.attempt``)."""
    request: HookRequest
    """The request it answers."""


class EventHooks(TypedDict, total=False):
    """``Client(event_hooks=...)``: the functions told of every attempt and of every answer."""

    request: Sequence[Callable[[HookRequest], object]]
    response: Sequence[Callable[[HookResponse], object]]

"""Recording a run against the service, and replaying it offline with no key.

>>> from urlscan_rs import Client
>>> with Client(record_to="tests/recordings") as client:      # the real service (URLSCAN_API_KEY)
...     result = client.result("0e1b4d8c-...")                 # written as it came
>>> from urlscan_rs.testing import Emulator
>>> with Emulator(recordings="tests/recordings", scans=0) as emu, emu.client() as client:
...     assert client.result("0e1b4d8c-...") == result          # served from the folder

**What is written.** ``Client(record_to=DIR)`` (and ``AsyncClient``) writes each answer it gets
from the service (the last one, after retries) to one file, named by the request it answers::

    DIR/<METHOD>/<the path, one folder per segment>/<digest>.json
    DIR/GET/api/v1/result/<uuid>/1f0c3a9e5b7d2468.json
    DIR/GET/api/v1/search/9b2e...json                     # one per page: q, size, search_after
    DIR/GET/screenshots/<uuid>.png/7a41c0de99b2e310.json  # and 7a41c0de99b2e310.png beside it

``<digest>`` is 16 hex digits of the SHA-256 of the request's method, path, query and JSON body
(as written: redacted). The same request always gives the same file, so recording again replaces
it and the last answer to a request is the one kept (a result polled until it finished keeps the
finished one). A path segment a file system cannot take is written with ``_`` for the characters it
cannot hold. Each file is JSON indented by two spaces, so a diff shows what changed::

    {
      "urlscan_rs_recording": 1,
      "request": {
        "method": "GET",
        "path": "/api/v1/search/",
        "query": {"q": "page.domain:example.com", "size": "100"}
      },
      "response": {
        "status": 200,
        "headers": {"content-type": "application/json; charset=utf-8"},
        "json": {"results": [...], "total": 1, "took": 3, "has_more": false}
      }
    }

A request's JSON body (a submission) is ``request.json``; a repeated query name has a list of
values. A JSON answer is ``response.json`` (its value, keys in the order sent); any other body
(a screenshot, a DOM) is kept byte for byte in a file beside the entry, named by
``response.body_file`` (``<digest>.png``, ``.html``, ``.txt`` or ``.bin``); an empty body has
neither. The headers kept are ``content-type``, ``content-disposition`` and ``location``.

**What is never written.** The API key: it travels in a request header, and request headers are
not written; a copy of it in an answer is written as ``REDACTED``. The base URL, with any
credentials in it (and its password, when 8 characters or longer, is replaced in answers too).
Cookies, authorization and rate-limit headers. In the request's path, query values and JSON
strings, the package's one redaction rule applies (the one of its logs, hooks and spans): a URL's
``user:password@`` becomes ``REDACTED:REDACTED@``, and the value of a query parameter whose name
looks secret (``token``, ``key``, ``sig``, ``password``, ...) becomes ``REDACTED``. Answers are
otherwise written as they came: if they hold what your team should not commit, scrub it with a hook.

**The hook.** ``Client(record_to=DIR, record_hook=f)``: ``f(entry)`` is called with each entry
before it is written (a :class:`RecordEntry`: the file's ``request`` and ``response``, a body that
is not JSON as ``bytes`` under ``response["body"]``) and returns it, changed or not, or ``None`` to
write nothing. It is called on the client's I/O thread (an ``AsyncClient``'s too). What it raises,
or a value a recording cannot hold, fails the call with ``ValidationError`` and nothing is
written::

    def scrub(entry):
        entry["response"].get("json", {}).pop("submitter", None)    # drop a member
        if entry["request"]["path"].startswith("/api/v1/user/"):
            return None                                             # record nothing of these
        return entry

**Bounds and failures.** Files are written by the package's writers' rule: under ``DIR`` only,
whole or not at all (a temporary file renamed into place), never through a symbolic link nor into
a pipe or device at a name (a ``ValidationError`` naming it). A recording that cannot be written
fails the call that got the answer (``OSError`` or ``ValidationError``), since the recording would
be incomplete. Each body is bounded by the client's ``max_body_bytes``. Not recorded: answers a
result cache serves (nothing was asked of the service) and downloads from other hosts (a data-dump
file's temporary link).

**Replay.** ``Emulator(recordings=DIR)`` reads the folder when it starts and answers a request
whose method, path, query (by name; a repeated name's values in order) and JSON body are a
recording's with the recorded status, headers and body (JSON indented by two spaces), whatever
key the caller sends; ``REDACTED`` in a recorded request stands for any text. Every other request
gets the emulator's own behaviour (its corpus of ``scans``, its scans, its errors: a uuid it does
not know is a 404). Recorded answers come before the emulator's latency, faults and rate limits.
Where several recordings match, one without ``REDACTED`` wins, then the first by file name.

The folder is checked when the emulator starts, and what it cannot serve is an error naming the
file: a ``ValidationError`` for a ``.json`` file that is not valid JSON, a recording that is
malformed or of a newer format than 1, a recording naming a body file that is not there, a
symbolic link (none is followed below the folder named), a pipe or device, a file over 256 MiB,
more than 100,000 recordings or 2 GiB in all, or two recordings of the same request; an
``OSError`` for a folder the system cannot read. Names starting with a dot (``.git``) are skipped,
and so are JSON files that are no recording (no ``urlscan_rs_recording`` member: an index,
notes); other files are read only as the body files entries name, so a ``README.md`` may sit
beside the recordings. ``Emulator.stats()["requests"]`` counts only the requests the emulator
answered itself, so a test can tell that the recordings answered.

With pytest: ``pytest --urlscan-record DIR`` runs the suite against the service the environment
names (``URLSCAN_API_KEY``, ``URLSCAN_BASE_URL``) and records into ``DIR``;
``@pytest.mark.urlscan_emulator(recordings=DIR)`` replays (see :mod:`urlscan_rs.pytest_plugin`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

__all__ = ["RecordEntry", "RecordHook", "RecordedRequest", "RecordedResponse"]


class _Request(TypedDict):
    method: str
    """``GET``, ``POST``, ..."""
    path: str
    """The path below the base URL, percent-encoded as sent (``/api/v1/result/<uuid>/``)."""
    query: dict[str, str | list[str]]
    """The query by name; a repeated name's values as a list, in the order sent."""


class RecordedRequest(_Request, total=False):
    """The request an entry answers, as its file holds it (redacted)."""

    json: Any
    """The JSON body, for a request that has one."""


class _Response(TypedDict):
    status: int
    """The HTTP status."""
    headers: dict[str, str]
    """``content-type``, ``content-disposition`` and ``location``, where they came."""


class RecordedResponse(_Response, total=False):
    """The answer, as the hook sees it (``json`` or ``body``; neither: an empty body)."""

    json: Any
    """A JSON answer's value."""
    body: bytes
    """Any other answer's bytes (written to the file ``body_file`` names)."""


class RecordEntry(TypedDict):
    """What ``record_hook`` gets and returns: one recording before it is written."""

    request: RecordedRequest
    """What identifies the request."""
    response: RecordedResponse
    """The answer."""


RecordHook = Callable[[RecordEntry], RecordEntry | None]
"""``Client(record_hook=...)``: an entry in, the entry (changed or not) or None out."""

"""pytest fixtures for testing code that uses urlscan_rs, with no network and no API key.

* ``urlscan_emulator``: a fresh :class:`~urlscan_rs.testing.Emulator` per test.
* ``urlscan_client``: a ``Client`` for it (premium key unless the marker's ``key`` says otherwise).
* ``urlscan_async_client``: an ``AsyncClient`` for it.
* ``urlscan_webhook``: a :class:`~urlscan_rs.testing.WebhookReceiver` per test
  (a loopback HTTP endpoint collecting notifications).

Options come from markers, checked before the test runs (a misspelt or
wrongly typed option fails the test with a message naming it):

* ``@pytest.mark.urlscan_emulator(...)``: see :class:`EmulatorMarker`.
* ``@pytest.mark.urlscan_webhook(...)``: see :class:`WebhookMarker`.

Each test gets its own emulator, so state never leaks between tests; the
marker's ``scans`` keeps start-up quick (default 200). Example::

    @pytest.mark.urlscan_emulator(scans=50, scan_duration=0, key="free")
    def test_my_playbook(urlscan_client, urlscan_emulator):
        sub = urlscan_client.scan("https://example.com")
        assert urlscan_client.wait_for_result(sub.uuid, initial_wait=0).page.domain == "example.com"

Recorded runs: ``pytest --urlscan-record DIR`` runs the suite with ``urlscan_client`` and
``urlscan_async_client`` against the service the environment names (``URLSCAN_API_KEY``, and
``URLSCAN_BASE_URL`` or urlscan.io), writing every answer into ``DIR`` (``Client(record_to=DIR)``,
see :mod:`urlscan_rs.recording`; the key is never written). A test marked
``@pytest.mark.urlscan_emulator(recordings=DIR)`` then replays it offline, with no key: its
emulator answers the recorded requests as recorded and any other as it would. A relative ``DIR``
is taken from where pytest was started for the option, and from the test file's folder for the
marker, so a suite records with ``pytest --urlscan-record tests/recordings`` and its tests name
``recordings="recordings"``. While recording, the marker's other options (``key`` too) do not
apply, and a test that uses ``urlscan_emulator`` itself (its clock, its faults) is skipped: the
service has neither. To scrub what is recorded, override the ``urlscan_record_hook`` fixture in
a ``conftest.py`` (it returns the client's ``record_hook``)::

    @pytest.mark.urlscan_emulator(recordings="recordings", scans=0)
    def test_triage_of_a_known_phish(urlscan_client):
        result = urlscan_client.result("0e1b4d8c-6a0f-4c1e-9d2b-5f3e7a8c9b10")
        assert my_playbook.triage(result) == "block"

``async def`` tests run out of the box: unless the test is marked for another
async plugin (``asyncio``, ``anyio``, ``trio``), this plugin runs it with
``asyncio.run``, so no extra package is needed::

    async def test_async_playbook(urlscan_async_client):
        assert (await urlscan_async_client.quotas()).limits
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, TypedDict

import pytest

from ._client import AsyncClient, Client
from .recording import RecordHook
from .testing import Emulator, LatencySpec, RateLimitSpec, WebhookReceiver

KeyKind = Literal["premium", "team", "readonly", "free", "other"]


class EmulatorMarker(TypedDict, total=False):
    """Options of ``@pytest.mark.urlscan_emulator(...)`` (all optional)."""

    scans: int
    """Historical scans pre-loaded (default 200)."""
    seed: int
    """Seed of the pre-loaded scans (default 0)."""
    scan_duration: float
    """Seconds of emulator time until a submitted scan is finished (default 10)."""
    latency: LatencySpec
    """Seconds added before each answer, or a dict per endpoint group (default 0)."""
    rate_limits: RateLimitSpec
    """Per action, a dict of window to limit, e.g. ``{"search": {"minute": 30}}``."""
    result_size: tuple[int, int]
    """``(min, max)`` bytes of result documents (default: their natural size)."""
    title_size: int
    """Characters of every page's title, a hostile page (default: each page's own)."""
    compact_json: bool
    """Answer JSON on one line instead of the service's two-space indent (default False)."""
    webhook_timeout: float
    """Seconds one webhook delivery attempt may take (default 5)."""
    body_timeout: float
    """Seconds a request body may take to arrive before a 408 (default 30)."""
    key: KeyKind
    """Which API key the client fixtures use (default ``premium``)."""
    recordings: str | os.PathLike[str]
    """A folder ``pytest --urlscan-record`` (or ``Client(record_to=...)``) wrote: recorded requests
    are answered as recorded. A relative path is taken from the test file's folder."""


class WebhookMarker(TypedDict, total=False):
    """Options of ``@pytest.mark.urlscan_webhook(...)`` (all optional)."""

    host: str
    """Address to listen on (default 127.0.0.1)."""
    port: int
    """Port to listen on (default 0: a free one)."""
    fail_first: int
    """Answer the first this many POSTs with 503, to exercise retries (default 0)."""
    status: int
    """The status of every later answer to a notification (default 200)."""


# What each option accepts, for the checks below (bool is not an int here).
_EMULATOR_TYPES: dict[str, tuple[type, ...]] = {
    "scans": (int,),
    "seed": (int,),
    "scan_duration": (int, float),
    "latency": (int, float, Mapping),
    "rate_limits": (Mapping,),
    "result_size": (tuple, list),
    "title_size": (int,),
    "compact_json": (bool,),
    "webhook_timeout": (int, float),
    "body_timeout": (int, float),
    "key": (str,),
    "recordings": (str, os.PathLike),
}
_WEBHOOK_TYPES: dict[str, tuple[type, ...]] = {"host": (str,), "port": (int,), "fail_first": (int,), "status": (int,)}
_KEY_KINDS = ("premium", "team", "readonly", "free", "other")

DEFAULTS: dict[str, Any] = {"scans": 200, "scan_duration": 10.0, "seed": 0}
"""The ``urlscan_emulator`` fixture's options unless its marker overrides them."""

# Plugins that run async tests themselves, by the marker that hands a test to them.
_OTHER_ASYNC_MARKERS = ("asyncio", "anyio", "trio")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--urlscan-record DIR``."""
    group = parser.getgroup("urlscan", "urlscan-rs")
    group.addoption(
        "--urlscan-record",
        metavar="DIR",
        default=None,
        help="run urlscan_client and urlscan_async_client against the service the environment names "
        "(URLSCAN_API_KEY, URLSCAN_BASE_URL) and record every answer into DIR, for "
        "@pytest.mark.urlscan_emulator(recordings=DIR) to replay offline",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``urlscan_emulator`` and ``urlscan_webhook`` markers."""
    config.addinivalue_line(
        "markers",
        "urlscan_emulator(**options): urlscan_emulator fixture options "
        "(scans, seed, scan_duration, latency, rate_limits, result_size, title_size, compact_json, "
        "webhook_timeout, body_timeout, key, recordings)",
    )
    config.addinivalue_line(
        "markers",
        "urlscan_webhook(**options): urlscan_webhook fixture options (host, port, fail_first, status)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run an ``async def`` test on a fresh event loop, unless another plugin's marker claims it."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    if any(pyfuncitem.get_closest_marker(m) is not None for m in _OTHER_ASYNC_MARKERS):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True


def _checked(marker: str, given: Mapping[str, Any], types: Mapping[str, tuple[type, ...]]) -> dict[str, Any]:
    """The marker's options, refused with a clear message when misspelt or of the wrong type."""
    for name, value in given.items():
        if name not in types:
            close = difflib.get_close_matches(name, list(types), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise pytest.UsageError(f"@pytest.mark.{marker}: unknown option {name!r}{hint} (options: {', '.join(types)})")
        want = types[name]
        if isinstance(value, bool) and bool not in want or not isinstance(value, want):
            names = " or ".join(t.__name__ for t in want)
            raise pytest.UsageError(f"@pytest.mark.{marker}: {name} must be {names}, got {type(value).__name__} {value!r}")
    if marker == "urlscan_emulator" and "key" in given and given["key"] not in _KEY_KINDS:
        raise pytest.UsageError(
            f"@pytest.mark.urlscan_emulator: key must be one of {', '.join(_KEY_KINDS)}, got {given['key']!r}"
        )
    return dict(given)


def _options(request: pytest.FixtureRequest) -> dict[str, Any]:
    opts = dict(DEFAULTS)
    marker = request.node.get_closest_marker("urlscan_emulator")
    if marker is not None:
        if marker.args:
            raise pytest.UsageError("@pytest.mark.urlscan_emulator takes keyword options only, e.g. (scans=50)")
        opts.update(_checked("urlscan_emulator", marker.kwargs, _EMULATOR_TYPES))
    if "recordings" in opts:
        # Beside the test file, wherever pytest was started.
        opts["recordings"] = Path(request.node.path).parent / opts["recordings"]
    return opts


def _recording_to(config: pytest.Config) -> Path | None:
    """The folder ``--urlscan-record`` names (from where pytest was started), or None."""
    given = config.getoption("urlscan_record", None)
    return None if given is None else config.invocation_params.dir / given


@pytest.fixture
def urlscan_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """A fresh emulator of the service for this test, stopped afterwards.

    Options: ``@pytest.mark.urlscan_emulator(scans=, seed=, scan_duration=, latency=,
    rate_limits=, result_size=, webhook_timeout=, body_timeout=, key=, recordings=)`` (see
    ``EmulatorMarker``).
    Move its clock with ``urlscan_emulator.advance(seconds)``. Under ``--urlscan-record`` the
    test is skipped: it steers the emulator, and the suite runs against the service."""
    if _recording_to(request.config) is not None:
        pytest.skip("--urlscan-record runs the suite against the service; this test uses the emulator itself")
    opts = _options(request)
    opts.pop("key", None)
    with Emulator(**opts) as emu:
        yield emu


@pytest.fixture
def urlscan_record_hook() -> RecordHook | None:
    """The ``record_hook`` of the clients that ``--urlscan-record`` builds (None: none).

    Override it in a ``conftest.py`` to scrub what is recorded (see
    :mod:`urlscan_rs.recording`): return a function of an entry that returns
    the entry (changed or not), or None to record nothing of it."""
    return None


@pytest.fixture
def urlscan_client(request: pytest.FixtureRequest, urlscan_record_hook: RecordHook | None) -> Iterator[Client]:
    """A ``Client`` for ``urlscan_emulator``, closed afterwards.

    It uses the premium key unless the marker's ``key`` names another kind
    (team, readonly, free, other). Under ``--urlscan-record DIR`` it is a
    client of the service the environment names, recording into ``DIR``."""
    folder = _recording_to(request.config)
    if folder is not None:
        with Client(record_to=folder, record_hook=urlscan_record_hook) as c:
            yield c
        return
    emulator: Emulator = request.getfixturevalue("urlscan_emulator")
    with emulator.client(_options(request).get("key")) as c:
        yield c


@pytest.fixture
def urlscan_async_client(request: pytest.FixtureRequest, urlscan_record_hook: RecordHook | None) -> Iterator[AsyncClient]:
    """An ``AsyncClient`` for ``urlscan_emulator``, closed afterwards.

    Use it from ``async def`` tests (they run out of the box). It uses the
    premium key unless the marker's ``key`` names another kind. Under
    ``--urlscan-record DIR`` it is a client of the service the environment
    names, recording into ``DIR``."""
    folder = _recording_to(request.config)
    if folder is not None:
        c = AsyncClient(record_to=folder, record_hook=urlscan_record_hook)
    else:
        emulator: Emulator = request.getfixturevalue("urlscan_emulator")
        c = emulator.async_client(_options(request).get("key"))
    yield c
    c.close()


@pytest.fixture
def urlscan_webhook(request: pytest.FixtureRequest) -> Iterator[WebhookReceiver]:
    """A :class:`~urlscan_rs.testing.WebhookReceiver` for this test, closed afterwards.

    Give ``urlscan_webhook.url`` as a channel's ``webhook_url``, then
    ``urlscan_webhook.wait(count)`` for the notifications (de-duplicated by id).
    Options: ``@pytest.mark.urlscan_webhook(host=, port=, fail_first=, status=)``
    (see ``WebhookMarker``)."""
    marker = request.node.get_closest_marker("urlscan_webhook")
    opts = _checked("urlscan_webhook", marker.kwargs, _WEBHOOK_TYPES) if marker is not None else {}
    with WebhookReceiver(**opts) as hook:
        yield hook

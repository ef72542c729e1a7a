"""pytest fixtures for testing code that uses urlscan_rs, with no network and no API key.

* ``urlscan_emulator``: a fresh :class:`~urlscan_rs.testing.Emulator` per test.
  Configure it with the marker ``@pytest.mark.urlscan_emulator(scans=50, seed=1,
  scan_duration=0, latency=0.0, rate_limits={...})``.
* ``urlscan_client``: a ``Client`` for it (premium key; ``key="free"`` in the
  marker picks another kind: premium, team, readonly, free, other).
* ``urlscan_async_client``: an ``AsyncClient`` for it.
* ``urlscan_webhook``: a :class:`~urlscan_rs.testing.WebhookReceiver` per test
  (a loopback HTTP endpoint collecting notifications); the marker
  ``@pytest.mark.urlscan_webhook(fail_first=2)`` passes it options.

Each test gets its own emulator, so state never leaks between tests; the
marker's ``scans`` keeps start-up quick (default 200). Example::

    @pytest.mark.urlscan_emulator(scans=50, scan_duration=0, key="free")
    def test_my_playbook(urlscan_client, urlscan_emulator):
        sub = urlscan_client.scan("https://example.com")
        assert urlscan_client.wait_for_result(sub.uuid, initial_wait=0).page.domain == "example.com"
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ._client import AsyncClient, Client
from .testing import Emulator, WebhookReceiver

DEFAULTS: dict[str, Any] = {"scans": 200, "scan_duration": 10.0, "seed": 0}
"""The ``urlscan_emulator`` fixture's options unless its marker overrides them."""


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``urlscan_emulator`` and ``urlscan_webhook`` markers."""
    config.addinivalue_line(
        "markers",
        "urlscan_emulator(**options): urlscan_emulator fixture options (scans, seed, scan_duration, latency, rate_limits, key)",
    )
    config.addinivalue_line(
        "markers",
        "urlscan_webhook(**options): urlscan_webhook fixture options (host, port, fail_first, status)",
    )


@pytest.fixture
def urlscan_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """A fresh emulator of the service for this test (options: the ``urlscan_emulator`` marker)."""
    opts = _options(request)
    opts.pop("key", None)
    with Emulator(**opts) as emu:
        yield emu


def _options(request: pytest.FixtureRequest) -> dict[str, Any]:
    opts = dict(DEFAULTS)
    marker = request.node.get_closest_marker("urlscan_emulator")
    if marker is not None:
        opts.update(marker.kwargs)
    return opts


@pytest.fixture
def urlscan_client(urlscan_emulator: Emulator, request: pytest.FixtureRequest) -> Iterator[Client]:
    """A ``Client`` for ``urlscan_emulator`` (premium key unless the marker's ``key`` says otherwise)."""
    with urlscan_emulator.client(_options(request).get("key")) as c:
        yield c


@pytest.fixture
def urlscan_async_client(urlscan_emulator: Emulator, request: pytest.FixtureRequest) -> Iterator[AsyncClient]:
    """An ``AsyncClient`` for ``urlscan_emulator`` (premium key unless the marker's ``key`` says otherwise)."""
    c = urlscan_emulator.async_client(_options(request).get("key"))
    yield c
    c.close()


@pytest.fixture
def urlscan_webhook(request: pytest.FixtureRequest) -> Iterator[WebhookReceiver]:
    """A :class:`~urlscan_rs.testing.WebhookReceiver` for this test: give
    ``urlscan_webhook.url`` as a channel's ``webhook_url``, then
    ``urlscan_webhook.wait(count)`` for the notifications (de-duplicated by id).
    Options (``host``, ``port``, ``fail_first``, ``status``) come from the
    ``urlscan_webhook`` marker. Closed after the test."""
    marker = request.node.get_closest_marker("urlscan_webhook")
    opts = dict(marker.kwargs) if marker is not None else {}
    with WebhookReceiver(**opts) as hook:
        yield hook

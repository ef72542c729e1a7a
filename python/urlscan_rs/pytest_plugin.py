"""pytest fixtures for testing code that uses urlscan_rs, with no network and no API key.

* ``urlscan_emulator``: a fresh :class:`~urlscan_rs.testing.Emulator` per test.
  Configure it with the marker ``@pytest.mark.urlscan_emulator(scans=50, seed=1,
  scan_duration=0, latency=0.0, rate_limits={...})``.
* ``urlscan_client``: a ``Client`` for it (premium key).
* ``urlscan_async_client``: an ``AsyncClient`` for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ._client import AsyncClient, Client
from .testing import Emulator

DEFAULTS: dict[str, Any] = {"scans": 200, "scan_duration": 10.0, "seed": 0}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "urlscan_emulator(**options): options of the urlscan_emulator fixture (scans, seed, scan_duration, latency, rate_limits)",
    )


@pytest.fixture
def urlscan_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    opts = dict(DEFAULTS)
    marker = request.node.get_closest_marker("urlscan_emulator")
    if marker is not None:
        opts.update(marker.kwargs)
    with Emulator(**opts) as emu:
        yield emu


@pytest.fixture
def urlscan_client(urlscan_emulator: Emulator) -> Iterator[Client]:
    with urlscan_emulator.client() as c:
        yield c


@pytest.fixture
def urlscan_async_client(urlscan_emulator: Emulator) -> Iterator[AsyncClient]:
    c = urlscan_emulator.async_client()
    yield c
    c.close()

"""Tests of the playbook against the emulator: no network, no API key.

Run: python -m pytest examples/test_playbook.py   (the urlscan_rs pytest plugin provides the fixtures)
"""

from __future__ import annotations

import pytest
from playbook import triage

from urlscan_rs import Client
from urlscan_rs.testing import Emulator


@pytest.mark.urlscan_emulator(scans=20, scan_duration=0)
def test_clean_page_opens_nothing(urlscan_client: Client) -> None:
    d = triage(urlscan_client, "https://www.example.com/", initial_wait=0)
    assert d.verdict == "clean" and d.incident is None


@pytest.mark.urlscan_emulator(scans=20, scan_duration=0)
def test_phishing_page_opens_an_incident(urlscan_client: Client) -> None:
    d = triage(urlscan_client, "https://paypal-secure-login.example-verify.net/signin", initial_wait=0)
    assert d.verdict == "malicious" and d.incident is not None
    inc = urlscan_client.incidents.get(d.incident.id)
    assert inc.state == "active" and inc.visibility == "private"
    channel = urlscan_client.channels.get(inc.channels[0])
    assert channel.name == "soc-alerts"


@pytest.mark.urlscan_emulator(scans=20, scan_duration=0)
def test_refused_url(urlscan_client: Client) -> None:
    assert triage(urlscan_client, "https://nowhere.invalid/", initial_wait=0).verdict == "refused"


@pytest.mark.urlscan_emulator(scans=20, scan_duration=600)
def test_slow_scan_times_out(urlscan_client: Client) -> None:
    d = triage(urlscan_client, "https://www.example.org/", initial_wait=0, wait=0.5)
    assert d.verdict == "timeout"


def test_incident_closes_after_a_week(urlscan_emulator: Emulator) -> None:
    client = urlscan_emulator.client()
    urlscan_emulator.advance(urlscan_emulator.scan_duration)
    d = triage(client, "https://paypal-secure-login.example-verify.net/signin", initial_wait=urlscan_emulator.scan_duration)
    assert d.incident is not None
    urlscan_emulator.advance(7 * 86400 + 1)  # the emulator clock: no sleeping
    assert client.incidents.get(d.incident.id).state == "closed"


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning"]))

"""The playbook's decisions, with the service's answers chosen by the tests: the three ways of
docs/testing-your-playbook.md (conventions, planted and built results, recordings) on the
emulator. No network, no API key.

Run: python -m pytest examples/test_scenarios.py   (the urlscan_rs pytest plugin provides the fixtures)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from make_recordings import QUERY
from playbook import triage

import urlscan_rs
from urlscan_rs import Client
from urlscan_rs.testing import Emulator

RECORDINGS = Path(__file__).parent / "recordings"


def paypal_kit(url: str) -> dict[str, Any]:
    """A page impersonating PayPal, served from a network the SOC blocks."""
    return urlscan_rs.testing.result(url, malicious=True, brands=["paypal"], ip="203.0.113.7", asn="AS64500", country="NL")


# ---------------------------------------------------------------- conventions


@pytest.mark.urlscan_emulator(scans=0, scan_duration=0)
def test_a_refused_url_is_reported_as_refused(urlscan_client: Client) -> None:
    assert triage(urlscan_client, "https://blocked.example.com/", initial_wait=0).verdict == "refused"


# ---------------------------------------------------------------- planted and built results


@pytest.mark.urlscan_emulator(scans=0, scan_duration=0)
def test_a_paypal_kit_on_a_blocked_network_opens_an_incident(urlscan_client: Client, urlscan_emulator: Emulator) -> None:
    urlscan_emulator.on_scan("evil.example", paypal_kit)
    d = triage(urlscan_client, "hxxps://login[.]evil[.]example/verify", initial_wait=0)
    assert d.verdict == "malicious" and d.incident is not None
    assert "203.0.113.7" in d.indicators.ipv4 and "AS64500" in d.indicators.asns
    assert d.stix is not None


@pytest.mark.urlscan_emulator(scans=0, scan_duration=0)
def test_a_low_score_without_a_verdict_stays_clean(urlscan_client: Client, urlscan_emulator: Emulator) -> None:
    urlscan_emulator.on_scan("shop.example", lambda url: urlscan_rs.testing.result(url, malicious=False, score=10))
    d = triage(urlscan_client, "https://shop.example/", initial_wait=0)
    assert (d.verdict, d.score, d.incident) == ("clean", 10, None)


@pytest.mark.urlscan_emulator(scans=20)
def test_a_result_from_an_incident_report_is_found_by_its_ip(urlscan_client: Client, urlscan_emulator: Emulator) -> None:
    # A result saved from a real incident (here: built) joins the emulator's scans.
    saved = json.loads(json.dumps(paypal_kit("https://evil.example/login")))
    uuid = urlscan_emulator.add_result(saved)
    hits = list(urlscan_client.search("page.ip:203.0.113.7"))
    assert [str(h.uuid) for h in hits] == [uuid] and hits[0].verdicts.malicious is True


# ---------------------------------------------------------------- recordings


@pytest.mark.urlscan_emulator(recordings=str(RECORDINGS), scans=0)
def test_a_recorded_search_and_result_are_replayed(urlscan_client: Client) -> None:
    # examples/make_recordings.py wrote the folder: the search, then its newest hit's result.
    newest = next(iter(urlscan_client.search(QUERY, limit=1)))
    result = urlscan_client.result(str(newest.uuid))
    assert result.page.domain == "www.facebook.com" and str(result.task.uuid) == str(newest.uuid)
    d = triage_recorded(result)
    assert d == "clean"


def triage_recorded(result: Any) -> str:
    """The playbook's decision on a result already in hand."""
    verdict = result.is_malicious(50)
    return "malicious" if verdict else "clean" if verdict is False else "unknown"


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning"]))

"""Tests of the alerting playbook on the emulator, with a real webhook receiver.

Run: python -m pytest examples/test_alerting.py   (the urlscan_rs pytest plugin provides the fixtures)
"""

from __future__ import annotations

import pytest
from alerting import Watch, handle, subscribe

from urlscan_rs import Client
from urlscan_rs.testing import Emulator, WebhookReceiver

PHISH = "https://paypal-secure-login.example-verify.net/signin"
PHISH_DOMAIN = "paypal-secure-login.example-verify.net"


def setup(client: Client, hook: WebhookReceiver, query: str) -> Watch:
    return subscribe(client, query=query, webhook_url=hook.url)


def finish(emu: Emulator) -> None:
    emu.advance(emu.scan_duration + 1)


@pytest.mark.urlscan_emulator(scans=20, scan_duration=5)
def test_malicious_match_opens_one_incident(
    urlscan_emulator: Emulator, urlscan_client: Client, urlscan_webhook: WebhookReceiver
) -> None:
    watch = setup(urlscan_client, urlscan_webhook, f"page.domain:{PHISH_DOMAIN}")
    urlscan_client.scan(PHISH, visibility="private")
    finish(urlscan_emulator)
    [n] = urlscan_webhook.wait(1)
    assert n.subscription_id == watch.subscription_id
    [action] = handle(urlscan_client, n, watch)
    assert action.kind == "opened" and action.subject == PHISH_DOMAIN and action.incident_id
    inc = urlscan_client.incidents.get(action.incident_id)
    assert inc.state == "active" and inc.channels == [watch.channel_id]
    # The incident's own scans match the subscription too, and so does the same page scanned
    # again: the open incident is reused, never duplicated.
    urlscan_client.scan(PHISH + "?again", visibility="private")
    finish(urlscan_emulator)
    later = urlscan_webhook.wait(2)[1:]
    actions = [a for n in later for a in handle(urlscan_client, n, watch)]
    assert actions and {(a.kind, a.incident_id) for a in actions} == {("already-open", action.incident_id)}
    assert len(list(urlscan_client.search(f'observable:"{PHISH_DOMAIN}"', datasource="incidents"))) == 1


@pytest.mark.urlscan_emulator(scans=20, scan_duration=5)
def test_clean_match_opens_nothing(urlscan_emulator: Emulator, urlscan_client: Client, urlscan_webhook: WebhookReceiver) -> None:
    watch = setup(urlscan_client, urlscan_webhook, "page.domain:www.example.com")
    urlscan_client.scan("https://www.example.com/", visibility="private")
    finish(urlscan_emulator)
    [n] = urlscan_webhook.wait(1)
    assert [a.kind for a in handle(urlscan_client, n, watch)] == ["clean"]
    assert list(urlscan_client.search("", datasource="incidents")) == []


@pytest.mark.urlscan_emulator(scans=20, scan_duration=5)
def test_clean_page_closes_the_open_incident(
    urlscan_emulator: Emulator, urlscan_client: Client, urlscan_webhook: WebhookReceiver
) -> None:
    watch = setup(urlscan_client, urlscan_webhook, "page.domain:www.example.com")
    inc = urlscan_client.incidents.create("www.example.com", visibility="private", channels=[])
    urlscan_client.scan("https://www.example.com/", visibility="private")
    finish(urlscan_emulator)
    actions = [a for n in urlscan_webhook.wait(1) for a in handle(urlscan_client, n, watch)]
    assert ("closed", inc.id) in [(a.kind, a.incident_id) for a in actions]
    assert urlscan_client.incidents.get(inc.id).state == "closed"


@pytest.mark.urlscan_emulator(scans=20, scan_duration=5)
def test_followed_incident_reports_changes(
    urlscan_emulator: Emulator, urlscan_client: Client, urlscan_webhook: WebhookReceiver
) -> None:
    watch = setup(urlscan_client, urlscan_webhook, "page.domain:nothing.example")
    inc = urlscan_client.incidents.create(
        "changing.example.net", visibility="private", channels=[watch.channel_id], scan_interval=900, watched_attributes=["ip"]
    )
    urlscan_emulator.advance(901)  # the next interval's scan sees another IP
    [n] = urlscan_webhook.wait(1)
    [action] = handle(urlscan_client, n, watch)
    assert (action.kind, action.incident_id, action.detail) == ("changed", inc.id, "ip")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning"]))

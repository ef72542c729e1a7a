"""An alerting playbook: subscribe to a saved search, receive its notifications
on a webhook, triage every matched scan, and open or close incidents.

    subscribe()  a webhook channel, a saved search and a live subscription on it
    handle()     one notification: each matched scan is triaged; a malicious page
                 gets an incident (unless one is already open for its domain), a
                 clean page closes the open incident of its domain; an incident
                 notification is reported with what changed

Runs against the built-in emulator when run as a script (no network, no key):

    python examples/alerting.py
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from urlscan_rs import Client, Notification
from urlscan_rs.models import Incident

log = logging.getLogger("alerting")


@dataclass(frozen=True)
class Watch:
    channel_id: str
    search_id: str
    subscription_id: str


@dataclass(frozen=True)
class Action:
    kind: str  # "opened", "already-open", "closed", "clean", "unknown", "changed"
    subject: str  # the scanned domain, or the incident's observable
    incident_id: str | None = None
    detail: str = ""


def subscribe(client: Client, *, query: str, webhook_url: str, name: str = "lookalikes") -> Watch:
    """Alert `webhook_url` at once about every new scan matching `query`."""
    channel = client.channels.create(type="webhook", name=f"{name} alerts", webhook_url=webhook_url)
    search = client.saved_searches.create(datasource="scans", name=name, query=query)
    sub = client.subscriptions.create(
        search_ids=[search.id],
        frequency="live",
        email_addresses=[],
        name=name,
        is_active=True,
        ignore_time=True,
        channel_ids=[channel.id],
    )
    return Watch(channel.id, search.id, sub.id)


def open_incident(client: Client, domain: str) -> Incident | None:
    """The active incident watching `domain`, if there is one."""
    for hit in client.search(f'observable:"{domain}" AND state:active', datasource="incidents", limit=1):
        return client.incidents.get(hit.id)
    return None


def handle(client: Client, notification: Notification, watch: Watch, *, threshold: int = 50) -> list[Action]:
    """Act on one notification; returns what was done, one action per item."""
    if notification.type == "incident":
        changed = ", ".join(str(c.get("attribute")) for c in notification.changes or [])
        log.warning("incident %s (%s) changed: %s", notification.incident_id, notification.observable, changed)
        return [Action("changed", notification.observable or "", notification.incident_id, changed)]
    actions = []
    for hit in notification.results or []:
        result = client.result(hit.id)
        domain = result.page.domain or hit.id
        verdict = result.verdicts.overall
        existing = open_incident(client, domain)
        if verdict.malicious is None and verdict.score is None:
            actions.append(Action("unknown", domain, None, "no verdict yet"))  # unknown is not clean
        elif verdict.malicious or (verdict.score or 0) >= threshold:
            if existing is not None:
                actions.append(Action("already-open", domain, existing.id))
                continue
            inc = client.incidents.create(
                domain,
                visibility="private",
                channels=[watch.channel_id],
                scan_interval=3600,
                watched_attributes=["detections", "ip", "page"],
                expire_after=7 * 86400,
            )
            log.warning("malicious: %s (score %s); incident %s opened", domain, verdict.score, inc.id)
            actions.append(Action("opened", domain, inc.id, f"score {verdict.score}"))
        elif existing is not None:
            client.incidents.close(existing.id)
            actions.append(Action("closed", domain, existing.id))
        else:
            actions.append(Action("clean", domain))
    return actions


def main() -> None:
    from urlscan_rs.testing import Emulator, WebhookReceiver

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    with Emulator(scans=50, scan_duration=5.0) as emu, WebhookReceiver() as hook, emu.client() as client:
        watch = subscribe(client, query="page.domain:*example-verify.net OR page.domain:www.example.com", webhook_url=hook.url)
        for url in ["https://paypal-secure-login.example-verify.net/signin", "https://www.example.com/"]:
            client.scan(url, visibility="private")
        emu.advance(emu.scan_duration + 1)  # the scans finish; live notifications go out
        while sum(len(n.results or []) for n in hook.notifications) < 2:
            hook.wait(count=len(hook.notifications) + 1)
        for n in hook.notifications:
            for a in handle(client, n, watch):
                print(f"{a.kind:<12} {a.subject}" + (f"  incident={a.incident_id}" if a.incident_id else ""))


if __name__ == "__main__":
    main()

"""A SOAR-style playbook: submit a suspicious URL, wait for the verdict, and
for a malicious page open an incident and notify the SOC channel.

Runs against the real service with URLSCAN_API_KEY set, or against the
built-in emulator when run as a script (no network, no key needed):

    python examples/playbook.py
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from urlscan_rs import Client, ScanRefusedError, ScanTimeoutError
from urlscan_rs.models import Incident

log = logging.getLogger("playbook")


@dataclass(frozen=True)
class Decision:
    url: str
    verdict: str  # "malicious", "clean", "refused" or "timeout"
    score: int | None = None
    incident: Incident | None = None


def soc_channel(client: Client, name: str = "soc-alerts") -> str:
    """The id of the SOC's webhook channel, created on first use."""
    for ch in client.channels.list():
        if ch.name == name:
            return ch.id
    return client.channels.create(type="webhook", name=name, webhook_url="https://hooks.example.com/soc").id


def triage(client: Client, url: str, *, threshold: int = 50, wait: float = 120.0, initial_wait: float = 10.0) -> Decision:
    """Scan a URL and decide; malicious pages get an incident on the SOC channel."""
    try:
        result = client.scan_and_wait(url, visibility="private", tags=["playbook"], timeout=wait, initial_wait=initial_wait)
    except ScanRefusedError as e:
        log.info("scan of %s refused: %s", url, e.message)
        return Decision(url, "refused")
    except ScanTimeoutError:
        return Decision(url, "timeout")
    verdict = result.verdicts.overall
    score = verdict.score or 0
    if not (verdict.malicious or score >= threshold):
        return Decision(url, "clean", score)
    incident = client.incidents.create(
        result.page.domain or url,
        visibility="private",
        channels=[soc_channel(client)],
        scan_interval=3600,
        watched_attributes=["detections", "dns", "page"],
        expire_after=7 * 86400,
    )
    log.warning("malicious: %s (score %s); incident %s opened", url, score, incident.id)
    return Decision(url, "malicious", score, incident)


def main() -> None:
    from urlscan_rs.testing import Emulator

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    with Emulator(scans=50, scan_duration=2.0) as emu, emu.client() as client:
        for url in [
            "https://www.example.com/",
            "https://paypal-secure-login.example-verify.net/signin",
            "https://nowhere.invalid/",
        ]:
            d = triage(client, url, initial_wait=2.0)
            print(f"{d.verdict:<9} score={d.score!s:<5} {url}" + (f"  incident={d.incident.id}" if d.incident else ""))


if __name__ == "__main__":
    main()

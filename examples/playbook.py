"""A SOAR-style playbook: take a (possibly defanged) URL from a report, scan it,
decide on its verdict, hand its indicators on as STIX, keep its artifacts, and
for a malicious page open an incident that notifies the SOC's own web app,
which receives the service's webhooks (a Starlette app under uvicorn).

Runs against the real service with URLSCAN_API_KEY set, or against the
built-in emulator when run as a script (no network, no key needed):

    python examples/playbook.py
"""

from __future__ import annotations

import json
import logging
import secrets
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from urlscan_rs import Client, ScanRefusedError, ScanTimeoutError, webhooks
from urlscan_rs.models import Incident, Notification
from urlscan_rs.playbook import Indicators
from urlscan_rs.query import Q

log = logging.getLogger("playbook")


@dataclass(frozen=True)
class Decision:
    url: str
    verdict: str  # "malicious", "clean", "unknown" (no verdict yet), "refused" or "timeout"
    score: int | None = None
    incident: Incident | None = None
    indicators: Indicators = field(default_factory=Indicators)
    stix: dict[str, Any] | None = None


def soc_channel(client: Client, webhook_url: str, name: str = "soc-alerts") -> str:
    """The id of the SOC's webhook channel, created on first use."""
    for ch in client.channels.list():
        if ch.name == name:
            return ch.id
    return client.channels.create(type="webhook", name=name, webhook_url=webhook_url).id


def triage(
    client: Client,
    url: str,
    *,
    threshold: int = 50,
    wait: float = 120.0,
    initial_wait: float = 10.0,
    webhook_url: str = "https://hooks.example.com/soc",
    save_to: Path | None = None,
) -> Decision:
    """Scan a URL (defanged input welcome) and decide; malicious pages get an incident on the SOC channel."""
    try:
        result = client.scan_and_wait(
            url, refang=True, visibility="private", tags=["playbook"], timeout=wait, initial_wait=initial_wait
        )
    except ScanRefusedError as e:
        log.info("scan of %s refused: %s", url, e.message)
        return Decision(url, "refused")
    except ScanTimeoutError:
        return Decision(url, "timeout")
    if save_to is not None:
        client.save(result.uuid, save_to)  # <uuid>.json, .png and .html
    verdict = result.is_malicious(threshold)  # None: the service has no verdict (never read as clean)
    score, indicators = result.verdict.score, result.indicators()
    if verdict is not True:
        return Decision(url, "clean" if verdict is False else "unknown", score, indicators=indicators)
    incident = client.incidents.create(
        result.page.domain or url,
        visibility="private",
        channels=[soc_channel(client, webhook_url)],
        scan_interval=3600,
        watched_attributes=["detections", "dns", "page"],
        expire_after=7 * 86400,
    )
    log.warning("malicious: %s (score %s); incident %s opened", url, score, incident.id)
    return Decision(url, "malicious", score, incident, indicators, result.to_stix(threshold))


def soc_app(received: list[Notification], arrived: threading.Event, token: str) -> Any:
    """The SOC's web app: the service's webhooks arrive at /urlscan/<token>."""
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route

    async def on_notification(note: Notification) -> None:
        received.append(note)
        arrived.set()

    async def health(request: Any) -> PlainTextResponse:
        return PlainTextResponse("ok")

    return Starlette(routes=[Route("/health", health), Mount("/urlscan", webhooks.asgi_app(on_notification, token=token))])


def main() -> None:
    import uvicorn

    from urlscan_rs.testing import Emulator

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    token = secrets.token_urlsafe(24)
    received: list[Notification] = []
    arrived = threading.Event()
    server = uvicorn.Server(uvicorn.Config(soc_app(received, arrived, token), host="127.0.0.1", port=0, log_level="error"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        threading.Event().wait(0.01)
    hook = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}/urlscan/{token}"

    with Emulator(scans=50, scan_duration=2.0) as emu, emu.client() as client, tempfile.TemporaryDirectory() as out:
        # Every scan this playbook makes also reaches the SOC app (a live subscription on its tag).
        search = client.saved_searches.create(datasource="scans", name="playbook", query=str(Q.tag("playbook")))
        client.subscriptions.create(
            search_ids=[search.id], channel_ids=[soc_channel(client, hook)], frequency="live",
            email_addresses=["soc@example.com"], name="playbook scans", is_active=True, ignore_time=True,
        )  # fmt: skip
        for url in [
            "https://www.example.com/",
            "hxxps://paypal-secure-login[.]example-verify[.]net/signin",  # as it came in the report
            "https://nowhere.invalid/",
        ]:
            d = triage(client, url, initial_wait=2.0, webhook_url=hook, save_to=Path(out))
            print(f"{d.verdict:<9} score={d.score!s:<5} {url}" + (f"  incident={d.incident.id}" if d.incident else ""))
            if d.stix is not None:
                path = Path(out) / "malicious.stix.json"
                path.write_text(json.dumps(d.stix, indent=1))
                kinds = sorted({o["type"] for o in d.stix["objects"]})
                print(f"          STIX bundle: {len(d.stix['objects'])} objects ({', '.join(kinds)})")
                print(f"          domains {list(d.indicators.domains[:3])}, IPs {list(d.indicators.ips[:3])}")
        print(f"artifacts saved: {len(list(Path(out).glob('*.png')))} screenshots and their results and DOMs")
        emu.advance(60)  # the notifications go out on the emulator clock
        for _ in range(200):  # both scans' notifications (real HTTP deliveries), within 10 s
            if len(received) >= 2:
                break
            arrived.wait(0.05)
        for note in received:
            print(f"SOC app received {note.type} notification {note.id}: {[h.task.url for h in note.results or []]}")
    server.should_exit = True


if __name__ == "__main__":
    main()

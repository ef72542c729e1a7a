"""Commands that serve: listen (webhook notifications, optionally forwarded) and mcp."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ..models import HostnameHit, Notification, SearchHit
from ._common import _async_client
from ._output import EXIT_OK, Output, UsageError, _note
from ._show import _when


def _hit_summary(hit: Any) -> str:
    if isinstance(hit, HostnameHit):
        return hit.hostname or "-"
    if isinstance(hit, SearchHit):
        return " ".join(x for x in (hit.page.domain, hit.task.url or hit.page.url) if x) or hit.id or "-"
    return "-"


def notification_line(n: Notification) -> str:
    """A one-line summary: time, type, subscription or incident, results, the first result."""
    if n.type == "incident":
        about = f"{n.observable or '-'} (incident {n.incident_id or '-'})"
        changed = ", ".join(str(c.get("attribute")) for c in n.changes or [] if isinstance(c, dict))
        if changed:
            about += f" changed: {changed}"
    else:
        name = n.subscription_name or n.subscription_id or "-"
        about = name + (f" ({n.frequency})" if n.frequency else "")
    results = n.results or []
    total = n.total if n.total is not None else len(results)
    first = f"  first: {_hit_summary(results[0])}" if results else ""
    return f"{_when(n.created_at)}  {n.type}  {about}  {total} result{'s' if total != 1 else ''}{first}"


def cmd_mcp(args: argparse.Namespace, out: Output) -> int:
    from ..mcp_server import server

    try:
        app = server(_async_client(args))
    except ImportError as e:  # the mcp package missing, or of the 1.x line
        raise UsageError(str(e)) from None
    app.run("stdio")
    return EXIT_OK


# Attempts to forward one notification, and the pause before each retry (seconds).
FORWARD_ATTEMPTS = 3
FORWARD_PAUSE = 1.0


def _forward(url: str, n: Notification) -> bool:
    """POST a received notification's body to `url` as the service would; a few
    tries for a 5xx or a refused connection, then a note on stderr."""
    import urllib.error
    import urllib.request

    body = json.dumps(n._raw).encode()
    why = ""
    for attempt in range(1, FORWARD_ATTEMPTS + 1):
        req = urllib.request.Request(url, data=body, method="POST")
        req.add_header("Content-Type", "application/json")
        req.add_header("X-Urlscan-Notification-Id", n.id)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                r.read()
                return True
        except urllib.error.HTTPError as e:
            why = f"HTTP {e.code}"
            if e.code < 500:
                break
        except (urllib.error.URLError, OSError) as e:
            why = str(getattr(e, "reason", e))
        if attempt < FORWARD_ATTEMPTS:
            time.sleep(FORWARD_PAUSE * attempt)
    _note(f"notification {n.id} not forwarded to {url}: {why}")
    return False


def cmd_listen(args: argparse.Namespace, out: Output) -> int:
    from ..testing import WebhookReceiver

    try:
        hook = WebhookReceiver(args.host, args.port)
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    count: int | None = args.count
    shown = 0
    with hook:
        _note(f"listening on {hook.url} (POST notifications there; Ctrl-C to stop)")
        try:
            while count is None or shown < count:
                try:
                    received = hook.wait(shown + 1, timeout=0.5)
                except TimeoutError:
                    continue
                for n in received[shown:]:
                    if out.json:
                        out.emit(n._raw)
                    else:
                        out.line(notification_line(n))
                    sys.stdout.flush()
                    if args.forward_to:
                        _forward(args.forward_to, n)
                    shown += 1
                    if count is not None and shown >= count:
                        break
        except KeyboardInterrupt:
            pass
    return EXIT_OK

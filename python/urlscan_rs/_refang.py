"""Defanged indicators made usable again (``hxxps://evil[.]example`` -> ``https://evil.example``)."""

from __future__ import annotations

import ipaddress
import re

__all__ = ["refang", "as_url"]

# The defanging conventions analysts and feeds use, each undone. Brackets may be [], () or {}.
# Each pattern runs in time linear in the text (a refang of hostile input must not stall a
# server): no two unbounded quantifiers over the same characters may meet at one starting
# point, so a run of blanks is tried from its first character only ((?<!\s)).
_SUBS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\s*(?:h[xX]{2}p|h\*\*p|hxp|meow)(s?)(\[://\]|\[?:\]?//)", re.I), r"http\1://"),
    (re.compile(r"^\s*f[xX]p(\[://\]|\[?:\]?//)", re.I), "ftp://"),
    # "example [dot] com": the blanks around a bracketed dot go with it.
    (re.compile(r"(?:(?<!\s)\s+)?[\[({]\s*(?:\.|dot)\s*[\])}]\s*", re.I), "."),
    (re.compile(r"\\\."), "."),
    (re.compile(r"(?<!\s)\s+\[?dot\]?\s+", re.I), "."),
    (re.compile(r"[\[({]\s*:\s*[\])}]"), ":"),
    (re.compile(r"[\[({]\s*://\s*[\])}]"), "://"),
    (re.compile(r"[\[({]\s*/\s*[\])}]"), "/"),
    (re.compile(r"[\[({]\s*(?:@|at)\s*[\])}]", re.I), "@"),
)


def refang(text: str) -> str:
    """Undo the usual defanging of a URL, domain, IP or e-mail address.

    ``hxxp``/``hxxps``/``fxp`` schemes, ``[.]``, ``(.)``, ``{.}``, ``[dot]``,
    ``\\.``, ``[:]``, ``[://]``, ``[/]`` and ``[@]``/``[at]`` are undone, and
    surrounding blanks dropped; anything else is kept as it is::

        >>> refang("hxxps://evil[.]example/a")
        'https://evil.example/a'
        >>> refang("203.0.113[.]7"), refang("user[at]evil(.)example")
        ('203.0.113.7', 'user@evil.example')
    """
    if not isinstance(text, str):
        raise TypeError(f"refang takes a str, got {type(text).__name__}")
    out = text
    for pattern, repl in _SUBS:
        out = pattern.sub(repl, out)
    return out.strip()


def as_url(text: str) -> str:
    """A refanged line as a URL to scan: a bare domain or IP address becomes ``http://...``."""
    url = refang(text)
    if "://" in url:
        return url
    host = url.split("/", 1)[0]
    try:
        if ipaddress.ip_address(host.strip("[]")).version == 6 and not host.startswith("["):
            return f"http://[{host}]" + url[len(host) :]
    except ValueError:
        pass
    return f"http://{url}"

"""Hostile inputs to the public calls: secrets in looked-up URLs stay out of spans, event
hooks, logs and messages; wrong-typed result documents and deep dicts raise the package's
errors, never builtin ones; argument checks of the test helpers and webhooks."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from urlscan_rs import Client, _native
from urlscan_rs.errors import APIError, TransportError, UrlscanError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import emulator
from .loopback import JSON_HEADERS, serve_raw

emu = emulator(scans=5, seed=51, scan_duration=0.0)

# A looked-up URL as analysts meet them: credentials in the userinfo, a token and a signature.
LOOKED_UP = "https://user:pass@evil.example/a?token=SECRET&sig=SECRET2"
# Each form a secret of LOOKED_UP could take in what is shown: as given, in a query's
# encoding (the lookup's search), and the base URL's credentials as a Basic header.
_LEAKS = [re.compile(r"\bpass\b"), re.compile(r"3Apass%40"), re.compile("SECRET"), re.compile("dXNlcjpwYXNz")]


def _leaks(text: str) -> list[str]:
    return [p.pattern for p in _LEAKS if p.search(text)]


# ---------------------------------------------------------------- secrets


def test_redaction_rule() -> None:
    """One rule, the core's: userinfo as REDACTED:REDACTED, secret-looking parameters' values,
    URLs inside the query the package builds; everything else as it was."""
    assert _native.redact_url(LOOKED_UP) == "https://REDACTED:REDACTED@evil.example/a?token=REDACTED&sig=REDACTED"
    assert _native.redact_url("https://h/p?X-Amz-Signature=a&AWSAccessKeyId=b&page=2") == (
        "https://h/p?X-Amz-Signature=REDACTED&AWSAccessKeyId=REDACTED&page=2"
    )
    plain = "https://h.example/a%20b?q=1&size=10"
    assert _native.redact_url(plain) == plain
    shown = _native.redact_text(
        "error sending request for url (http://127.0.0.1:1/api/v1/search/?q=task.url%3A%22https%3A%2F%2Fuser%3Apass%40h%2F%3Ftoken%3DSECRET%22)"
    )
    assert not _leaks(shown) and shown.endswith("REDACTED%22)"), shown


@pytest.fixture
def traced() -> Iterator[Any]:
    otel = pytest.importorskip("urlscan_rs.otel")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    otel.instrument(provider)
    yield spans
    otel.uninstrument()


def test_secrets_stay_out_of_spans_hooks_logs_and_messages(emu: Emulator, traced: Any, caplog: pytest.LogCaptureFixture) -> None:
    """lookup_or_scan (a scan, then a reuse), scan, search and a failing call with a URL that
    carries a password, a token and a signature, through a base URL with credentials: none of
    it reaches a span, a hook's argument, a log line or an error message."""
    import urlscan_rs.otel

    caplog.set_level(logging.DEBUG, logger="urlscan_rs")
    shown: list[str] = []
    hooks = {"request": [lambda r: shown.append(repr(r))], "response": [lambda r: shown.append(repr(r))]}
    base = emu.url.replace("http://", "http://user:pass@")
    wait = {"initial_wait": 0.0, "interval": 0.05}
    with Client(emu.api_key, base_url=base, event_hooks=hooks) as c:
        first = c.lookup_or_scan(LOOKED_UP, **wait)
        again = c.lookup_or_scan(LOOKED_UP, **wait)
        c.scan(LOOKED_UP)
        list(c.search(f'page.url:"{LOOKED_UP}"', limit=1))
        assert first.result is not None and again.reused
        with pytest.raises(APIError) as refused:  # a query the service refuses: its path holds the URL
            list(c.search(f'page.url:"{LOOKED_UP}" AND (', limit=1))
    errors = [str(refused.value), repr(refused.value), str(refused.value.path)]
    with Client(emu.api_key, base_url="http://user:pass@127.0.0.1:9", max_retries=0, event_hooks=hooks) as down:
        with pytest.raises(TransportError) as failed:
            down.lookup_or_scan(LOOKED_UP, **wait)
        errors += [str(failed.value), repr(failed.value), str(vars(failed.value))]
    urlscan_rs.otel.flush()
    spans = traced.get_finished_spans()
    assert any(s.attributes.get("url.full", "").count("REDACTED") >= 3 for s in spans)
    assert any("REDACTED" in h for h in shown) and all("authorization" not in h.lower() for h in shown)
    for what, text in [
        ("spans", "".join(s.to_json() for s in spans)),
        ("hooks", "\n".join(shown)),
        ("logs", caplog.text),
        ("errors", "\n".join(errors)),
    ]:
        assert text, what
        assert not _leaks(text), (what, [line for line in text.splitlines() if _leaks(line)][:5])


# ---------------------------------------------------------------- wrong types in a result

DATA = Path(__file__).parent / "data"
_GOOGLE = json.loads((DATA / "result-2018-google.json").read_text())

# What connectors derive from a result: each returns a value or raises the package's error.
_DERIVED: dict[str, Any] = {
    "relationships": lambda r: r.relationships(),
    "to_stix": lambda r: r.to_stix(),
    "to_misp": lambda r: r.to_misp(),
    "indicators": lambda r: r.indicators(),
    "summary": lambda r: r.summary(),
    "downloads": lambda r: r.downloads(),
    "page_outcome": lambda r: r.page_outcome,
    "page_error": lambda r: r.page_error,
    "verdict": lambda r: r.verdict,
    "is_malicious": lambda r: r.is_malicious(),
    "to_record": lambda r: r.to_record(),
    "repr": repr,
}


def _builtin_errors(result: Any) -> list[str]:
    """What each derived method raised that is not the package's own."""
    found = []
    for name, read in _DERIVED.items():
        try:
            read(result)
        except UrlscanError:
            pass
        except Exception as e:
            found.append(f"{name}: {type(e).__name__}: {e}")
    return found


def _replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """`doc` with the value at `path` replaced (the containers on the path copied, the rest shared)."""
    if not path:
        return value
    out = copy.copy(doc)
    inner = doc.get(path[0], {}) if isinstance(doc, dict) else doc[path[0]]  # a missing object made
    out[path[0]] = _replaced(inner, path[1:], value)
    return out


def _paths(doc: Any, here: tuple[Any, ...] = (), items: int = 2) -> list[tuple[Any, ...]]:
    """The path of every value (the first `items` of each list)."""
    out = [here] if here else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*here, k), items)
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:items]):
            out += _paths(v, (*here, i), items)
    return out


@pytest.mark.parametrize(
    "path",
    [
        ("stats", "ipStats", 0, "domains"),
        ("stats", "ipStats", 0),
        ("data", "requests"),
        ("meta", "processors", "download", "data"),
    ],
)
@pytest.mark.parametrize("value", [5, "x.example", {"a": 1}, None, [7, None]])
def test_wrong_typed_parts_are_skipped_or_package_errors(path: tuple[Any, ...], value: Any) -> None:
    """Found by an attack: ``stats.ipStats[].domains`` a number made relationships(), to_stix() and
    to_misp() raise TypeError."""
    result = _models().ScanResult(_replaced(_GOOGLE, path, value))
    assert _builtin_errors(result) == []
    if path[-1] == "domains":  # a part of the wrong type gives nothing, the rest stays
        edges = result.relationships()
        assert ("www.google.com", "resolves-to") in {(e.source, e.kind) for e in edges}


def _models() -> Any:
    from urlscan_rs import models

    return models


@pytest.fixture(scope="module")
def emulator_doc(emu: Emulator) -> dict[str, Any]:
    """A result document as the emulator generates it."""
    with emu.client() as c:
        hit = next(iter(c.search("", limit=1)))
        doc: dict[str, Any] = json.loads(c.with_raw_response.result(hit.uuid).content)
    return doc


# A value of another type than the one replaced: JSON's kinds, with edges (huge numbers, NaN).
_WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=4),
    st.just([]),
    st.just({}),
    st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=2), st.just({}), st.just([])), min_size=1, max_size=3),
    st.dictionaries(st.text(max_size=3), st.one_of(st.none(), st.integers(), st.text(max_size=2)), min_size=1, max_size=2),
)


@pytest.fixture(scope="module")
def answering(emu: Emulator) -> Iterator[tuple[Client, dict[str, bytes]]]:
    """A client of a loopback server that answers every request with ``holder["body"]``."""
    holder = {"body": b"{}"}
    with serve_raw(lambda request: (200, JSON_HEADERS, holder["body"])) as served:
        with Client(emu.api_key, base_url=served.url, max_retries=0) as c:
            yield c, holder


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        doc = doc[k]
    return doc


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_wrong_type_anywhere_raises_only_package_errors(
    answering: tuple[Client, dict[str, bytes]], emulator_doc: dict[str, Any], data: st.DataObject
) -> None:
    """A real result document (2018's google.com, and one the emulator made) with the value at
    a random path replaced by one of another type: every derived method of the result, built
    from the dict and read from an answer over HTTP, returns or raises the package's error."""
    client, holder = answering
    doc = [_GOOGLE, emulator_doc][data.draw(st.integers(0, 1), label="document")]
    path = data.draw(st.sampled_from(_paths_of(doc)), label="path")
    old = _at(doc, path)
    value = data.draw(_WRONG.filter(lambda v: type(v) is not type(old)), label="value")
    changed = _replaced(doc, path, value)
    found = _builtin_errors(_models().ScanResult(changed))
    holder["body"] = json.dumps(changed).encode()
    try:
        result = client.result(doc["task"]["uuid"])
    except UrlscanError:
        result = None
    if result is not None:
        found += _builtin_errors(result)
    assert found == [], (path, value)


_PATHS: dict[int, list[tuple[Any, ...]]] = {}


def _paths_of(doc: Any) -> list[tuple[Any, ...]]:
    if id(doc) not in _PATHS:
        _PATHS[id(doc)] = _paths(doc)
    return _PATHS[id(doc)]


# ---------------------------------------------------------------- deep dicts


def _deep(levels: int, leaf: Any = 1) -> Any:
    """An object nested `levels` deep, built without recursion."""
    for _ in range(levels):
        leaf = {"a": leaf}
    return leaf


DEEP = _deep(10_000)


def test_deep_dicts_are_refused_not_a_recursion_error() -> None:
    """Hand-built documents nested 10,000 deep: the models, their derived methods, to_arrow and
    parse_notification raise the package's errors, where RecursionError escaped before."""
    from urlscan_rs import events, models, playbook, to_arrow
    from urlscan_rs.errors import DecodeError

    note = {"id": "n1", "type": "incident", "results": [{"task": DEEP}]}
    with pytest.raises(DecodeError, match="nested deeper"):
        events.parse_notification(note)
    with pytest.raises(ValidationError, match="nested deeper"):
        playbook.indicators({"data": DEEP})
    for cls, raw in [
        (models.ScanResult, {"task": {"uuid": "x"}, "data": DEEP}),
        (models.SearchHit, {"_id": "x", "page": {"url": DEEP}}),
        (models.Notification, note),
    ]:
        with pytest.raises(ValidationError, match="nested deeper than 200 levels"):
            to_arrow([cls(raw)])
    # At the bound, a document is read as any other (what the native reader reads of JSON text).
    near = models.ScanResult({"task": {"uuid": "x"}, "data": _deep(190)})
    assert near.to_dict()["data"] == _deep(190) and _builtin_errors(near) == []


def test_a_deep_webhook_body_is_a_400(tmp_path: Path) -> None:
    """A delivery nested deeper than the bound (though within what json reads) is answered 400."""
    import io

    from urlscan_rs import webhooks

    token = "t" * 20
    app = webhooks.wsgi_app(lambda note: None, token=token)
    body = json.dumps({"id": "n1", "type": "incident", "results": [_deep(300)]}).encode()
    status: list[str] = []
    env = {"REQUEST_METHOD": "POST", "PATH_INFO": f"/{token}", "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body)}
    answer = json.loads(b"".join(app(env, lambda s, h: status.append(s))))
    assert status == ["400 Bad Request"] and "nested deeper" in answer["reason"], answer


# ---------------------------------------------------------------- smaller


def test_wsgi_app_in_a_thread_with_a_running_loop() -> None:
    """A WSGI app called where an event loop runs (a server started from async code): the
    notification is handled, where ``asyncio.run`` raised RuntimeError before."""
    import io

    from urlscan_rs import webhooks

    token = "t" * 20
    handled: list[str] = []

    async def handler(note: Any) -> None:  # an async handler runs to its end too
        handled.append(note.id)

    app = webhooks.wsgi_app(handler, token=token)
    body = json.dumps({"id": "n-loop", "type": "incident", "results": []}).encode()

    async def deliver() -> list[str]:
        status: list[str] = []
        env = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": f"/{token}",
            "CONTENT_LENGTH": str(len(body)),
            "wsgi.input": io.BytesIO(body),
        }
        b"".join(app(env, lambda s, h: status.append(s)))
        return status

    assert asyncio.run(deliver()) == ["200 OK"] and handled == ["n-loop"]
    seen: list[Any] = []
    thread = threading.Thread(target=lambda: seen.append(asyncio.run(deliver())))
    thread.start()
    thread.join(30)
    assert seen == [["200 OK"]]  # a repeated id is answered 200 and dropped


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: Emulator(host="0.0.0.0\x00"), "NUL"),
        (lambda: _receiver(port=-1), "port must be an integer from 0"),
        (lambda: _receiver(port=70_000), "port must be an integer from 0"),
        (lambda: _receiver(port="80"), "port must be an integer from 0"),
        (lambda: _receiver(host="127.0.0.1\x00"), "NUL"),
        (lambda: _receiver(status="200"), "status must be an HTTP status"),
        (lambda: _webhook_app(max_body="big"), "max_body"),
        (lambda: _webhook_app(allow=5), "allow must be a list"),
    ],
)
def test_listening_arguments_are_validation_errors(make: Any, says: str) -> None:
    """Where a bare OverflowError, TypeError or ValueError came before: a ValidationError saying
    what to give."""
    with pytest.raises(ValidationError, match=says):
        make()


def _receiver(**kw: Any) -> Any:
    from urlscan_rs.testing import WebhookReceiver

    return WebhookReceiver(**kw)


def _webhook_app(**kw: Any) -> Any:
    from urlscan_rs import webhooks

    return webhooks.asgi_app(lambda note: None, token="t" * 20, **kw)

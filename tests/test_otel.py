"""urlscan_rs.otel: the span tree of real calls (a scan and its wait, a search walk, the
results() fan-out, a bulk scan with a 429 wait and a retry, a webhook to the results its
handler reads), sync and async, read back with the OpenTelemetry SDK's in-memory exporters
right after the call returns (no flush of the package's own); metrics; propagation; hooks;
suppression; the instrumentor by its entry point (``opentelemetry-instrument``); no span,
event or metric holds the API key."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402

import urlscan_rs.otel  # noqa: E402
from urlscan_rs import AsyncClient, Client, webhooks  # noqa: E402
from urlscan_rs.otel import UrlscanInstrumentor  # noqa: E402
from urlscan_rs.testing import Emulator, WebhookReceiver  # noqa: E402

from .conftest import emulator, in_threads, run, subscribe  # noqa: E402

emu = emulator(scope="function", scans=30, seed=11, scan_duration=1.0)


class Traced:
    """Spans and metrics of the calls made while instrumented, through providers of the test's own."""

    def __init__(self, propagate: bool = False, **hooks: Any) -> None:
        self.spans_out = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans_out))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        UrlscanInstrumentor().instrument(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, propagate=propagate, **hooks
        )
        self.tracer = self.tracer_provider.get_tracer("test")

    def spans(self) -> list[ReadableSpan]:
        # Read as an application's test reads them: no flush (a call's spans are exported by
        # the time it returns).
        return list(self.spans_out.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def children(self, parent: ReadableSpan) -> list[ReadableSpan]:
        assert parent.context is not None
        return [s for s in self.spans() if s.parent is not None and s.parent.span_id == parent.context.span_id]

    def metrics(self) -> dict[str, list[Any]]:
        data = self.reader.get_metrics_data()
        out: dict[str, list[Any]] = {}
        for rm in data.resource_metrics if data else []:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    out.setdefault(m.name, []).extend(m.data.data_points)
        return out

    def dump(self) -> str:
        """Everything recorded, as text (to look for the key in)."""
        spans = "".join(s.to_json() for s in self.spans())
        data = self.reader.get_metrics_data()
        return spans + (data.to_json() if data else "")


@pytest.fixture
def traced() -> Iterator[Traced]:
    t = Traced()
    yield t
    urlscan_rs.otel.uninstrument()


def _http(spans: list[ReadableSpan]) -> list[ReadableSpan]:
    return [s for s in spans if s.kind == SpanKind.CLIENT]


def _every_request_in_a_call(t: Traced) -> None:
    """Every request span's parent is a call's span (``urlscan.*``): none is left at the root."""
    calls = {s.context.span_id: s.name for s in t.spans() if s.kind != SpanKind.CLIENT and s.context}
    for s in _http(t.spans()):
        assert s.parent is not None and calls.get(s.parent.span_id, "").startswith("urlscan."), s.name


def _no_key(t: Traced, key: str) -> None:
    text = t.dump()
    assert text and key not in text and "api-key" not in text.lower()


def test_a_scan_and_its_wait_nest_under_the_callers_span(emu: Emulator, traced: Traced) -> None:
    with traced.tracer.start_as_current_span("playbook") as root, emu.client() as c:
        r = c.scan_and_wait("https://example.com/", visibility="unlisted", initial_wait=0, interval=0.2)
    [call] = traced.named("urlscan.scan_and_wait")
    assert call.parent is not None and call.parent.span_id == root.get_span_context().span_id
    assert call.attributes is not None
    assert call.attributes["urlscan.scan.uuid"] == r.uuid and call.attributes["urlscan.visibility"] == "unlisted"
    http = traced.children(call)
    assert [s.name for s in http][:2] == ["POST /api/v1/scan/", "GET /api/v1/result/{uuid}/"]
    assert all(s.kind == SpanKind.CLIENT and s.context.trace_id == root.get_span_context().trace_id for s in http)
    post = http[0].attributes
    assert post is not None
    assert post["http.request.method"] == "POST" and post["url.template"] == "/api/v1/scan/"
    assert post["server.address"] == "127.0.0.1" and post["server.port"] == int(emu.url.rsplit(":", 1)[1])
    assert post["http.response.status_code"] == 200 and post["urlscan.action"] == "unlisted"
    assert post["url.full"] == f"{emu.url}/api/v1/scan/"
    # Polls while the scan runs are 404s (errors of their span), the last one the result.
    polls = http[1:]
    assert polls[-1].attributes is not None and polls[-1].attributes["http.response.status_code"] == 200
    for p in polls[:-1]:
        assert p.attributes is not None and p.attributes["error.type"] == "404" and p.status.status_code == StatusCode.ERROR
    assert all(s.end_time is not None and call.start_time <= s.start_time <= s.end_time <= call.end_time for s in http)
    _no_key(traced, emu.api_key)


def test_a_search_walk_is_one_span_with_a_request_span_per_page(emu: Emulator, traced: Traced) -> None:
    with emu.client() as c:
        walk = c.search("page.domain:*", size=5, limit=12)
        hits = list(walk)
        # Ended with the walk (at its limit), not when the iterator goes.
        [call] = traced.named("urlscan.search")
        del walk
    assert len(hits) == 12
    assert call.attributes is not None
    pages = traced.children(call)
    assert [s.name for s in pages] == ["GET /api/v1/search/"] * 3
    assert all(s.attributes is not None and s.attributes["urlscan.action"] == "search" for s in pages)
    assert call.attributes["urlscan.search.pages"] == 3 and call.attributes["urlscan.search.hits"] == 12
    # A table export of a walk: its pages nest under its span too.
    with emu.client() as c:
        it = c.search("", size=10)
        table = it.to_arrow()
        spans = traced.named("urlscan.search")  # ended with the table's read
    assert table.num_rows == 30
    assert len(spans) == 2 and [s.name for s in traced.children(spans[1])] == ["GET /api/v1/search/"] * 3
    _every_request_in_a_call(traced)
    _no_key(traced, emu.api_key)


def test_a_sharded_walks_pages_nest_under_its_span() -> None:
    t = Traced()
    try:
        with Emulator(scans=300, seed=7) as emu, emu.client() as c:
            walk = c.search("", size=20, parallel=4)
            ids = [h.id for h in walk]
            queries = [s.attributes["url.full"] for s in _http(t.spans()) if s.attributes]
            del walk
    finally:
        urlscan_rs.otel.uninstrument()
    assert len(ids) == 300
    [call] = t.named("urlscan.search")
    pages = t.children(call)
    assert len(pages) == len(queries) and call.attributes is not None
    assert any("task.uuid" in q for q in queries)  # the shards' own queries, sent from the core's tasks
    assert call.attributes["urlscan.search.hits"] == 300
    _every_request_in_a_call(t)


def test_calls_from_threads_nest_under_each_threads_span(emu: Emulator, traced: Traced) -> None:
    uuids = [h.id for h in emu.client().search("", limit=4)]
    mine: dict[str, int] = {}
    with emu.client() as c:

        def work(uuid: str) -> None:
            with traced.tracer.start_as_current_span(f"thread {uuid}") as s:
                mine[uuid] = s.get_span_context().span_id
                c.result(uuid)

        in_threads(work, uuids)
    for uuid in uuids:
        [call] = [s for s in traced.named("urlscan.result") if s.parent and s.parent.span_id == mine[uuid]]
        [get] = traced.children(call)
        assert get.attributes is not None and get.attributes["url.full"].endswith(f"/{uuid}/")
    _every_request_in_a_call(traced)


def test_results_fan_out_and_every_request_is_under_the_call(emu: Emulator, traced: Traced) -> None:
    with emu.client() as c:
        uuids = [h.id for h in c.search("", limit=6)]
        got = c.results(uuids, concurrency=3)
    assert [r.uuid for r in got] == uuids
    [call] = traced.named("urlscan.results")
    assert call.attributes is not None and call.attributes["urlscan.items"] == 6
    fetched = traced.children(call)
    assert sorted(s.attributes["url.full"] for s in fetched if s.attributes) == sorted(
        f"{emu.url}/api/v1/result/{u}/" for u in uuids
    )
    assert all(s.name == "GET /api/v1/result/{uuid}/" for s in fetched)
    _every_request_in_a_call(traced)


def test_async_calls_nest_under_their_own_tasks_span(emu: Emulator, traced: Traced) -> None:
    uuids = [h.id for h in emu.client().search("", limit=2)]

    async def one(c: AsyncClient, uuid: str) -> tuple[int, str]:
        with traced.tracer.start_as_current_span(f"task {uuid}") as s:
            r = await c.result(uuid)
            async for _ in c.search(f"task.uuid:{uuid}"):
                pass
            return s.get_span_context().span_id, str(r.uuid)

    async def main() -> list[tuple[int, str]]:
        async with emu.async_client() as c:
            return list(await asyncio.gather(*(one(c, u) for u in uuids)))

    for span_id, uuid in run(main()):
        [task] = [s for s in traced.spans() if s.name == f"task {uuid}"]
        assert task.context is not None and task.context.span_id == span_id
        calls = traced.children(task)
        assert sorted(s.name for s in calls) == ["urlscan.result", "urlscan.search"]
        [result] = [s for s in calls if s.name == "urlscan.result"]
        assert result.attributes is not None and result.attributes["urlscan.scan.uuid"] == uuid
        [get] = traced.children(result)
        assert get.attributes is not None and get.attributes["url.full"].endswith(f"/api/v1/result/{uuid}/")
        [walk] = [s for s in calls if s.name == "urlscan.search"]
        assert [s.name for s in traced.children(walk)] == ["GET /api/v1/search/"]
    _every_request_in_a_call(traced)
    _no_key(traced, emu.api_key)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_bulk_scan_tells_its_429_wait_and_its_retry(mode: str, emu: Emulator, traced: Traced) -> None:
    # The scan endpoint's window is spent once (a 429 announcing a reset in a second: waited
    # out), and one result poll fails with a 503 (retried after a back-off).
    emu.inject("rate_limit", count=1, seconds=1, path="/api/v1/scan/")
    emu.inject("status", status=503, count=1, path="/api/v1/result/")
    urls = ["https://a.example/", "https://b.example/"]
    options: dict[str, Any] = {"visibility": "private", "initial_wait": 0, "interval": 0.2, "concurrency": 2}
    if mode == "sync":
        with emu.client() as c:
            out = c.bulk_scan(urls, **options)
    else:

        async def main() -> Any:
            async with emu.async_client() as c:
                return await c.bulk_scan(urls, **options)

        out = run(main())
    assert all(o.error is None for o in out)
    [call] = traced.named("urlscan.bulk_scan")
    assert call.attributes is not None and call.attributes["urlscan.items"] == 2
    assert call.attributes["urlscan.visibility"] == "private"
    http = traced.children(call)
    statuses = sorted(s.attributes["http.response.status_code"] for s in http if s.attributes)
    assert 429 in statuses and 503 in statuses
    resent = [s for s in http if s.attributes and s.attributes.get("http.request.resend_count")]
    assert len(resent) >= 2  # the scan sent again after the wait, the poll after the 503
    events = {e.name: e for e in call.events}
    wait, retry = events["urlscan.rate_limit.wait"], events["urlscan.retry"]
    assert wait.attributes is not None and retry.attributes is not None
    assert wait.attributes["urlscan.wait.reason"] == "rate-limit" and wait.attributes["urlscan.wait.seconds"] > 0
    assert wait.attributes["urlscan.action"] == "private" and wait.attributes["url.template"] == "/api/v1/scan/"
    assert retry.attributes["urlscan.wait.why"] == "HTTP 503" and retry.attributes["http.request.resend_count"] >= 1
    metrics = traced.metrics()
    assert sum(p.value for p in metrics["urlscan.client.retries"]) == 1
    waits = {p.attributes["urlscan.wait.reason"]: p for p in metrics["urlscan.client.wait.duration"]}
    assert waits["rate-limit"].count >= 1 and waits["rate-limit"].sum > 0 and waits["retry"].count == 1
    durations = metrics["http.client.request.duration"]
    assert sum(p.count for p in durations) == len(http)
    by_status = {p.attributes.get("http.response.status_code") for p in durations}
    assert {200, 429, 503} <= by_status
    remaining = {p.attributes["urlscan.action"]: p.value for p in metrics["urlscan.client.rate_limit.remaining"]}
    assert set(remaining) >= {"private", "retrieve"} and all(v >= 0 for v in remaining.values())
    _every_request_in_a_call(traced)
    _no_key(traced, emu.api_key)


def _delivery(emu: Emulator) -> bytes:
    """A real notification body of the emulator's, for a scan it knows."""
    with WebhookReceiver() as hook, emu.client() as c:
        ch = c.channels.create(type="webhook", name="hook", webhook_url=hook.url)
        subscribe(c, "page.domain:*paypal*", ch.id)
        c.scan("https://paypal-login.example.net/")
        emu.advance(60)
        hook.wait(count=1, timeout=10)
        return hook.requests[0].body


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_a_webhook_continues_the_senders_trace_to_the_results_it_reads(kind: str, emu: Emulator, traced: Traced) -> None:
    body = _delivery(emu)
    traced.spans_out.clear()
    token = "s3cret-token-0123456789"
    with traced.tracer.start_as_current_span("sender") as sender:
        carrier: dict[str, str] = {}
        from opentelemetry import propagate

        propagate.inject(carrier)
    headers = [(b"content-type", b"application/json"), *((k.encode(), v.encode()) for k, v in carrier.items())]
    got: list[Any] = []
    if kind == "asgi":
        verify: Any = emu.async_client()
        app = webhooks.asgi_app(lambda note, results: got.extend(results), token=token, verify=verify)
        status = run(_asgi_post(app, f"/{token}", headers, body))
    else:
        verify = emu.client()
        wapp = webhooks.wsgi_app(lambda note, results: got.extend(results), token=token, verify=verify)
        status = _wsgi_post(wapp, f"/{token}", headers, body)
    verify.close()
    assert status == 200 and got
    [hook] = traced.named("urlscan.webhook")
    assert hook.kind == SpanKind.SERVER and hook.parent is not None
    assert hook.parent.span_id == sender.get_span_context().span_id
    assert hook.context is not None and hook.context.trace_id == sender.get_span_context().trace_id
    assert hook.attributes is not None and hook.attributes["http.response.status_code"] == 200
    reads = [s for s in traced.children(hook) if s.name == "urlscan.result"]
    assert [s.attributes["urlscan.scan.uuid"] for s in reads if s.attributes] == [r.uuid for r in got]
    for read in reads:
        assert [s.name for s in traced.children(read)] == ["GET /api/v1/result/{uuid}/"]
    assert token not in traced.dump()


async def _asgi_post(app: Any, path: str, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
    scope = {"type": "http", "method": "POST", "path": path, "headers": headers, "client": ("127.0.0.1", 5000)}
    sent: list[dict[str, Any]] = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(msg: dict[str, Any]) -> None:
        sent.append(msg)

    await app(scope, receive, send)
    return int(sent[0]["status"])


def _wsgi_post(app: Any, path: str, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
    import io

    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        **{"HTTP_" + k.decode().upper().replace("-", "_"): v.decode() for k, v in headers},
    }
    got: list[str] = []
    b"".join(app(environ, lambda status, _h: got.append(status)))
    return int(got[0].split()[0])


def test_propagation_is_off_by_default_and_sends_traceparent_when_asked(emu: Emulator) -> None:
    from urlscan_rs.errors import APIError

    with WebhookReceiver() as server:  # any server that keeps the headers it was sent
        for propagate in (False, True):
            t = Traced(propagate=propagate)
            try:
                with Client(emu.api_key, base_url=server.url.rsplit("/", 1)[0], max_retries=0) as c, pytest.raises(APIError):
                    c.request("POST", "/hook", json={})
            finally:
                urlscan_rs.otel.uninstrument()
            [post] = _http(t.spans())
            assert post.context is not None and post.name == "POST"
            header = server.requests[-1].headers.get("traceparent") or server.requests[-1].headers.get("Traceparent")
            ctx = post.context
            if propagate:
                assert header == f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}"
            else:
                assert header is None


def test_uninstrument_puts_the_methods_back_and_stops_the_spans(emu: Emulator) -> None:
    incidents = type(Client(base_url=emu.url).incidents)
    before = Client.result, AsyncClient.search, incidents.close, Client.close
    t = Traced()
    assert urlscan_rs.otel.is_instrumented() and UrlscanInstrumentor().is_instrumented_by_opentelemetry
    # The service's calls are wrapped (incidents.close is one), the client's own close is not.
    assert Client.result is not before[0] and incidents.close is not before[2] and Client.close is before[3]
    UrlscanInstrumentor().uninstrument()
    assert not urlscan_rs.otel.is_instrumented() and not UrlscanInstrumentor().is_instrumented_by_opentelemetry
    assert (Client.result, AsyncClient.search, incidents.close, Client.close) == before
    with emu.client() as c:
        list(c.search("", limit=3))
    assert t.spans() == []


def test_a_span_per_namespace_call_is_named_by_its_attribute(emu: Emulator, traced: Traced) -> None:
    with emu.client() as c:
        c.saved_searches.list()
        c.quotas()
    names = [s.name for s in traced.spans() if s.kind == SpanKind.INTERNAL]
    assert names == ["urlscan.saved_searches.list", "urlscan.quotas"]
    assert json.loads(traced.named("urlscan.quotas")[0].to_json())["status"]["status_code"] == "UNSET"


def test_a_failed_call_records_its_error(emu: Emulator, traced: Traced) -> None:
    from urlscan_rs.errors import NotFoundError

    with emu.client() as c, pytest.raises(NotFoundError):
        c.result("00000000-0000-4000-8000-000000000000")
    [call] = traced.named("urlscan.result")
    assert call.status.status_code == StatusCode.ERROR and call.attributes is not None
    assert call.attributes["error.type"] == "NotFoundError"
    assert [e.name for e in call.events] == ["exception"]
    [get] = traced.children(call)
    assert get.attributes is not None and get.attributes["error.type"] == "404"


def test_a_calls_scan_uuid_is_in_the_cores_form(emu: Emulator, traced: Traced) -> None:
    """Taken from the argument (not read from the answer), as the core took it."""
    with emu.client() as c:
        uuid = next(iter(c.search("", limit=1))).id
        r = c.result(f" {uuid.upper()} ")
        c.screenshot(uuid=uuid.upper())
    assert r.task.uuid == uuid
    for name in ("urlscan.result", "urlscan.screenshot"):
        [call] = traced.named(name)
        assert call.attributes is not None and call.attributes["urlscan.scan.uuid"] == uuid, name


def test_nothing_is_made_without_instrument(emu: Emulator) -> None:
    """The SDK set up as the global provider, urlscan_rs.otel imported but not instrumented: a
    call makes no span of ours (the application's own span is the only one exported)."""
    out = _script(
        emu,
        """
from opentelemetry import trace
trace.set_tracer_provider(provider)
import urlscan_rs.otel
assert not urlscan_rs.otel.is_instrumented()
with trace.get_tracer("app").start_as_current_span("app"):
    urlscan_rs.Client(KEY, base_url=URL).quotas()
""",
    )
    assert out == ["exported app"]


def test_the_last_calls_spans_are_exported_at_exit(emu: Emulator) -> None:
    """A short job that exits right after its call still exports that call's request spans
    (they are queued for a batch): handed over before the SDK's own exit hook shuts it down."""
    uuid = next(iter(emu.client().search("", limit=1))).id
    out = _script(
        emu,
        f"""
import urlscan_rs.otel
urlscan_rs.otel.instrument(provider)
urlscan_rs.Client(KEY, base_url=URL).result({uuid!r})
""",
    )
    assert sorted(out) == ["exported GET /api/v1/result/{uuid}/", "exported urlscan.result"]


def _script(emu: Emulator, body: str) -> list[str]:
    """Run ``body`` in a new process with ``provider`` (an SDK tracer provider that prints each
    span it exports), ``KEY`` and ``URL``; the lines printed. Its stderr must be empty of SDK
    complaints (a span ended on a provider already shut down, ...)."""
    import subprocess
    import sys

    script = f"""
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
import urlscan_rs

class Printed(SpanExporter):
    def export(self, spans):
        for s in spans:
            print("exported", s.name, flush=True)
        return SpanExportResult.SUCCESS

provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(Printed()))
KEY, URL = {emu.api_key!r}, {emu.url!r}
{body}
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "shutdown" not in out.stderr and "ended span" not in out.stderr, out.stderr
    return out.stdout.splitlines()


# -- the instrumentor as instrumentations are packaged


def _scans(emu: Emulator, n: int) -> list[str]:
    """Uuids of the emulator's finished scans, read without making a span."""
    from opentelemetry.instrumentation.utils import suppress_instrumentation

    with suppress_instrumentation(), emu.client() as c:
        return [h.id for h in c.search("", limit=n)]


def _tree(t: Traced, call: str) -> tuple[ReadableSpan, list[str]]:
    """The one span named ``call`` finished so far, and the names of its children."""
    [span] = t.named(call)
    return span, sorted(s.name for s in t.children(span))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_calls_spans_are_exported_by_the_time_it_returns(mode: str, emu: Emulator, traced: Traced) -> None:
    """What an application's test does: call, then read the SDK's in-memory exporter at once,
    with no flush. Each call's span and every one of its requests' spans are there, for a
    plain read, a namespace call, a fan-out, a scan, a lookup that scans (with its facts), a
    failed call and a walk (when it ends)."""
    from urlscan_rs.errors import NotFoundError

    uuids = _scans(emu, 3)
    checked: list[str] = []

    def check(call: str, children: list[str]) -> ReadableSpan:
        span, got = _tree(traced, call)
        if call == "urlscan.lookup_or_scan":  # its scan, then polls until the scan is done
            got = sorted(set(got))
        assert got == sorted(children), (call, got)
        assert span.end_time is not None
        traced.spans_out.clear()
        checked.append(call)
        return span

    def lookup_facts(span: ReadableSpan, lk: Any) -> None:
        # Its facts come from the rows' fields it takes (the scan row's visibility) and answers (uuid).
        assert span.attributes is not None and lk.uuid
        assert span.attributes["urlscan.scan.uuid"] == lk.uuid and span.attributes["urlscan.visibility"] == "unlisted"

    get = "GET /api/v1/result/{uuid}/"
    wait = {"initial_wait": 0, "interval": 0.2, "visibility": "unlisted"}
    if mode == "sync":
        with emu.client() as c:
            c.result(uuids[0])
            check("urlscan.result", [get])
            c.saved_searches.list()
            check("urlscan.saved_searches.list", ["GET /api/v1/user/searches/"])
            c.results(uuids, concurrency=2)
            check("urlscan.results", [get] * 3)
            c.scan("https://example.org/")
            check("urlscan.scan", ["POST /api/v1/scan/"])
            lk = c.lookup_or_scan("https://lookup.example/", max_age=0, **wait)
            lookup_facts(check("urlscan.lookup_or_scan", ["POST /api/v1/scan/", get]), lk)
            with pytest.raises(NotFoundError):
                c.result("00000000-0000-4000-8000-000000000000")
            check("urlscan.result", [get])
            assert len(list(c.search("", size=2, limit=5))) == 5
            check("urlscan.search", ["GET /api/v1/search/"] * 3)
    else:

        async def main() -> None:
            async with emu.async_client() as c:
                await c.result(uuids[0])
                check("urlscan.result", [get])
                await c.saved_searches.list()
                check("urlscan.saved_searches.list", ["GET /api/v1/user/searches/"])
                await c.results(uuids, concurrency=2)
                check("urlscan.results", [get] * 3)
                await c.scan("https://example.org/")
                check("urlscan.scan", ["POST /api/v1/scan/"])
                lk = await c.lookup_or_scan("https://lookup.example/", max_age=0, **wait)
                lookup_facts(check("urlscan.lookup_or_scan", ["POST /api/v1/scan/", get]), lk)
                with pytest.raises(NotFoundError):
                    await c.result("00000000-0000-4000-8000-000000000000")
                check("urlscan.result", [get])
                assert len([h async for h in c.search("", size=2, limit=5)]) == 5
                check("urlscan.search", ["GET /api/v1/search/"] * 3)

        run(main())
    assert len(checked) == 7


def test_the_sdks_force_flush_reaches_a_batch_processors_spans(emu: Emulator) -> None:
    """With a BatchSpanProcessor (which exports on its own schedule), the SDK's own
    ``force_flush()`` right after the call exports its spans: nothing waits in urlscan-rs."""
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    uuid = _scans(emu, 1)[0]
    out = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(out, schedule_delay_millis=600_000))
    UrlscanInstrumentor().instrument(tracer_provider=provider)
    try:
        with emu.client() as c:
            c.result(uuid)
        assert provider.force_flush()
        assert sorted(s.name for s in out.get_finished_spans()) == ["GET /api/v1/result/{uuid}/", "urlscan.result"]
    finally:
        UrlscanInstrumentor().uninstrument()
        provider.shutdown()


@pytest.mark.parametrize("propagate", [False, True])
def test_request_and_response_hooks_get_each_requests_span(propagate: bool, emu: Emulator) -> None:
    """``request_hook(span, request)`` and ``response_hook(span, request, response)`` are called
    for every request with its span while it records: what they set is on the span exported.
    They see what event hooks see (no API key); one that raises is logged, and the span goes on."""
    from urlscan_rs.errors import NotFoundError
    from urlscan_rs.hooks import HookRequest, HookResponse

    uuid = _scans(emu, 1)[0]
    seen: list[tuple[str, Any]] = []

    def on_request(span: Any, request: HookRequest) -> None:
        assert span.is_recording()
        seen.append(("request", request))
        span.set_attribute("app.route", request.route or "")

    def on_response(span: Any, request: HookRequest, response: HookResponse) -> None:
        assert span.is_recording() and response.request == request
        seen.append(("response", response))
        span.set_attribute("app.status", response.status_code)
        raise RuntimeError("a broken hook")

    t = Traced(propagate=propagate, request_hook=on_request, response_hook=on_response)
    try:
        with emu.client() as c:
            c.result(uuid)
            with pytest.raises(NotFoundError):
                c.result("00000000-0000-4000-8000-000000000000")
    finally:
        UrlscanInstrumentor().uninstrument()
    requests = [r for kind, r in seen if kind == "request"]
    responses = [r for kind, r in seen if kind == "response"]
    missing = "00000000-0000-4000-8000-000000000000"
    assert [r.url for r in requests] == [f"{emu.url}/api/v1/result/{uuid}/", f"{emu.url}/api/v1/result/{missing}/"]
    assert all(r.method == "GET" and r.route == "/api/v1/result/{uuid}/" and r.attempt == 0 for r in requests)
    assert [r.status_code for r in responses] == [200, 404]
    assert all(r.elapsed > 0 and r.headers.get("content-type", "").startswith("application/json") for r in responses)
    assert emu.api_key not in repr(seen) and all("api-key" not in r.headers for r in requests)
    gets = _http(t.spans())
    assert [s.attributes["app.status"] for s in gets if s.attributes] == [200, 404]
    assert all(s.attributes and s.attributes["app.route"] == "/api/v1/result/{uuid}/" for s in gets)


def test_suppressed_calls_make_no_span_event_or_metric(emu: Emulator, traced: Traced) -> None:
    """``suppress_instrumentation()`` makes nothing of the calls under it (sync, async, a walk);
    ``suppress_http_instrumentation()`` keeps the call's span but makes none of its requests'."""
    from opentelemetry.instrumentation.utils import suppress_http_instrumentation, suppress_instrumentation

    uuid = _scans(emu, 1)[0]

    async def one(c: AsyncClient) -> None:
        await c.result(uuid)

    with suppress_instrumentation():
        with emu.client() as c:
            c.result(uuid)
            list(c.search("", size=2, limit=3))
        run(one(emu.async_client()))
    assert traced.spans() == []
    assert "http.client.request.duration" not in traced.metrics()
    with suppress_http_instrumentation(), emu.client() as c:
        c.result(uuid)
    assert [s.name for s in traced.spans()] == ["urlscan.result"]
    assert "http.client.request.duration" not in traced.metrics()
    with emu.client() as c:  # and on again outside
        c.result(uuid)
    assert [s.name for s in traced.spans()] == ["urlscan.result", "GET /api/v1/result/{uuid}/", "urlscan.result"]
    assert sum(p.count for p in traced.metrics()["http.client.request.duration"]) == 1


def test_url_templates_name_their_parts_after_the_rows_ids(emu: Emulator, traced: Traced) -> None:
    """``url.template`` (and the span's name, and the duration metric's attribute) is the row's
    path with each part named by the row's id: one id, two ids, and none."""
    uuid = _scans(emu, 1)[0]
    with emu.client() as c:
        c.result(uuid)
        c.malicious("domain", "example.com")
        c.quotas()
    templates = sorted(s.attributes["url.template"] for s in _http(traced.spans()) if s.attributes)
    assert templates == ["/api/v1/malicious/{type}/{value}", "/api/v1/quotas", "/api/v1/result/{uuid}/"]
    assert sorted(s.name for s in _http(traced.spans())) == [f"GET {t}" for t in templates]
    metric = {p.attributes["url.template"] for p in traced.metrics()["http.client.request.duration"]}
    assert metric == set(templates)


def test_the_instrumentor_is_a_base_instrumentor_with_its_entry_point() -> None:
    from importlib.metadata import entry_points

    from opentelemetry.instrumentation.instrumentor import BaseInstrumentor

    [ep] = [e for e in entry_points(group="opentelemetry_instrumentor") if e.name == "urlscan_rs"]
    assert ep.load() is UrlscanInstrumentor
    assert issubclass(UrlscanInstrumentor, BaseInstrumentor) and UrlscanInstrumentor() is UrlscanInstrumentor()
    assert list(UrlscanInstrumentor().instrumentation_dependencies()) == []


def test_opentelemetry_instrument_loads_it(emu: Emulator, tmp_path: Any) -> None:
    """``opentelemetry-instrument python app.py``, the SDK set up from the environment (the
    console exporter): the app's call is traced with no line of its own about telemetry."""
    import os
    import re
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    uuid = _scans(emu, 1)[0]
    app = tmp_path / "app.py"
    app.write_text(
        "import os, urlscan_rs\n"
        "client = urlscan_rs.Client(os.environ['URLSCAN_API_KEY'], base_url=os.environ['URLSCAN_BASE_URL'])\n"
        "print('fetched', client.result(os.environ['SCAN']).uuid)\n"
    )
    command = Path(sys.executable).with_name("opentelemetry-instrument")
    found = str(command) if command.exists() else shutil.which("opentelemetry-instrument")
    assert found, "opentelemetry-instrument is not installed (the test extra installs it)"
    env = {
        **os.environ,
        "URLSCAN_BASE_URL": emu.url,
        "URLSCAN_API_KEY": emu.api_key,
        "SCAN": uuid,
        "OTEL_TRACES_EXPORTER": "console",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_LOGS_EXPORTER": "none",
        "OTEL_SERVICE_NAME": "app",
    }
    out = subprocess.run([found, sys.executable, str(app)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"fetched {uuid}" in out.stdout
    names = re.findall(r'"name": "([^"]+)"', out.stdout)
    assert "urlscan.result" in names and "GET /api/v1/result/{uuid}/" in names, out.stdout[-3000:]
    assert emu.api_key not in out.stdout
    # Disabled by the loader's own switch, it makes nothing.
    env["OTEL_PYTHON_DISABLED_INSTRUMENTATIONS"] = "urlscan_rs"
    off = subprocess.run([found, sys.executable, str(app)], capture_output=True, text=True, env=env, timeout=120)
    assert off.returncode == 0 and f"fetched {uuid}" in off.stdout, off.stderr
    assert "urlscan.result" not in off.stdout

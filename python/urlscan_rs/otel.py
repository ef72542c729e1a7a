"""OpenTelemetry spans and metrics for every client call, made from the Rust core's own requests.

Instrumentation that patches ``httpx`` or ``requests`` cannot see this client: its HTTP is
written in Rust. :class:`UrlscanInstrumentor` makes the spans and metrics with the OpenTelemetry
API (the extra ``urlscan-rs[otel]`` installs it and ``opentelemetry-instrumentation``, and
nothing else); an SDK, set up by the application, exports them. It is packaged as every
instrumentation is: ``opentelemetry-instrument python app.py`` loads it (entry point
``urlscan_rs`` of the group ``opentelemetry_instrumentor``), or the application calls it::

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
    trace.set_tracer_provider(TracerProvider())
    trace.get_tracer_provider().add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))

    from urlscan_rs.otel import UrlscanInstrumentor
    UrlscanInstrumentor().instrument()      # or urlscan_rs.otel.instrument()

What it makes, for every client of the process (sync and async), until ``uninstrument()``:

- **a span per public call**, ``urlscan.<method>`` (``urlscan.scan_and_wait``,
  ``urlscan.search``, ``urlscan.incidents.close``, ...), under the caller's current span,
  with the facts of the endpoint rows' fields the call was given or answered:
  ``urlscan.scan.uuid`` (a field ``uuid``: the argument, in the core's form, else the
  answer's), ``urlscan.visibility`` (a field ``visibility``: as the service answered, else
  as asked), ``urlscan.items`` (the items of a list answered) and, for a walk,
  ``urlscan.search.pages``, ``urlscan.search.hits`` and ``urlscan.search.fetched``; a
  walk's span lasts until the walk ends (or its iterator is dropped);
- **a client span per HTTP request** under it, as the stable HTTP semantic conventions
  name it, after the row's path with its named parts (``GET /api/v1/result/{uuid}/``:
  ``http.request.method``, ``url.full``, ``url.template``, ``server.address``,
  ``server.port``, ``http.response.status_code``, ``error.type``,
  ``http.request.resend_count``), with ``urlscan.action``, the rate-limit action it is
  paced as; requests the core sends from its own tasks (``results()``, ``bulk_scan``,
  sharded searches, pages read ahead, table exports) nest there too;
- **span events** on the call's span for every wait of 10 ms or more:
  ``urlscan.rate_limit.wait`` (a spent rate-limit window) and ``urlscan.retry`` (a retry's
  back-off), with how long, why and the attempt that follows;
- **metrics**: ``http.client.request.duration`` (histogram, seconds; its count is the
  requests, by ``urlscan.action``, ``http.response.status_code`` or ``error.type``, method and
  ``url.template``), ``urlscan.client.wait.duration`` (time spent waiting, by reason),
  ``urlscan.client.retries`` and ``urlscan.client.rate_limit.remaining`` (the last
  ``X-Rate-Limit-Remaining`` per action, an observable gauge);
- a webhook received by :func:`~urlscan_rs.webhooks.asgi_app` or
  :func:`~urlscan_rs.webhooks.wsgi_app` runs in a server span ``urlscan.webhook`` that
  continues the sender's trace (its ``traceparent``), so the results its handler fetches
  are in the same trace.

**When spans are there.** A call's spans are finished and handed to the SDK by the time the
call returns (an async call's, by the time its awaitable is done), on the calling thread: a
test reads them from the SDK's in-memory exporter right after the call. The core records the
requests on its I/O thread without taking the GIL; the calling thread makes their spans and
metrics, with the requests' own timestamps, as the call ends. A walk's page spans are there by
the time the walk ends. ``TracerProvider.force_flush()`` and the SDK's processors see them as
any other span. ``suppress_instrumentation()`` (``opentelemetry.instrumentation.utils``) makes
no span, event or metric of the calls made under it; ``suppress_http_instrumentation()`` none of
their requests.

**Hooks.** ``request_hook(span, request)`` and ``response_hook(span, request, response)``
(``request`` a :class:`~urlscan_rs.hooks.HookRequest`, ``response`` a
:class:`~urlscan_rs.hooks.HookResponse`, as ``event_hooks`` get them) are called with each
request's span while it is recording, so that they can add attributes: both as the span is
made, on the calling thread (with ``propagate``, the request hook as the request is sent, on
the client's I/O thread). A hook does not change the request; what one raises is logged.

The API key is never in a span, an event, a metric or a hook's argument (it is only ever sent
in its header, which nothing records). URLs are recorded as the HTTP semantic conventions ask
of ``url.full``: the userinfo as ``REDACTED:REDACTED`` and the values of secret-looking query
parameters (``token``, ``key``, ``sig``, ``password``, ...) as ``REDACTED``, in URLs inside the
query the package builds too (a lookup's search), and in the messages of failures recorded.
``propagate=True`` adds the W3C trace context (``traceparent``, and ``tracestate`` when there
is one; never the application's baggage) to every request sent; it is off by default: the
service does not read it. With it, each attempt's span is made before the request is sent,
which takes the GIL on the client's I/O thread. Downloads of data-dump files (from the storage
the service links to) are not request spans; the calls that list and link them are.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import inspect
import logging
import re
import threading
import time
import traceback
from collections.abc import Callable, Collection, Iterator
from typing import Any

try:
    from opentelemetry import context as otel_context
    from opentelemetry import metrics, trace
    from opentelemetry import propagate as otel_propagate
    from opentelemetry.instrumentation.instrumentor import BaseInstrumentor  # type: ignore[attr-defined]  # untyped module
    from opentelemetry.instrumentation.utils import is_http_instrumentation_enabled, is_instrumentation_enabled
    from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
    from opentelemetry.semconv.attributes.exception_attributes import EXCEPTION_MESSAGE, EXCEPTION_STACKTRACE
    from opentelemetry.semconv.attributes.http_attributes import (
        HTTP_REQUEST_METHOD,
        HTTP_REQUEST_RESEND_COUNT,
        HTTP_RESPONSE_STATUS_CODE,
    )
    from opentelemetry.semconv.attributes.server_attributes import SERVER_ADDRESS, SERVER_PORT
    from opentelemetry.semconv.attributes.url_attributes import URL_FULL
    from opentelemetry.semconv.metrics.http_metrics import HTTP_CLIENT_REQUEST_DURATION
    from opentelemetry.trace import Span, SpanKind, Status, StatusCode
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
except ImportError:  # pragma: no cover - the test extra installs it (the cause stays attached)
    raise ImportError('urlscan_rs.otel needs OpenTelemetry: pip install "urlscan-rs[otel]"')  # noqa: B904
try:  # still "incubating" in the semantic conventions' package
    from opentelemetry.semconv._incubating.attributes.url_attributes import URL_TEMPLATE
except ImportError:  # pragma: no cover - an older package without it
    URL_TEMPLATE = "url.template"  # type: ignore[misc]

from . import _native, webhooks
from .hooks import HookRequest, HookResponse

# The modules themselves, not their stubs (which type the public names only): the methods
# wrapped are those of the classes as written.
_clients = importlib.import_module("urlscan_rs._client")
_namespaces = importlib.import_module("urlscan_rs._namespaces")

__all__ = ["UrlscanInstrumentor", "RequestHook", "ResponseHook", "instrument", "uninstrument", "is_instrumented", "flush"]

RequestHook = Callable[[Span, HookRequest], None]
"""``request_hook(span, request)``: called with each request's span while it is recording."""
ResponseHook = Callable[[Span, HookRequest, HookResponse], None]
"""``response_hook(span, request, response)``: called with each answered request's span while it is recording."""

_SCOPE = "urlscan_rs"
_ROOT = otel_context.Context()
# Only the W3C trace context is sent (not the application's baggage): the service is another party.
_W3C = TraceContextTextMapPropagator()
# The duration buckets the HTTP semantic conventions advise (seconds).
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)
_log = logging.getLogger("urlscan_rs")

_lock = threading.Lock()
_installed: _Telemetry | None = None
_flusher: _Flusher | None = None
# (class, attribute, original) of every method wrapped, to put back.
_wrapped: list[tuple[type, str, Any]] = []


class UrlscanInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Spans and metrics for every call of every urlscan-rs client (see the module).

    ``opentelemetry-instrument`` loads it by its entry point; an application calls
    ``UrlscanInstrumentor().instrument(...)`` (the class has one instance, as every
    instrumentor), and ``uninstrument()`` to stop.
    """

    def instrumentation_dependencies(self) -> Collection[str]:
        """No other package: it ships inside the package it instruments."""
        return ()

    def instrument(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
        request_hook: RequestHook | None = None,
        response_hook: ResponseHook | None = None,
        propagate: bool = False,
        **kwargs: Any,
    ) -> None:
        """Make spans and metrics for every call of every client from now on.

        Parameters:
            tracer_provider: Where spans go (None: the global one, ``trace.get_tracer_provider()``).
            meter_provider: Where metrics go (None: the global one).
            request_hook: ``f(span, request)``, called with each request's span (see the module).
            response_hook: ``f(span, request, response)``, called with each answered request's span.
            propagate: Send the trace context (``traceparent``) with every request.
            kwargs: What ``BaseInstrumentor.instrument`` takes besides (``skip_dep_check``, ...).

        Calling it again before ``uninstrument()`` does nothing (and logs a warning), as for
        every instrumentor.
        """
        super().instrument(
            tracer_provider=tracer_provider,
            meter_provider=meter_provider,
            request_hook=request_hook,
            response_hook=response_hook,
            propagate=propagate,
            **kwargs,
        )

    def _instrument(self, **kwargs: Any) -> None:
        _install(
            kwargs.get("tracer_provider"),
            kwargs.get("meter_provider"),
            kwargs.get("request_hook"),
            kwargs.get("response_hook"),
            bool(kwargs.get("propagate", False)),
        )

    def _uninstrument(self, **kwargs: Any) -> None:
        _remove()


def instrument(
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
    *,
    request_hook: RequestHook | None = None,
    response_hook: ResponseHook | None = None,
    propagate: bool = False,
) -> None:
    """``UrlscanInstrumentor().instrument(...)`` with these keywords."""
    UrlscanInstrumentor().instrument(
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
        request_hook=request_hook,
        response_hook=response_hook,
        propagate=propagate,
    )


def uninstrument() -> None:
    """``UrlscanInstrumentor().uninstrument()``: no span or metric from now on, the methods as before."""
    UrlscanInstrumentor().uninstrument()


def is_instrumented() -> bool:
    """True between ``instrument()`` and ``uninstrument()``."""
    return _installed is not None


def flush() -> None:
    """Make the spans and metrics of the requests recorded so far now.

    Not needed to read a call's spans: they are made by the time it returns. What is left
    is the pages a walk read ahead (made by the time the walk ends), and the requests of tasks
    that outlived their call (a fan-out's cancelled when its call failed).
    """
    _native._flush_telemetry()


def _install(
    tracer_provider: trace.TracerProvider | None,
    meter_provider: metrics.MeterProvider | None,
    request_hook: RequestHook | None,
    response_hook: ResponseHook | None,
    propagate: bool,
) -> None:
    global _installed, _flusher
    with _lock:
        t = _Telemetry(
            trace.get_tracer(_SCOPE, _native.__version__, tracer_provider),
            metrics.get_meter(_SCOPE, _native.__version__, meter_provider),
            propagate,
            request_hook,
            response_hook,
        )
        if not _wrapped:
            _wrap_methods()
        _TEMPLATES.update(_templates())
        _installed = t
        webhooks.delivery_span = _delivery_span
        _native._set_telemetry(t, propagate=propagate, headers=t.hooked)
        if _flusher is None:
            _flusher = _Flusher()
            _flusher.start()
        # What is queued at exit is handed over before the providers' own exit hooks shut them
        # down: registered after them (providers made before instrument(), as the docs show),
        # it runs before them.
        atexit.unregister(flush)
        atexit.register(flush)


def _remove() -> None:
    global _installed, _flusher
    with _lock:
        if _flusher is not None:
            _flusher.stop.set()
            _flusher = None
        _native._set_telemetry(None)  # hands over what is queued first
        webhooks.delivery_span = None
        _installed = None
        while _wrapped:
            cls, name, original = _wrapped.pop()
            setattr(cls, name, original)


class _Flusher(threading.Thread):
    """Hands over, twice a second, what waited long enough while no call ended: the requests
    of a long call (a bulk scan of thousands of URLs), the pages read ahead of a slow walk."""

    def __init__(self) -> None:
        super().__init__(name="urlscan-rs-otel", daemon=True)
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.5):
            _native._flush_telemetry(due=True)


class _Telemetry:
    """Makes the spans and metrics of the calls and of the requests the core recorded
    (``_native._set_telemetry``), as the calls end."""

    def __init__(
        self,
        tracer: trace.Tracer,
        meter: metrics.Meter,
        propagate: bool,
        request_hook: RequestHook | None,
        response_hook: ResponseHook | None,
    ) -> None:
        self.tracer = tracer
        # With propagate, a request's span is made before it is sent, under its call's: the
        # call's span is made as the call starts then.
        self.after_the_fact = not propagate
        self.request_hook = request_hook
        self.response_hook = response_hook
        # The core records the headers a hook reads only when there is one.
        self.hooked = request_hook is not None or response_hook is not None
        try:
            self.duration = meter.create_histogram(
                HTTP_CLIENT_REQUEST_DURATION,
                unit="s",
                description="Duration of HTTP client requests.",
                explicit_bucket_boundaries_advisory=list(_BUCKETS),
            )
        except TypeError:  # an API before 1.23 takes no advice
            self.duration = meter.create_histogram(
                HTTP_CLIENT_REQUEST_DURATION, unit="s", description="Duration of HTTP client requests."
            )
        self.waits = meter.create_histogram(
            "urlscan.client.wait.duration",
            unit="s",
            description="Time spent waiting before an attempt: for a rate-limit window, or a retry's back-off.",
        )
        self.retries = meter.create_counter(
            "urlscan.client.retries", unit="{retry}", description="Requests sent again after a failed attempt."
        )
        self.remaining: dict[str, int] = {}
        # A meter hands back the gauge it made first (instrument() again, on the same provider):
        # the callback reads whichever telemetry is installed, and nothing once none is.
        meter.create_observable_gauge(
            "urlscan.client.rate_limit.remaining",
            callbacks=[_observe_remaining],
            unit="{request}",
            description="The last X-Rate-Limit-Remaining the service sent, per action.",
        )
        # The duration's attributes by (method, host, port, route, status, error, action): a few
        # sets, built once.
        self._metric_attrs: dict[tuple[Any, ...], dict[str, Any]] = {}

    # -- told by the core

    @staticmethod
    def caller() -> otel_context.Context | None:
        """The context a native call's requests go under, taken as it starts; None: under
        ``suppress_instrumentation()`` or ``suppress_http_instrumentation()`` (nothing recorded)."""
        if not is_http_instrumentation_enabled():
            return None
        return otel_context.get_current()

    def start(
        self,
        *,
        parent: Any,
        method: str,
        url: str,
        host: str,
        port: int,
        route: str | None,
        action: str | None,
        attempt: int,
        headers: dict[str, str] | None = None,
    ) -> tuple[Span, dict[str, str]]:
        """A request's span started as it is sent, and the trace context to send with it (``propagate``)."""
        route = _named(route)
        attrs = _sent(method, url, route, action, attempt, host, port)
        context = self._context(parent)
        span = self.tracer.start_span(_span_name(method, route), context=context, kind=SpanKind.CLIENT, attributes=attrs)
        if self.request_hook is not None:
            self._hook(self.request_hook, span, HookRequest(method, url, headers or {}, attempt, action, route))
        out: dict[str, str] = {}
        _W3C.inject(out, context=trace.set_span_in_context(span))
        return span, out

    def emit(self, records: list[tuple[Any, ...]]) -> None:
        """The requests, waits and ends of calls the core recorded since the last time, in
        order (see the native side, ``src/bindings/telemetry.rs``, for why they come afterwards)."""
        for record in records:
            kind = record[0]
            if kind == "request":
                self._request(*record[1:])
            elif kind == "wait":
                self._wait(*record[1:])
            else:
                self._call(record[1])

    def _context(self, parent: otel_context.Context | None) -> otel_context.Context:
        """The context a record's span goes under: its call's span made if it waits to be."""
        if parent is None:
            return _ROOT  # a call in flight when instrument() ran: a root, not the flushing thread's span
        call = otel_context.get_value(_CALL, parent)
        if not isinstance(call, _Call):
            return parent
        return trace.set_span_in_context(self._made(call), call.parent)

    def _made(self, call: _Call) -> Span:
        if call.span is None:
            # With its facts when the call has ended by now: the SDK checks them once, where
            # setting them later costs a lock and a check again.
            attrs, call.attrs = call.attrs, {}
            call.span = self.tracer.start_span(
                call.name,
                context=self._context(call.parent),
                kind=SpanKind.INTERNAL,
                attributes=attrs or None,
                start_time=call.start,
            )
        return call.span

    def _call(self, call: _Call) -> None:
        span = self._made(call)
        if call.attrs:  # the facts of a call whose span was made while it ran
            span.set_attributes(call.attrs)
        e, call.error = call.error, None  # its traceback's frames go now
        if e is not None:
            _failed(span, e, call.end)
        else:
            span.end(end_time=call.end)

    def _request(
        self,
        parent: Any,
        span: Span | None,
        sent: tuple[str, str, str | None, str | None, int, str, int],
        times: tuple[int, int],
        outcome: tuple[int | None, str | None, str | None],
        limit: tuple[int | None, str | None],
        headers: tuple[list[tuple[str, str]], list[tuple[str, str]] | None] | None = None,
    ) -> None:
        status, error, message = outcome
        if status is not None and status >= 400:
            error = str(status)
        method, url, route, action, attempt, host, port = sent
        route = _named(route)
        hook_request = self.request_hook if span is None else None  # with propagate, told as it was sent
        if span is None:
            # Made whole at once: attributes set one by one cost the SDK a lock and a check each.
            attrs = _sent(method, url, route, action, attempt, host, port)
            if status is not None:
                attrs[HTTP_RESPONSE_STATUS_CODE] = status
            if error is not None:
                attrs[ERROR_TYPE] = error
            span = self.tracer.start_span(
                _span_name(method, route),
                context=self._context(parent),
                kind=SpanKind.CLIENT,
                attributes=attrs,
                start_time=times[0],
            )
        else:
            if status is not None:
                span.set_attribute(HTTP_RESPONSE_STATUS_CODE, status)
            if error is not None:
                span.set_attribute(ERROR_TYPE, error)
        if self.hooked:
            sent_headers, answered_headers = headers or ([], None)
            request = HookRequest(method, url, dict(sent_headers), attempt, action, route)
            if hook_request is not None:
                self._hook(hook_request, span, request)
            if self.response_hook is not None and status is not None:
                response = HookResponse(status, dict(answered_headers or ()), (times[1] - times[0]) / 1e9, attempt, request)
                self._hook(self.response_hook, span, request, response)
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, message))
        span.end(end_time=times[1])
        remaining, limit_action = limit
        if limit_action and remaining is not None:
            self.remaining[limit_action] = remaining
        key = (method, host, port, route, status, error, limit_action)
        metric = self._metric_attrs.get(key)
        if metric is None:
            metric = {HTTP_REQUEST_METHOD: method, SERVER_ADDRESS: host, SERVER_PORT: port}
            for name, value in (
                (URL_TEMPLATE, route),
                (HTTP_RESPONSE_STATUS_CODE, status),
                (ERROR_TYPE, error),
                ("urlscan.action", limit_action),
            ):
                if value is not None:
                    metric[name] = value
            if len(self._metric_attrs) < 1024:
                self._metric_attrs[key] = metric
        # Its count is the requests, by action and status (or error).
        self.duration.record((times[1] - times[0]) / 1e9, metric)

    @staticmethod
    def _hook(hook: Callable[..., Any], *args: Any) -> None:
        """A user's hook: what it raises is logged, and the span goes on without it."""
        try:
            hook(*args)
        except Exception as e:
            _log.warning("an OpenTelemetry hook (%s) raised %r; the span goes on without it", getattr(hook, "__name__", hook), e)

    def _wait(
        self, parent: Any, why: tuple[str, float, str | None], sent: tuple[str, str | None, str | None, int], at: int
    ) -> None:
        reason, seconds, what = why
        method, route, action, attempt = sent
        route = _named(route)
        attrs: dict[str, Any] = {"urlscan.wait.reason": reason, HTTP_REQUEST_METHOD: method}
        if action:
            attrs["urlscan.action"] = action
        if route:
            attrs[URL_TEMPLATE] = route
        self.waits.record(seconds, attrs)
        if reason == "retry":
            self.retries.add(1, attrs)
        event = dict(attrs, **{"urlscan.wait.seconds": seconds, HTTP_REQUEST_RESEND_COUNT: attempt})
        if what:
            event["urlscan.wait.why"] = what
        if parent is not None:
            name = "urlscan.retry" if reason == "retry" else "urlscan.rate_limit.wait"
            trace.get_current_span(self._context(parent)).add_event(name, event, timestamp=at)


def _observe_remaining(_options: metrics.CallbackOptions) -> Iterator[metrics.Observation]:
    t = _installed
    for action, left in list(t.remaining.items()) if t is not None else []:
        yield metrics.Observation(left, {"urlscan.action": action})


def _templates() -> dict[str, str]:
    """Each row's path (``/api/v1/result/{0}/``, as the core names a request's route) with its
    parts named after the row's ids (``/api/v1/result/{uuid}/``)."""
    out = {}
    for row in _rows().values():
        path: str = row["path"]
        for i, part in enumerate(row["ids"]):
            path = path.replace(f"{{{i}}}", "{" + part["name"] + "}")
        out[row["path"]] = path
    return out


# Read from the rows as instrument() runs.
_TEMPLATES: dict[str, str] = {}


def _named(route: str | None) -> str | None:
    return route and _TEMPLATES.get(route, route)


def _span_name(method: str, route: str | None) -> str:
    return f"{method} {route}" if route else method


def _sent(method: str, url: str, route: str | None, action: str | None, attempt: int, host: str, port: int) -> dict[str, Any]:
    """A request span's attributes, as sent."""
    attrs: dict[str, Any] = {HTTP_REQUEST_METHOD: method, SERVER_ADDRESS: host, SERVER_PORT: port, URL_FULL: url}
    if route:
        attrs[URL_TEMPLATE] = route
    if action:
        attrs["urlscan.action"] = action
    if attempt:
        attrs[HTTP_REQUEST_RESEND_COUNT] = attempt
    return attrs


# -- a span per public call


# The fields of the endpoint rows a call's span tells, by the attribute that tells them.
_FIELD_FACTS = {"uuid": "urlscan.scan.uuid", "visibility": "urlscan.visibility"}


class _Facts:
    """Where a method takes the row fields of ``_FIELD_FACTS``: read once, when the method is
    wrapped, from its signature and the endpoint table, so that a call costs a look-up."""

    __slots__ = ("given", "answered")

    def __init__(self, fn: Callable[..., Any], row: dict[str, Any] | None, rows: dict[str, dict[str, Any]]) -> None:
        # field -> its position among the arguments after self (-1: by keyword only)
        self.given: dict[str, int] = {}
        # The fields the answer tells first (as the service determined them): those the method
        # takes only through **options, and a uuid the method does not take (what it made).
        self.answered: set[str] = set()
        params = list(inspect.signature(fn).parameters.values())[1:]
        # What **options can hold: the fields of the method's row, or, for a method with no
        # row of its own (scan_and_wait, bulk_scan, lookup_or_scan: written over the scan
        # row), the scan row's.
        options = any(p.kind == p.VAR_KEYWORD for p in params)
        through = _row_fields(row if row is not None else rows.get("scan")) if options else set()
        for field in _FIELD_FACTS:
            at = next((i for i, p in enumerate(params) if p.name == field), None)
            if at is not None:
                positional = params[at].kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                self.given[field] = at if positional else -1
            elif field in through:
                self.given[field] = -1
                self.answered.add(field)
            elif field == "uuid":
                self.answered.add(field)

    def of(self, args: tuple[Any, ...], kwargs: dict[str, Any], value: Any) -> dict[str, Any]:
        """The facts of a finished call a user filters on."""
        facts: dict[str, Any] = {}
        for field in self.answered:
            fact = _answered(value, field)
            if isinstance(fact, str):
                facts[_FIELD_FACTS[field]] = fact
        for field, at in self.given.items():
            if _FIELD_FACTS[field] in facts:
                continue
            fact = args[at] if 0 <= at < len(args) else kwargs.get(field)
            if field == "uuid" and isinstance(fact, str):
                # In the core's form, as the call took it: reading the answer's (a result's
                # ``task.uuid``) would build part of the document for a span.
                fact = _native.scan_uuid(fact)
            if isinstance(fact, str):
                facts[_FIELD_FACTS[field]] = fact
        if isinstance(value, list):
            facts["urlscan.items"] = len(value)
        return facts

    def safely(self, args: tuple[Any, ...], kwargs: dict[str, Any], value: Any) -> dict[str, Any]:
        """``of``, or none: what reading them raises (a model's field of the wrong type is an
        error only when read) is the caller's to meet later, never telemetry's."""
        try:
            return self.of(args, kwargs, value)
        except Exception:
            return {}


def _answered(value: Any, field: str) -> Any:
    """``field`` as the answer documents it (a submission's visibility, a lookup's uuid), or
    its task's (a result's visibility); None when its kind has no such field."""
    found = _documented(value, field)
    if found is None and field == "visibility":
        task = _documented(value, "task")
        found = None if task is None else _documented(task, field)
    return found


def _documented(value: Any, field: str) -> Any:
    cls = type(value)
    if field in getattr(cls, "_fields", ()) or field in getattr(cls, "__dataclass_fields__", ()):
        return getattr(value, field, None)
    if isinstance(getattr(cls, field, None), property):
        return getattr(value, field, None)
    return None


def _rows() -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in _native.endpoint_table()}


def _row_fields(row: dict[str, Any] | None) -> set[str]:
    if row is None:
        return set()
    return {f["name"] for part in ("ids", "body", "params") for f in row[part]}


def _failed(span: Span, e: BaseException, at: int | None = None) -> None:
    """A call's span ended by what it raised (``at``: when, for a span made after the fact).
    Its message and stack trace are recorded with their URLs redacted (a looked-up URL's
    password or token), by the rule of ``url.full``."""
    shown = {
        EXCEPTION_MESSAGE: _native.redact_text(str(e)),
        EXCEPTION_STACKTRACE: _native.redact_text("".join(traceback.format_exception(type(e), e, e.__traceback__))),
    }
    span.record_exception(e, attributes=shown, timestamp=at)
    span.set_attribute(ERROR_TYPE, type(e).__qualname__)
    span.set_status(Status(StatusCode.ERROR, f"{type(e).__name__}: {shown[EXCEPTION_MESSAGE]}"))
    span.end(end_time=at)


def _traced(fn: Callable[..., Any], span_name: str, facts: _Facts) -> Callable[..., Any]:
    @functools.wraps(fn)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        t = _installed
        if t is None or not is_instrumentation_enabled():
            return fn(self, *args, **kwargs)
        call = _Call(span_name, otel_context.get_current())
        if t.after_the_fact and not _calls_back(args, kwargs):
            # Its span is made with its first request's, or at its end: the native call takes
            # the context holding the stand-in as its requests' parent.
            ctx = otel_context.set_value(_CALL, call, call.parent)
        else:
            call.span = t.tracer.start_span(span_name, context=call.parent, kind=SpanKind.INTERNAL)
            ctx = trace.set_span_in_context(call.span, call.parent)
        token = otel_context.attach(ctx)
        try:
            value = fn(self, *args, **kwargs)
        except BaseException as e:
            otel_context.detach(token)
            call.ended(error=e)
            raise
        otel_context.detach(token)
        if isinstance(value, _namespaces._PagedIterator):
            value._traced(functools.partial(_walk_ended, call, facts, args, kwargs))
            return value
        if inspect.isawaitable(value):
            return _awaited(call, ctx, facts, value, args, kwargs)
        call.ended(facts=facts.safely(args, kwargs, value))
        return value

    return method


async def _awaited(
    call: _Call, ctx: otel_context.Context, facts: _Facts, awaitable: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    token = otel_context.attach(ctx)
    try:
        value = await awaitable
    except BaseException as e:
        otel_context.detach(token)
        call.ended(error=e)
        raise
    otel_context.detach(token)
    call.ended(facts=facts.safely(args, kwargs, value))
    return value


def _walk_ended(call: _Call, facts: _Facts, args: tuple[Any, ...], kwargs: dict[str, Any], it: Any) -> None:
    told = facts.safely(args, kwargs, None)
    cursor = it._cursor
    pages = getattr(cursor, "pages", None)
    if pages is not None:
        told["urlscan.search.pages"] = pages
    told["urlscan.search.hits"] = it._handed_out
    told["urlscan.search.fetched"] = cursor.fetched
    call.ended(facts=told)


def _calls_back(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """A call given a function (``progress=``) runs the caller's code, whose own spans need the
    call's span in the context as it runs: that call's span is made when it starts."""
    return any(callable(v) and not isinstance(v, type) for v in (*args, *kwargs.values()))


class _Call:
    """A call, whose span is made with its first request's span, or at its end (or as it
    starts, when the span must be current while it runs). It stands in the context (under
    ``_CALL``) for the call's span while the call runs, so that its requests, recorded by the
    core, name it as their parent. Its end goes through the core's queue, after its
    requests', and is handed over at once (``_native._telemetry_call``)."""

    __slots__ = ("name", "parent", "start", "end", "attrs", "error", "span")

    def __init__(self, name: str, parent: otel_context.Context) -> None:
        self.name = name
        self.parent = parent
        self.start = time.time_ns()
        self.end = 0
        self.attrs: dict[str, Any] = {}
        self.error: BaseException | None = None
        self.span: Span | None = None

    def ended(self, error: BaseException | None = None, facts: dict[str, Any] | None = None) -> None:
        self.end = time.time_ns()
        self.error = error
        if facts:
            self.attrs = facts
        _native._telemetry_call(self)


_CALL = otel_context.create_key("urlscan_rs.call")

# The clients' public methods that are not calls of the service.
_NOT_CALLS = frozenset({"close", "aclose"})


def _wrap_methods() -> None:
    owners: list[tuple[type, str]] = [(cls, "") for cls in (_clients._BaseClient, _clients.Client, _clients.AsyncClient)]
    for ns in _namespaces.NAMESPACES:
        owners.append((ns, _namespace_attr(ns) + "."))
    rows = _rows()
    for cls, prefix in owners:
        for name, fn in list(vars(cls).items()):
            if name.startswith("_") or not inspect.isfunction(fn):
                continue
            if name in _NOT_CALLS and not prefix:  # a client's own; incidents.close is a call
                continue
            _wrapped.append((cls, name, fn))
            setattr(cls, name, _traced(fn, f"urlscan.{prefix}{name}", _Facts(fn, rows.get(prefix + name), rows)))


def _namespace_attr(ns: type) -> str:
    """The client attribute a namespace is reached by, as its docstring opens (``client.saved_searches``)."""
    found = re.match(r"``client\.(\w+)``", ns.__doc__ or "")
    return found.group(1) if found else ns.__name__.lower()


# -- webhooks


@contextlib.contextmanager
def _delivery_span(received: list[tuple[bytes, bytes]]) -> Iterator[Callable[[int], None]]:
    """A webhook delivery as a server span continuing the sender's trace (its ``traceparent``)."""
    t = _installed
    if t is None or not is_instrumentation_enabled():
        yield lambda status: None
        return
    carrier = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in received}
    parent = otel_propagate.extract(carrier)
    attrs = {HTTP_REQUEST_METHOD: "POST"}
    span = t.tracer.start_span("urlscan.webhook", context=parent, kind=SpanKind.SERVER, attributes=attrs)

    def answered(status: int) -> None:
        span.set_attribute(HTTP_RESPONSE_STATUS_CODE, status)
        if status >= 500:
            span.set_attribute(ERROR_TYPE, str(status))
            span.set_status(Status(StatusCode.ERROR))

    token = otel_context.attach(trace.set_span_in_context(span, parent))
    try:
        yield answered
    except BaseException as e:
        otel_context.detach(token)
        _failed(span, e)
        raise
    otel_context.detach(token)
    span.end()

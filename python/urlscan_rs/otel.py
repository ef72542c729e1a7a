"""OpenTelemetry spans and metrics for every client call, made from the Rust core's own requests.

Instrumentation that patches ``httpx`` or ``requests`` cannot see this client: its HTTP is
written in Rust. ``instrument()`` makes the spans and metrics with the OpenTelemetry API
(the extra ``urlscan-rs[otel]`` installs it, and nothing else); an SDK, set up by the
application, exports them::

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
    trace.set_tracer_provider(TracerProvider())
    trace.get_tracer_provider().add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))

    import urlscan_rs.otel
    urlscan_rs.otel.instrument()

What it makes, for every client of the process (sync and async), until ``uninstrument()``:

- **a span per public call**, ``urlscan.<method>`` (``urlscan.scan_and_wait``,
  ``urlscan.search``, ``urlscan.incidents.close``, ...), under the caller's current span,
  with ``urlscan.scan.uuid``, ``urlscan.visibility``, ``urlscan.items`` (the answers of a batch)
  and, for a walk, ``urlscan.search.pages`` and ``urlscan.search.hits`` where they apply; a
  walk's span lasts until the walk ends (or its iterator is dropped);
- **a client span per HTTP request** under it, as the stable HTTP semantic conventions
  name it (``GET /api/v1/result/{0}/``: ``http.request.method``, ``url.full``,
  ``url.template``, ``server.address``, ``server.port``, ``http.response.status_code``,
  ``error.type``, ``http.request.resend_count``), with ``urlscan.action``, the rate-limit
  action it is paced as; requests the core sends from its own tasks (``results()``,
  ``bulk_scan``, sharded searches, pages read ahead, table exports) nest there too;
- **span events** on the call's span for every wait of 10 ms or more:
  ``urlscan.rate_limit.wait`` (a spent rate-limit window) and ``urlscan.retry`` (a retry's
  back-off), with how long, why and the attempt that follows;
- **metrics**: ``http.client.request.duration`` (histogram, seconds; its count is the
  requests, by ``urlscan.action``, ``http.response.status_code`` or ``error.type``, method and
  route), ``urlscan.client.wait.duration`` (time spent waiting, by reason),
  ``urlscan.client.retries`` and ``urlscan.client.rate_limit.remaining`` (the last
  ``X-Rate-Limit-Remaining`` per action, an observable gauge);
- a webhook received by :func:`~urlscan_rs.webhooks.asgi_app` or
  :func:`~urlscan_rs.webhooks.wsgi_app` runs in a server span ``urlscan.webhook`` that
  continues the sender's trace (its ``traceparent``), so the results its handler fetches
  are in the same trace.

The core records its requests without waiting for Python; their spans and metrics are made,
with the requests' own timestamps, in batches: every 32 requests, at least twice a second, as
soon as a call waited, at a walk's end and at exit (``flush()`` makes them at once). A call's
own span is made in the same batch, with its own start and end times, except for a walk's
(made as it starts, it lasts as long as the walk) and a call given a function (``progress=``:
the function's spans nest under the call's, which must exist while it runs). The API
key is never in a span, an event or a metric (it is only ever sent in its header, which no
span records). URLs are recorded as the HTTP semantic conventions ask of ``url.full``: the
userinfo as ``REDACTED:REDACTED`` and the values of secret-looking query parameters
(``token``, ``key``, ``sig``, ``password``, ...) as ``REDACTED``, in URLs inside the query the
package builds too (a lookup's search), and in the messages of failures recorded.
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
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

try:
    from opentelemetry import context as otel_context
    from opentelemetry import metrics, trace
    from opentelemetry import propagate as otel_propagate
    from opentelemetry.trace import SpanKind, Status, StatusCode
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
except ImportError:  # pragma: no cover - the test extra installs it (the cause stays attached)
    raise ImportError('urlscan_rs.otel needs the OpenTelemetry API: pip install "urlscan-rs[otel]"')  # noqa: B904

from . import _native, webhooks

# The modules themselves, not their stubs (which type the public names only): the methods
# wrapped are those of the classes as written.
_clients = importlib.import_module("urlscan_rs._client")
_namespaces = importlib.import_module("urlscan_rs._namespaces")

__all__ = ["instrument", "uninstrument", "is_instrumented", "flush"]

_SCOPE = "urlscan_rs"
_ROOT = otel_context.Context()
# Only the W3C trace context is sent (not the application's baggage): the service is another party.
_W3C = TraceContextTextMapPropagator()
# The duration buckets the HTTP semantic conventions advise (seconds).
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)

_lock = threading.Lock()
_installed: _Telemetry | None = None
_flusher: _Flusher | None = None
# (class, attribute, original) of every method wrapped, to put back.
_wrapped: list[tuple[type, str, Any]] = []


def instrument(
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
    *,
    propagate: bool = False,
) -> None:
    """Make spans and metrics for every call of every client from now on (see the module).

    Parameters:
        tracer_provider: Where spans go (None: the global one, ``trace.get_tracer_provider()``).
        meter_provider: Where metrics go (None: the global one).
        propagate: Send the trace context (``traceparent``) with every request.

    Calling it again replaces the providers.
    """
    global _installed
    with _lock:
        t = _Telemetry(
            trace.get_tracer(_SCOPE, _native.__version__, tracer_provider),
            metrics.get_meter(_SCOPE, _native.__version__, meter_provider),
            propagate,
        )
        if not _wrapped:
            _wrap_methods()
        _installed = t
        webhooks._delivery_span = _delivery_span
        _native._set_telemetry(t, propagate=propagate)
        global _flusher
        if _flusher is None:
            _flusher = _Flusher()
            _flusher.start()
        # What is queued at exit is handed over before the providers' own exit hooks shut them
        # down: registered after them (providers made before instrument(), as the docs show),
        # it runs before them.
        atexit.unregister(flush)
        atexit.register(flush)


def uninstrument() -> None:
    """Stop making spans and metrics; the methods are as they were before ``instrument()``."""
    global _installed, _flusher
    with _lock:
        if _flusher is not None:
            _flusher.stop.set()
            _flusher = None
        _native._set_telemetry(None)  # hands over what is queued first
        webhooks._delivery_span = None
        _installed = None
        while _wrapped:
            cls, name, original = _wrapped.pop()
            setattr(cls, name, original)


def flush() -> None:
    """Make the spans and metrics of the requests recorded so far now.

    The core records its requests without waiting for Python and hands them over in batches
    (32 requests, or half a second, or at once when a call waited for a rate limit or a retry;
    a walk's when it ends; everything at exit). Call this before reading spans or metrics
    back, e.g. from an in-memory exporter in a test.
    """
    _native._flush_telemetry()


class _Flusher(threading.Thread):
    """Hands the queued records over twice a second, so that a last call's spans do not wait
    for the next one."""

    def __init__(self) -> None:
        super().__init__(name="urlscan-rs-otel", daemon=True)
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.5):
            _native._flush_telemetry()


def is_instrumented() -> bool:
    """True between ``instrument()`` and ``uninstrument()``."""
    return _installed is not None


class _Telemetry:
    """Makes the spans and metrics of the requests the core recorded (``_native._set_telemetry``),
    handed over by whichever thread comes back to Python next."""

    def __init__(self, tracer: trace.Tracer, meter: metrics.Meter, propagate: bool) -> None:
        self.tracer = tracer
        # With propagate, a request's span is made before it is sent, under its call's: the
        # call's span cannot wait for the batch then.
        self.after_the_fact = not propagate
        try:
            self.duration = meter.create_histogram(
                "http.client.request.duration",
                unit="s",
                description="Duration of HTTP client requests.",
                explicit_bucket_boundaries_advisory=list(_BUCKETS),
            )
        except TypeError:  # an API before 1.23 takes no advice
            self.duration = meter.create_histogram(
                "http.client.request.duration", unit="s", description="Duration of HTTP client requests."
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

    def start(
        self, *, parent: Any, method: str, url: str, host: str, port: int, route: str | None, action: str | None, attempt: int
    ) -> tuple[trace.Span, dict[str, str]]:
        """A request's span started as it is sent, and the trace context to send with it (``propagate``)."""
        attrs = _sent(method, url, route, action, attempt, host, port)
        context = self._context(parent)
        span = self.tracer.start_span(_span_name(method, route), context=context, kind=SpanKind.CLIENT, attributes=attrs)
        headers: dict[str, str] = {}
        _W3C.inject(headers, context=trace.set_span_in_context(span))
        return span, headers

    def emit(self, records: list[tuple[Any, ...]]) -> None:
        """The requests and waits the core recorded since the last call, in order (see the
        native side, ``src/bindings/telemetry.rs``, for why they come afterwards)."""
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

    def _made(self, call: _Call) -> trace.Span:
        if call.span is None:
            # With its facts when the call has ended by now (its end is in this batch): the SDK
            # checks them once, where setting them later costs a lock and a check again.
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
        span: trace.Span | None,
        sent: tuple[str, str, str | None, str | None, int, str, int],
        times: tuple[int, int],
        outcome: tuple[int | None, str | None, str | None],
        limit: tuple[int | None, str | None],
    ) -> None:
        status, error, message = outcome
        if status is not None and status >= 400:
            error = str(status)
        method, _, route, _, _, host, port = sent
        if span is None:
            # Made whole at once: attributes set one by one cost the SDK a lock and a check each.
            attrs = _sent(*sent)
            if status is not None:
                attrs["http.response.status_code"] = status
            if error is not None:
                attrs["error.type"] = error
            span = self.tracer.start_span(
                _span_name(method, route),
                context=self._context(parent),
                kind=SpanKind.CLIENT,
                attributes=attrs,
                start_time=times[0],
            )
        else:
            if status is not None:
                span.set_attribute("http.response.status_code", status)
            if error is not None:
                span.set_attribute("error.type", error)
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, message))
        span.end(end_time=times[1])
        remaining, limit_action = limit
        if limit_action and remaining is not None:
            self.remaining[limit_action] = remaining
        key = (method, host, port, route, status, error, limit_action)
        metric = self._metric_attrs.get(key)
        if metric is None:
            metric = {"http.request.method": method, "server.address": host, "server.port": port}
            for name, value in (
                ("url.template", route),
                ("http.response.status_code", status),
                ("error.type", error),
                ("urlscan.action", limit_action),
            ):
                if value is not None:
                    metric[name] = value
            if len(self._metric_attrs) < 1024:
                self._metric_attrs[key] = metric
        # Its count is the requests, by action and status (or error).
        self.duration.record((times[1] - times[0]) / 1e9, metric)

    def _wait(
        self, parent: Any, why: tuple[str, float, str | None], sent: tuple[str, str | None, str | None, int], at: int
    ) -> None:
        reason, seconds, what = why
        method, route, action, attempt = sent
        attrs: dict[str, Any] = {"urlscan.wait.reason": reason, "http.request.method": method}
        if action:
            attrs["urlscan.action"] = action
        if route:
            attrs["url.template"] = route
        self.waits.record(seconds, attrs)
        if reason == "retry":
            self.retries.add(1, attrs)
        event = dict(attrs, **{"urlscan.wait.seconds": seconds, "http.request.resend_count": attempt})
        if what:
            event["urlscan.wait.why"] = what
        if parent is not None:
            name = "urlscan.retry" if reason == "retry" else "urlscan.rate_limit.wait"
            trace.get_current_span(self._context(parent)).add_event(name, event, timestamp=at)


def _observe_remaining(_options: metrics.CallbackOptions) -> Iterator[metrics.Observation]:
    t = _installed
    for action, left in list(t.remaining.items()) if t is not None else []:
        yield metrics.Observation(left, {"urlscan.action": action})


def _span_name(method: str, route: str | None) -> str:
    return f"{method} {route}" if route else method


def _sent(method: str, url: str, route: str | None, action: str | None, attempt: int, host: str, port: int) -> dict[str, Any]:
    """A request span's attributes, as sent."""
    attrs: dict[str, Any] = {"http.request.method": method, "server.address": host, "server.port": port, "url.full": url}
    if route:
        attrs["url.template"] = route
    if action:
        attrs["urlscan.action"] = action
    if attempt:
        attrs["http.request.resend_count"] = attempt
    return attrs


# -- a span per public call


def _facts(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], value: Any) -> dict[str, Any]:
    """The urlscan facts of a finished call a user filters on."""
    facts: dict[str, Any] = {}
    if name in ("scan", "scan_and_wait", "bulk_scan"):
        # As the service determined it (a submission's, a result's task's), else as asked.
        answered = getattr(value, "visibility", None) or getattr(getattr(value, "task", None), "visibility", None)
        visibility = answered or kwargs.get("visibility")
        if isinstance(visibility, str):
            facts["urlscan.visibility"] = visibility
    # The call's own argument where it names the scan, in the core's form (the call took it):
    # reading the answer's (a result's ``task.uuid``) would build part of the document for a span.
    uuid = (args[0] if args else kwargs.get("uuid")) if name in _BY_UUID else None
    if isinstance(uuid, str):
        uuid = _native.scan_uuid(uuid)
    else:
        uuid = getattr(value, "uuid", None)
    if isinstance(uuid, str):
        facts["urlscan.scan.uuid"] = uuid
    if name in ("results", "bulk_scan") and isinstance(value, list):
        facts["urlscan.items"] = len(value)
    return facts


# Calls whose first argument is the scan's uuid.
_BY_UUID = frozenset({"result", "wait_for_result", "screenshot", "dom", "save", "set_visibility"})


def _safe_facts(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], value: Any) -> dict[str, Any]:
    """``_facts``, or none: what reading them raises (a model's field of the wrong type is an
    error only when read) is the caller's to meet later, never telemetry's."""
    try:
        return _facts(name, args, kwargs, value)
    except Exception:
        return {}


def _failed(span: trace.Span, e: BaseException, at: int | None = None) -> None:
    """A call's span ended by what it raised (``at``: when, for a span made after the fact).
    Its message and stack trace are recorded with their URLs redacted (a looked-up URL's
    password or token), by the rule of ``url.full``."""
    shown = {
        "exception.message": _native.redact_text(str(e)),
        "exception.stacktrace": _native.redact_text("".join(traceback.format_exception(type(e), e, e.__traceback__))),
    }
    span.record_exception(e, attributes=shown, timestamp=at)
    span.set_attribute("error.type", type(e).__qualname__)
    span.set_status(Status(StatusCode.ERROR, f"{type(e).__name__}: {shown['exception.message']}"))
    span.end(end_time=at)


def _walk_ended(span: trace.Span) -> Callable[[Any], None]:
    def ended(it: Any) -> None:
        _native._flush_telemetry()  # its pages read ahead may still be queued
        cursor = it._cursor
        pages = getattr(cursor, "pages", None)
        if pages is not None:
            span.set_attribute("urlscan.search.pages", pages)
        span.set_attribute("urlscan.search.hits", it._handed_out)
        span.set_attribute("urlscan.search.fetched", cursor.fetched)
        span.end()

    return ended


def _traced(fn: Callable[..., Any], span_name: str, name: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        t = _installed
        if t is None:
            return fn(self, *args, **kwargs)
        if t.after_the_fact and name not in _WALKS and not _calls_back(args, kwargs):
            return _deferred(fn, self, span_name, name, args, kwargs)
        span = t.tracer.start_span(span_name, kind=SpanKind.INTERNAL)
        # The native call takes the current context as its requests' parent.
        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            value = fn(self, *args, **kwargs)
        except BaseException as e:
            _failed(span, e)
            raise
        finally:
            otel_context.detach(token)
        if isinstance(value, _namespaces._PagedIterator):
            value._traced(_walk_ended(span))
            return value
        if inspect.isawaitable(value):
            return _finished(span, name, value, args, kwargs)
        _ended(span, name, args, kwargs, value)
        return value

    return method


# Calls that return a walk: their span lasts as long as the walk, made when they start.
_WALKS = frozenset({"search", "similar", "phishfeed", "history"})


def _calls_back(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """A call given a function (``progress=``) runs the caller's code, whose own spans need the
    call's span in the context as it runs: that call's span is made when it starts."""
    return any(callable(v) and not isinstance(v, type) for v in (*args, *kwargs.values()))


def _deferred(fn: Callable[..., Any], self: Any, span_name: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    call = _Call(span_name, otel_context.get_current())
    # The native call takes the current context (holding the call) as its requests' parent.
    token = otel_context.attach(otel_context.set_value(_CALL, call, call.parent))
    try:
        value = fn(self, *args, **kwargs)
    except BaseException as e:
        call.ended(e)
        raise
    finally:
        otel_context.detach(token)
    if inspect.isawaitable(value):
        return _deferred_finished(call, name, value, args, kwargs)
    call.ended(facts=_safe_facts(name, args, kwargs, value))
    return value


async def _deferred_finished(call: _Call, name: str, awaitable: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    token = otel_context.attach(otel_context.set_value(_CALL, call, call.parent))
    try:
        value = await awaitable
    except BaseException as e:
        call.ended(e)
        _native._flush_telemetry(due=True)
        raise
    finally:
        otel_context.detach(token)
    call.ended(facts=_safe_facts(name, args, kwargs, value))
    _native._flush_telemetry(due=True)
    return value


async def _finished(span: trace.Span, name: str, awaitable: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    token = otel_context.attach(trace.set_span_in_context(span))
    try:
        value = await awaitable
    except BaseException as e:
        _native._flush_telemetry(due=True)  # a wait's event reaches the span while it is open
        _failed(span, e)
        raise
    finally:
        otel_context.detach(token)
    _native._flush_telemetry(due=True)
    _ended(span, name, args, kwargs, value)
    return value


def _ended(span: trace.Span, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], value: Any) -> None:
    span.set_attributes(_safe_facts(name, args, kwargs, value))
    span.end()


class _Call:
    """A call whose span is made after the fact, in a batch with its requests' spans: the SDK's
    code costs a third as much there as once per call. It stands in the context (under
    ``_CALL``) for the call's span while the call runs, so that its requests, recorded by the
    core, name it as their parent; the first of them, or the call's end, makes the span."""

    __slots__ = ("name", "parent", "start", "end", "attrs", "error", "span")

    def __init__(self, name: str, parent: otel_context.Context) -> None:
        self.name = name
        self.parent = parent
        self.start = time.time_ns()
        self.end = 0
        self.attrs: dict[str, Any] = {}
        self.error: BaseException | None = None
        self.span: trace.Span | None = None

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
    owners: list[tuple[type, str]] = [(cls, "urlscan.") for cls in (_clients._BaseClient, _clients.Client, _clients.AsyncClient)]
    for ns in _namespaces.NAMESPACES:
        attr = _namespace_attr(ns)
        owners.append((ns, f"urlscan.{attr}."))
    for cls, prefix in owners:
        for name, fn in list(vars(cls).items()):
            if name.startswith("_") or not inspect.isfunction(fn):
                continue
            if name in _NOT_CALLS and prefix == "urlscan.":  # a client's own; incidents.close is a call
                continue
            _wrapped.append((cls, name, fn))
            setattr(cls, name, _traced(fn, prefix + name, name))


def _namespace_attr(ns: type) -> str:
    """The client attribute a namespace is reached by, as its docstring opens (``client.saved_searches``)."""
    found = re.match(r"``client\.(\w+)``", ns.__doc__ or "")
    return found.group(1) if found else ns.__name__.lower()


# -- webhooks


@contextlib.contextmanager
def _delivery_span(received: list[tuple[bytes, bytes]]) -> Iterator[Callable[[int], None]]:
    """A webhook delivery as a server span continuing the sender's trace (its ``traceparent``)."""
    t = _installed
    if t is None:
        yield lambda status: None
        return
    carrier = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in received}
    parent = otel_propagate.extract(carrier)
    attrs = {"http.request.method": "POST"}
    span = t.tracer.start_span("urlscan.webhook", context=parent, kind=SpanKind.SERVER, attributes=attrs)

    def answered(status: int) -> None:
        span.set_attribute("http.response.status_code", status)
        if status >= 500:
            span.set_attribute("error.type", str(status))
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

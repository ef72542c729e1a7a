"""The error hierarchy."""

from __future__ import annotations

import pickle

import urlscan_rs
from urlscan_rs import errors as E


def test_hierarchy() -> None:
    assert issubclass(E.ValidationError, E.UrlscanError) and issubclass(E.ValidationError, ValueError)
    assert issubclass(E.RequestTimeout, E.TransportError) and issubclass(E.RequestTimeout, TimeoutError)
    assert issubclass(E.ScanRefusedError, E.BadRequestError)
    assert issubclass(E.ScanPendingError, E.NotFoundError)
    for cls in (
        E.BadRequestError,
        E.AuthenticationError,
        E.PermissionDeniedError,
        E.NotFoundError,
        E.GoneError,
        E.RateLimitError,
        E.ServerError,
    ):
        assert issubclass(cls, E.APIError)
    assert issubclass(E.ScanTimeoutError, TimeoutError) and issubclass(E.DecodeError, E.UrlscanError)
    assert urlscan_rs.GoneError is E.GoneError


def test_native_errors_pickle(client: urlscan_rs.Client) -> None:
    try:
        client.result("00000000-0000-4000-8000-000000000000")
    except E.NotFoundError as e:
        e2 = pickle.loads(pickle.dumps(e))
        assert type(e2) is E.NotFoundError
        assert (e2.status, e2.message, e2.path, str(e2)) == (e.status, e.message, e.path, str(e))
        assert e.body and e.errors and e.method == "GET"
    else:
        raise AssertionError("expected NotFoundError")


def test_rate_limit_error_fields() -> None:
    e = E.RateLimitError("slow down", status=429, action="search", reset="2026-01-01T00:01:00.000Z", reset_after=12.0)
    assert e.reset_at is not None and e.reset_at.year == 2026 and e.reset_after == 12.0
    assert pickle.loads(pickle.dumps(e)).reset_at == e.reset_at


def test_the_core_names_every_exception_class_once() -> None:
    # The Rust core maps each of its errors to a class of urlscan_rs.errors by name; a class
    # renamed on one side would fail those errors (an AttributeError) instead of falling back.
    import inspect
    import re
    from pathlib import Path

    import urlscan_rs.errors as errors

    source = (Path(__file__).resolve().parent.parent / "src" / "bindings" / "convert.rs").read_text()
    table = re.search(r"fn error_class_name\(e: &Error\) -> Option<&'static str> \{(.*?)\n\}", source, re.S)
    assert table is not None
    names = re.findall(r'"(\w+)"', table.group(1))
    defined = {n for n, c in vars(errors).items() if inspect.isclass(c) and issubclass(c, errors.UrlscanError)}
    # Raised by the Python layer alone (a local state file it keeps), never by the core.
    python_only = {"StateError"}
    assert len(names) == len(set(names)) and set(names) == defined - python_only and python_only <= defined

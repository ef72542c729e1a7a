"""Messages that help: misspelt keywords and wrong types name the public method and the fix,
long waits are logged at WARNING, and a timeout says how many retries it made."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from urlscan_rs import AsyncClient, Client, ValidationError
from urlscan_rs._native import NativeClient
from urlscan_rs.testing import Emulator

from .conftest import run

UUID = "00000000-0000-4000-8000-000000000000"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda c: c.scan("https://x.example", visiblity="public"),
            "Client.scan(): unexpected keyword 'visiblity'; did you mean 'visibility'?",
        ),
        (lambda c: c.result(5), "Client.result(): uuid must be str, got int 5"),
        (
            lambda c: c.scan_and_wait("https://x.example", custom_agnet="x"),
            "Client.scan_and_wait(): unexpected keyword 'custom_agnet'; did you mean 'custom_agent'?",
        ),
        (lambda c: c.scan(), "Client.scan(): missing a required argument: 'url'"),
        (lambda c: c.channels.get(3), "Channels.get(): channel_id must be str, got int 3"),
        (lambda c: c.datadumps.list("days", "api", 20260101), "DataDumps.list(): date must be str | date, got int 20260101"),
        (
            lambda c: c.scan("https://x.example", zzz=1),
            # The scan options are the submission row's (after the method's own keywords).
            "Client.scan(): unexpected keyword 'zzz' (keywords: url, refang, " + ", ".join(NativeClient.SCAN_OPTIONS) + ")",
        ),
    ],
)
def test_type_errors_name_the_public_method_and_the_fix(client: Client, call: Any, message: str) -> None:
    with pytest.raises(TypeError) as info:
        call(client)
    assert str(info.value).startswith(message), str(info.value)
    assert "_BaseClient" not in str(info.value) and "NativeClient." not in str(info.value)


def test_async_type_errors_too(aclient: AsyncClient) -> None:
    async def main() -> list[str]:
        out = []
        for call in (
            lambda: aclient.result(5),
            lambda: aclient.scan("https://x.example", visiblity="x"),
        ):
            try:
                await call()  # type: ignore[no-untyped-call]
            except TypeError as e:
                out.append(str(e))
        return out

    assert run(main()) == [
        "AsyncClient.result(): uuid must be str, got int 5",
        "AsyncClient.scan(): unexpected keyword 'visiblity'; did you mean 'visibility'?",
    ]


def test_a_scan_option_of_the_wrong_type_names_the_option_and_the_rule(client: Client, aclient: AsyncClient) -> None:
    # Scan options are checked by the core's rules for the submission row's fields, sync and async.
    with pytest.raises(ValidationError, match=r'^scan: tags must be a list of strings, got "triage"$'):
        client.scan("https://x.example", tags="triage")  # type: ignore[typeddict-item]
    with pytest.raises(ValidationError, match=r"^scan: override_safety must be true or false, got 1$"):
        run(aclient.scan("https://x.example", override_safety=1))  # type: ignore[typeddict-item]


def test_a_misspelt_option_of_a_premium_call_suggests_the_field(client: Client) -> None:
    with pytest.raises(ValidationError, match=r'unknown option "webhook_ulr"; did you mean "webhook_url"\?'):
        client.channels.create(type="webhook", name="x", webhook_ulr="https://hooks.example/x")


def test_a_correct_call_is_not_changed(client: Client) -> None:
    # The wrapper keeps the name, the docstring and the signature of the method.
    assert Client.scan.__name__ == "scan"
    assert Client.scan.__wrapped__ is not None  # type: ignore[attr-defined]
    assert client.quotas().limits


def test_a_long_wait_for_a_rate_limit_window_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with Emulator(scans=10, scan_duration=0, rate_limits={"search": {"minute": 1}}) as emu, emu.client() as c:
        # Start just after a minute begins on the emulator clock, so the window has almost a minute left.
        emu.advance(60 - emu.now() % 60 + 0.5)
        c.search("", size=1).count()
        waiting = threading.Event()

        class Seen(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if "spent; waiting" in record.getMessage():
                    waiting.set()

        seen = Seen(logging.WARNING)
        logging.getLogger("urlscan_rs").addHandler(seen)
        counted: list[int] = []
        try:
            with caplog.at_level(logging.WARNING, logger="urlscan_rs"):
                t = threading.Thread(target=lambda: counted.append(c.search("", size=1).count()))
                t.start()
                assert waiting.wait(30), "no warning while waiting for the window"
                emu.advance(61)  # the window is over: the waiting search goes ahead
                t.join(30)
        finally:
            logging.getLogger("urlscan_rs").removeHandler(seen)
        assert counted == [10]
        [record] = [r for r in caplog.records if "spent; waiting" in r.getMessage()]
        assert record.levelno == logging.WARNING
        assert 'rate limit for "search" spent; waiting' in record.getMessage()


def test_short_waits_stay_below_warning(client: Client, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="urlscan_rs"):
        client.quotas()
    assert not [r for r in caplog.records if r.name.startswith("urlscan_rs")]


def test_a_timeout_counts_its_retries() -> None:
    with Emulator(scans=10, scan_duration=0) as emu:
        # Each answer comes after 2 s; the client waits 0.2 s for each of its 3 attempts.
        emu.inject("stall", seconds=2, count=3, path="/api/v1/result/")
        with emu.client(timeout=0.2, max_retries=2) as c, pytest.raises(Exception) as info:
            c.result(UUID)
        assert type(info.value).__name__ == "RequestTimeout"
        assert str(info.value).endswith("(after 2 retries)"), str(info.value)
        emu.inject("reset", count=2, path="/api/v1/result/")
        with emu.client(max_retries=1) as c, pytest.raises(Exception) as info:
            c.result(UUID)
        assert str(info.value).endswith("(after 1 retry)"), str(info.value)

"""The emulator refuses settings it cannot honour (sizes it cannot build, numbers
that are not numbers, misspelt option names) with a ValueError that names the
setting, and does not let a client hold a connection with a request body that
never ends."""

from __future__ import annotations

import json
import math
import socket
import subprocess
import sys
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

import urlscan_rs
from urlscan_rs.testing import Emulator

MAX_SCANS = 100_000
MAX_RESULT_SIZE = 256 * 1024 * 1024


def refused(match: str, **settings: Any) -> str:
    """The message of the ValueError that Emulator(**settings) raises."""
    with pytest.raises(ValueError, match=match) as info:
        Emulator(**settings).close()
    # No note naming the native layer's argument ("while processing 'settings'").
    assert not getattr(info.value, "__notes__", None)
    return str(info.value)


# ---------------------------------------------------------------- scans


def test_a_corpus_too_large_to_build_is_refused_not_an_abort() -> None:
    # In a child: before the limit, this aborted the interpreter (a failed allocation).
    code = "from urlscan_rs.testing import Emulator\ntry:\n    Emulator(scans=10**9)\nexcept ValueError as e:\n    print(e)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"scans must be an integer from 0 to {MAX_SCANS}, got 1000000000" in done.stdout


@pytest.mark.parametrize("scans", [MAX_SCANS + 1, 2**63, 2**64, 10**400, -1, True])
def test_scans_out_of_range_name_the_setting_and_its_limit(scans: int) -> None:
    message = refused(r"^scans must be an integer from 0 to 100000, got ", scans=scans)
    assert len(message) < 200  # a huge number is cut short, not printed in full


def test_scans_of_the_wrong_type_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="^argument 'scans': "):
        Emulator(scans=10.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^argument 'latency': "):
        Emulator(scans=0, latency="0.5")  # type: ignore[arg-type]


def test_a_refusal_is_a_validation_error() -> None:
    with pytest.raises(urlscan_rs.ValidationError):
        Emulator(scans=MAX_SCANS + 1)


# ---------------------------------------------------------------- result_size


@pytest.mark.parametrize(
    "size",
    [(2**40, 2**40), (0, MAX_RESULT_SIZE + 1), (5, 3), (0, 0), (-1, 10), (True, 10), (10, 2**70)],
)
def test_result_size_out_of_range_is_refused(size: tuple[int, int]) -> None:
    message = refused(r"^result_size ", scans=0, result_size=size)
    assert str(MAX_RESULT_SIZE) in message


@pytest.mark.parametrize("size", [(1, 2, 3), (1,), 5])
def test_result_size_must_be_a_pair(size: Any) -> None:
    refused(r"^result_size must be \(min, max\) bytes", scans=0, result_size=size)


def test_result_size_up_to_the_limit_is_accepted() -> None:
    with Emulator(scans=1, result_size=(0, MAX_RESULT_SIZE)) as emu:
        assert emu.running
    with Emulator(scans=1, result_size=[1000, 1000]) as emu:  # type: ignore[arg-type]
        assert emu.running


# ---------------------------------------------------------------- numbers


# Refused before the range is looked at: a bool, and an int too large for a float.
NOT_NUMBERS = [(True, r"a number, not a bool \(got True\)"), (10**400, "a number within a float's range, got 1000")]
OUT_OF_RANGE = [-1, -0.5, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize(("value", "why"), NOT_NUMBERS)
@pytest.mark.parametrize("name", ["scan_duration", "latency", "webhook_timeout", "body_timeout"])
def test_seconds_that_are_not_numbers_are_refused(name: str, value: Any, why: str) -> None:
    refused(rf"^{name} must be {why}", scans=0, **{name: value})


@pytest.mark.parametrize("value", OUT_OF_RANGE + [3600.5])
@pytest.mark.parametrize("name", ["latency", "webhook_timeout", "body_timeout"])
def test_wall_clock_seconds_out_of_range_are_refused(name: str, value: Any) -> None:
    message = refused(rf"^{name} must be ", scans=0, **{name: value})
    assert "3600 seconds, got " in message


@pytest.mark.parametrize("value", OUT_OF_RANGE + [1e9 + 1])
def test_scan_duration_out_of_range_is_refused(value: Any) -> None:
    refused(r"^scan_duration must be from 0 to 1000000000 seconds, got ", scans=0, scan_duration=value)


@pytest.mark.parametrize("name", ["webhook_timeout", "body_timeout"])
def test_a_timeout_of_zero_is_refused(name: str) -> None:
    refused(rf"^{name} must be more than 0 and at most 3600 seconds, got 0", scans=0, **{name: 0})


def test_seconds_in_range_are_accepted() -> None:
    with Emulator(scans=0, scan_duration=1e9, latency=3600, webhook_timeout=3600, body_timeout=0.01) as emu:
        assert emu.running
    with Emulator(scans=0, scan_duration=0, latency={"search": 0, "default": 0.0}) as emu:
        assert emu.running


@pytest.mark.parametrize("seed", [-1, 2**64, 10**400, True])
def test_seed_out_of_range_is_refused(seed: int) -> None:
    refused(r"^seed must be an integer from 0 to 18446744073709551615, got ", scans=0, seed=seed)


def test_the_largest_seed_is_accepted() -> None:
    with Emulator(scans=1, seed=2**64 - 1) as emu:
        assert emu.seed == 2**64 - 1


@pytest.mark.parametrize("port", [-1, 65536, 2**64, True])
def test_port_out_of_range_is_refused(port: int) -> None:
    refused(r"^port must be an integer from 0 to 65535, got ", scans=0, port=port)


@pytest.mark.parametrize("value", [True, -1, 2**64])
def test_rate_limit_values_out_of_range_are_refused(value: Any) -> None:
    refused(
        r'^rate_limits\["search"\]\["minute"\] must be an integer from 0 to ', scans=0, rate_limits={"search": {"minute": value}}
    )


@pytest.mark.parametrize("value", [True, -1, math.nan, 10**400, 1e12])
def test_advance_refuses_what_is_not_a_forward_move_of_the_clock(value: Any) -> None:
    with Emulator(scans=0) as emu:
        before = emu.now()
        with pytest.raises(ValueError, match=r"^advance\(\): seconds must be "):
            emu.advance(value)
        assert emu.now() - before < 60  # the clock did not move (or wrap)


def test_advance_in_range_moves_the_clock() -> None:
    with Emulator(scans=0) as emu:
        before = emu.now()
        emu.advance(10 * 365 * 86400)
        assert emu.now() - before >= 10 * 365 * 86400


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("count", True),
        ("count", 2**64),
        ("every", 2**70),
        ("status", True),
        ("status", 2**64),
        ("seed", -1),
        ("seconds", True),
        ("probability", True),
        ("seconds", 10**400),
    ],
)
def test_inject_refuses_numbers_that_are_not(option: str, value: Any) -> None:
    with Emulator(scans=0) as emu:
        with pytest.raises(ValueError, match=rf"^{option} must be "):
            emu.inject("status", **{option: value})
        assert emu.faults_remaining() == 0


# ---------------------------------------------------------------- names


def test_a_misspelt_latency_group_is_refused_with_a_suggestion() -> None:
    message = refused(r'^latency: unknown endpoint group "serach"; did you mean "search"\?', scans=0, latency={"serach": 0.1})
    for group in ["scan", "result", "search", "screenshot", "dom", "responses", "default"]:
        assert group in message


def test_an_unknown_latency_group_lists_the_groups() -> None:
    message = refused(r'^latency: unknown endpoint group "zzz" \(one of ', scans=0, latency={"zzz": 0.1})
    assert "did you mean" not in message


def test_a_misspelt_rate_limit_action_is_refused_with_a_suggestion() -> None:
    message = refused(
        r'^rate_limits: unknown action "serach"; did you mean "search"\?', scans=0, rate_limits={"serach": {"minute": 30}}
    )
    for action in ["public", "unlisted", "private", "retrieve", "search", "livescan"]:
        assert action in message


def test_a_misspelt_rate_limit_window_names_the_action() -> None:
    refused(
        r'^rate_limits\["search"\]: rate limit windows are minute, hour, day', scans=0, rate_limits={"search": {"minutes": 30}}
    )


def test_a_misspelt_fault_kind_is_refused_with_a_suggestion() -> None:
    with Emulator(scans=0) as emu:
        with pytest.raises(ValueError, match=r'^unknown fault kind "stal"; did you mean "stall"\? \(one of status, '):
            emu.inject("stal", seconds=1)  # type: ignore[arg-type]
        assert emu.faults_remaining() == 0


def test_known_names_are_accepted_and_used() -> None:
    with Emulator(scans=0, latency={"default": 0.0}, rate_limits={"search": {"minute": 1}}) as emu, emu.client() as c:
        limits = c.quotas().raw["limits"]
    assert sorted(limits) == ["livescan", "private", "public", "retrieve", "search", "unlisted"]
    assert limits["search"]["minute"]["limit"] == 1


# ---------------------------------------------------------------- a stalled request body


def send_head(emu: Emulator, path: str, length: int, body: bytes) -> socket.socket:
    """A connection that sent a request's headers with Content-Length `length`
    and then only `body`; the server is asked to close it after answering."""
    parts = urlsplit(emu.url)
    assert parts.hostname is not None and parts.port is not None
    s = socket.create_connection((parts.hostname, parts.port), timeout=30)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAPI-Key: {emu.api_key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
    )
    s.sendall(head.encode() + body)
    return s


def read_to_close(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a socket
    timeout, far longer than the server's, fails the test)."""
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    return data


def test_a_stalled_request_body_is_answered_408_and_the_connection_closed() -> None:
    with Emulator(scans=0, body_timeout=0.5) as emu:
        body = b'{"url": "h'
        assert len(body) == 10
        start = time.monotonic()
        with send_head(emu, "/api/v1/scan/", 1000, body) as s:
            answer = read_to_close(s)
        elapsed = time.monotonic() - start
        # Bounds far from the configured 0.5 s either way: no timing luck involved.
        assert 0.4 < elapsed < 20, elapsed
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["status"] == 408
        # The emulator serves the next connection, and a whole body still goes through.
        with emu.client() as c:
            assert c.scan("https://example.com").uuid
        assert emu.stats()["submissions"] == 1


def test_a_body_sent_in_two_parts_within_the_timeout_is_served() -> None:
    with Emulator(scans=0, body_timeout=30) as emu:
        body = b'{"url": "https://example.com"}'
        with send_head(emu, "/api/v1/scan/", len(body), body[:10]) as s:
            time.sleep(0.2)
            s.sendall(body[10:])
            answer = read_to_close(s)
        assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]

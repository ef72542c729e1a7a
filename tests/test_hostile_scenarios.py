"""Every argument of the test helpers (urlscan_rs.testing's functions and the emulator's methods)
against hostile values: each is taken or refused with the package's own error (or a TypeError
naming the argument), never a builtin one, a panic or a dead emulator. Enumerated from the module,
so a helper added later meets the harness because it exists."""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import urlscan_rs.testing as testing
from urlscan_rs import ValidationError
from urlscan_rs.testing import Emulator, WebhookReceiver

from .test_hostile_settings import HOSTILE, problem

REAL = json.loads((Path(__file__).parent / "data" / "result-2018-google.json").read_text())

# What a call needs besides the argument tried, by the helper's name.
BASE: dict[str, dict[str, Any]] = {
    "result": {"url": "https://evil.example/login"},
    "add_result": {"doc": REAL},
    "on_scan": {"match": "evil.example", "result": REAL},
    "advance": {"seconds": 1.0},
    "wait_deliveries": {"count": 0, "timeout": 0.0},
    "wait": {"count": 0, "timeout": 0.0},
}
# What a helper answers by design: a wait for more than arrives ends in TimeoutError.
ANSWERS: dict[str, tuple[type[BaseException], ...]] = {"wait_deliveries": (TimeoutError,), "wait": (TimeoutError,)}
# The servers whose methods are tried, on one running instance each.
SERVERS: tuple[type, ...] = (Emulator, WebhookReceiver)
# Methods with no argument, or whose arguments other harnesses try (by name, why).
ELSEWHERE = {
    "inject": "tests/test_faults.py tries each fault kind and option",
    "client": "takes a Client's keywords: tests/test_hostile_settings.py",
    "async_client": "takes a Client's keywords: tests/test_hostile_settings.py",
}


def helpers() -> Iterator[tuple[str, Callable[..., Any], type | None]]:
    """(name, callable, the server it is a method of or None) for each public helper taking arguments."""
    for name in testing.__all__:
        obj = getattr(testing, name)
        if inspect.isfunction(obj):
            yield name, obj, None
        elif isinstance(obj, type) and issubclass(obj, testing._Serving):
            assert obj in SERVERS, f"{name} serves: add it to SERVERS"
    for server in SERVERS:
        for name, member in inspect.getmembers(server, inspect.isfunction):
            if name.startswith("_") or name in ELSEWHERE:
                continue
            if len(inspect.signature(member).parameters) > 1:
                yield name, member, server


def test_the_harness_knows_every_helper() -> None:
    names = {n for n, _, _ in helpers()}
    assert {"result", "add_result", "on_scan", "advance"} <= names
    # A helper whose arguments cannot all be tried alone says what else it needs here.
    for name, fn, method in helpers():
        params = list(inspect.signature(fn).parameters.values())[1 if method else 0 :]
        needed = [p.name for p in params if p.default is inspect.Parameter.empty and p.kind is not p.VAR_KEYWORD]
        assert set(needed) <= set(BASE.get(name, {})), f"{name} needs {needed}: add them to BASE"


def cases() -> Iterator[tuple[str, str, Callable[..., Any], type | None, str, Any]]:
    for name, fn, method in helpers():
        hints = typing.get_type_hints(fn)
        params = list(inspect.signature(fn).parameters.values())[1 if method else 0 :]
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            for value in HOSTILE:
                yield f"{name}({p.name}={value!r:.30})", name, fn, method, p.name, (hints.get(p.name, Any), value)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(scans=0, scan_duration=0) as e:
        yield e


def test_every_helper_takes_a_hostile_value_or_refuses_it(emu: Emulator) -> None:
    failures, count = [], 0
    receiver = WebhookReceiver()
    running = {Emulator: emu, WebhookReceiver: receiver}
    for label, name, fn, method, param, (hint, value) in cases():
        count += 1
        kwargs = {**BASE.get(name, {}), param: value}
        if name == "add_result" and param != "doc":
            # A new uuid each time: the document itself is not what is tried.
            kwargs["doc"] = {**REAL, "task": {**REAL["task"], "uuid": f"00000000-0000-4000-8000-{count:012d}"}}
        try:
            fn(running[method], **kwargs) if method else fn(**kwargs)
        except ANSWERS.get(name, ()):
            pass
        except BaseException as e:  # noqa: BLE001 (what escaped is the finding)
            wrong = problem(param, hint, value, e)
            if wrong:
                failures.append(f"{label}: {wrong}")
    receiver.close()
    assert count > 100
    assert not failures, f"{len(failures)} of {count}:\n" + "\n".join(failures[:40])
    # The emulator still answers, and still scans as the rules it took say.
    with emu.client() as c:
        assert c.quotas() is not None


def test_documents_at_real_sizes_and_depths(emu: Emulator) -> None:
    deep: Any = {}
    for _ in range(5000):
        deep = {"x": deep}
    big = {**REAL, "task": {**REAL["task"], "uuid": "0d0d0d0d-0000-4000-8000-000000000001"}}
    big["data"] = {**REAL["data"], "requests": REAL["data"]["requests"] * 400}  # some 20 MB, as big real results are
    with emu.client() as c:
        uuid = emu.add_result(big)
        assert len(c.result(uuid)._raw["data"]["requests"]) == 400 * len(REAL["data"]["requests"])
    with pytest.raises(ValidationError, match="JSON"):
        emu.add_result({**REAL, "deep": deep})
    with pytest.raises(ValidationError, match="JSON"):
        emu.on_scan("deep.example", {"deep": deep})
    # Deeper than the emulator reads (128 levels), shallower than Python writes: refused by it.
    shallow: Any = {}
    for _ in range(300):
        shallow = {"x": shallow}
    with pytest.raises(ValidationError, match="JSON"):
        emu.add_result({**REAL, "deep": shallow})

"""Lenient on unknown or missing, strict on wrong: every documented field of
real recorded bodies, mutated into each wrong JSON type, raises a DecodeError
naming its JSON path when read; null or missing reads as None or empty.

The fields come from the models' own declarations (``Model._fields``), walked
from each root model through its parts and list elements, so a field added
to a model is tested without touching this file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import urlscan_rs
from urlscan_rs import models
from urlscan_rs._native import LazyDoc
from urlscan_rs.models import Model

DATA = Path(__file__).parent / "data"


def _load(name: str) -> Any:
    return json.loads((DATA / name).read_text())


# Real bodies recorded from the service (public data), one per root model.
RESULTS = [_load("result-2018-wikipedia.json"), _load("result-2018-google.json")]
HITS = _load("search-2020-wikipedia.json")["results"][:5]
BRAND_SUMMARIES = _load("pro-brands-2021.json")["responses"][:2]
BRANDS = _load("pro-kits-2021.json")["kits"][:2]

# root model -> real bodies ({} where nothing was recorded: the mutation builds the path)
ROOTS: dict[type[Model], list[dict[str, Any]]] = {
    models.ScanResult: RESULTS,
    models.SearchHit: HITS,
    models.BrandSummary: BRAND_SUMMARIES,
    models.Brand: BRANDS,
    **{
        root: [{}]
        for root in (
            models.Submission,
            models.UserAgentGroup,
            models.SavedSearch,
            models.Subscription,
            models.Channel,
            models.Incident,
            models.IncidentState,
            models.HostnameRecord,
            models.LiveScanner,
            models.DataDumpFile,
            models.Quotas,
            models.User,
            models.VisibilityChange,
        )
    },
}

# Declared as anything: the service documents no type for them.
UNTYPED = {("Subscription", "incident_watch_keys")}


@dataclass(frozen=True)
class Case:
    root: type[Model]
    attrs: tuple[str | int, ...]  # attribute names, list indexes
    wire: tuple[str | int, ...]  # JSON keys, list indexes
    expect: Any  # models._base._Expect
    owner: str  # class and field, for ids

    @property
    def path(self) -> str:
        out = ""
        for p in self.wire:
            out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
        return out


def _cases(root: type[Model]) -> Iterator[Case]:
    def walk(
        cls: type[Model], attrs: tuple[str | int, ...], wire: tuple[str | int, ...], seen: tuple[type, ...]
    ) -> Iterator[Case]:
        for name, (w, _conv) in cls._fields.items():
            e = models._base._expect(cls, name)
            if e.types is None:
                assert (cls.__name__, name) in UNTYPED, f"{cls.__name__}.{name} declares no JSON type"
                continue
            a, p = (*attrs, name), (*wire, *w.split("."))
            yield Case(root, a, p, e, f"{cls.__name__}.{name}")
            if e.model is not None and not e.is_list and e.model not in seen:
                yield from walk(e.model, a, p, (*seen, e.model))
            if e.is_list and e.item is not None:
                yield Case(root, (*a, 0), (*p, 0), e.item, f"{cls.__name__}.{name}[]")
                if e.item.model is not None and e.item.model not in seen:
                    yield from walk(e.item.model, (*a, 0), (*p, 0), (*seen, e.item.model))

    yield from walk(root, (), (), (root,))


CASES = [c for root in ROOTS for c in _cases(root)]

# One value of each JSON type, wrong for any field that does not declare that
# type (a string that is neither a number nor a date-time, a number that is not 0 or 1).
WRONG: dict[str, Any] = {"object": {"unexpected": 1}, "list": ["unexpected"], "number": 7, "string": "many", "boolean": True}


def _accepts(e: Any, value: Any) -> bool:
    """Whether the field's declaration accepts this value (the rule, restated)."""
    if isinstance(value, str) and e.what in ("a date-time", "a date"):
        return False  # "many" is not a time
    return type(value) in e.types


def _set(doc: Any, wire: tuple[str | int, ...], value: Any, *, delete: bool = False) -> Any:
    """A copy of `doc` with `value` at `wire` (copies along the path only; builds missing parts)."""
    head, rest = wire[0], wire[1:]
    if isinstance(head, int):
        out_l = list(doc) if isinstance(doc, list) and doc else [{} if rest else None]
        if delete and not rest:
            out_l[head] = None
        else:
            out_l[head] = _set(out_l[head], rest, value, delete=delete) if rest else value
        return out_l
    out = dict(doc) if isinstance(doc, dict) else {}
    if not rest:
        if delete:
            out.pop(head, None)
        else:
            out[head] = value
    else:
        out[head] = _set(out.get(head), rest, value, delete=delete)
    return out


_ABSENT = object()


def _read(root: Model, attrs: tuple[str | int, ...]) -> Any:
    cur: Any = root
    for a in attrs:
        if isinstance(a, int):
            if not isinstance(cur, list) or len(cur) <= a:
                return _ABSENT  # no element there in this body
            cur = cur[a]
        else:
            cur = getattr(cur, a)
    return cur


def _models(case: Case, body: dict[str, Any]) -> list[Model]:
    """The model over `body` as the client makes it: from a dict, and lazy over bytes
    (of the top-level part read only: the others are never decoded)."""
    head = case.wire[0]
    part = {head: body[head]} if head in body else {}
    lazy = case.root._lazy(LazyDoc(json.dumps(part).encode()))
    return [case.root(body), lazy]


def _assert_wrong(case: Case, body: dict[str, Any], value: Any) -> None:
    mutated = _set(body, case.wire, value)
    for m in _models(case, mutated):
        with pytest.raises(urlscan_rs.DecodeError) as exc:
            _read(m, case.attrs)
        msg = str(exc.value)
        assert msg.startswith(f"{case.path}: expected {case.expect.what}, found "), (case.owner, msg)
        assert len(msg) < 200
        repr(m)  # still prints


def _empty(case: Case) -> Any:
    e = case.expect
    if isinstance(case.attrs[-1], int):
        return None  # a null element stays None
    if e.model is not None and not e.is_list:
        return e.model
    return [] if e.is_list and e.types == frozenset({list}) else None


def _assert_empty(case: Case, body: dict[str, Any], *, delete: bool) -> None:
    mutated = _set(body, case.wire, None, delete=delete)
    want = _empty(case)
    for m in _models(case, mutated):
        got = _read(m, case.attrs)
        if isinstance(want, type):
            assert type(got) is want and got.raw == {}, case.owner
        else:
            assert got == want, (case.owner, got)


def test_every_root_and_part_is_walked() -> None:
    owners = {c.owner.split(".")[0] for c in CASES}
    for name in ("ScanResult", "Task", "Page", "Verdicts", "Verdict", "EngineVerdicts", "CommunityVerdict", "VerdictBrand"):
        assert name in owners
    for name in ("Stats", "Lists", "Submitter", "SearchHit", "HitStats", "BrandSummary", "Brand", "Channel", "Incident"):
        assert name in owners
    paths = {c.path for c in CASES if c.root is models.ScanResult}
    assert {"verdicts.overall.score", "lists.ips[0]", "page", "task.time", "verdicts.overall.brands[0].name"} <= paths
    assert len(CASES) > 300


def test_recorded_bodies_read_whole() -> None:
    """The real bodies themselves have nothing wrong: every documented field reads."""
    for root, bodies in ROOTS.items():
        for body in bodies:
            for case in (c for c in CASES if c.root is root):
                for m in _models(case, body):
                    _read(m, case.attrs)


def test_every_field_every_wrong_type() -> None:
    """Exhaustive: each documented field of each root, each JSON type it does not declare."""
    checked = 0
    for case in CASES:
        body = ROOTS[case.root][0]
        for value in WRONG.values():
            if not _accepts(case.expect, value):
                _assert_wrong(case, body, value)
                checked += 1
        _assert_empty(case, body, delete=False)
        if not isinstance(case.attrs[-1], int):
            _assert_empty(case, body, delete=True)
    assert checked > 1000


# Random wrong values of each JSON type (never readable as a number or a time).
_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz -_", min_size=1, max_size=30).map(lambda s: "x" + s)
_LEAF = st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False, allow_infinity=False) | _WORD
_JSON = st.recursive(_LEAF, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_WORD, inner, max_size=4), max_leaves=12)
_WRONG_VALUES = st.one_of(
    st.dictionaries(_WORD, _JSON, min_size=1, max_size=4),  # {} reads as [] where a list is expected
    st.lists(_JSON, max_size=4),
    st.integers(2, 2**70)
    | st.integers(-(2**70), -1)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: f not in (0, 1)),
    _WORD,
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(case=st.sampled_from(CASES), value=_WRONG_VALUES, which=st.integers(0, 1))
def test_random_wrong_values(case: Case, value: Any, which: int) -> None:
    bodies = ROOTS[case.root]
    body = bodies[which % len(bodies)]
    if _accepts(case.expect, value):
        mutated = _set(body, case.wire, value)
        for m in _models(case, mutated):
            try:
                _read(m, case.attrs)
            except urlscan_rs.DecodeError as e:
                # accepted at this level; an element or a part below may still be wrong
                assert str(e).startswith(case.path), (case.owner, str(e))
    else:
        _assert_wrong(case, body, value)


def test_lenient_forms_the_service_sends() -> None:
    r = models.ScanResult(
        {
            "stats": {"malicious": "3", "uniqCountries": "", "securePercentage": "12.5", "domainStats": {}},
            "verdicts": {"overall": {"hasVerdicts": 0, "score": 5.0}, "engines": {"malicious": []}},
            "lists": {"ips": None, "urls": {}},
            "page": None,
        }
    )
    assert r.stats.malicious == 3 and r.stats.uniq_countries is None and r.stats.secure_percentage == 12.5
    assert r.stats.domain_stats == [] and r.lists.ips == [] and r.lists.urls == []
    assert r.verdicts.overall.has_verdicts is False and r.verdicts.overall.score == 5
    assert r.verdicts.engines.malicious == [] and r.page.domain is None
    assert r.malicious is None  # no verdict given: unknown, not False
    assert models.ScanResult({"task": {"time": 1700000000000}}).time is not None  # epoch milliseconds


def test_issue_examples() -> None:
    with pytest.raises(urlscan_rs.DecodeError, match=r"^page: expected an object, found a list"):
        _ = models.ScanResult({"page": []}).page.domain
    with pytest.raises(urlscan_rs.DecodeError, match=r'^stats\.malicious: expected a number, found a string \("many"\)$'):
        _ = models.ScanResult({"stats": {"malicious": "many"}}).stats.malicious
    with pytest.raises(urlscan_rs.DecodeError, match=r"^verdicts\.overall\.malicious: expected a boolean, found a number \(0\)$"):
        _ = models.ScanResult({"verdicts": {"overall": {"malicious": 0}}}).malicious
    with pytest.raises(urlscan_rs.DecodeError, match=r"^task: expected an object"):
        _ = models.ScanResult({"task": "x"}).uuid
    long = models.ScanResult({"page": {"domain": ["a" * 1000]}})
    with pytest.raises(urlscan_rs.DecodeError) as exc:
        _ = long.page.domain
    assert len(str(exc.value)) < 100 and str(exc.value).endswith("...)")
    assert "not decodable" in repr(models.ScanResult({"page": []}))


def test_unknown_fields_are_not_checked() -> None:
    r = models.ScanResult({"page": {"brandNewField": [1, "x"], "domain": "d"}, "futurePart": 5})
    assert r.page.brand_new_field == [1, "x"] and r.future_part == 5 and r.page.domain == "d"

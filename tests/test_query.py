"""Safe queries and refanging: values quoted for the search syntax, queries built with Q
that the emulator's parser (the service's grammar) accepts and that find what they say,
and defanged indicators made usable again."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from urlscan_rs import refang
from urlscan_rs.errors import BadRequestError
from urlscan_rs.query import Q, quote
from urlscan_rs.testing import Emulator

from .conftest import emulator

# Every example the Rust grammar tests parse too (crates/urlscan-emulator/tests/rendered_queries.txt).
RENDERED = Path(__file__).parent.parent / "crates" / "urlscan-emulator" / "tests" / "rendered_queries.txt"
AWKWARD = [
    "example.com",
    "a b",
    'say "hi"',
    "back\\slash",
    "https://evil.example/a?b=c&d=e#f",
    "a/b:c",
    "trailing/",
    "日本語のページ",
    "AND",
    "NOT",
    "-leading",
    "+plus",
    "wild*card?",
    "x && y",
    "a || b",
    "(paren)",
    "[bracket]",
    "{brace}",
    "caret^2",
    "tilde~1",
    "",
    " spaced ",
    "tab\there",
    "new\nline",
    "colon:",
    "\u3000ideographic space",
    "<html>",
    "=equals",
]


def examples() -> list[str]:
    """Rendered queries: each awkward value in each kind of part, and combinations."""
    out = []
    for v in AWKWARD:
        out += [
            str(Q.field("page.title", v)),
            str(Q.text(v)),
            str(Q.url(v)),
            str(Q.field("task.tags", [v, "phishing"])),
            str(Q.compare("stats.uniqIPs", ">", v)),
            str(Q.range("date", gte=v, lt="now")),
        ]
    out += [
        str(Q.domain("x.com") & Q.date(">now-7d") | ~Q.ip("1.2.3.4")),
        str(~(Q.ip("1.2.3.4") | Q.ip("2001:db8::1")) & Q.asn(15169)),
        str(Q.domain(["a.example", "https://b.example/", "c.example."]) & ~Q.tag("benign")),
        str(Q.date(dt.date(2026, 11, 20))),
        str(Q.date(gte=dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc), lt=dt.date(2026, 11, 20))),
        str(Q.date(">=2026-11-20T13:00:00Z")),
        str(Q.range("stats.uniqIPs", gt=10)),
        str(Q.range("stats.uniqIPs", lte=10)),
        str(Q.hash("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") | Q.server("nginx/1.2")),
        str(Q.country("DE") & Q.page_domain("evil.example") & Q.page_url("https://evil.example/login")),
        str(Q.page_title("Sign in") & Q("raw OR query")),
    ]
    return out


def test_values_and_queries_render_as_documented() -> None:
    assert quote("example.com") == "example.com"
    assert quote("a b") == '"a b"'
    assert quote('say "hi"') == '"say \\"hi\\""'
    assert quote("back\\slash") == '"back\\\\slash"'
    assert quote("AND") == '"AND"' and quote("") == '""' and quote("wild*") == '"wild*"'
    assert quote(5) == "5" and quote(True) == "true" and quote(dt.date(2026, 1, 2)) == "2026-01-02"
    assert quote(dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))) == '"2026-01-02T01:04:05.000Z"'
    q = Q.domain("x.com") & Q.date(">now-7d") | ~Q.ip("1.2.3.4")
    assert isinstance(q, str) and q == "(domain:x.com AND date:>now-7d) OR (NOT ip:1.2.3.4)"
    # A NOT is bare under AND and at the top, in parentheses under OR (Lucene reads a bare
    # `a OR NOT b` as `a AND NOT b`).
    assert str(~Q.ip("1") & Q.ip("2")) == "NOT ip:1 AND ip:2" and str(~Q.ip("1")) == "NOT ip:1"
    # After `>` only a plain word; anything else becomes an open range, where `:` and `/` are safe.
    assert str(Q.date(">=2026-11-20T13:00:00Z")) == "date:[2026-11-20T13:00:00Z TO *]"
    assert str(Q.compare("stats.uniqIPs", "<", "a/b")) == "stats.uniqIPs:[* TO a/b}"
    assert str(Q.compare("x", ">", "*")) == 'x:{"*" TO *]' and str(Q.range("x", gt=-1.5)) == "x:>-1.5"
    assert str(Q.domain("https://evil.example/login/")) == "domain:evil.example"
    assert str(Q.domain("evil.example/")) == "domain:evil.example"
    assert str(Q.asn(15169)) == str(Q.asn("15169")) == "asn:AS15169"
    assert str(Q.tag(["a b", "c"])) == 'task.tags:("a b" OR c)'
    assert str(Q.date(gte=dt.date(2026, 11, 1), lt=dt.date(2026, 11, 20))) == "date:[2026-11-01 TO 2026-11-20}"
    assert str(~(Q.ip("1") | Q.ip("2")) & Q("a OR b")) == "NOT (ip:1 OR ip:2) AND (a OR b)"
    assert str(Q.ip("1") & Q.ip("2") & Q.ip("3")) == "ip:1 AND ip:2 AND ip:3"  # no needless parentheses
    assert repr(Q.ip("1")) == "Q('ip:1')"


def test_bad_parts_are_refused() -> None:
    with pytest.raises(ValueError, match="not a search field name"):
        Q.field("page.*", "x")
    with pytest.raises(ValueError, match="not a search field name"):
        Q.field("a b", "x")
    with pytest.raises(ValueError, match="no value"):
        Q.field("ip", [])
    with pytest.raises(ValueError, match="at most one lower bound"):
        Q.range("date", gt=1, gte=2)
    with pytest.raises(ValueError, match="no bound"):
        Q.range("date")
    with pytest.raises(ValueError, match="op must be"):
        Q.compare("date", "=", 1)
    with pytest.raises(TypeError, match="a query value is"):
        quote(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Q.ip("1") & "ip:2"  # type: ignore[operator]


def test_the_grammar_file_holds_every_rendered_example() -> None:
    """The Rust grammar tests parse the same examples (regenerate: python tests/test_query.py)."""
    assert RENDERED.read_text(encoding="utf-8") == _file_text(), "stale: run python tests/test_query.py"


def _file_text() -> str:
    # One query per line: newlines inside a query are written as \n and read back in the Rust test.
    return "".join(q.replace("\\", "\\\\").replace("\n", "\\n") + "\n" for q in examples())


emu = emulator(scans=300, seed=4)


def test_every_rendered_example_is_accepted_by_the_service_grammar(emu: Emulator) -> None:
    with emu.client() as c:
        for q in examples():
            try:
                list(c.search(q, limit=1))
            except BadRequestError as e:
                pytest.fail(f"refused: {q!r}: {e}")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(min_size=0, max_size=30))
def test_any_value_renders_a_query_the_grammar_accepts(emu: Emulator, value: str) -> None:
    with emu.client() as c:
        list(c.search(str(Q.field("page.title", value) & ~Q.text(value)), limit=1))
        list(c.search(str(Q.compare("date", "<", value) | Q.range("date", gte=value, lte=value)), limit=1))


def test_quoted_values_find_exactly_their_scans(emu: Emulator) -> None:
    with emu.client() as c:
        hits = [h for h in c.search("", limit=40)]
        for h in hits[:20]:
            assert h.task.url and h.page.domain
            found = {x.id for x in c.search(Q.url(h.task.url), limit=100)}
            assert h.id in found
            assert all(x.task.url == h.task.url for x in c.search(Q.url(h.task.url), limit=100))
            assert h.id in {x.id for x in c.search(Q.page_domain(h.page.domain + "/"), limit=1000)}


def test_an_async_search_takes_a_q(emu: Emulator) -> None:
    import asyncio

    async def main() -> int:
        async with emu.async_client() as c:
            return len([h async for h in c.search(Q.date(">now-400d") & ~Q.tag("no-such-tag"), limit=5)])

    assert asyncio.run(main()) == 5


def test_refang_undoes_the_usual_defanging() -> None:
    cases = {
        "hxxps://evil[.]example/a": "https://evil.example/a",
        "hXXp://evil(.)example": "http://evil.example",
        "hxxps[:]//evil{.}example/x[.]php": "https://evil.example/x.php",
        "hxxp[://]evil[dot]example": "http://evil.example",
        "fxp://files[.]example": "ftp://files.example",
        "evil\\.example": "evil.example",
        "203.0.113[.]7": "203.0.113.7",
        "user[at]evil(.)example": "user@evil.example",
        "user[@]evil[.]example": "user@evil.example",
        "evil[.]example[/]path": "evil.example/path",
        "  https://fine.example/  ": "https://fine.example/",
        "https://already.example/a[b]": "https://already.example/a[b]",
    }
    for defanged, want in cases.items():
        assert refang(defanged) == want, defanged
    with pytest.raises(TypeError):
        refang(b"x")  # type: ignore[arg-type]


def test_scan_and_bulk_scan_refang_when_asked(emu: Emulator) -> None:
    with emu.client() as c:
        sub = c.scan("hxxps://evil[.]example/a", refang=True)
        assert sub.url == "https://evil.example/a"
        outcomes = c.bulk_scan(["evil[.]example", "203.0.113[.]7", "hxxp://x[.]example/p"], wait=False, refang=True)
        assert [o.url for o in outcomes] == ["http://evil.example", "http://203.0.113.7", "http://x.example/p"]
        assert all(o.error is None for o in outcomes)


def test_scan_does_not_refang_unless_asked(emu: Emulator) -> None:
    with emu.client() as c, pytest.raises(Exception) as e:
        c.scan("hxxps://evil[.]example/a")
    assert "hxxps" in str(e.value)


if __name__ == "__main__":
    RENDERED.parent.mkdir(parents=True, exist_ok=True)
    RENDERED.write_text(_file_text(), encoding="utf-8")
    print(f"wrote {RENDERED} ({len(examples())} queries)", file=sys.stderr)

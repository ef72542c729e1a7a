"""The command line, driven in a subprocess against emulators started here."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import Client, cli
from urlscan_rs._progress import ProgressBar
from urlscan_rs.testing import Emulator

UNKNOWN_SCAN = "00000000-0000-4000-8000-000000000000"
UNKNOWN_KEY = "00000000-0000-4000-8000-00000000dead"
POLL = ["--initial-wait", "0", "--interval", "0.1"]
ESC = "\x1b["


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("URLSCAN_") and k != "NO_COLOR"}
    env.update(extra)
    return env


def run_cli(*args: str, emu: Emulator | None = None, key: str | None = None, **kw: Any) -> subprocess.CompletedProcess[str]:
    """``python -m urlscan_rs [--base-url emu.url --api-key KEY] ARGS`` with stdout and stderr piped."""
    prefix: list[str] = []
    if emu is not None:
        prefix = ["--base-url", emu.url, "--api-key", emu.keys.get(key, key) if key else emu.api_key]
    kw.setdefault("env", _env())
    kw.setdefault("timeout", 60)
    return subprocess.run([sys.executable, "-m", "urlscan_rs", *prefix, *args], capture_output=True, text=True, **kw)


def json_lines(out: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """Every stdout line must be one JSON object."""
    objs = [json.loads(line) for line in out.stdout.splitlines()]
    assert all(isinstance(o, dict) for o in objs)
    return objs


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(scans=50, scan_duration=0, seed=3) as e:
        yield e


@pytest.fixture(scope="module")
def client(emu: Emulator) -> Iterator[Client]:
    with emu.client() as c:
        yield c


@pytest.fixture(scope="module")
def done_uuid(emu: Emulator, client: Client) -> str:
    sub = client.scan("https://login.paypal.com.account-verify.example.net/signin")
    return client.wait_for_result(sub.uuid, initial_wait=0, interval=0.1).uuid


@pytest.fixture(scope="module")
def slow() -> Iterator[Emulator]:
    """Scans that never finish during the tests."""
    with Emulator(scans=5, scan_duration=10_000) as e:
        yield e


# ---------------------------------------------------------------- kept from before


def test_demo_runs() -> None:
    t0 = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "urlscan_rs", "demo", "--scan-duration", "1"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "Submitting 3 scans" in out.stdout and "ScanResult(" in out.stdout and "Done in" in out.stdout
    assert time.monotonic() - t0 < 60


def test_emulator_command_serves() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "urlscan_rs", "emulator", "--port", "0", "--scans", "20"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().strip() for _ in range(2)]
        env = dict(line.split("=", 1) for line in lines)
        with Client(env["URLSCAN_API_KEY"], base_url=env["URLSCAN_BASE_URL"]) as c:
            assert c.search("").count() == 20
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_cli_error_exit_code() -> None:
    out = subprocess.run([sys.executable, "-m", "urlscan_rs", "--api-key", "x", "result", "nope"], capture_output=True, text=True)
    assert out.returncode == 2 and "UUID" in out.stderr


def test_examples_run() -> None:
    root = Path(__file__).resolve().parent.parent / "examples"
    for script in sorted(root.glob("*.py")):
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, f"{script.name}: {out.stderr}"
        assert out.stdout.strip(), script.name


# ---------------------------------------------------------------- help


def test_help_documents_exit_codes() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    assert cli.EXIT_CODES_HELP in out.stdout
    assert cli.__doc__ is not None and cli.EXIT_CODES_HELP in cli.__doc__
    for code in ("0", "1", "2", "3", "4", "5", "6", "130"):
        assert f"\n  {code} " in cli.EXIT_CODES_HELP
    commands = "scan result screenshot dom search bulk quotas hostname incident listen emulator demo".split()
    assert all(f"\n    {c} " in out.stdout for c in commands)
    assert cli.main(["--help"]) == 0  # argparse's exit is turned into a return value
    assert cli.main(["search"]) == 2


# ---------------------------------------------------------------- scanning


def test_scan_human_and_json(emu: Emulator, client: Client) -> None:
    out = run_cli("scan", "https://www.example.org/", "--tag", "a", "--tag", "b", "--country", "de", emu=emu)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Submitted https://www.example.org/")
    assert "UUID" in out.stdout and "Report" in out.stdout and ESC not in out.stdout
    out = run_cli("--json", "scan", "https://www.example.net/", "--visibility", "unlisted", emu=emu)
    assert out.returncode == 0, out.stderr
    [sub] = json_lines(out)
    assert sub["url"] == "https://www.example.net/" and sub["visibility"] == "unlisted" and sub["message"]
    assert client.wait_for_result(sub["uuid"], initial_wait=0).page.domain == "www.example.net"


def test_scan_wait_and_result(emu: Emulator, client: Client) -> None:
    out = run_cli("scan", "https://www.example.com/", "--wait", *POLL, "--json", emu=emu)  # --json after the command
    assert out.returncode == 0, out.stderr
    [res] = json_lines(out)
    uuid = res["task"]["uuid"]
    assert res == client.result(uuid).raw and out.stderr == ""

    human = run_cli("result", uuid, emu=emu)
    assert human.returncode == 0, human.stderr
    assert human.stdout.startswith(f"Scan {uuid}\n")
    labels = [line.split()[0] for line in human.stdout.splitlines()[1:]]
    assert labels == ["URL", "Domain", "IP", "Country", "Server", "Title", "Verdict", "Scanned", "Report"]
    r = client.result(uuid)
    for value in (r.page.domain, r.page.ip, r.page.server, r.page.title, f"/result/{uuid}/"):
        assert value and value in human.stdout
    assert ESC not in human.stdout

    [again] = json_lines(run_cli("--json", "result", uuid, emu=emu))
    assert again == r.raw


def test_result_verdict(emu: Emulator, done_uuid: str) -> None:
    out = run_cli("result", done_uuid, emu=emu)
    assert "malicious (score" in out.stdout and "phishing" in out.stdout


def test_screenshot_and_dom(emu: Emulator, done_uuid: str, tmp_path: Path) -> None:
    target = tmp_path / "shot.png"
    out = run_cli("screenshot", done_uuid, "-o", str(target), emu=emu)
    assert out.returncode == 0, out.stderr
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and str(target) in out.stdout
    [info] = json_lines(run_cli("--json", "screenshot", done_uuid, "-o", str(target), emu=emu))
    assert info == {"uuid": done_uuid, "file": str(target), "bytes": target.stat().st_size}
    raw = subprocess.run(
        [sys.executable, "-m", "urlscan_rs", "--base-url", emu.url, "--api-key", emu.api_key, "screenshot", done_uuid, "-o", "-"],
        capture_output=True,
        env=_env(),
        timeout=60,
    )
    assert raw.returncode == 0 and raw.stdout == target.read_bytes()
    out = run_cli("screenshot", done_uuid, "-o", str(tmp_path / "missing" / "x.png"), emu=emu)
    assert out.returncode == 2 and "cannot write" in out.stderr

    dom = run_cli("dom", done_uuid, emu=emu)
    assert dom.returncode == 0 and "<html" in dom.stdout.lower()
    [obj] = json_lines(run_cli("--json", "dom", done_uuid, emu=emu))
    assert obj["uuid"] == done_uuid and obj["dom"].rstrip("\n") == dom.stdout.rstrip("\n")


# ---------------------------------------------------------------- search, quotas, hostnames


def test_search_human(emu: Emulator, client: Client) -> None:
    out = run_cli("search", "date:>now-30d", "--limit", "5", emu=emu)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["TIME", "(UTC)", "DOMAIN", "IP", "CC", "SCORE", "UUID"]
    ids = [h.id for h in client.search("date:>now-30d", limit=5)]
    assert [line.split()[-1] for line in lines[1:6]] == ids
    assert lines[6].startswith("5 of ") and "--limit" in lines[6]
    assert len(lines) == 7 and ESC not in out.stdout and out.stderr == ""
    # the UUID column is aligned
    assert len({line.rindex(" ") for line in lines[1:6]}) == 1
    none = run_cli("search", "page.domain:no-such-domain.example", emu=emu)
    assert none.returncode == 0 and "No hits" in none.stdout


def test_search_json_wire_form(emu: Emulator, client: Client) -> None:
    out = run_cli("--json", "search", "", "--limit", "7", "--size", "3", emu=emu)
    assert out.returncode == 0, out.stderr
    hits = json_lines(out)
    assert len(hits) == 7
    assert all("_id" in h and isinstance(h["sort"], list) and "task" in h for h in hits)
    assert hits == [h.raw for h in client.search("", limit=7, size=3)]


def test_quotas(emu: Emulator) -> None:
    out = run_cli("quotas", emu=emu)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Quotas") and lines[1].split() == ["ACTION", "MINUTE", "HOUR", "DAY"]
    assert any(line.split()[0] == "search" for line in lines[2:])
    [q] = json_lines(run_cli("--json", "quotas", emu=emu))
    assert "search" in q["limits"] and "minute" in q["limits"]["search"]


def test_hostname_history(emu: Emulator, client: Client) -> None:
    domains = [h.page.domain for h in client.search("", limit=50) if h.page.domain]
    busiest = max(set(domains), key=domains.count)
    records = [r.raw for r in client.hostnames.history(busiest, limit=10)]
    assert len(records) > 3
    out = run_cli("--json", "hostname", busiest, "--limit", "3", emu=emu)
    assert out.returncode == 0, out.stderr
    assert json_lines(out) == records[:3]
    human = run_cli("hostname", busiest, emu=emu)
    lines = human.stdout.splitlines()
    assert human.returncode == 0 and lines[0].split()[:3] == ["SEEN", "ON", "SOURCE"]
    assert len(lines) == 1 + len(records)
    assert "No history" in run_cli("hostname", "never-seen.example", emu=emu).stdout


# ---------------------------------------------------------------- incidents


def test_incident_lifecycle(emu: Emulator, client: Client) -> None:
    ch = client.channels.create(type="webhook", name="soc", webhook_url="https://hooks.example.com/a")
    out = run_cli("--json", "incident", "create", "www.example.com", "--visibility", "private", "--channel", ch.id, emu=emu)
    assert out.returncode == 0, out.stderr
    [inc] = json_lines(out)
    iid = inc["_id"]
    assert inc["observable"] == "www.example.com" and inc["channels"] == [ch.id] and inc["state"] == "active"

    human = run_cli("incident", "get", iid, emu=emu)
    assert human.returncode == 0 and human.stdout.startswith(f"Incident {iid}")
    assert "www.example.com" in human.stdout and "active" in human.stdout

    states = json_lines(run_cli("--json", "incident", "states", iid, emu=emu))
    assert states and all(s["incident"] == iid for s in states)
    table = run_cli("incident", "states", iid, emu=emu)
    assert table.stdout.split()[:2] == ["START", "(UTC)"] and len(table.stdout.splitlines()) == 1 + len(states)

    closed = run_cli("incident", "close", iid, emu=emu)
    assert closed.returncode == 0 and "closed" in closed.stdout
    again = run_cli("incident", "close", iid, emu=emu)
    assert again.returncode == 1 and "already closed" in again.stderr
    [restarted] = json_lines(run_cli("--json", "incident", "restart", iid, emu=emu))
    assert restarted["_id"] == iid and restarted["state"] == "active"
    assert run_cli("incident", "get", "0" * 24, emu=emu).returncode == 3
    assert run_cli("incident", "create", "www.example.com", "--visibility", "public", "--channel", ch.id, emu=emu).returncode == 2


# ---------------------------------------------------------------- bulk


def test_bulk_file(emu: Emulator, tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("https://www.example.com/\n\n# a comment\n  https://x.invalid/  \nhttps://www.example.org/page\n")
    out = run_cli("bulk", str(urls), *POLL, emu=emu)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].split()[:2] == ["ok", "https://www.example.com/"]
    assert lines[1].split()[:2] == ["failed", "https://x.invalid/"] and "ScanRefusedError" in lines[1] and "DNS Error" in lines[1]
    assert lines[2].split()[:2] == ["ok", "https://www.example.org/page"]
    assert "1 of 3 URLs failed" in out.stderr

    out = run_cli("--json", "bulk", "-", *POLL, input=urls.read_text(), emu=emu)  # from stdin
    assert out.returncode == 1
    rows = json_lines(out)
    assert [(r["url"], r["ok"]) for r in rows] == [
        ("https://www.example.com/", True),
        ("https://x.invalid/", False),
        ("https://www.example.org/page", True),
    ]
    assert rows[0]["result"]["task"]["uuid"] == rows[0]["uuid"] == rows[0]["submission"]["uuid"]
    assert rows[1]["error"]["type"] == "ScanRefusedError" and rows[1]["error"]["status"] == 400


def test_bulk_all_good_and_no_wait(emu: Emulator, tmp_path: Path) -> None:
    urls = tmp_path / "good.txt"
    urls.write_text("https://a.example.com/\nhttps://b.example.com/\n")
    out = run_cli("bulk", str(urls), "--concurrency", "2", *POLL, emu=emu)
    assert out.returncode == 0 and len(out.stdout.splitlines()) == 2 and out.stderr == ""
    out = run_cli("bulk", str(urls), "--no-wait", emu=emu)
    assert out.returncode == 0 and [line.split()[0] for line in out.stdout.splitlines()] == ["submitted", "submitted"]
    assert run_cli("bulk", str(tmp_path / "nope.txt"), emu=emu).returncode == 2


# ---------------------------------------------------------------- exit codes


def test_exit_2_usage(emu: Emulator) -> None:
    for args in (["result", "nope"], ["search", "", "--limit", "0"], ["frobnicate"], ["scan", "ftp://example.com/"]):
        out = run_cli(*args, emu=emu)
        assert out.returncode == 2, (args, out.stderr)
        assert "error" in out.stderr


def test_exit_3_not_found_pending_gone(emu: Emulator, client: Client, slow: Emulator) -> None:
    out = run_cli("result", UNKNOWN_SCAN, emu=emu)
    assert out.returncode == 3 and "No such scan" in out.stderr
    pending = slow.client().scan("https://www.example.com/").uuid
    out = run_cli("result", pending, emu=slow)
    assert out.returncode == 3 and "the scan has not finished yet; retry or use scan --wait" in out.stderr
    sub = client.scan("https://deleted.example.com/")
    client.wait_for_result(sub.uuid, initial_wait=0)
    client.set_visibility(sub.uuid, "deleted")
    out = run_cli("result", sub.uuid, emu=emu)
    assert out.returncode == 3 and "deleted" in out.stderr


def test_exit_4_auth(emu: Emulator) -> None:
    out = run_cli("incident", "get", "x", emu=emu, key="free")
    assert out.returncode == 4 and "premium" in out.stderr
    out = run_cli("quotas", emu=emu, key=UNKNOWN_KEY)
    assert out.returncode == 4 and "URLSCAN_API_KEY" in out.stderr
    out = run_cli("--base-url", emu.url, "quotas")  # no key at all
    assert out.returncode == 4 and "set URLSCAN_API_KEY or pass --api-key" in out.stderr
    # the environment variables work as defaults
    ok = run_cli("quotas", env=_env(URLSCAN_BASE_URL=emu.url, URLSCAN_API_KEY=emu.api_key))
    assert ok.returncode == 0, ok.stderr


def test_exit_5_rate_limited() -> None:
    with Emulator(scans=20, scan_duration=0, rate_limits={"search": {"minute": 1, "hour": None, "day": None}}) as e:
        e.advance(60 - e.now() % 60 + 0.01)  # both runs fall in one minute window
        first = run_cli("--json", "search", "", emu=e)
        assert first.returncode == 0 and len(json_lines(first)) == 20
        second = run_cli("--json", "search", "", emu=e)
        assert second.returncode == 5 and "rate limited" in second.stderr and "retry in" in second.stderr
        assert second.stdout == ""


def test_exit_6_transport_and_wait_timeout(slow: Emulator) -> None:
    out = run_cli("--base-url", "http://127.0.0.1:9", "--api-key", "k", "quotas")
    assert out.returncode == 6 and "could not reach http://127.0.0.1:9" in out.stderr
    out = run_cli("scan", "https://www.example.com/", "--wait", *POLL, "--wait-timeout", "0.5", emu=slow)
    assert out.returncode == 6 and "urlscan-rs result " in out.stderr and out.stdout == ""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_exit_130_interrupted(slow: Emulator) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "urlscan_rs", "--base-url", slow.url, "--api-key", slow.api_key]
        + ["scan", "https://www.example.com/", "--wait", *POLL],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        # a shell may start us with SIGINT ignored; let the child see it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130 and "interrupted" in err and out == ""


# ---------------------------------------------------------------- progress


def test_no_progress_or_colour_when_piped(emu: Emulator, tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("\n".join(f"https://p{i}.example.com/" for i in range(4)) + "\n")
    for args in (
        ["bulk", str(urls), *POLL],
        ["search", "", "--limit", "1000"],
        ["scan", "https://www.example.com/", "--wait", *POLL],
    ):
        out = run_cli(*args, emu=emu)
        assert out.returncode == 0, out.stderr
        assert out.stderr == "" and "\r" not in out.stdout and ESC not in out.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_progress_on_a_terminal(emu: Emulator, tmp_path: Path) -> None:
    import pty

    urls = tmp_path / "urls.txt"
    urls.write_text("https://a.example.com/\nhttps://b.example.com/\n")
    master, slave = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "urlscan_rs", "--base-url", emu.url, "--api-key", emu.api_key, "bulk", str(urls), *POLL],
            stdout=subprocess.PIPE,
            stderr=slave,
            env=_env(),
            timeout=60,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    drawn = b"".join(chunks).decode()
    assert proc.returncode == 0
    assert "scanning [" in drawn and "2/2" in drawn and "\r" in drawn
    assert b"\r" not in proc.stdout and len(proc.stdout.splitlines()) == 2


def test_progress_bar_unit() -> None:
    quiet = io.StringIO()
    bar = ProgressBar("job", 4, stream=quiet)  # not a terminal: draws nothing
    bar.update(2)
    bar.close()
    assert quiet.getvalue() == "" and not bar.enabled

    loud = io.StringIO()
    bar = ProgressBar("job", 4, stream=loud, enabled=True)
    bar(1, 4)
    bar.update(4)
    assert "job [" in loud.getvalue() and "4/4 100%" in loud.getvalue()
    bar.close()
    assert loud.getvalue().endswith("\r\x1b[K")
    half = ProgressBar("x", 10, enabled=False)
    half.done = 5
    text = half.render()
    assert "5/10" in text and " 50%" in text
    spinner = ProgressBar("wait", None, enabled=False)
    assert "####" in spinner.render() and "s" in spinner.render()


# ---------------------------------------------------------------- data sources and listen


@pytest.fixture(scope="module")
def sources() -> Iterator[str]:
    """A scripted service answering searches of the other data sources."""
    from http.server import ThreadingHTTPServer
    from threading import Thread

    from .test_events import DataSources

    srv = ThreadingHTTPServer(("127.0.0.1", 0), DataSources)
    Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize(
    ("datasource", "header", "first"),
    [
        ("hostnames", "LAST SEEN (UTC)", "h0.example.net"),
        ("incidents", "CREATED (UTC)", "o0.example.net"),
        ("notifications", "CREATED (UTC)", "changing.example.net"),
        ("certificates", "LAST SEEN (UTC)", "c0.example.net"),
    ],
)
def test_search_datasource_human(sources: str, datasource: str, header: str, first: str) -> None:
    out = run_cli("--base-url", sources, "--api-key", UNKNOWN_KEY, "search", "", "--datasource", datasource, "--limit", "3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(header)
    assert len(lines) == 5 and first in lines[1] and lines[4].startswith("3 of 5 hits")


def test_search_datasource_json(sources: str) -> None:
    from .test_events import DOCS

    out = run_cli(
        "--json", "--base-url", sources, "--api-key", UNKNOWN_KEY, "search", "", "--datasource", "hostnames", "--size", "2"
    )
    assert out.returncode == 0, out.stderr
    assert json_lines(out) == DOCS["hostnames"]
    bad = run_cli("search", "", "--datasource", "urls", env=_env())
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def _listen(*args: str) -> tuple[subprocess.Popen[str], str]:
    """Start ``listen --port 0 ARGS``; returns the process and the URL it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "urlscan_rs", "listen", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "listening on http://127.0.0.1:" in line, line
    return proc, line.split("listening on ")[1].split()[0]


def _post(url: str, obj: Any) -> int:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, data=json.dumps(obj).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return e.code


def test_listen_prints_summaries() -> None:
    from .test_events import INCIDENT_PAYLOAD, SUBSCRIPTION_PAYLOAD

    proc, url = _listen("--count", "2")
    assert _post(url, SUBSCRIPTION_PAYLOAD) == 200
    assert _post(url, SUBSCRIPTION_PAYLOAD) == 200  # a retry: not printed again
    assert _post(url, {"hello": "world"}) == 400
    assert _post(url, INCIDENT_PAYLOAD) == 200
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    sub, inc = out.splitlines()
    assert sub.startswith("2026-11-23 10:00:00 UTC  subscription  lookalikes (live)  1 result")
    assert "first: paypal-login.example.net https://paypal-login.example.net/" in sub
    assert "incident" in inc and "changing.example.net" in inc and "changed: ip" in inc


def test_listen_json_lines() -> None:
    from .test_events import INCIDENT_PAYLOAD, SUBSCRIPTION_PAYLOAD

    proc, url = _listen("--json", "--count", "2")
    _post(url, SUBSCRIPTION_PAYLOAD)
    _post(url, INCIDENT_PAYLOAD)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [SUBSCRIPTION_PAYLOAD, INCIDENT_PAYLOAD]


def test_listen_streams_and_stops_on_ctrl_c() -> None:
    from .test_events import SUBSCRIPTION_PAYLOAD

    proc, url = _listen("--json")
    assert proc.stdout is not None
    _post(url, SUBSCRIPTION_PAYLOAD)
    # flushed as it arrives, before the receiver stops
    assert json.loads(proc.stdout.readline())["id"] == SUBSCRIPTION_PAYLOAD["id"]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and out == "", err


def test_listen_port_in_use() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        out = run_cli("listen", "--port", str(s.getsockname()[1]), "--count", "1", timeout=30)
    assert out.returncode == 2 and "cannot listen on 127.0.0.1:" in out.stderr


def test_exit_4_malformed_or_missing_key(emu: Emulator) -> None:
    for args in (["quotas"], ["scan", "https://example.com/"], ["search", "", "--limit", "1"]):
        out = run_cli(*args, emu=emu, key="not-a-uuid")
        assert out.returncode == 4, (args, out.stderr)
        assert "Invalid API key format" in out.stderr
    # no key at all: nothing is sent (the default base URL is never contacted)
    for args in (["quotas"], ["scan", "https://example.com/"], ["result", UNKNOWN_SCAN]):
        out = run_cli(*args)
        assert out.returncode == 4, (args, out.stderr)
        assert "URLSCAN_API_KEY" in out.stderr and "--api-key" in out.stderr
        assert "DNS" not in out.stderr and "could not reach" not in out.stderr

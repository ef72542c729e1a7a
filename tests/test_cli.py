"""The command line, driven in a subprocess against emulators started here."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import io
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import Client, TransportError, cli
from urlscan_rs._progress import ProgressBar
from urlscan_rs.cli.endpoints import command_help
from urlscan_rs.testing import Emulator

from .conftest import emulator

UNKNOWN_SCAN = "00000000-0000-4000-8000-000000000000"
UNKNOWN_KEY = "00000000-0000-4000-8000-00000000dead"
POLL = ["--initial-wait", "0", "--interval", "0.1"]
ESC = "\x1b["


ROOT = Path(__file__).resolve().parent.parent


def _env(**extra: str) -> dict[str, str]:
    """The environment without URLSCAN_* settings, and with a keyring that holds nothing
    (a key kept in the developer's own keyring is never used)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("URLSCAN_") and k != "NO_COLOR"}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
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


emu = emulator(scans=50, scan_duration=0, seed=3)


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
        assert all(line.startswith("export URLSCAN_") for line in lines), lines
        env = dict(line.removeprefix("export ").split("=", 1) for line in lines)
        with Client(env["URLSCAN_API_KEY"], base_url=env["URLSCAN_BASE_URL"]) as c:
            assert c.search("").count() == 20
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_cli_error_exit_code() -> None:
    out = subprocess.run([sys.executable, "-m", "urlscan_rs", "--api-key", "x", "result", "nope"], capture_output=True, text=True)
    assert out.returncode == 2 and "UUID" in out.stderr


EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))


# One test per example, so that the workers run them side by side.
@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_run(script: Path) -> None:
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"{script.name}: {out.stderr}"
    assert out.stdout.strip(), script.name


def test_every_example_is_run() -> None:
    assert len(EXAMPLES) >= 5 and all(p.stat().st_size for p in EXAMPLES)


# ---------------------------------------------------------------- help


def test_help_documents_exit_codes() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    assert cli.EXIT_CODES_HELP in out.stdout
    assert cli.__doc__ is not None and cli.EXIT_CODES_HELP in cli.__doc__
    for code in ("0", "1", "2", "3", "4", "5", "6", "130"):
        assert f"\n  {code} " in cli.EXIT_CODES_HELP
    commands = [path[0] for path in cli.leaf_commands()]
    assert {"scan", "livescan", "saved-search", "subscription", "channel", "datadump", "key"} <= set(commands)
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
    assert res == client.result(uuid).raw
    # no terminal: the submission is named before the wait starts
    assert out.stderr == f"urlscan-rs: submitted {uuid} https://www.example.com/; waiting for the result (up to 120s)\n"

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
    assert len(lines) == 7 and ESC not in out.stdout
    # the cursor after the last hit shown, to resume from
    last = list(client.search("date:>now-30d", limit=5))[-1]
    cursor = ",".join(str(v) for v in last.sort)
    assert out.stderr == f"urlscan-rs: to resume after the last hit: --search-after {cursor}\n"
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
    # The table shows what each state saw, read from the typed observation.
    first = states[0]["state"]
    row = table.stdout.splitlines()[1]
    assert first["scanId"] in row and first["ip"] and first["ip"] in row and first["country"] in row.split()

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


def test_search_fields_lists_what_this_key_may_search(emu: Emulator) -> None:
    with emu.client() as c:
        want = c.user().limits["queryableFields"]
    out = run_cli("search", "--fields", emu=emu)
    assert out.returncode == 0 and out.stdout.splitlines() == want and "page.domain" in want
    assert json_lines(run_cli("--json", "search", "--fields", emu=emu)) == [{"fields": want}]
    free = run_cli("search", "--fields", emu=emu, key="free")
    assert free.returncode == 0 and len(free.stdout.splitlines()) < len(want)  # fewer fields without premium
    bad = run_cli("search", emu=emu)
    assert bad.returncode == 2 and "needs a QUERY" in bad.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_completion_completes_commands_and_options(tmp_path: Path) -> None:
    script = tmp_path / "c.sh"
    script.write_text(cli.completion_script("bash"))
    probe = (
        f"source {shlex.quote(str(script))}; "
        't(){ COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _urlscan_rs; echo "${COMPREPLY[*]}"; }; '
        "t urlscan-rs sa; t urlscan-rs saved-search g; t urlscan-rs --api-key K scan https://x.example/ --re; "
        't urlscan-rs datadump ""'
    )
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["save saved-search", "get", "--refang --referer", "download link list read sync"]
    assert cli.completion_script("zsh").startswith("autoload -U +X bashcompinit && bashcompinit\n")


def test_scan_opens_the_report_in_a_browser(
    emu: Emulator, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    code, out, err = main_(capsys, *api(emu), "--json", "scan", "https://www.example.com/", "--wait", *POLL, "--open")
    assert code == 0, err
    uuid = json.loads(out)["task"]["uuid"]
    code, out, err = main_(capsys, *api(emu), "--json", "scan", "https://www.example.com/", "--open")
    assert code == 0, err
    assert opened == [f"{emu.url}/result/{uuid}/", f"{emu.url}/result/{json.loads(out)['uuid']}/"]
    # No browser at all: said on stderr, and the scan still succeeds.
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: False)
    code, out, err = main_(capsys, *api(emu), "scan", "https://www.example.com/", "--open")
    assert code == 0 and "no browser to open" in err


def test_bulk_refangs_unless_told_not_to_and_scan_when_told(emu: Emulator, tmp_path: Path) -> None:
    urls = tmp_path / "iocs.txt"
    urls.write_text("hxxps://evil[.]example/a\nbad[.]example\n203.0.113[.]7\n")
    out = run_cli("--json", "bulk", str(urls), "--no-wait", emu=emu)
    assert out.returncode == 0, out.stderr
    assert [r["url"] for r in json_lines(out)] == ["https://evil.example/a", "http://bad.example", "http://203.0.113.7"]
    out = run_cli("--json", "bulk", str(urls), "--no-wait", "--no-refang", emu=emu)
    assert out.returncode == 1 and [r["ok"] for r in json_lines(out)] == [False, False, False]
    out = run_cli("--json", "scan", "hxxps://evil[.]example/a", "--refang", emu=emu)
    assert out.returncode == 0 and json_lines(out)[0]["url"] == "https://evil.example/a"


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
    out = run_cli("--base-url", "http://127.0.0.1:9", "--api-key", UNKNOWN_KEY, "quotas")
    assert out.returncode == 6 and "could not reach http://127.0.0.1:9" in out.stderr
    out = run_cli("scan", "https://www.example.com/", "--wait", *POLL, "--wait-timeout", "0.5", emu=slow)
    assert out.returncode == 6 and "urlscan-rs result " in out.stderr and out.stdout == ""


def _start_cli(*args: str, until: str) -> tuple[subprocess.Popen[str], str]:
    """Start ``python -m urlscan_rs ARGS`` in the background and read its stderr until it says
    `until`; returns the process and what it wrote to stderr so far."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "urlscan_rs", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        # a shell may start us with SIGINT ignored; let the child see it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    err = ""
    while until not in err:
        line = proc.stderr.readline()
        assert line, f"the CLI ended before saying {until!r}: {err}"
        err += line
    return proc, err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_exit_130_interrupted(slow: Emulator) -> None:
    # Interrupt once the CLI says the scan is submitted (a fixed sleep lost the race on a busy machine).
    proc, err = _start_cli(
        "--base-url",
        slow.url,
        "--api-key",
        slow.api_key,
        "scan",
        "https://www.example.com/",
        "--wait",
        *POLL,
        until="urlscan-rs: submitted ",
    )
    proc.send_signal(signal.SIGINT)
    out, rest = proc.communicate(timeout=20)
    err += rest
    assert proc.returncode == 130 and "interrupted" in err and out == ""
    # the scan submitted is named, so that its result can be fetched later
    uuid = err.split("urlscan-rs: submitted ")[1].split()[0]
    assert f"interrupted; submitted: {uuid} https://www.example.com/" in err


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
        assert "\r" not in out.stdout + out.stderr and ESC not in out.stdout + out.stderr
        assert out.stderr == "" or (args[0] == "scan" and out.stderr.startswith("urlscan-rs: submitted "))


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
    from .loopback import serve
    from .test_events import data_sources

    with serve(data_sources) as served:
        yield served.url


@pytest.mark.parametrize(
    ("datasource", "header", "first"),
    [
        ("hostnames", "LAST SEEN (UTC)", "h0.example.net"),
        ("incidents", "CREATED (UTC)", "o0.example.net"),
        ("notifications", "CREATED (UTC)", "changing.example.net"),
        ("certificates", "LAST SEEN (UTC)", "c0.example.net"),
        ("domains", "LAST SEEN (UTC)", "d0.example.net"),
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
    proc, line = _start_cli("listen", "--port", "0", *args, until="listening on http://127.0.0.1:")
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


def test_listen_forwards_to_a_local_app() -> None:
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from urlscan_rs import webhooks

    from .test_events import INCIDENT_PAYLOAD, SUBSCRIPTION_PAYLOAD

    got: list[str] = []

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    token = "forward-token-0123456789"
    httpd = make_server("127.0.0.1", 0, webhooks.wsgi_app(lambda n: got.append(n.id), token=token), handler_class=Quiet)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        proc, url = _listen("--count", "2", "--forward-to", f"http://127.0.0.1:{httpd.server_port}/{token}")
        _post(url, SUBSCRIPTION_PAYLOAD)
        _post(url, INCIDENT_PAYLOAD)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0 and err.count("not forwarded") == 0, err
        assert got == [SUBSCRIPTION_PAYLOAD["id"], INCIDENT_PAYLOAD["id"]]
        # A target that refuses: the notification is still printed, and the failure said.
        proc, url = _listen("--count", "1", "--forward-to", f"http://127.0.0.1:{httpd.server_port}/wrong-token-0123456789")
        _post(url, SUBSCRIPTION_PAYLOAD)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0 and out and "not forwarded" in err and "HTTP 404" in err
        bad = run_cli("listen", "--forward-to", "localhost:8000/x")
        assert bad.returncode == 2 and "http:// or https://" in bad.stderr
    finally:
        httpd.shutdown()


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


# ---------------------------------------------------------------- in-process helpers

NO_ID = "0" * 24
SHA_UNKNOWN = "ab" * 32

try:
    import keyring
    import keyring.backends.null

    from .file_keyring import ENV as KEYRING_FILE_ENV
    from .file_keyring import FileKeyring
except ImportError:  # the keyring tests need the optional package
    keyring = None  # type: ignore[assignment]

needs_keyring = pytest.mark.skipif(keyring is None, reason="needs the keyring package (urlscan-rs[keyring])")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """In-process runs see no URLSCAN_* settings and a keyring of their own (a file in tmp_path)."""
    for name in list(os.environ):
        if name.startswith("URLSCAN_"):
            monkeypatch.delenv(name)
    if keyring is None:
        yield
        return
    monkeypatch.setenv(KEYRING_FILE_ENV, str(tmp_path / "keyring.json"))
    keyring.set_keyring(FileKeyring())
    yield
    keyring.set_keyring(keyring.backends.null.Keyring())  # holds nothing (never the developer's own keyring)


def main_(
    capsys: pytest.CaptureFixture[str], *argv: str, stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None
) -> tuple[int, str, str]:
    """``cli.main(argv)`` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        code = cli.main(list(argv))
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def api(emu: Emulator, key: str | None = None) -> list[str]:
    return ["--base-url", emu.url, "--api-key", emu.keys[key] if key else emu.api_key]


@pytest.fixture(scope="module")
def objs(emu: Emulator, client: Client, done_uuid: str) -> dict[str, str]:
    """Objects of every kind on the shared emulator, for the commands to work on."""
    import datetime as dt

    ch = client.channels.create(type="webhook", name="walk", webhook_url="https://hooks.example.com/walk")
    inc = client.incidents.create("www.example.com", visibility="private", channels=[ch.id])
    closed = client.incidents.create("www.example.org", visibility="private", channels=[ch.id])
    to_close = client.incidents.create("www.example.org", visibility="private", channels=[ch.id])
    client.incidents.close(closed.id)
    ss = client.saved_searches.create(datasource="scans", name="walk", query="page.domain:www.example.com")
    ss_gone = client.saved_searches.create(datasource="scans", name="to delete", query="page.domain:x.example.com")
    sub_args: dict[str, Any] = dict(frequency="live", email_addresses=["a@example.com"], is_active=True, ignore_time=False)
    sub = client.subscriptions.create(search_ids=[ss.id], name="walk", **sub_args)
    sub_gone = client.subscriptions.create(search_ids=[ss.id], name="to delete", **sub_args)
    live = client.livescan.scan("de01", "https://www.example.com/")
    task = client.livescan.task("de01", "https://www.example.net/")
    sha = next(h for h in client.result(done_uuid).lists.hashes if not h.startswith("e3b0c442"))
    day = dt.date.fromtimestamp(emu.now()) - dt.timedelta(days=1)
    path = client.datadumps.list("hours", "api", day)[0].path
    return {
        "uuid": done_uuid,
        "channel": ch.id,
        "incident": inc.id,
        "closed": closed.id,
        "to_close": to_close.id,
        "ss": ss.id,
        "ss_gone": ss_gone.id,
        "sub": sub.id,
        "sub_gone": sub_gone.id,
        "live": live,
        "task": task,
        "sha": sha,
        "path": path,
        "day": day.isoformat(),
    }


# ---------------------------------------------------------------- every command


@dataclasses.dataclass
class Case:
    """One command: argv that succeeds, argv that fails with `code`; `api` commands get the
    emulator's address and key; `again` runs the success a second time with --json."""

    ok: list[str]
    fail: list[str]
    code: int
    ok_stdin: str | None = None
    fail_stdin: str | None = None
    fail_key: str | None = None  # a key of the emulator for the failure (e.g. "free")
    api: bool = True
    again: bool = True


def cases(o: dict[str, str], tmp: Path) -> dict[tuple[str, ...], Case | Callable[..., None]]:
    live_scan = ["de01", "https://www.example.com/"]
    sub_new = ["--frequency", "daily", "--email-address", "a@example.com", "--name", "s", "--is-active", "--no-ignore-time"]
    free = {"fail": [], "code": 4, "fail_key": "free"}  # premium commands: the free key is refused
    return {
        ("scan",): Case(["scan", "https://www.example.com/"], ["scan", "ftp://example.com/"], 2),
        ("result",): Case(["result", o["uuid"]], ["result", UNKNOWN_SCAN], 3),
        ("screenshot",): Case(["screenshot", o["uuid"], "-o", str(tmp / "s.png")], ["screenshot", UNKNOWN_SCAN], 3),
        ("dom",): Case(["dom", o["uuid"]], ["dom", UNKNOWN_SCAN], 3),
        ("save",): Case(["save", o["uuid"], "-o", str(tmp / "saved")], ["save", o["uuid"], "--what", "pdf"], 2),
        ("response",): Case(["response", o["sha"]], ["response", "0" * 64], 3),
        ("visibility", "set"): Case(["visibility", "set", o["uuid"], "public"], ["visibility", "set", UNKNOWN_SCAN, "public"], 3),
        ("visibility", "reset"): Case(["visibility", "reset", o["uuid"]], ["visibility", "reset", "nope"], 2),
        ("lookup",): Case(["lookup", "https://www.example.com/", *POLL], ["lookup", "ftp://example.com/"], 2),
        ("bulk",): Case(["bulk", "-", *POLL], ["bulk", str(tmp / "missing.txt")], 2, ok_stdin="https://a.example.com/\n"),
        ("search",): Case(["search", "", "--limit", "3"], ["search", "page.domain:("], 1),
        ("similar",): Case(["similar", o["uuid"], "--limit", "3"], ["similar", "nope"], 2),
        ("phishfeed",): Case(["phishfeed", "--limit", "3"], ["phishfeed"], 4, fail_key="free"),
        ("hostname",): Case(["hostname", "www.example.com", "--limit", "3"], ["hostname", "www.example.com"], 4, fail_key="free"),
        ("request",): Case(["request", "get", "/api/v1/quotas"], ["request", "GET", f"/api/v1/result/{UNKNOWN_SCAN}/"], 3),
        ("quotas",): Case(["quotas"], ["--api-key", UNKNOWN_KEY, "quotas"], 4),
        ("user",): Case(["user"], ["--api-key", UNKNOWN_KEY, "user"], 4),
        ("malicious",): Case(["malicious", "hostname", "www.example.com"], ["malicious", "email", "a@example.com"], 2),
        ("countries",): Case(["countries"], ["--api-key", "not-a-key", "countries"], 4),
        ("user-agents",): Case(["user-agents"], ["--api-key", UNKNOWN_KEY, "user-agents"], 4),
        ("key", "set"): Case(["key", "set", "-"], ["key", "set", "-"], 2, ok_stdin="k" * 36 + "\n", fail_stdin="\n", api=False),
        ("key", "show"): Case(["--api-key", "k" * 36, "key", "show"], ["key", "show"], 3, api=False),
        ("key", "delete"): lambda run: (
            run(["key", "set"], stdin="k" * 36, code=0, api=False),
            run(["key", "delete"], code=0, api=False),
            run(["key", "delete"], code=3, api=False),
        ),
        ("livescan", "scanners"): Case(["livescan", "scanners"], ["livescan", "scanners"], 4, fail_key="free"),
        ("livescan", "task"): Case(["livescan", "task", *live_scan], ["livescan", "task", "nope", "https://x.example.com/"], 3),
        ("livescan", "scan"): Case(["livescan", "scan", *live_scan], ["livescan", "scan", "de01", "ftp://x"], 2),
        ("livescan", "resource"): Case(
            ["livescan", "resource", "de01", "result", o["live"]], ["livescan", "resource", "de01", "dom", UNKNOWN_SCAN], 3
        ),
        ("livescan", "store"): Case(
            ["livescan", "store", "de01", o["live"]], ["livescan", "store", "de01", UNKNOWN_SCAN], 3, again=False
        ),
        ("livescan", "purge"): Case(
            ["livescan", "purge", "de01", o["task"]], ["livescan", "purge", "de01", UNKNOWN_SCAN], 3, again=False
        ),
        ("saved-search", "list"): Case(["saved-search", "list"], **free),
        ("saved-search", "create"): Case(
            ["saved-search", "create", "--datasource", "scans", "--name", "n", "--query", "q", "--user-tag", "pro.x"],
            ["saved-search", "create", "--datasource", "scans", "--name", "n", "--query", "q", "--user-tag", "nope"],
            2,
        ),
        ("saved-search", "update"): Case(
            ["saved-search", "update", o["ss"], "--tlp", "amber"], ["saved-search", "update", NO_ID, "--name", "m"], 3
        ),
        ("saved-search", "delete"): Case(
            ["saved-search", "delete", o["ss_gone"]], ["saved-search", "delete", NO_ID], 3, again=False
        ),
        ("saved-search", "get"): Case(["saved-search", "get", o["ss"]], ["saved-search", "get", NO_ID], 3),
        ("saved-search", "results"): Case(
            ["saved-search", "results", o["ss"], "--size", "2"], ["saved-search", "results", NO_ID], 3
        ),
        ("subscription", "list"): Case(["subscription", "list"], **free),
        ("subscription", "create"): Case(
            ["subscription", "create", "--search-id", o["ss"], *sub_new],
            ["subscription", "create", "--search-id", o["ss"], *sub_new, "--email-address", "bad"],
            2,
        ),
        ("subscription", "update"): Case(
            ["subscription", "update", o["sub"], "--week-day", "Monday", "--week-day", "Friday"],
            ["subscription", "update", NO_ID, "--name", "m"],
            3,
        ),
        ("subscription", "delete"): Case(
            ["subscription", "delete", o["sub_gone"]], ["subscription", "delete", NO_ID], 3, again=False
        ),
        ("subscription", "results"): Case(
            ["subscription", "results", o["sub"], "scans"], ["subscription", "results", NO_ID, "scans"], 3
        ),
        ("channel", "list"): Case(["channel", "list"], ["--api-key", UNKNOWN_KEY, "channel", "list"], 4),
        ("channel", "create"): Case(
            ["channel", "create", "--type", "email", "--name", "e", "--email-address", "a@example.com", "--utc-time", "08:00"],
            ["channel", "create", "--type", "webhook", "--name", "x", "--utc-time", "25:99"],
            2,
        ),
        ("channel", "get"): Case(["channel", "get", o["channel"]], ["channel", "get", NO_ID], 3),
        ("channel", "update"): Case(
            ["channel", "update", o["channel"], "--no-is-default"], ["channel", "update", NO_ID, "--name", "x"], 3
        ),
        ("incident", "create"): Case(
            ["incident", "create", "www.example.net", "--visibility", "unlisted", "--channel", o["channel"]],
            [
                "incident",
                "create",
                "www.example.net",
                "--visibility",
                "public",
                "--channel",
                o["channel"],
            ],
            2,
        ),
        ("incident", "get"): Case(["incident", "get", o["incident"]], ["incident", "get", NO_ID], 3),
        ("incident", "update"): Case(
            ["incident", "update", o["incident"], "--scan-interval", "3600"],
            ["incident", "update", NO_ID, "--scan-interval", "3600"],
            3,
        ),
        ("incident", "close"): Case(["incident", "close", o["to_close"]], ["incident", "close", NO_ID], 3, again=False),
        ("incident", "restart"): Case(["incident", "restart", o["closed"]], ["incident", "restart", NO_ID], 3, again=False),
        ("incident", "copy"): Case(["incident", "copy", o["closed"]], ["incident", "copy", NO_ID], 3),
        ("incident", "fork"): Case(["incident", "fork", o["closed"]], ["incident", "fork", NO_ID], 3),
        ("incident", "watchable-attributes"): Case(["incident", "watchable-attributes"], **free),
        ("incident", "states"): Case(["incident", "states", o["closed"]], ["incident", "states", NO_ID], 3),
        ("brand", "available"): Case(["brand", "available"], **free),
        ("brand", "detected"): Case(["brand", "detected"], **free),
        ("file", "download"): Case(["file", "download", o["sha"], "-o", str(tmp / "f")], ["file", "download", SHA_UNKNOWN], 3),
        ("file", "download-zip"): Case(
            ["file", "download-zip", o["sha"], "-o", str(tmp / "f.zip")], ["file", "download-zip", "z"], 2
        ),
        ("datadump", "list"): Case(
            ["datadump", "list", "hours", "api", o["day"]], ["datadump", "list", "hours", "api", "notaday"], 2
        ),
        ("datadump", "link"): Case(["datadump", "link", o["path"]], ["datadump", "link", "days/api/nope.gz"], 3),
        ("datadump", "download"): Case(
            ["datadump", "download", o["path"], "-o", str(tmp / "dump.gz")], ["datadump", "download", "days/api/nope.gz"], 2
        ),
        ("datadump", "sync"): Case(
            ["datadump", "sync", str(tmp / "sync"), "--window", "days", "--days", "1"],
            ["datadump", "sync", str(tmp / "sync"), "--days", "0"],
            2,
        ),
        ("feed", "sync"): Case(
            ["feed", "sync", "phishfeed", str(tmp / "feed"), "--lookback", "1d"],
            ["feed", "sync", "phishfeed", str(tmp / "f")],
            4,
            fail_key="free",
        ),
        ("datadump", "read"): Case(
            ["datadump", "read", str(_dump_file(tmp))], ["datadump", "read", str(tmp / "unknown.gz")], 2, api=False, again=False
        ),
        ("listen",): lambda run: (_listen_once(), run(["listen", "--port", "65536"], code=2, api=False)),
        ("completion",): Case(["completion", "bash"], ["completion", "fish"], 2, api=False, again=False),
        # tests/test_mcp.py drives the server with an MCP client; here: a bad option is refused.
        ("mcp",): lambda run: run(["mcp", "--timeout", "-1"], code=2, api=False),
        ("emulator",): lambda run: (_background_emulator_once(), run(["emulator", "--port", "-1"], code=2, api=False)),
        ("demo",): Case(["demo", "--scan-duration", "0"], ["demo", "--scan-duration", "-1"], 2, api=False, again=False),
    }


def _dump_file(tmp: Path) -> Path:
    """A one-line search dump, as the service serves them."""
    import gzip

    p = tmp / "hours" / "search" / "20261120" / "20261120-13.gz"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(gzip.compress(b'{"_id":"a","page":{"domain":"example.com"}}\n'))
    return p


def _listen_once() -> None:
    from .test_events import SUBSCRIPTION_PAYLOAD

    proc, url = _listen("--count", "1")
    assert _post(url, SUBSCRIPTION_PAYLOAD) == 200
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "lookalikes" in out, err


def _background_emulator_once() -> None:
    out = run_cli("emulator", "--background", "--port", "0", "--scans", "5", timeout=30)
    pid = int(out.stdout.split("URLSCAN_EMULATOR_PID=")[1].split()[0])
    try:
        assert out.returncode == 0, out.stderr
    finally:
        _kill(pid)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass


def test_the_walk_covers_every_command(tmp_path: Path) -> None:
    fake = {
        k: "x" for k in ("uuid", "channel", "incident", "closed", "to_close", "ss", "ss_gone", "sub", "sub_gone", "live", "task")
    }
    fake.update(sha="x", path="x", day="x")
    assert set(cases(fake, tmp_path)) == set(cli.leaf_commands())


def test_every_client_method_has_a_command() -> None:
    """Each public method of Client and of its namespaces is reachable from the command line."""
    hand_written = {
        "quotas": "quotas",
        "scan": "scan",
        "scan_and_wait": "scan --wait",
        "wait_for_result": "result --wait",
        "result": "result",
        "results": "result (several uuids)",
        "bulk_scan": "bulk",
        "lookup_or_scan": "lookup",
        "lookup_or_scan_many": "lookup (several URLs)",
        "save": "save",
        "screenshot": "screenshot",
        "dom": "dom",
        "search": "search",
        "similar": "similar",
        "phishfeed": "phishfeed",
        "request": "request",
        "close": "",
        "with_options": "",  # a command's settings are its flags (--timeout)
    }

    def public(cls: type) -> set[str]:
        return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}

    derived = {ep.method for ep in cli.endpoints() if not ep.attr}
    assert public(Client) == set(hand_written) | derived
    have = {(ep.attr, ep.method) for ep in cli.endpoints()}
    with Client("00000000-0000-4000-8000-000000000001") as c:
        for group, (attr, _) in cli.NAMESPACE_GROUPS.items():
            assert {(attr, m) for m in public(type(getattr(c, attr)))} - cli.HAND_WRITTEN <= have, group
        assert public(type(c.hostnames)) == {"history"}  # the `hostname` command
    # Every derived command is a row of the core's table, documented there.
    assert all(cli.rows()[ep.key]["doc"] for ep in cli.endpoints())


def _arguments(sp: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {a.dest: a for a in sp._actions if a.dest.startswith(("o_", "p_"))}


def test_a_new_scan_option_in_the_row_is_an_option_of_scan_and_bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan and bulk commands take their options from the scan row: a field added there is a flag."""
    rows = {name: dict(row) for name, row in cli.rows().items()}
    field = {"name": "extra_option", "wire": "extraOption", "kind": "Bool", "takes": "flag", "choices": [], "required": False}
    rows["scan"]["body"] = [*rows["scan"]["body"], field | {"nullable": False, "doc": "An option added to the row"}]
    derive = importlib.import_module("urlscan_rs.cli.endpoints")
    scanning = importlib.import_module("urlscan_rs.cli.scanning")
    monkeypatch.setattr(derive, "rows", lambda: rows)
    derive._docs.cache_clear()  # the help index is built from the rows once
    try:
        parser = cli.build_parser()
        args = parser.parse_args(["scan", "https://example.com/", "--extra-option", "--tag", "a"])
        assert scanning._scan_options(args) == {"extra_option": True, "tags": ["a"]}
        help_text = " ".join(cli.leaf_commands(parser)[("bulk",)].format_help().split())
        assert "--extra-option" in help_text and "an option added to the row" in help_text
    finally:
        monkeypatch.undo()
        derive._docs.cache_clear()


def test_the_command_line_is_the_table() -> None:
    """Each derived command takes its row's ids and fields, with their choices, required-ness and help."""
    leaves = cli.leaf_commands()
    rows = cli.rows()
    checked = 0
    for ep in cli.endpoints():
        row = rows[ep.key]
        sp = leaves[ep.path]
        args = _arguments(sp)
        assert sp.description[1:].startswith(command_help(ep.key)[1:]), ep.key
        fields = {f["name"]: f for f in [*row["ids"], *row["body"], *row["params"]]}
        positional = [f["name"] for f in row["ids"]] + list(row["positional"])
        if ep.key.endswith(".update"):  # update takes create's fields, none required
            create = rows[ep.key.replace(".update", ".create")]
            fields |= {f["name"]: dict(f, required=False) for f in create["body"]}
        assert [d[2:] for d in args if d.startswith("p_")] == positional, ep.key
        assert {d[2:] for d in args if d.startswith("o_")} == set(fields) - set(positional), ep.key
        for dest, action in args.items():
            f = fields[dest[2:]]
            doc = f["doc"] or dest[2:].replace("_", " ")
            assert doc[1:].split(";")[0].split("(")[0] in (action.help or ""), (ep.key, dest)
            if f["choices"] and not (dest.startswith("p_") and f["kind"] != "Enum"):
                assert list(action.choices or []) == f["choices"], (ep.key, dest)
            if dest.startswith("o_"):
                assert action.required == bool(f["required"] and row["creating"]), (ep.key, dest)
            checked += 1
    # The scan options of scan and bulk are the fields of the submission row.
    scan = rows["scan"]
    want = {f["name"] for f in scan["body"]} - set(scan["positional"])
    for path in (("scan",), ("bulk",)):
        have = {d[2:] for d in _arguments(leaves[path]) if d.startswith("o_")}
        assert have == want, path
    assert checked > 150, checked


@pytest.mark.parametrize("path", sorted(cli.leaf_commands()), ids=" ".join)
def test_every_command(
    path: tuple[str, ...],
    emu: Emulator,
    objs: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """--help exits 0; one success on the emulator; one failure with its exit code."""
    if path[0] == "key" and keyring is None:
        pytest.skip("needs the keyring package (urlscan-rs[keyring])")
    monkeypatch.chdir(tmp_path)
    code, out, err = main_(capsys, *path, "--help")
    assert code == 0 and out.startswith(f"usage: urlscan-rs {' '.join(path)}"), err

    def run(argv: list[str], *, code: int, stdin: str | None = None, api_: bool = True, key: str | None = None) -> str:
        prefix = api(emu, key) if api_ else []
        got, out, err = main_(capsys, *prefix, *argv, stdin=stdin)
        assert got == code, (argv, got, out, err)
        if code == 0:
            assert out, (argv, err)
        else:
            assert "error" in err and out == "", (argv, out, err)
        return out

    case = cases(objs, tmp_path)[path]
    if not isinstance(case, Case):
        case(lambda argv, code, stdin=None, api=True: run(argv, code=code, stdin=stdin, api_=api))
        return
    out = run(case.ok, code=0, stdin=case.ok_stdin, api_=case.api)
    assert ESC not in out
    if case.again:  # --json: every line is one JSON object
        out = run([*case.ok, "--json"], code=0, stdin=case.ok_stdin, api_=case.api)
        assert all(isinstance(json.loads(line), dict) for line in out.splitlines()), out
    fail = case.fail or case.ok
    run(fail, code=case.code, stdin=case.fail_stdin, api_=case.api, key=case.fail_key)


# ---------------------------------------------------------------- stdin, files, search paging


def test_dash_reads_stdin(
    emu: Emulator, client: Client, done_uuid: str, objs: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = main_(capsys, *api(emu), "--json", "scan", "-", stdin="https://stdin.example.com/\n")
    assert code == 0 and json.loads(out)["url"] == "https://stdin.example.com/"
    other = client.wait_for_result(json.loads(out)["uuid"], initial_wait=0).uuid
    # several uuids, one per line (blank lines and comments skipped), in order
    code, out, _ = main_(capsys, *api(emu), "--json", "result", "-", stdin=f"{done_uuid}\n\n# note\n{other}\n")
    assert code == 0 and [json.loads(line)["task"]["uuid"] for line in out.splitlines()] == [done_uuid, other]
    code, out, _ = main_(capsys, *api(emu), "--json", "dom", done_uuid, "-", stdin=f"{other}\n")
    assert code == 0 and [json.loads(line)["uuid"] for line in out.splitlines()] == [done_uuid, other]
    # a query: the whole of stdin
    code, out, _ = main_(capsys, *api(emu), "--json", "search", "-", stdin="page.domain:stdin.example.com\n")
    assert code == 0 and [json.loads(line)["_id"] for line in out.splitlines()] == [other]
    code, out, _ = main_(capsys, *api(emu), "--json", "response", "-", stdin=objs["sha"])
    assert code == 0 and "<html" in json.loads(out)["response"].lower()
    code, out, _ = main_(capsys, *api(emu), "--json", "incident", "get", "-", stdin=objs["incident"] + "\n")
    assert code == 0 and json.loads(out)["_id"] == objs["incident"]
    # one value expected
    code, _, err = main_(capsys, *api(emu), "scan", "-", stdin="https://a.example.com/\nhttps://b.example.com/\n")
    assert code == 2 and "expected one URL on stdin (for -), got 2 lines" in err
    code, _, err = main_(capsys, *api(emu), "channel", "get", "-", stdin="")
    assert code == 2 and "got nothing" in err
    code, _, err = main_(capsys, *api(emu), "livescan", "purge", "-", "-", stdin="de01\n")
    assert code == 2 and "only one argument can be read from stdin" in err


def test_several_uuids_report_each_failure(emu: Emulator, done_uuid: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = main_(capsys, *api(emu), "result", done_uuid, UNKNOWN_SCAN)
    assert code == 3 and out.startswith(f"Scan {done_uuid}") and f"{UNKNOWN_SCAN}: not found" in err


def test_screenshot_default_name(
    emu: Emulator, done_uuid: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = main_(capsys, *api(emu), "screenshot", done_uuid)
    png = tmp_path / f"{done_uuid}.png"
    assert code == 0 and png.read_bytes().startswith(b"\x89PNG")
    assert out == f"Saved the screenshot of {done_uuid} to {done_uuid}.png ({png.stat().st_size:,} bytes, PNG)\n"
    # several, into a directory
    (tmp_path / "shots").mkdir()
    code, out, _ = main_(capsys, *api(emu), "--json", "screenshot", done_uuid, done_uuid, "-o", "shots")
    assert code == 0 and [json.loads(line)["file"] for line in out.splitlines()] == [f"shots/{done_uuid}.png"] * 2
    code, _, err = main_(capsys, *api(emu), "screenshot", done_uuid, done_uuid, "-o", "one.png")
    assert code == 2 and "-o FILE takes one uuid" in err


def test_search_all_resume_and_count(emu: Emulator, client: Client, capsys: pytest.CaptureFixture[str]) -> None:
    every = [h.id for h in client.search("")]
    assert len(every) > 50  # the seeded scans and the ones these tests submitted
    code, out, _ = main_(capsys, *api(emu), "--json", "search", "", "--all", "--size", "7")
    assert code == 0 and [json.loads(line)["_id"] for line in out.splitlines()] == every
    # human: stops at --limit, prints the cursor; resuming from it gives the next hits
    code, out, err = main_(capsys, *api(emu), "search", "", "--limit", "10")
    cursor = err.split("--search-after ")[1].strip()
    assert code == 0 and [line.split()[-1] for line in out.splitlines()[1:11]] == every[:10]
    code, out, err = main_(capsys, *api(emu), "search", "", "--limit", "10", "--search-after", cursor)
    assert code == 0 and [line.split()[-1] for line in out.splitlines()[1:11]] == every[10:20]
    assert out.splitlines()[-1].startswith("10 hits")  # the total of the query is not that of the resumed walk
    # the end of the walk: no cursor
    code, out, err = main_(capsys, *api(emu), "search", "", "--all")
    assert code == 0 and err == "" and out.splitlines()[-1].startswith(f"{len(every)} of {len(every)} hits")
    # only the count: one request of size 0
    before = emu.stats()["requests"]
    code, out, _ = main_(capsys, *api(emu), "search", "", "--count")
    assert code == 0 and out == f"{len(every)}\n" and emu.stats()["requests"] == before + 1
    code, out, _ = main_(capsys, *api(emu), "--json", "search", "page.domain:www.example.com", "--count")
    assert json.loads(out) == {"total": client.search("page.domain:www.example.com").count(), "has_more": False}
    code, _, err = main_(capsys, *api(emu), "search", "", "--all", "--limit", "5")
    assert code == 2 and "not allowed with argument" in err


# ---------------------------------------------------------------- usage errors


def test_flag_typo_shows_the_subcommand_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = main_(capsys, "scan", "https://x.example.com/", "--visiblity", "public")
    assert code == 2 and out == ""
    assert err.startswith("usage: urlscan-rs scan ")
    assert "urlscan-rs scan: error: unrecognized arguments: --visiblity public; did you mean --visibility?" in err
    code, _, err = main_(capsys, "incident", "create", "x.example.com", "--visibility", "private", "--chanel", "c")
    assert code == 2 and err.startswith("usage: urlscan-rs incident create ") and "did you mean --channel?" in err
    code, _, err = main_(capsys, "serach", "x")
    assert code == 2 and err.startswith("usage: urlscan-rs [-h]") and "did you mean 'search'?" in err
    code, _, err = main_(capsys, "channel", "create", "--type", "webhok", "--name", "x")
    assert code == 2 and err.startswith("usage: urlscan-rs channel create") and "did you mean 'webhook'?" in err


def test_options_map_to_keywords(emu: Emulator, client: Client, objs: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["incident", "create", "login.example.net", "--visibility", "private", "--channel", objs["channel"]]
    argv += ["--country", "de", "--countries", "fr", "--watched-attribute", "dns", "--scan-interval", "3600"]
    argv += ["--extra-path", "/signin", "--scan-interval-mode", "manual"]
    code, out, err = main_(capsys, *api(emu), "--json", *argv)
    assert code == 0, err
    inc = client.incidents.get(json.loads(out)["_id"])
    assert inc.countries == ["de", "fr"] and inc.watched_attributes == ["dns"] and inc.scan_interval == 3600
    assert inc.extra_path == "/signin" and inc.scan_interval_mode == "manual" and inc.channels == [objs["channel"]]
    # booleans: --x / --no-x; an option not given is not sent
    code, out, _ = main_(
        capsys, *api(emu), "--json", "channel", "update", objs["channel"], "--no-is-active", "--week-day", "Monday"
    )
    ch = client.channels.get(objs["channel"])
    assert code == 0 and ch.is_active is False and ch.week_days == ["Monday"] and ch.name == "walk"
    code, out, _ = main_(capsys, *api(emu), "channel", "update", objs["channel"], "--is-active")
    assert code == 0 and client.channels.get(objs["channel"]).is_active is True and "Is active    yes" in out
    # the client's own checks: exit 2, naming the option
    code, _, err = main_(
        capsys, *api(emu), "saved-search", "create", "--datasource", "scans", "--name", "n", "--query", "q", "--user-tag", "x"
    )
    assert code == 2 and "user_tags must be prefixed" in err and "[option --user-tag]" in err and "nothing was sent" in err
    # headers: 'Name: value'
    code, out, err = main_(
        capsys, *api(emu), "--json", "livescan", "task", "de01", "https://h.example.com/", "--extra-header", "X-A: b"
    )
    assert code == 0 and len(json.loads(out)["uuid"]) == 36, err
    code, _, err = main_(capsys, *api(emu), "livescan", "task", "de01", "https://h.example.com/", "--extra-header", "nocolon")
    assert code == 2 and "expected 'Name: value'" in err


# ---------------------------------------------------------------- Ctrl-C


def test_ctrl_c_while_waiting_names_the_scan(
    emu: Emulator, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(Client, "wait_for_result", interrupted)
    code, out, err = main_(capsys, *api(emu), "scan", "https://ctrl-c.example.com/", "--wait")
    assert code == 130 and out == ""
    submitted, message = err.splitlines()
    uuid = submitted.split()[2]
    assert submitted == f"urlscan-rs: submitted {uuid} https://ctrl-c.example.com/; waiting for the result (up to 120s)"
    assert message == (
        f"urlscan-rs: error: interrupted; submitted: {uuid} https://ctrl-c.example.com/"
        f" (it may still finish: urlscan-rs result {uuid})"
    )


def test_ctrl_c_in_bulk_lists_what_was_submitted(
    emu: Emulator, client: Client, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    urls = "".join(f"https://bulk{i}.example.com/\n" for i in range(4))

    def update(self: ProgressBar, done: int, total: int | None = None) -> None:
        if done == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(ProgressBar, "update", update)
    code, out, err = main_(capsys, *api(emu), "bulk", "-", "--no-wait", "--concurrency", "1", stdin=urls)
    assert code == 130 and out == ""
    head, *rows = err.splitlines()
    assert head.startswith("urlscan-rs: error: interrupted; submitted 2 scans")
    assert [row.split()[1] for row in rows] == ["https://bulk0.example.com/", "https://bulk1.example.com/"]
    for row in rows:
        assert client.wait_for_result(row.split()[0], initial_wait=0).page.domain in row


def test_ctrl_c_while_bulk_waits(emu: Emulator, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from urlscan_rs import AsyncClient

    async def interrupted(self: AsyncClient, uuid: str) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(AsyncClient, "result", interrupted)
    code, out, err = main_(capsys, *api(emu), "bulk", "-", *POLL, stdin="https://wait.example.com/\n")
    assert code == 130 and out == ""
    assert err.startswith("urlscan-rs: error: interrupted; submitted: ") and "https://wait.example.com/" in err


# ---------------------------------------------------------------- the API key


def _key_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return _env(
        PYTHON_KEYRING_BACKEND="tests.file_keyring.FileKeyring",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        TEST_KEYRING_FILE=str(tmp_path / "subprocess-keyring.json"),
        **extra,
    )


@needs_keyring
def test_key_set_show_delete(emu: Emulator, tmp_path: Path) -> None:
    env = _key_env(tmp_path)
    key = emu.api_key
    out = run_cli("key", "show", env=env)
    assert out.returncode == 3 and "urlscan-rs key set" in out.stderr
    out = run_cli("key", "set", "-", input=key + "\n", env=env)
    assert (
        out.returncode == 0
        and out.stdout == f"Stored the API key {key[:4]}...{key[-4:]} in the system keyring (service urlscan-rs, user api-key)\n"
    )
    assert json.loads((tmp_path / "subprocess-keyring.json").read_text()) == {"urlscan-rs/api-key": key}
    out = run_cli("key", "show", env=env)
    assert (
        out.returncode == 0
        and out.stdout == f"{key[:4]}...{key[-4:]}  (from the system keyring (service urlscan-rs, user api-key))\n"
    )
    assert key not in out.stdout
    out = run_cli("--json", "key", "show", "--reveal", env=env)
    assert json.loads(out.stdout) == {
        "key": key,
        "source": "the system keyring (service urlscan-rs, user api-key)",
        "masked": False,
    }
    # every command uses it
    out = run_cli("--base-url", emu.url, "--json", "quotas", env=env)
    assert out.returncode == 0 and "limits" in json.loads(out.stdout)
    # the environment variable and --api-key take precedence
    env_first = {**env, "URLSCAN_API_KEY": UNKNOWN_KEY}
    out = run_cli("key", "show", env=env_first)
    assert out.stdout == f"{UNKNOWN_KEY[:4]}...{UNKNOWN_KEY[-4:]}  (from URLSCAN_API_KEY)\n"
    assert run_cli("--base-url", emu.url, "quotas", env=env_first).returncode == 4
    out = run_cli("--api-key", key, "key", "show", env=env_first)
    assert out.stdout.endswith("(from --api-key)\n")
    # piped without '-' reads stdin too; a key is never taken as an argument
    assert run_cli("key", "set", input=key + "\n", env=env).returncode == 0
    out = run_cli("key", "set", key, env=env)
    assert out.returncode == 2 and "not as an argument" in out.stderr
    assert run_cli("key", "set", input="\n", env=env).returncode == 2
    out = run_cli("key", "delete", env=env)
    assert out.returncode == 0 and "Deleted the API key" in out.stdout
    assert json.loads((tmp_path / "subprocess-keyring.json").read_text()) == {}
    out = run_cli("key", "delete", env=env)
    assert out.returncode == 3 and "no API key is stored" in out.stderr
    out = run_cli("--base-url", emu.url, "quotas", env=env)
    assert out.returncode == 4 and "urlscan-rs key set" in out.stderr


def test_key_without_the_keyring_package(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, emu: Emulator
) -> None:
    monkeypatch.setitem(sys.modules, "keyring", None)  # import keyring fails
    for argv in (["key", "set", "-"], ["key", "delete"], ["key", "show"]):
        code, out, err = main_(capsys, *argv, stdin="k" * 36)
        assert code == 2 and out == "" and "pip install 'urlscan-rs[keyring]'" in err, argv
    monkeypatch.setenv("URLSCAN_API_KEY", "k" * 36)
    code, out, _ = main_(capsys, "key", "show")
    assert code == 0 and out == "kkkk...kkkk  (from URLSCAN_API_KEY)\n"
    monkeypatch.delenv("URLSCAN_API_KEY")
    code, _, err = main_(capsys, "--base-url", emu.url, "quotas")  # no key anywhere: as before
    assert code == 4 and "set URLSCAN_API_KEY or pass --api-key" in err


# ---------------------------------------------------------------- the emulator in the background


def _kill_marked(marker: str) -> None:
    """Stop the processes started with this marker in their environment (Linux), e.g. an
    emulator left running by a failed test."""
    proc = Path("/proc")
    if not proc.is_dir():
        return
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if f"URLSCAN_TEST_MARKER={marker}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGTERM)
        except (OSError, ProcessLookupError):
            pass


@pytest.mark.skipif(sys.platform == "win32", reason="bash")
def test_emulator_background_eval() -> None:
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    script = (
        'eval "$(python3 -m urlscan_rs.cli emulator --background --port 0 --scans 20)"; '
        'echo "pid=$URLSCAN_EMULATOR_PID base=$URLSCAN_BASE_URL"; '
        "python3 -m urlscan_rs.cli quotas --json; "
        "python3 -m urlscan_rs.cli search '' --count; "
        "kill $URLSCAN_EMULATOR_PID"
    )
    env = _env(URLSCAN_TEST_MARKER=marker, PYTHONPATH=os.environ.get("PYTHONPATH", str(ROOT / "python")))
    t0 = time.monotonic()
    try:
        out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=10)
        assert out.returncode == 0, out.stderr
        first, quotas, count = out.stdout.splitlines()
        assert first.startswith("pid=") and "base=http://127.0.0.1:" in first
        assert "search" in json.loads(quotas)["limits"]  # the emulator's answer
        assert count == "20"  # the emulator's 20 seeded scans
        assert time.monotonic() - t0 < 10
    finally:
        _kill_marked(marker)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_emulator_background_output_and_stop(tmp_path: Path) -> None:
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    env = _env(URLSCAN_TEST_MARKER=marker)
    try:
        out = run_cli(
            "emulator", "--background", "--port", "0", "--scans", "5", "--log", str(tmp_path / "emu.log"), env=env, timeout=30
        )
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert [line.split("=")[0] for line in lines[:3]] == [
            "export URLSCAN_BASE_URL",
            "export URLSCAN_API_KEY",
            "export URLSCAN_EMULATOR_PID",
        ]
        values = dict(line.removeprefix("export ").split("=", 1) for line in lines[:3])
        pid = int(values["URLSCAN_EMULATOR_PID"])
        assert lines[3].startswith(f"# stop it with: kill {pid}") and len(lines) == 4
        with Client(values["URLSCAN_API_KEY"], base_url=values["URLSCAN_BASE_URL"]) as c:
            assert c.search("").count() == 5
        stop = run_cli("emulator", "--stop", env={**env, "URLSCAN_EMULATOR_PID": str(pid)})
        assert stop.returncode == 0 and stop.stdout.startswith("unset URLSCAN_BASE_URL URLSCAN_API_KEY URLSCAN_EMULATOR_PID\n")
        with Client(values["URLSCAN_API_KEY"], base_url=values["URLSCAN_BASE_URL"], max_retries=0, timeout=2) as c:
            for _ in range(100):  # the process is gone once its port refuses connections
                try:
                    c.quotas()
                except TransportError:
                    break
                time.sleep(0.05)
            else:
                raise AssertionError("the emulator still answers")
        again = run_cli("emulator", "--stop", "--pid", str(pid), env=env)
        assert again.returncode in (2, 3)  # gone (or, briefly, a zombie that is no emulator any more)
        assert run_cli("emulator", "--stop", env=env).returncode == 2  # nothing to stop
    finally:
        _kill_marked(marker)


def test_emulator_background_port_in_use(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        out = run_cli("emulator", "--background", "--port", str(s.getsockname()[1]), "--scans", "1", timeout=30)
    assert out.returncode == 2 and "the emulator did not start" in out.stderr and "in use" in out.stderr
    assert out.stdout == ""


def test_emulator_help_describes_every_option() -> None:
    parser = cli.leaf_commands()[("emulator",)]
    text = parser.format_help()
    for action in parser._actions:
        if action.option_strings and action.dest != "help":
            assert action.help, action.dest
            assert "(default:" in action.help or action.dest == "json", action.dest
    for default in ("127.0.0.1", "8000", "1000", "(default: 0)", "(default: 10)", "$URLSCAN_EMULATOR_PID"):
        assert default in text


def test_a_long_wait_says_so_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    # A spent quota surfaces at once in the command line (fail_fast); a retry the service asks
    # to come back to later (503 with Retry-After: 6) is waited for, and said so.
    with Emulator(scans=10, scan_duration=0) as emu:
        emu.inject("status", status=503, seconds=6, count=1, path="/api/v1/search/")
        assert cli.main(["search", "", "--count", "--base-url", emu.url, "--api-key", emu.api_key]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "10"
    assert "urlscan-rs: retrying GET /api/v1/search/ in 6.0s after HTTP 503 (retry 1 of 3)" in captured.err, captured.err


def test_request_calls_any_endpoint(capsys: pytest.CaptureFixture[str]) -> None:
    with Emulator(scans=10, scan_duration=0) as emu:
        base = ["--base-url", emu.url, "--api-key", emu.api_key]
        argv = ["request", "GET", "/api/v1/search/", "-p", "q=page.domain:*", "-p", "size=2", "--json", *base]
        assert cli.main(argv) == 0
        page = json.loads(capsys.readouterr().out)
        assert len(page["results"]) == 2 and page["total"] == 10
        assert cli.main(["request", "POST", "/api/v1/scan/", "-d", '{"url": "https://example.org/"}', "--json", *base]) == 0
        assert json.loads(capsys.readouterr().out)["url"] == "https://example.org/"
        assert cli.main(["request", "GET", "/api/v1/quotas", "-p", "novalue", *base]) == 2
        assert "--param takes KEY=VALUE" in capsys.readouterr().err
        assert cli.main(["request", "POST", "/api/v1/scan/", "-d", "{nope", *base]) == 2
        assert "--data is not JSON" in capsys.readouterr().err
        assert cli.main(["request", "GET", "//evil.example/x", *base]) == 2
        assert "must not name a host" in capsys.readouterr().err


def test_an_odd_value_in_a_column_not_shown_costs_no_table() -> None:
    """The hit table decodes the columns it shows: a hit's wrong-typed field elsewhere is no error."""
    from .loopback import serve

    uuid = "00000000-0000-4000-8000-0000000000aa"
    task = {"time": "2026-11-20T10:00:00.000Z", "uuid": uuid, "url": "https://a.example/", "tags": "not a list"}
    hit = {"_id": uuid, "sort": [1, uuid], "task": task, "page": {"domain": "a.example", "status": 200, "asn": 12}}

    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        return 200, {"results": [hit], "total": 1, "has_more": False}

    with serve(answer) as served:
        out = run_cli("--base-url", served.url, "--api-key", UNKNOWN_KEY, "search", "", "--limit", "1")
    assert out.returncode == 0, out.stderr
    assert "a.example" in out.stdout and uuid in out.stdout

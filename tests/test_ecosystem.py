"""Notebooks, logging, pickling, processes and the pytest plugin."""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client
from urlscan_rs.models import Screenshot
from urlscan_rs.testing import Emulator

from .conftest import finished_scan


def test_notebook_display(emu: Emulator, client: Client) -> None:
    it = client.search("", size=7)
    html = it._repr_html_()
    assert html.count("<tr>") == 8 and "report</a>" in html and "screenshot</a>" in html
    first = next(it)  # displaying did not consume anything
    assert first.id in html
    r = client.result(first.id)
    assert r.page.domain in r._repr_html_() and "<table" in first._repr_html_()
    shot = client.screenshot(first.id)
    assert isinstance(shot, Screenshot) and isinstance(shot, bytes) and shot._repr_png_().startswith(b"\x89PNG")
    assert pickle.loads(pickle.dumps(shot)) == shot


def test_records_and_pandas(client: Client) -> None:
    recs = client.search("", size=50, limit=120).to_records()
    assert len(recs) == 120 and {"uuid", "time", "domain", "ip", "country", "score", "malicious"} <= set(recs[0])
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            client.search("", limit=5).to_pandas()
    else:
        assert len(client.search("", limit=5).to_pandas()) == 5


def test_logging_reaches_python_without_secrets(emu: Emulator, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="urlscan_rs"):
        c = emu.client()
        c.quotas()
        c.search("", limit=1).count()
    records = [r for r in caplog.records if r.name.startswith("urlscan_rs")]
    assert any("GET /api/v1/quotas -> 200" in r.getMessage() for r in records)
    assert all(emu.api_key not in r.getMessage() for r in caplog.records)


def test_clients_pickle_without_their_key(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    c = emu.client(timeout=12.5)
    data = pickle.dumps(c)
    assert emu.api_key.encode() not in data  # a pickle never holds the key
    monkeypatch.setenv("URLSCAN_API_KEY", emu.api_key)  # where it is unpickled, the key comes from here
    c2 = pickle.loads(data)
    assert type(c2) is Client and c2.base_url == c.base_url and c2.timeout == 12.5
    assert c2.user().username == "analyst"
    adata = pickle.dumps(emu.async_client())
    assert emu.api_key.encode() not in adata
    ac = pickle.loads(adata)
    assert type(ac) is AsyncClient
    assert emu.api_key not in repr(c2)
    # Without a key in the environment or the keyring, unpickling says where to put it.
    monkeypatch.delenv("URLSCAN_API_KEY")
    monkeypatch.setitem(sys.modules, "keyring", None)  # no keyring package
    with pytest.raises(urlscan_rs.ValidationError, match="URLSCAN_API_KEY"):
        pickle.loads(data)
    # A client made without a key unpickles without one.
    anon = pickle.loads(pickle.dumps(Client(None, base_url=emu.url)))
    assert anon._core.has_api_key is False


def _domains(args: tuple[Client, str]) -> tuple[str, urlscan_rs.ScanResult]:
    client, uuid = args
    r = client.result(uuid)
    return str(r.uuid), r


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_process_pool(emu: Emulator, client: Client, method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("URLSCAN_API_KEY", emu.api_key)  # the workers' clients take the key from here
    uuids = [h.id for h in client.search("", limit=6)]
    with ProcessPoolExecutor(max_workers=2, mp_context=mp.get_context(method)) as pool:
        out = list(pool.map(_domains, [(client, u) for u in uuids]))
    assert [u for u, _ in out] == uuids
    assert out[0][1] == client.result(uuids[0])  # results cross processes intact


def test_client_used_across_fork_fails_clearly(emu: Emulator, client: Client) -> None:
    client.quotas()  # the parent's runtime and connections exist
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's client refuses, a new one works
        code = 0
        try:
            try:
                client.quotas()
                code = 1
            except urlscan_rs.TransportError as e:
                code = 0 if "fork" in str(e) else 2
            if code == 0 and Client(emu.api_key, base_url=emu.url).user().username != "analyst":
                code = 3
        except BaseException:
            code = 4
        os.write(w, bytes([code]))
        os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    assert got == b"\x00"


def test_users_own_pytest_file(tmp_path: Path) -> None:
    # A user's test file with the plugin's fixtures: no network, no API key.
    (tmp_path / "test_user.py").write_text(
        textwrap.dedent(
            """
            import asyncio
            import pytest

            @pytest.mark.urlscan_emulator(scans=30, scan_duration=0)
            def test_sync(urlscan_client, urlscan_emulator):
                sub = urlscan_client.scan("https://example.com/")
                assert urlscan_client.wait_for_result(sub.uuid, initial_wait=0).page.domain == "example.com"
                assert urlscan_client.search("").count() == 31

            @pytest.mark.urlscan_emulator(scans=10, key="free")
            def test_free_key(urlscan_client):
                assert urlscan_client.user().products == []

            def test_async(urlscan_async_client):
                async def main():
                    return await urlscan_async_client.quotas()
                assert asyncio.run(main()).scope == "team"

            def test_isolated(urlscan_emulator):
                assert urlscan_emulator.stats()["submissions"] == 0
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("URLSCAN_")}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 passed" in out.stdout


def test_stubs_match_the_module() -> None:
    # No skip when mypy is missing: the test extra installs it, and CI relies on this test.
    allowlist = Path(__file__).parent / "stubtest_allowlist.txt"
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "urlscan_rs", "--allowlist", str(allowlist)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_code_behind_the_stubs_calls_the_native_client_as_its_stub_says(tmp_path: Path) -> None:
    """mypy reads a module's stub instead of its code: the clients and namespaces, which call the
    native methods by reference (``_call(_N.scan, ...)``), are checked here without their stubs,
    against ``_native.pyi``."""
    package = Path(urlscan_rs.__file__).parent
    copy = tmp_path / "urlscan_rs"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    for stub in ("_client.pyi", "_namespaces.pyi"):
        (copy / stub).unlink()
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-version", "3.10", "urlscan_rs"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_finished_scan_helper_advances(fresh: Emulator) -> None:
    uuid = finished_scan(fresh, fresh.client())
    assert fresh.client().result(uuid).uuid == uuid

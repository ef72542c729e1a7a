"""The pytest plugin as a user meets it: a test file of their own, run by pytest in a fresh
directory with only this package installed (async tests included, no async plugin asked for)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

USER_TESTS = """
import pytest

@pytest.mark.urlscan_emulator(scans=20, scan_duration=0)
async def test_async_scan(urlscan_async_client, urlscan_emulator):
    result = await urlscan_async_client.scan_and_wait("https://example.com/", initial_wait=0, interval=0.1)
    assert result.page.domain == "example.com"
    hits = [hit async for hit in urlscan_async_client.search("page.domain:example.com", limit=5)]
    assert hits

async def test_async_quotas(urlscan_async_client):
    assert (await urlscan_async_client.quotas()).limits

@pytest.mark.urlscan_emulator(scans=5, key="free")
def test_sync_user(urlscan_client):
    assert urlscan_client.user().username

@pytest.mark.urlscan_webhook(fail_first=1)
async def test_async_webhook(urlscan_webhook):
    assert urlscan_webhook.url.startswith("http://127.0.0.1:")
"""


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_async_tests_with_the_fixtures_run_out_of_the_box(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    out = _pytest(tmp_path, "-q")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 passed" in out.stdout and "warning" not in out.stdout.lower(), out.stdout


def test_a_failing_async_test_fails(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(
        "async def test_no(urlscan_async_client):\n    assert (await urlscan_async_client.quotas()) is None\n"
    )
    out = _pytest(tmp_path, "-q")
    assert out.returncode == 1 and "1 failed" in out.stdout, out.stdout


def test_marker_options_are_checked(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.urlscan_emulator(scnas=5)
            def test_typo(urlscan_client):
                pass

            @pytest.mark.urlscan_emulator(scans="5")
            def test_type(urlscan_client):
                pass

            @pytest.mark.urlscan_emulator(key="gold")
            def test_key(urlscan_client):
                pass
            """
        )
    )
    out = _pytest(tmp_path, "-q")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert "unknown option 'scnas'; did you mean 'scans'?" in text, text
    assert "scans must be int, got str '5'" in text, text
    assert "key must be one of premium, team, readonly, free, other, got 'gold'" in text, text


def test_every_fixture_has_a_docstring(tmp_path: Path) -> None:
    out = _pytest(tmp_path, "--fixtures", "-q")
    text = out.stdout
    for name in ("urlscan_emulator", "urlscan_client", "urlscan_async_client", "urlscan_webhook"):
        assert name in text, text
        block = text.split(name, 1)[1].split("\n\n", 1)[0]
        assert "no docstring available" not in block, block

"""A scan's artifacts in one call: client.save, bulk_scan(save_to=) and scan --wait -o DIR,
sync and async, against the emulator."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from urlscan_rs import ScanResult
from urlscan_rs.errors import NotFoundError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import emulator
from .test_cli import POLL, run_cli

emu = emulator(scans=50, seed=8)


def _finished(emu: Emulator) -> str:
    with emu.client() as c:
        return str(next(iter(c.search("", limit=1))).id)


def test_save_writes_the_result_as_served_the_screenshot_and_the_dom(
    emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uuid = _finished(emu)
    with emu.client() as c:
        paths = c.save(uuid, tmp_path / "new")
        assert paths == {k: tmp_path / "new" / f"{uuid}{s}" for k, s in (("json", ".json"), ("png", ".png"), ("dom", ".html"))}
        assert paths["json"].read_bytes() == c.with_raw_response.result(uuid).content  # byte for byte
        assert ScanResult(json.loads(paths["json"].read_text())).uuid == uuid
        assert paths["png"].read_bytes() == bytes(c.screenshot(uuid)) and paths["png"].read_bytes().startswith(b"\x89PNG")
        assert paths["dom"].read_text() == c.dom(uuid)
        only = c.save(uuid, tmp_path / "some", what=["png"])
        assert list(only) == ["png"] and [p.name for p in (tmp_path / "some").iterdir()] == [f"{uuid}.png"]
        with pytest.raises(ValidationError, match="what"):
            c.save(uuid, tmp_path, what=["pdf"])
        with pytest.raises(ValidationError, match="uuid"):
            c.save("../x", tmp_path)

        # Nothing is written unless everything asked for was fetched: the result is, the DOM is not.
        def no_dom(self: object, uuid: str) -> str:
            raise NotFoundError("no DOM", status=404)

        monkeypatch.setattr(type(c), "dom", no_dom)
        with pytest.raises(NotFoundError):
            c.save(uuid, tmp_path / "none")
        assert not (tmp_path / "none").exists() or list((tmp_path / "none").iterdir()) == []
        assert c.save(uuid.upper(), tmp_path / "upper", what="json") == {"json": tmp_path / "upper" / f"{uuid}.json"}


def test_save_async(emu: Emulator, tmp_path: Path) -> None:
    uuid = _finished(emu)

    async def main() -> dict[str, Path]:
        async with emu.async_client() as c:
            return await c.save(uuid, tmp_path)

    paths = asyncio.run(main())
    assert sorted(p.name for p in paths.values()) == sorted(f"{uuid}{s}" for s in (".json", ".png", ".html"))
    assert all(p.stat().st_size > 0 for p in paths.values())


def test_bulk_scan_saves_each_finished_scan(emu: Emulator, tmp_path: Path) -> None:
    urls = ["https://a.example.com/", "https://x.invalid/", "https://b.example.com/"]
    with emu.client() as c:
        outcomes = c.bulk_scan(urls, save_to=tmp_path, **dict(initial_wait=0.2, interval=0.2))
        done = [o for o in outcomes if o.ok]
        assert [o.url for o in done] == [urls[0], urls[2]] and not outcomes[1].ok
        names = sorted(p.name for p in tmp_path.iterdir())
        assert names == sorted(f"{o.result.uuid}{s}" for o in done if o.result for s in (".json", ".png", ".html"))
        with pytest.raises(ValidationError, match="needs wait"):
            c.bulk_scan(urls, wait=False, save_to=tmp_path)

    async def main() -> list[bool]:
        async with emu.async_client() as c:
            return [o.ok for o in await c.bulk_scan(urls[:1], save_to=tmp_path / "async", initial_wait=0.2, interval=0.2)]

    assert asyncio.run(main()) == [True]
    assert len(list((tmp_path / "async").iterdir())) == 3


def test_scan_wait_saves_into_a_folder(emu: Emulator, tmp_path: Path) -> None:
    out = run_cli("--json", "scan", "https://c.example.com/", "--wait", *POLL, "-o", str(tmp_path / "art"), emu=emu)
    assert out.returncode == 0, out.stderr
    uuid = json.loads(out.stdout)["task"]["uuid"]
    assert sorted(p.name for p in (tmp_path / "art").iterdir()) == sorted(f"{uuid}{s}" for s in (".json", ".html", ".png"))
    assert "saved " in out.stderr
    bad = run_cli("scan", "https://c.example.com/", "-o", str(tmp_path), emu=emu)
    assert bad.returncode == 2 and "add --wait" in bad.stderr

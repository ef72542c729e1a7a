"""The reference connectors in ``examples/connectors/`` run against the emulator, each inside its
framework where that framework installs from PyPI: the MISP module under the misp-modules server,
the Cortex analyzer as Cortex runs it (a job folder, or the job on stdin), the OpenCTI enrichment's
bundle read strictly by stix2 (pycti needs a running platform), and the feed importer twice.

A new scan waits ``INITIAL_WAIT`` before its first poll (10 s, the service's advice): the tests set
it to 0 where they load a connector, and scan the URL first where they start one in a process
(which then reuses that scan).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import stix2
from pymisp import MISPEvent

from urlscan_rs import AsyncClient
from urlscan_rs.testing import Emulator

from .conftest import emulator, run

CONNECTORS = Path(__file__).resolve().parent.parent / "examples" / "connectors"
FAST: dict[str, Any] = {"initial_wait": 0, "interval": 0.05, "timeout": 30}
PHISH = "https://paypal-secure-login.example-verify.net/signin"
YEAR = 366 * 86400  # a look-back that holds every seeded scan

quick = emulator("function", scans=20, scan_duration=0.0, seed=3)


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"connectors_{name}", CONNECTORS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


misp_module = load("misp_module")
cortex_analyzer = load("cortex_analyzer")
opencti_enrichment = load("opencti_enrichment")
feed_importer = load("feed_importer")


@pytest.fixture(autouse=True)
def no_first_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (misp_module, cortex_analyzer, opencti_enrichment):
        monkeypatch.setattr(module, "INITIAL_WAIT", 0.0)
        monkeypatch.setattr(module, "INTERVAL", 0.05)


def submissions(e: Emulator) -> int:
    return e.stats()["submissions"]


def script(name: str, *args: str, e: Emulator, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python examples/connectors/<name>.py ARGS`` with the emulator's key and address in the environment."""
    env = {**os.environ, "URLSCAN_API_KEY": e.api_key, "URLSCAN_BASE_URL": e.url}
    cmd = [sys.executable, str(CONNECTORS / f"{name}.py"), *args]
    return subprocess.run(cmd, input=stdin or "", env=env, capture_output=True, text=True, timeout=120)


def script_on_phish(name: str, e: Emulator) -> Any:
    """The JSON a connector prints when run as a script on ``PHISH``, scanned first so that
    it reuses that scan; the script must succeed."""
    with e.client() as c:
        c.lookup_or_scan(PHISH, **FAST)
    out = script(name, PHISH, e=e)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# ---------------------------------------------------------------- MISP expansion module


def query(e: Emulator, value: str, kind: str = "url", **config: Any) -> dict[str, Any]:
    """What MISP posts to the module for one attribute (a fresh attribute uuid each time)."""
    attribute = {"type": kind, "value": value, "uuid": str(uuid.uuid4())}
    return {"module": "urlscan_rs_lookup", "attribute": attribute, "config": {"apikey": e.api_key, **config}}


def expand(q: dict[str, Any]) -> dict[str, Any]:
    answer = misp_module.handler(json.dumps(q))
    assert isinstance(answer, dict)
    return answer


def test_the_misp_module_keeps_the_misp_modules_contract() -> None:
    assert misp_module.introspection() == {"input": ["url", "link", "domain", "hostname"], "format": "misp_standard"}
    meta = misp_module.version()
    assert meta["config"] == ["apikey", "max_age", "visibility", "cache_dir"] and "expansion" in meta["module-type"]
    assert {"name", "description", "version", "input", "output"} <= set(meta)
    assert misp_module.handler() is False and misp_module.handler(False) is False


def test_misp_expansion_scans_once_then_reuses(quick: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("URLSCAN_BASE_URL", quick.url)
    q = query(quick, PHISH)
    first = expand(q)["results"]
    assert submissions(quick) == 1
    source, link, note = first["Attribute"]
    # The attribute expanded comes back with the verdict as a tag; every object refers to it.
    assert source["uuid"] == q["attribute"]["uuid"] and source["Tag"] == [{"name": 'urlscan:verdict="malicious"'}]
    assert link["type"] == "link" and "/result/" in link["value"]
    assert note["value"].startswith("urlscan.io made a new scan of ") and "page ok; malicious (score" in note["value"]
    objects = first["Object"]
    assert {o["name"] for o in objects} >= {"url", "domain-ip"}
    assert all(r["referenced_uuid"] == source["uuid"] for o in objects for r in o["ObjectReference"][-1:])
    urls = [a["value"] for o in objects if o["name"] == "url" for a in o["Attribute"]]
    assert urls[0] == PHISH
    event = MISPEvent()
    event.from_dict(info="an event", **first)  # what MISP adds the answer to
    assert len(event.objects) == len(objects) and event.attributes[0].value == PHISH

    again = expand(query(quick, PHISH.replace("https", "hxxps").replace(".example", "[.]example")))["results"]
    assert submissions(quick) == 1  # searched, found, reused: nothing submitted
    assert again["Attribute"][2]["value"].startswith("urlscan.io reused the scan of ")
    assert [o["Attribute"] for o in again["Object"]] == [o["Attribute"] for o in objects]
    # A domain attribute is its home page: a new URL, a new scan.
    assert "results" in expand(query(quick, "www.example.com", kind="domain"))
    assert submissions(quick) == 2


def test_misp_expansion_says_when_the_page_did_not_load(quick: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("URLSCAN_BASE_URL", quick.url)
    results = expand(query(quick, "https://unreachable.example.org/"))["results"]
    source, _, note = results["Attribute"]
    assert "page unreachable (net::ERR_CONNECTION_REFUSED)" in note["value"]
    assert source["Tag"] == []  # no verdict tag for a page never seen
    # A page that failed is scanned again next time (a new scan may reach it).
    expand(query(quick, "https://unreachable.example.org/"))
    assert submissions(quick) == 2


def test_misp_expansion_errors(quick: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("URLSCAN_BASE_URL", quick.url)
    assert expand(query(quick, PHISH, apikey="")) == {"error": "The urlscan.io API key is missing (module setting apikey)."}
    for bad in (query(quick, "198.51.100.7", kind="ip-src"), query(quick, ""), {"config": {"apikey": "k"}}):
        assert "An attribute with a uuid and a value" in expand(bad)["error"]
    no_uuid = query(quick, PHISH)
    del no_uuid["attribute"]["uuid"]
    assert "error" in expand(no_uuid)
    assert "blacklist" in expand(query(quick, "https://blocked.example.org/"))["error"]
    assert "Could not resolve" in expand(query(quick, "https://nowhere.invalid/"))["error"]
    assert "a day" in expand(query(quick, PHISH, max_age="a day"))["error"]
    assert set(expand(query(quick, PHISH, visibility="everyone"))) == {"error"}
    assert submissions(quick) == 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_misp_modules_server_serves_the_module(quick: Emulator, tmp_path: Path) -> None:
    # Installed as misp-modules' custom modules are: <root>/expansion/<name>.py.
    (tmp_path / "expansion").mkdir()
    shutil.copy(CONNECTORS / "misp_module.py", tmp_path / "expansion" / "urlscan_rs_lookup.py")
    with quick.client() as c:
        scan = c.lookup_or_scan(PHISH, **FAST)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "misp_modules", "-l", "127.0.0.1", "-p", str(port), "-c", str(tmp_path)],
        env={**os.environ, "URLSCAN_BASE_URL": quick.url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthcheck", timeout=5) as r:
                    assert json.load(r) == {"status": True}
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None and time.monotonic() < deadline, "misp-modules did not start"
                time.sleep(0.2)
        with urllib.request.urlopen(f"{base}/modules", timeout=30) as r:
            listed = {m["name"]: m for m in json.load(r)}
        ours = listed["urlscan_rs_lookup"]
        assert ours["type"] == "expansion" and ours["mispattributes"]["format"] == "misp_standard"
        assert ours["meta"]["config"] == misp_module.moduleconfig
        body = json.dumps(query(quick, PHISH)).encode()
        req = urllib.request.Request(f"{base}/query", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            answer = json.load(r)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert answer["results"]["Attribute"][2]["value"].startswith("urlscan.io reused the scan of ")
    assert any(scan.uuid in a["value"] for a in answer["results"]["Attribute"] if a["type"] == "link")
    assert submissions(quick) == 1


def test_the_misp_module_runs_as_a_script(quick: Emulator) -> None:
    assert script_on_phish("misp_module", quick)["results"]["Attribute"][0]["value"] == PHISH
    assert script("misp_module", "https://blocked.example.org/", e=quick).returncode == 1


# ---------------------------------------------------------------- Cortex analyzer


def job(folder: Path, kind: str, data: str, **config: Any) -> Path:
    """A Cortex job folder: input/input.json as Cortex writes it."""
    (folder / "input").mkdir(parents=True)
    payload = {"dataType": kind, "data": data, "tlp": 2, "pap": 2, "config": {"max_tlp": 2, **config}}
    (folder / "input" / "input.json").write_text(json.dumps(payload))
    return folder


def output(folder: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((folder / "output" / "output.json").read_text())
    return report


def test_the_cortex_analyzer_in_a_job_folder(quick: Emulator, tmp_path: Path) -> None:
    with quick.client() as c:
        result = c.lookup_or_scan(PHISH, **FAST).result
    folder = job(tmp_path / "job", "url", PHISH, key=quick.api_key)
    out = script("cortex_analyzer", str(folder), e=quick)
    assert out.returncode == 0 and out.stdout == "", out.stderr
    report = output(folder)
    assert report["success"] is True and report["operations"] == []
    verdict = {"level": "malicious", "namespace": "urlscan.io", "predicate": "Verdict", "value": f"score {result.verdict.score}"}
    assert report["summary"] == {"taxonomies": [verdict]}
    full = report["full"]
    assert full["reused"] is True and full["uuid"] == result.uuid and full["page_outcome"] == "ok"
    assert full["verdict"]["malicious"] is True and full["report"].endswith(f"/result/{result.uuid}/")
    artifacts = {(a["dataType"], a["data"]) for a in report["artifacts"]}
    ind = result.indicators()
    assert ("domain", "www.paypalobjects.com") in artifacts and ("ip", result.page.ip) in artifacts
    assert {("hash", h) for h in ind.hashes} <= artifacts
    assert ("url", PHISH) not in artifacts  # the observable itself
    assert submissions(quick) == 1


def test_the_cortex_analyzer_searches_other_observables_on_stdin(quick: Emulator) -> None:
    with quick.client() as c:
        result = c.lookup_or_scan(PHISH, **FAST).result
    for kind, value in (
        ("domain", "paypal-secure-login.example-verify.net"),
        ("ip", result.page.ip),
        ("hash", result.indicators().hashes[0]),
    ):
        out = script("cortex_analyzer", stdin=json.dumps({"dataType": kind, "data": value, "config": {}}), e=quick)
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        full = report["full"]
        assert full["type"] == kind and full["malicious"] >= 1 and result.uuid in {h["uuid"] for h in full["hits"]}
        [taxonomy] = report["summary"]["taxonomies"]
        assert taxonomy["level"] == "malicious" and taxonomy["predicate"] == "Search"
        assert taxonomy["value"] == f"{full['malicious']}/{full['total']}"
        assert ("url", PHISH) in {(a["dataType"], a["data"]) for a in report["artifacts"]}
    out = script("cortex_analyzer", stdin=json.dumps({"dataType": "mail", "data": "a@example.com", "config": {}}), e=quick)
    assert out.returncode == 1 and json.loads(out.stdout)["errorMessage"] == "This datatype is not supported by this analyzer."


def test_the_cortex_analyzer_scans_a_new_url_in_process(quick: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("URLSCAN_BASE_URL", quick.url)
    folder = job(tmp_path / "new", "url", "https://unreachable.example.org/", key=quick.api_key)
    cortex_analyzer.UrlscanAnalyzer(job_directory=str(folder)).run()
    report = output(folder)
    assert report["full"]["reused"] is False and report["full"]["page_error"] == "net::ERR_CONNECTION_REFUSED"
    assert report["summary"]["taxonomies"] == [
        {"level": "info", "namespace": "urlscan.io", "predicate": "Verdict", "value": "score 0"},
        {"level": "info", "namespace": "urlscan.io", "predicate": "Page", "value": "unreachable"},
    ]
    # A page that loaded and was found clean is "safe".
    folder = job(tmp_path / "clean", "url", "https://www.example.com/", key=quick.api_key)
    cortex_analyzer.UrlscanAnalyzer(job_directory=str(folder)).run()
    [verdict] = output(folder)["summary"]["taxonomies"]
    assert verdict["level"] == "safe" and verdict["predicate"] == "Verdict"
    assert submissions(quick) == 2
    # A refused scan is the job's error, with the key taken out of the input it echoes.
    folder = job(tmp_path / "refused", "url", "https://blocked.example.org/", key=quick.api_key)
    with pytest.raises(SystemExit) as stop:
        cortex_analyzer.UrlscanAnalyzer(job_directory=str(folder)).run()
    assert stop.value.code == 1
    report = output(folder)
    assert report["success"] is False and "blacklist" in report["errorMessage"]
    assert report["input"]["config"]["key"] == "REMOVED"


# ---------------------------------------------------------------- OpenCTI enrichment


def check_bundle(bundle: dict[str, Any], entity: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """The bundle parsed strictly; its relationships by kind, as (source type, target type)."""
    parsed = stix2.parse(bundle, allow_custom=False)
    ids = [o.id for o in parsed.objects]
    assert len(ids) == len(set(ids)) and ids.count(entity["id"]) == 1
    edges: dict[str, list[tuple[str, str]]] = {}
    for o in parsed.objects:
        if o.type == "relationship":
            assert o.source_ref in ids and o.target_ref in ids
            edges.setdefault(o.relationship_type, []).append((o.source_ref.split("--")[0], o.target_ref.split("--")[0]))
    return edges


def test_the_opencti_enrichment_bundle(quick: Emulator) -> None:
    entity = opencti_enrichment.url_observable(PHISH)
    assert entity["id"] == stix2.URL(value=PHISH).id  # the id OpenCTI gives the observable
    with quick.client() as c:
        bundle = opencti_enrichment.enrich(c, entity)
        result = c.lookup_or_scan(PHISH, **FAST).result
    edges = check_bundle(bundle, entity)
    assert set(edges) == {"resolves-to", "belongs-to", "related-to", "based-on"}
    ip = {"ipv4-addr", "ipv6-addr"}  # the page's address may be either
    assert set(edges["resolves-to"]) <= {("domain-name", t) for t in ip}
    assert set(edges["belongs-to"]) <= {(s, "autonomous-system") for s in ip}
    [(_, domain), (_, address)] = sorted(edges["related-to"])
    assert domain == "domain-name" and address in ip
    assert sorted(edges["based-on"]) == [("indicator", "observed-data"), ("indicator", "url")]
    by_id = {o["id"]: o for o in bundle["objects"]}
    related = {by_id[o["target_ref"]]["value"] for o in bundle["objects"] if o.get("relationship_type") == "related-to"}
    assert related == {result.page.domain, result.page.ip}
    assert result.page.asn in {f"AS{o['number']}" for o in bundle["objects"] if o["type"] == "autonomous-system"}
    [indicator] = [o for o in bundle["objects"] if o["type"] == "indicator"]
    assert indicator["pattern"] == f"[url:value = '{PHISH}']"
    assert submissions(quick) == 1


def test_the_opencti_enrichment_of_a_clean_page_from_an_async_client(quick: Emulator) -> None:
    url = "https://www.example.com/"
    entity = opencti_enrichment.url_observable(url)

    async def lookup() -> Any:
        client = AsyncClient(quick.api_key, base_url=quick.url)
        try:
            return (await client.lookup_or_scan(url, **FAST)).result
        finally:
            client.close()

    bundle = opencti_enrichment.bundle_for(run(lookup()), entity)
    edges = check_bundle(bundle, entity)
    assert "based-on" not in edges and not [o for o in bundle["objects"] if o["type"] == "indicator"]
    assert ("url", "domain-name") in edges["related-to"]
    # The same scan gives the same bundle, ids included, however it was fetched.
    with quick.client() as c:
        assert opencti_enrichment.enrich(c, entity) == bundle
    assert submissions(quick) == 1


def test_the_opencti_enrichment_runs_as_a_script(quick: Emulator) -> None:
    check_bundle(script_on_phish("opencti_enrichment", quick), opencti_enrichment.url_observable(PHISH))


# ---------------------------------------------------------------- feed importer


def bundles(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.stix.json"))]


def test_the_feed_importer_imports_each_hit_once(quick: Emulator, tmp_path: Path) -> None:
    with quick.client() as c:
        feed = list(c.phishfeed())
        assert len(feed) >= 2
        known_good = feed[0].page.domain
        assert known_good is not None
        allow = (*feed_importer.BENIGN, known_good)
        first = feed_importer.import_once(c, tmp_path, allow=allow, lookback=YEAR)
        assert {h.uuid for h in first.new} == {h.uuid for h in feed[1:]} and first.filtered == 1
        again = feed_importer.import_once(c, tmp_path, allow=allow, lookback=YEAR)
        assert again.new == [] and again.files == [] and again.skipped == len(feed) - 1
        # A new phishing page: the next run imports it alone.
        c.lookup_or_scan("https://paypal-login.web.app/signin", **FAST)
        third = feed_importer.import_once(c, tmp_path, allow=allow, lookback=YEAR)
        assert [h.task.url for h in third.new] == ["https://paypal-login.web.app/signin"]
    written = bundles(tmp_path)
    assert len(written) == 2
    for b in written:
        stix2.parse(b, allow_custom=False)
    patterns = [o["pattern"] for b in written for o in b["objects"] if o["type"] == "indicator"]
    assert len(patterns) == len(set(patterns)) == len(feed)  # each hit once; the allowlisted one never
    assert not [p for p in patterns if known_good in p]


def test_the_feed_importer_runs_as_a_script_twice(quick: Emulator, tmp_path: Path) -> None:
    hours = str(YEAR // 3600)
    first = script("feed_importer", str(tmp_path), "--lookback", hours, e=quick)
    assert first.returncode == 0, first.stderr
    assert " new to phishfeed-" in first.stdout and "\n  import " in first.stdout
    second = script("feed_importer", str(tmp_path), "--lookback", hours, e=quick)
    assert second.returncode == 0, second.stderr
    assert "phishfeed: 0 new, " in second.stdout and "import" not in second.stdout
    assert len(bundles(tmp_path)) == 1
    failed = script("feed_importer", str(tmp_path), "--lookback", str(10 * YEAR), e=quick)
    assert failed.returncode == 1 and "failed: lookback must be" in failed.stderr


# ---------------------------------------------------------------- the docs


def test_the_docs_show_what_the_connectors_hold() -> None:
    """Each excerpt on the Connectors page (a block that starts with the file's name) is made of
    the file's own lines ("..." for what it leaves out), so the page cannot drift from the code."""
    page = (CONNECTORS.parent.parent / "docs" / "reference" / "connectors.md").read_text(encoding="utf-8")
    section = page[page.index("## Reference connectors") :]
    blocks = [b.split("```", 1)[0] for b in section.split("```python\n")[1:]]
    shown = set()
    for block in blocks:
        head, *lines = block.splitlines()
        name = head.removeprefix("# examples/connectors/")
        assert head.startswith("# examples/connectors/") and (CONNECTORS / name).is_file(), head
        own = {line.strip() for line in (CONNECTORS / name).read_text(encoding="utf-8").splitlines()}
        assert [line for line in lines if line.strip() not in own | {"..."}] == [], name
        shown.add(name)
    assert shown == {p.name for p in CONNECTORS.glob("*.py")}

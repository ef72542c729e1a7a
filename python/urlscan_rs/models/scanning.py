"""Scans (submissions, results and their parts, search hits of scans) and the account: quotas,
user and team, screenshots, scan outcomes."""

from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .._relations import Relationship
from ._base import _CONVERTER_TYPES, Model, _datetime, _field, _flag, _float, _int, _list, _model, _safe_repr, _Tabled

if TYPE_CHECKING:
    from ..playbook import Indicators, VerdictSummary
    from .premium import MaliciousObservable

# ---------------------------------------------------------------- scanning


class Submission(Model):
    """The answer to a scan submission (``scan()``).

    ``uuid`` names the scan; ``result`` is the address of its report page and
    ``api`` that of its result document.
    """

    __slots__ = ()
    uuid: str = _field("uuid")
    """The scan's UUID (the API's ``scanId``). Wire: ``uuid``."""
    visibility: str | None = _field("visibility")
    """The visibility determined: ``public``, ``unlisted`` or ``private`` (maybe not the one asked for). Wire: ``visibility``."""
    url: str | None = _field("url")
    """The URL the service determined to scan. Wire: ``url``."""
    country: str | None = _field("country")
    """The country the scan runs from, a two-letter code (lowercase in recorded answers, e.g. ``jp``). Wire: ``country``."""
    message: str | None = _field("message")
    """The service's message, e.g. ``Submission successful``. Wire: ``message``."""
    result: str | None = _field("result")
    """The address of the scan's report page (``https://urlscan.io/result/{uuid}/``). Wire: ``result``."""
    api: str | None = _field("api")
    """The address of the scan's result document in the API (``/api/v1/result/{uuid}/``). Wire: ``api``."""
    options: dict[str, Any] | None = _field("options")
    """The options the scan runs with (older answers: ``useragent``). Wire: ``options``."""
    _repr_fields = ("uuid", "url", "visibility", "country")


class VisibilityChange(Model):
    """The answer to ``set_visibility`` and ``reset_visibility``: the scan and its visibility now."""

    __slots__ = ()
    uuid: str | None = _field("uuid")
    """The scan's UUID. Wire: ``uuid``."""
    message: str | None = _field("message")
    """The service's message, e.g. ``Visibility updated``. Wire: ``message``."""
    visibility: str | None = _field("visibility")
    """The visibility now: ``public``, ``unlisted``, ``private`` or ``deleted`` (a reset's answer may omit it).
    Wire: ``visibility``."""


class UserAgentGroup(Model):
    """A group of user agents a scan may use (``user_agents()``); ``user_agents`` is ``useragents``."""

    __slots__ = ()
    group: str | None = _field("group")
    """The group's name, e.g. ``Chrome`` or ``iOS``. Wire: ``group``."""
    useragents: list[str] = _field("useragents", _list)
    """The group's User-Agent strings. Wire: ``useragents``."""
    user_agents: list[str] = _field("useragents", _list)
    """The group's User-Agent strings (the same as ``useragents``). Wire: ``useragents``."""
    _repr_fields = ("group", "useragents")


class VerdictBrand(Model):
    """A brand a verdict names (the page impersonates it)."""

    __slots__ = ()
    key: str | None = _field("key")
    """The brand's identifier, e.g. ``facebook``. Wire: ``key``."""
    name: str | None = _field("name")
    """The brand's name, e.g. ``Facebook``. Wire: ``name``."""
    country: list[str] = _field("country", _list)
    """The brand's countries, ISO 3166 codes (lowercase in recorded answers, e.g. ``us``). Wire: ``country``."""
    vertical: list[str] = _field("vertical", _list)
    """The brand's verticals (sectors), e.g. ``Social Network``. Wire: ``vertical``."""


def _brands(v: Any) -> list[Any]:
    # Brands come as objects (schema) or as flat identifiers (older docs).
    return [VerdictBrand(b) if isinstance(b, dict) else b for b in _list(v)]


_CONVERTER_TYPES[_brands] = "list[VerdictBrand | str]"


class _VerdictFields(Model):
    """The fields every verdict has."""

    __slots__ = ()
    score: int | None = _field("score", _int)
    """The score, from -100 (legitimate) to 100 (malicious); results before April 2022 use 0 to 100. Wire: ``score``."""
    malicious: bool | None = _field("malicious")
    """Whether the verdict is malicious; the service sometimes leaves it out rather than send false. Wire: ``malicious``."""
    has_verdicts: bool | None = _field("hasVerdicts", _flag)
    """Whether there is a verdict at all (older results send 0 or 1). Wire: ``hasVerdicts``."""
    categories: list[str] = _field("categories", _list)
    """The verdict's categories. Wire: ``categories``."""
    brands: list[VerdictBrand | str] = _field("brands", _brands)
    """Brands named (impersonated), in two shapes: ``verdicts.overall.brands`` (and ``community``) is a flat
    list of brand keys (``["paypal"]``), ``verdicts.urlscan.brands`` a list of :class:`VerdictBrand` objects
    (key, name, country, vertical); either is read as sent. ``result.verdict.brands`` gives the keys of all
    of them. Wire: ``brands``."""
    tags: list[str] = _field("tags", _list)
    """The verdict's tags. Wire: ``tags``."""


class Verdict(_VerdictFields):
    """A verdict (overall or urlscan): score from -100 (legitimate) to 100 (malicious)."""

    __slots__ = ()
    _repr_fields = ("score", "malicious", "categories")


class EngineVerdicts(_VerdictFields):
    """The verdicts of third-party engines (``verdicts.engines``): counts and each engine's verdict."""

    __slots__ = ()
    # Older results list the engines that flagged the page (wider than a verdict's).
    malicious: bool | list[str] | None = _field("malicious")  # type: ignore[assignment]
    """Whether the engines found the page malicious; older results send a list here instead. Wire: ``malicious``."""
    engines_total: int | None = _field("enginesTotal", _int)
    """How many engines there are. Wire: ``enginesTotal``."""
    malicious_total: int | None = _field("maliciousTotal", _int)
    """How many engines found the page malicious. Wire: ``maliciousTotal``."""
    benign_total: int | None = _field("benignTotal", _int)
    """How many engines found the page benign. Wire: ``benignTotal``."""
    malicious_verdicts: list[Any] = _field("maliciousVerdicts", _list)
    """The engines' malicious verdicts. Wire: ``maliciousVerdicts``."""
    benign_verdicts: list[Any] = _field("benignVerdicts", _list)
    """The engines' benign verdicts. Wire: ``benignVerdicts``."""
    verdicts: list[dict[str, Any]] = _field("verdicts", _list)
    """Each engine's verdict: objects with ``engine`` and ``classification``. Wire: ``verdicts``."""
    _repr_fields = ("score", "malicious", "engines_total")


class CommunityVerdict(_VerdictFields):
    """The verdict of the community's votes (``verdicts.community``)."""

    __slots__ = ()
    votes_total: int | None = _field("votesTotal", _int)
    """How many community votes were cast. Wire: ``votesTotal``."""
    votes_malicious: int | None = _field("votesMalicious", _int)
    """How many votes say malicious. Wire: ``votesMalicious``."""
    votes_benign: int | None = _field("votesBenign", _int)
    """How many votes say benign. Wire: ``votesBenign``."""
    _repr_fields = ("score", "malicious", "votes_total")


class Verdicts(Model):
    """The verdicts of a result: ``overall``, ``urlscan``, ``engines`` and ``community``."""

    __slots__ = ()
    overall: Verdict = _field("overall", _model(Verdict))
    """The overall verdict. Wire: ``overall``."""
    urlscan: Verdict = _field("urlscan", _model(Verdict))
    """The service's own verdict. Wire: ``urlscan``."""
    engines: EngineVerdicts = _field("engines", _model(EngineVerdicts))
    """The third-party engines' verdicts (which the service documents as no longer used). Wire: ``engines``."""
    community: CommunityVerdict = _field("community", _model(CommunityVerdict))
    """The verdict of the community's votes. Wire: ``community``."""

    def __repr__(self) -> str:
        o = self.overall
        return f"Verdicts(overall={o!r})"


class Task(Model):
    """What was asked for (``result.task``, ``hit.task``): URL, time, visibility, options and links."""

    __slots__ = ()
    uuid: str | None = _field("uuid")
    """The scan's UUID. Wire: ``uuid``."""
    time: datetime | None = _field("time", _datetime)
    """The time of the scan task, aware in UTC (ISO 8601 on the wire); search hits sort by it. Wire: ``time``."""
    url: str | None = _field("url")
    """The URL submitted for scanning. Wire: ``url``."""
    domain: str | None = _field("domain")
    """The domain (host name) of the submitted URL. Wire: ``domain``."""
    apex_domain: str | None = _field("apexDomain")
    """The registered domain of the submitted URL (eTLD+1). Wire: ``apexDomain``."""
    visibility: str | None = _field("visibility")
    """The scan's visibility: ``public``, ``unlisted`` or ``private``. Wire: ``visibility``."""
    method: str | None = _field("method")
    """How the scan was submitted: ``api``, ``manual``, ``automatic`` or ``urlscan-observe``. Wire: ``method``."""
    source: str | None = _field("source")
    """What submitted the scan, as the service labels it: a feed (``certstream-suspicious``) or a short hex id.
    Wire: ``source``."""
    tags: list[str] = _field("tags", _list)
    """The tags given with the submission. Wire: ``tags``."""
    report_url: str | None = _field("reportURL")
    """The address of the scan's report page (``https://urlscan.io/result/{uuid}/``). Wire: ``reportURL``."""
    screenshot_url: str | None = _field("screenshotURL")
    """The address of the scan's PNG screenshot (``https://urlscan.io/screenshots/{uuid}.png``). Wire: ``screenshotURL``."""
    dom_url: str | None = _field("domURL")
    """The address of the scan's DOM snapshot (``https://urlscan.io/dom/{uuid}/``). Wire: ``domURL``."""
    user_agent: str | None = _field("userAgent")
    """The User-Agent the scan's browser sent. Wire: ``userAgent``."""
    options: dict[str, Any] | None = _field("options")
    """The options the scan was submitted with (older results: ``useragent``). Wire: ``options``."""
    _repr_fields = ("uuid", "url", "time", "visibility")


class Page(Model):
    """The page reached after redirects (``result.page``, ``hit.page``): URL, domain, IP, server, TLS."""

    __slots__ = ()
    url: str | None = _field("url")
    """The URL of the page reached, after redirects. Wire: ``url``."""
    domain: str | None = _field("domain")
    """The page's domain (host name). Wire: ``domain``."""
    apex_domain: str | None = _field("apexDomain")
    """The registered domain of the page (eTLD+1). Wire: ``apexDomain``."""
    ip: str | None = _field("ip")
    """The IP address (IPv4 or IPv6) the page was loaded from. Wire: ``ip``."""
    asn: str | None = _field("asn")
    """The autonomous system of the page's IP, with its ``AS`` prefix (e.g. ``AS15169``). Wire: ``asn``."""
    asnname: str | None = _field("asnname")
    """The name of that autonomous system, e.g. ``GOOGLE - Google LLC, US``. Wire: ``asnname``."""
    country: str | None = _field("country")
    """The country of the page's IP, a two-letter code (uppercase, e.g. ``DE``). Wire: ``country``."""
    city: str | None = _field("city")
    """The city of the page's IP (may be empty). Wire: ``city``."""
    server: str | None = _field("server")
    """The web server of the page, e.g. ``nginx``. Wire: ``server``."""
    title: str | None = _field("title")
    """The page's title. Wire: ``title``."""
    status: str | None = _field("status")
    """The page's HTTP status, as a string (e.g. ``200``). Wire: ``status``."""
    mime_type: str | None = _field("mimeType")
    """The page's MIME type, e.g. ``text/html``. Wire: ``mimeType``."""
    redirected: str | None = _field("redirected")
    """How the scan was redirected to the page: a label such as ``off-domain`` or ``same-domain``. Wire: ``redirected``."""
    ptr: str | None = _field("ptr")
    """The reverse-DNS (PTR) name of the page's IP. Wire: ``ptr``."""
    tls_issuer: str | None = _field("tlsIssuer")
    """The issuer of the page's TLS certificate. Wire: ``tlsIssuer``."""
    tls_valid_days: int | None = _field("tlsValidDays", _int)
    """How many days the page's TLS certificate is valid for. Wire: ``tlsValidDays``."""
    tls_age_days: int | None = _field("tlsAgeDays", _int)
    """The age of the page's TLS certificate, in days. Wire: ``tlsAgeDays``."""
    tls_valid_from: datetime | None = _field("tlsValidFrom", _datetime)
    """The start of the page's TLS certificate's validity, aware in UTC. Wire: ``tlsValidFrom``."""
    umbrella_rank: int | None = _field("umbrellaRank", _int)
    """The page's Umbrella rank (as in ``meta.processors.umbrella``); absent on about half the results. Wire: ``umbrellaRank``."""
    _repr_fields = ("url", "domain", "ip", "country")


class Stats(Model):
    """Statistics of a result (the result API's ``stats``)."""

    __slots__ = ()
    malicious: int | None = _field("malicious", _int)
    """The statistics' malicious count (what it counts is not documented). Wire: ``malicious``."""
    secure_percentage: float | None = _field("securePercentage", _float)
    """The share of secure requests, in percent (0 to 100). Wire: ``securePercentage``."""
    secure_requests: int | None = _field("secureRequests", _int)
    """How many of the scan's requests were secure. Wire: ``secureRequests``."""
    ipv6_percentage: float | None = _field("IPv6Percentage", _float)
    """The IPv6 share, in percent (0 to 100); null in some results. Wire: ``IPv6Percentage``."""
    ad_blocked: int | None = _field("adBlocked", _int)
    """How many of the scan's requests matched an ad-block list (see ``meta.processors.abp``). Wire: ``adBlocked``."""
    total_links: int | None = _field("totalLinks", _int)
    """How many links the page has (``data.links``). Wire: ``totalLinks``."""
    uniq_countries: int | None = _field("uniqCountries", _int)
    """How many distinct countries the scan's requests went to. Wire: ``uniqCountries``."""
    domain_stats: list[Any] = _field("domainStats", _list)
    """Per-domain statistics: objects with ``domain``, ``count``, ``size``, ``encodedSize``, ``ips``, ...
    Wire: ``domainStats``."""
    ip_stats: list[Any] = _field("ipStats", _list)
    """Per-IP statistics: objects with ``ip``, ``requests``, ``asn``, ``geoip``, ``rdns``, ``ipv6``, ... Wire: ``ipStats``."""
    protocol_stats: list[Any] = _field("protocolStats", _list)
    """Per-protocol statistics: objects with ``protocol``, ``count``, ``size``, ``securityState``, ... Wire: ``protocolStats``."""
    reg_domain_stats: list[Any] = _field("regDomainStats", _list)
    """Per-registered-domain statistics: objects with ``regDomain``, ``count``, ``size``, ``subDomains``, ...
    Wire: ``regDomainStats``."""
    resource_stats: list[Any] = _field("resourceStats", _list)
    """Per-resource-type statistics: objects with ``type``, ``count``, ``size``, ``latency``, ... Wire: ``resourceStats``."""
    server_stats: list[Any] = _field("serverStats", _list)
    """Per-server statistics: objects with ``server``, ``count``, ``size``, ... Wire: ``serverStats``."""
    tls_stats: list[Any] = _field("tlsStats", _list)
    """Per-TLS-setup statistics: objects with ``protocols``, ``securityState``, ``count``, ``size``, ... Wire: ``tlsStats``."""
    _repr_fields = ("malicious", "secure_percentage", "uniq_countries", "total_links")


class HitStats(Model):
    """Statistics of a search hit."""

    __slots__ = ()
    requests: int | None = _field("requests", _int)
    """How many requests the scan made. Wire: ``requests``."""
    uniq_ips: int | None = _field("uniqIPs", _int)
    """How many distinct IPs the scan contacted. Wire: ``uniqIPs``."""
    uniq_countries: int | None = _field("uniqCountries", _int)
    """How many distinct countries the scan contacted. Wire: ``uniqCountries``."""
    data_length: int | None = _field("dataLength", _int)
    """The size of the scan's response data, in bytes (decoded). Wire: ``dataLength``."""
    encoded_data_length: int | None = _field("encodedDataLength", _int)
    """The size of the scan's responses as transferred (encoded), in bytes. Wire: ``encodedDataLength``."""
    console_msgs: int | None = _field("consoleMsgs", _int)
    """How many console messages the page logged. Wire: ``consoleMsgs``."""


class Lists(Model):
    """The lists of a result (``result.lists``): IPs, countries, ASNs, domains, URLs, certificates, hashes."""

    __slots__ = ()
    ips: list[str] = _field("ips", _list)
    """The IP addresses the scan contacted. Wire: ``ips``."""
    countries: list[str] = _field("countries", _list)
    """The countries of those IPs, two-letter codes (e.g. ``IE``). Wire: ``countries``."""
    asns: list[str] = _field("asns", _list)
    """The autonomous systems of those IPs, as numbers without the ``AS`` prefix (e.g. ``15169``). Wire: ``asns``."""
    domains: list[str] = _field("domains", _list)
    """The domains the scan contacted. Wire: ``domains``."""
    servers: list[str] = _field("servers", _list)
    """The web servers that answered, e.g. ``nginx``. Wire: ``servers``."""
    urls: list[str] = _field("urls", _list)
    """The URLs the scan requested. Wire: ``urls``."""
    link_domains: list[str] = _field("linkDomains", _list)
    """The domains the page links to. Wire: ``linkDomains``."""
    certificates: list[dict[str, Any]] = _field("certificates", _list)
    """TLS certificates seen: objects with ``subjectName``, ``issuer``, ``validFrom``, ``validTo`` (epoch seconds).
    Wire: ``certificates``."""
    hashes: list[str] = _field("hashes", _list)
    """The SHA-256 hashes (hex) of the response bodies. Wire: ``hashes``."""

    def __repr__(self) -> str:
        return f"Lists(domains={len(self.domains)}, ips={len(self.ips)}, urls={len(self.urls)}, hashes={len(self.hashes)})"


class Submitter(Model):
    """Who submitted the scan (``result.submitter``): their country."""

    __slots__ = ()
    country: str | None = _field("country")
    """The submitter's country, a two-letter code (e.g. ``JP``); often empty on results. Wire: ``country``."""


class Visible(Model):
    """What urlscan Brand AI read on the page's screenshot (``result.visible``, ``hit.visible``)."""

    __slots__ = ()
    brandname: str | None = _field("brandname")
    """The brand the page shows, as Brand AI saw it; set when the scan has the label ``visual.brandai``
    (searchable as ``visible.brandname``). Wire: ``brandname``."""


class _ScanRecord(_Tabled):
    """What a scan's result and a search hit of it share: a flat record and a notebook table."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        from .._display import table

        return table([self])

    # -- playbooks (see urlscan_rs.playbook)

    def indicators(self) -> Indicators:
        """The scan's :class:`~urlscan_rs.playbook.Indicators` (URLs, domains, IPs,
        ASNs, hashes, certificates, redirects, links), read natively from its bytes."""
        from ..playbook import indicators

        return indicators(self)

    @property
    def verdict(self) -> VerdictSummary:
        """The verdicts taken together (:class:`~urlscan_rs.playbook.VerdictSummary`):
        ``malicious`` (None when unknown), ``score``, ``categories``, ``brands``, ``tags``."""
        from ..playbook import verdict

        return verdict(self)

    def is_malicious(self, threshold: int = 50) -> bool | None:
        """True when a verdict says malicious or the score reaches ``threshold``
        (-100 to 100); False when the verdicts say otherwise; None when unknown."""
        from ..playbook import is_malicious

        return is_malicious(self, threshold)

    def summary(self, max_bytes: int = 4096) -> dict[str, Any]:
        """What an assistant or a ticket needs of the scan, as a dict whose JSON
        is at most ``max_bytes`` bytes (UTF-8), whatever the result's size.

        It keeps the verdict (``malicious``, ``score``, categories, brands, tags),
        the page's identity (URL, domain, IP, country, ASN, server, title), the
        indicators (redirect chain first, then domains, IPs, ASNs, hashes,
        links and URLs), their ``counts``, and the report and screenshot links.
        When that is too large, long strings are shortened first, then the
        widest list is halved until it fits; ``"omitted"`` then says what was
        left out (path -> ``{"kept": n, "of": total}``, items or characters).

        Raises:
            ValueError: ``max_bytes`` is below 2048.
        """
        from .._summary import summary

        return summary(self, max_bytes)

    def to_stix(self, threshold: int = 50, *, screenshot: bytes | bool | None = False) -> dict[str, Any]:
        """A STIX 2.1 bundle of the scan (see :func:`urlscan_rs.playbook.to_stix`); ``screenshot``
        (the PNG, ``client.screenshot(uuid)``) adds it as an artifact."""
        from ..playbook import to_stix

        return to_stix(self, threshold, screenshot=screenshot)

    def to_misp(self, threshold: int = 50) -> dict[str, Any]:
        """A MISP event of the scan (see :func:`urlscan_rs.playbook.to_misp`)."""
        from ..playbook import to_misp

        return to_misp(self, threshold)


class Download(Model):
    """A file the page made the browser download (``meta.processors.download.data[]`` of a result)."""

    __slots__ = ()
    sha256: str | None = _field("sha256")
    """The file's SHA-256 (``client.files.download`` fetches it). Wire: ``sha256``."""
    filename: str | None = _field("filename")
    """The file's name as the page offered it. Wire: ``filename``."""
    filesize: int | None = _field("filesize", _int)
    """The file's size in bytes. Wire: ``filesize``."""
    mime_type: str | None = _field("mimeType")
    """Its MIME type. Wire: ``mimeType``."""
    mime_description: str | None = _field("mimeDescription")
    """What the MIME type is, in words. Wire: ``mimeDescription``."""
    url: str | None = _field("url")
    """Where it was downloaded from. Wire: ``url``."""
    state: str | None = _field("state")
    """How the download ended (``completed``, ...). Wire: ``state``."""
    received_bytes: int | None = _field("receivedBytes", _int)
    """Bytes received. Wire: ``receivedBytes``."""
    started_at: datetime | None = _field("startedAt", _datetime)
    """When the download started, aware in UTC. Wire: ``startedAt``."""
    finished_at: datetime | None = _field("finishedAt", _datetime)
    """When it finished, aware in UTC. Wire: ``finishedAt``."""
    _repr_fields = ("sha256", "filename", "filesize")


class ScanResult(_ScanRecord, Model):
    """A finished scan's result document (GET /api/v1/result/{uuid}/)."""

    __slots__ = ()
    uuid: str = _field("task.uuid")
    """The scan's UUID. Wire: ``task.uuid``."""
    url: str | None = _field("task.url")
    """The URL submitted for scanning. Wire: ``task.url``."""
    time: datetime | None = _field("task.time", _datetime)
    """The time of the scan task, aware in UTC (ISO 8601 on the wire). Wire: ``task.time``."""
    task: Task = _field("task", _model(Task))
    """What was asked for: URL, time, visibility, options and links. Wire: ``task``."""
    page: Page = _field("page", _model(Page))
    """The page reached after redirects. Wire: ``page``."""
    verdicts: Verdicts = _field("verdicts", _model(Verdicts))
    """The verdicts: overall, urlscan, engines and community. Wire: ``verdicts``."""
    stats: Stats = _field("stats", _model(Stats))
    """Statistics of the scan's requests. Wire: ``stats``."""
    lists: Lists = _field("lists", _model(Lists))
    """The IPs, countries, ASNs, domains, servers, URLs, certificates and hashes seen. Wire: ``lists``."""
    submitter: Submitter = _field("submitter", _model(Submitter))
    """Who submitted the scan (its country, often empty). Wire: ``submitter``."""
    meta: dict[str, Any] | None = _field("meta")
    """The processors' output under ``processors`` (``asn``, ``geoip``, ``rdns``, ``umbrella``, ``wappa``, ...).
    Wire: ``meta``."""
    data: dict[str, Any] | None = _field("data")
    """Every request and response, with ``cookies``, ``console``, ``links``, ``globals``, ``timing``, ... Wire: ``data``."""
    scanner: dict[str, Any] | None = _field("scanner")
    """The scanner: its ``country`` (filled in where ``submitter`` often is not). Wire: ``scanner``."""
    labels: list[str] = _field("labels", _list)
    """System labels urlscan set on the scan, e.g. ``visual.brandai`` (Brand AI examined it); searchable as
    ``labels:``. Wire: ``labels``."""
    usertags: list[str] = _field("usertags", _list)
    """Tags your saved searches applied to the scan, with their scope (``private.``, ``team.``, ``pro.``,
    ``public.``). Wire: ``usertags``."""
    metatags: list[str] = _field("metatags", _list)
    """What the service recorded of the scan's matches: your saved searches it matched, as
    ``searchhit.search.<id>`` (the Search API calls this ``meta``). Wire: ``metatags``."""
    visible: Visible = _field("visible", _model(Visible))
    """What Brand AI read on the page (``brandname``); empty unless the scan has the label ``visual.brandai``.
    Wire: ``visible``."""
    _repr_fields = ("uuid", "url", "time")

    @property
    def malicious(self) -> bool | None:
        """The overall verdict: True (malicious), False (not), None when the service gave none.

        None is "not known", never "clean": results without verdicts exist (older scans).
        """
        m = self.verdicts.overall.malicious
        return m if isinstance(m, bool) else None

    @property
    def page_outcome(self) -> str | None:
        """How loading the page went: ``"ok"``; ``"unreachable"`` (it never answered: a name
        that does not resolve, a refused connection; :attr:`page_error` says which);
        ``"blocked"`` (the browser's error says it was blocked); ``"empty"`` (it answered with
        nothing and loaded nothing else). None when the result holds no requests.

        Read from the page's own request in ``data.requests``."""
        from .._relations import page_outcome

        return page_outcome(self)

    @property
    def page_error(self) -> str | None:
        """The browser's error for the page itself (``net::ERR_NAME_NOT_RESOLVED``, ...), if it failed."""
        from .._relations import page_error

        return page_error(self)

    def downloads(self) -> list[Download]:
        """The files the page made the browser download (``meta.processors.download.data``); [] when none."""
        from .._relations import downloads

        return downloads(self, Download)

    def relationships(self) -> list[Relationship]:
        """The result as typed edges between its observables, each once: the page URL
        ``hosted-on`` its domain, domains ``resolves-to`` IPs, IPs ``belongs-to`` autonomous
        systems, ``redirects-to`` for each redirect, ``links-to`` for the page's links,
        ``downloaded`` for each file (by SHA-256) and ``serves-certificate`` for each TLS
        certificate (by subject name). See :class:`~urlscan_rs.models.Relationship`."""
        from .._relations import relationships

        return relationships(self)

    def __repr__(self) -> str:
        dom = self.page.domain
        return f"ScanResult(uuid={self.uuid!r}, url={self.url!r}, domain={dom!r}, malicious={self.malicious})"


class SearchHit(_ScanRecord, Model):
    """One search hit of scans (``search()``, ``similar()``, ``phishfeed()``, saved-search results).

    A summary of the scan; read the full document with ``client.result(hit.uuid)``.
    """

    __slots__ = ()
    id: str = _field("_id")
    """The scan's UUID. Wire: ``_id``."""
    score: float | None = _field("_score")
    """The hit's search score; search does not score (it sorts by date), so it is usually null. Wire: ``_score``."""
    sort: list[Any] = _field("sort", _list)
    """``[epoch ms of task.time, uuid]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    task: Task = _field("task", _model(Task))
    """What was asked for: URL, time, visibility, method and source. Wire: ``task``."""
    page: Page = _field("page", _model(Page))
    """The page reached after redirects. Wire: ``page``."""
    stats: HitStats = _field("stats", _model(HitStats))
    """The scan's statistics: requests, IPs, countries, sizes. Wire: ``stats``."""
    verdicts: Verdict = _field("verdicts", _model(Verdict))
    """The scan's verdict (``score``, ``malicious``, ...); sent to premium accounts only. Wire: ``verdicts``."""
    brand: list[VerdictBrand | str] = _field("brand", _brands)
    """The brands the page impersonates; sent to premium accounts only. Wire: ``brand``."""
    result: str | None = _field("result")
    """The address of the scan's result document in the API. Wire: ``result``."""
    screenshot: str | None = _field("screenshot")
    """The address of the scan's PNG screenshot. Wire: ``screenshot``."""
    indexed_at: datetime | None = _field("indexedAt", _datetime)
    """When the scan was indexed for search, aware in UTC. Wire: ``indexedAt``."""
    labels: list[str] = _field("labels", _list)
    """System labels urlscan set on the scan, e.g. ``visual.brandai`` (Brand AI examined it); searchable as
    ``labels:``. Wire: ``labels``."""
    usertags: list[str] = _field("usertags", _list)
    """Tags your saved searches applied to the scan, with their scope (``private.``, ``team.``, ``pro.``,
    ``public.``). Wire: ``usertags``."""
    meta: list[str] = _field("meta", _list)
    """What the service says about the hit: your saved searches it matched, as ``searchhit.search.<id>``
    (searchable as ``meta:searchhit.search.<id>``; the Result API calls this ``metatags``). Wire: ``meta``."""
    visible: Visible = _field("visible", _model(Visible))
    """What Brand AI read on the page (``brandname``); empty unless the scan has the label ``visual.brandai``.
    Wire: ``visible``."""

    @property
    def uuid(self) -> str | None:
        """The scan's uuid (the hit's ``id``, else ``task.uuid``)."""
        return self.id or self.task.uuid

    def __repr__(self) -> str:
        t = self.task
        when = t.time.isoformat() if t.time else None
        return f"SearchHit(id={self.id!r}, url={t.url!r}, domain={self.page.domain!r}, time={when!r})"


class Quotas(Model):
    """Quotas: ``limits[action][window]`` with limit, used, remaining and percent."""

    __slots__ = ()
    scope: str | None = _field("scope")
    """Whose quotas these are: ``user``, ``team``, or ``ip-address`` without a key. Wire: ``scope``."""
    source: str | None = _field("source")
    """The source of the quota limits, e.g. ``user``. Wire: ``source``."""
    limits: dict[str, Any] | None = _field("limits")
    """The limits, ``limits[action][window]`` with ``limit``, ``used``, ``remaining`` and ``percent``; actions such as ``public``,
    ``private``, ``search``, windows ``minute``, ``hour`` and ``day``. Wire: ``limits``."""
    _repr_fields = ("scope",)

    @_safe_repr
    def __repr__(self) -> str:
        # What is left of each action's day, the figure a user looks for first.
        lim = self._raw.get("limits")
        left = []
        for action, windows in (lim or {}).items() if isinstance(lim, dict) else ():
            day = windows.get("day") if isinstance(windows, dict) else None
            if isinstance(day, dict):
                left.append(f"{action}={day.get('remaining')}/{day.get('limit')}")
        return f"Quotas(scope={self.scope!r}, left today: {', '.join(left) or 'unknown'})"

    def remaining(self, action: str, window: str = "day") -> int | None:
        """Requests left for an action in a window, or None when unknown."""
        lim = self._raw.get("limits")
        w = lim.get(action, {}).get(window) if isinstance(lim, dict) else None
        return _int(w.get("remaining")) if isinstance(w, dict) else None

    def left(self, action: str) -> int | None:
        """Requests of an action that may be sent now: the least ``remaining`` of its windows
        (minute, hour, day, ...), or None when none is known. Before a submission, the action
        is its visibility: ``client.quotas().left("private") == 0`` means a private scan would
        be refused until a window resets."""
        lim = self._raw.get("limits")
        windows = lim.get(action) if isinstance(lim, dict) else None
        if not isinstance(windows, dict):
            return None
        left = [_int(w.get("remaining")) for w in windows.values() if isinstance(w, dict)]
        known = [n for n in left if n is not None]
        return min(known) if known else None


class Team(Model):
    """The team of a user (``user().team``)."""

    __slots__ = ()
    id: str | None = _field("_id")
    """The team's id. Wire: ``_id``."""
    name: str | None = _field("name")
    """The team's name. Wire: ``name``."""
    slug: str | None = _field("slug")
    """The team's slug, e.g. ``example-team``. Wire: ``slug``."""


class User(Model):
    """The user (or team) an API key belongs to (``user()``): products, features and limits."""

    __slots__ = ()
    username: str | None = _field("username")
    """The user's name. Wire: ``username``."""
    email: str | None = _field("email")
    """The user's e-mail address. Wire: ``email``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When the user was created, aware in UTC. Wire: ``createdAt``."""
    team: Team = _field("team", _model(Team))
    """The user's team. Wire: ``team``."""
    limits: dict[str, Any] | None = _field("limits")
    """The user's limits, ``limits[action][window]`` as in :class:`Quotas`. Wire: ``limits``."""
    products: list[str] = _field("products", _list)
    """The products the user has, e.g. ``pro``, ``livescan``. Wire: ``products``."""
    features: list[str] = _field("features", _list)
    """The features the user has, e.g. ``country-select``. Wire: ``features``."""
    _repr_fields = ("username", "email", "products")


class Screenshot(bytes):
    """A PNG screenshot: plain ``bytes`` that also display as an image in notebooks."""

    def _repr_png_(self) -> bytes:
        return bytes(self)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the PNG to a file, whole (a temporary file beside it, then renamed)."""
        from .. import _native

        _native.write_whole(path, bytes(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Screenshot, (bytes(self),))


# ---------------------------------------------------------------- batch


@dataclasses.dataclass(frozen=True)
class ScanOutcome:
    """One URL of a bulk scan: its submission and result, or the error."""

    url: str
    """The URL, as given."""
    submission: Submission | None
    """The submission's answer (None when the submission failed)."""
    result: ScanResult | None
    """The result (None without ``wait``, or when something failed)."""
    error: BaseException | None
    """What failed (a :class:`~urlscan_rs.errors.UrlscanError`), or None."""

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return self.error is None


@dataclasses.dataclass(frozen=True)
class Lookup:
    """What :meth:`~urlscan_rs.Client.lookup_or_scan` found or made for one URL."""

    url: str
    """The URL, as given."""
    result: ScanResult | None
    """The finished scan's result (None when the lookup failed: see ``error``; or when the
    malicious lookup already knew the URL: see ``malicious``)."""
    reused: bool | None
    """True: an earlier finished scan was reused; False: a new scan was made; None: failed, or
    neither (the malicious lookup already knew the URL)."""
    uuid: str | None
    """The scan's uuid (None when the lookup failed or no scan was read)."""
    error: BaseException | None = None
    """What failed in a batch (a :class:`~urlscan_rs.errors.UrlscanError`), or None."""
    malicious: MaliciousObservable | None = None
    """The malicious lookup's answer, asked first with ``check_malicious=True`` (urlscan Pro):
    a ``count`` above 0 means malicious scans already showed the URL, and it was neither searched
    for nor scanned again. None when it was not asked."""

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return self.error is None

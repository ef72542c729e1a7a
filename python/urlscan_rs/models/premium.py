"""Premium objects (saved searches, subscriptions, channels, incidents, hostnames, brands, scanners,
data dumps), the other data sources' hits and notifications."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from ._base import Model, _date, _datetime, _field, _field_method, _int, _join, _list, _model, _models, _Tabled, _wrong
from .scanning import SearchHit

# ---------------------------------------------------------------- premium


class SavedSearch(Model):
    """A saved search (``client.saved_searches``)."""

    __slots__ = ()
    id: str = _field("_id")
    """The saved search's id. Wire: ``_id``."""
    datasource: str | None = _field("datasource")
    """What it searches: ``scans`` or ``hostnames``. Wire: ``datasource``."""
    name: str | None = _field("name")
    """Its name. Wire: ``name``."""
    query: str | None = _field("query")
    """Its search query. Wire: ``query``."""
    description: str | None = _field("description")
    """A short description. Wire: ``description``."""
    long_description: str | None = _field("longDescription")
    """A long description. Wire: ``longDescription``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When it was created, aware in UTC (read-only). Wire: ``createdAt``."""
    owner_description: str | None = _field("ownerDescription")
    """A description of its owner (read-only). Wire: ``ownerDescription``."""
    permissions: list[str] = _field("permissions", _list)
    """Who else may use it: ``public:read``, ``team:read``, ``team:write``. Wire: ``permissions``."""
    tlp: str | None = _field("tlp")
    """Its TLP: ``red``, ``amber+strict``, ``amber``, ``green`` or ``clear``. Wire: ``tlp``."""
    user_tags: list[str] = _field("userTags", _list)
    """Tags for matching items, prefixed by scope: ``pro.``, ``public.``, ``private.``, ``team.`` (schema: ``usertags``).
    Wire: ``userTags``."""
    _repr_fields = ("id", "name", "datasource", "query")

    def __getattr__(self, name: str) -> Any:
        # The schema says "usertags", sample payloads "userTags": read both.
        if name == "user_tags" and "userTags" not in self._raw and "usertags" in self._raw:
            return self._read(name, "usertags")
        return super().__getattr__(name)


class Subscription(Model):
    """A subscription to saved searches."""

    __slots__ = ()
    id: str = _field("_id")
    """The subscription's id. Wire: ``_id``."""
    search_ids: list[str] = _field("searchIds", _list)
    """The ids of the saved searches it follows. Wire: ``searchIds``."""
    frequency: str | None = _field("frequency")
    """How often it notifies: ``live``, ``hourly`` or ``daily``. Wire: ``frequency``."""
    email_addresses: list[str] = _field("emailAddresses", _list)
    """The e-mail recipients. Wire: ``emailAddresses``."""
    name: str | None = _field("name")
    """Its name. Wire: ``name``."""
    description: str | None = _field("description")
    """Its description. Wire: ``description``."""
    is_active: bool | None = _field("isActive")
    """Whether it is active. Wire: ``isActive``."""
    ignore_time: bool | None = _field("ignoreTime")
    """Whether to ignore time constraints (``week_days``). Wire: ``ignoreTime``."""
    week_days: list[str] = _field("weekDays", _list)
    """The days alerts are generated on: ``Monday`` to ``Sunday``. Wire: ``weekDays``."""
    permissions: list[str] = _field("permissions", _list)
    """Who else may use it: ``team:read``, ``team:write``. Wire: ``permissions``."""
    channel_ids: list[str] = _field("channelIds", _list)
    """The ids of the channels it notifies. Wire: ``channelIds``."""
    incident_channel_ids: list[str] = _field("incidentChannelIds", _list)
    """The ids of the incident channels. Wire: ``incidentChannelIds``."""
    incident_profile_id: str | None = _field("incidentProfileId")
    """The id of the incident profile. Wire: ``incidentProfileId``."""
    incident_visibility: str | None = _field("incidentVisibility")
    """The visibility of the incidents it creates: ``unlisted`` or ``private``. Wire: ``incidentVisibility``."""
    incident_creation_mode: str | None = _field("incidentCreationMode")
    """When it creates incidents: ``none``, ``default``, ``always`` or ``ignore-if-exists``. Wire: ``incidentCreationMode``."""
    incident_watch_keys: Any = _field("incidentWatchKeys")
    """What incidents watch: ``scans/page.url``, ``scans/page.domain``, ``scans/page.ip``, ``scans/page.apexDomain``,
    ``hostnames/hostname`` or ``hostnames/domain``. Wire: ``incidentWatchKeys``."""
    _repr_fields = ("id", "name", "frequency", "is_active")


class Channel(Model):
    """A notification channel (webhook or e-mail)."""

    __slots__ = ()
    id: str = _field("_id")
    """The channel's id. Wire: ``_id``."""
    type: str | None = _field("type")
    """``webhook`` (the default) or ``email``. Wire: ``type``."""
    name: str | None = _field("name")
    """Its name. Wire: ``name``."""
    webhook_url: str | None = _field("webhookURL")
    """The address that receives the notifications of a webhook channel. Wire: ``webhookURL``."""
    frequency: str | None = _field("frequency")
    """How often it notifies: ``live``, ``hourly`` or ``daily``. Wire: ``frequency``."""
    email_addresses: list[str] = _field("emailAddresses", _list)
    """The e-mail recipients. Wire: ``emailAddresses``."""
    utc_time: str | None = _field("utcTime")
    """When daily e-mails go out, ``HH:MM`` (24-hour, UTC). Wire: ``utcTime``."""
    is_active: bool | None = _field("isActive")
    """Whether it is active. Wire: ``isActive``."""
    is_default: bool | None = _field("isDefault")
    """Whether it is the default channel (default false). Wire: ``isDefault``."""
    ignore_time: bool | None = _field("ignoreTime")
    """Whether to ignore time constraints (``week_days``; default false). Wire: ``ignoreTime``."""
    week_days: list[str] = _field("weekDays", _list)
    """The days alerts are generated on: ``Monday`` to ``Sunday``. Wire: ``weekDays``."""
    permissions: list[str] = _field("permissions", _list)
    """Who else may use it: ``team:read``, ``team:write``. Wire: ``permissions``."""
    description: str | None = _field("description")
    """Its description. Wire: ``description``."""
    _repr_fields = ("id", "type", "name", "is_active")


class Incident(_Tabled, Model):
    """An incident: an observable tracked and scanned repeatedly."""

    __slots__ = ()
    id: str = _field("_id")
    """The incident's id. Wire: ``_id``."""
    observable: str | None = _field("observable")
    """What it tracks: a hostname, domain, IP or URL. Wire: ``observable``."""
    visibility: str | None = _field("visibility")
    """Its visibility: ``unlisted`` or ``private``. Wire: ``visibility``."""
    channels: list[str] = _field("channels", _list)
    """The ids of the channels it notifies. Wire: ``channels``."""
    extra_path: str | None = _field("extraPath")
    """An optional path for hostname incidents (starts with ``/``, at most 2000 characters). Wire: ``extraPath``."""
    scan_interval: int | None = _field("scanInterval", _int)
    """Seconds between full scans. Wire: ``scanInterval``."""
    scan_interval_mode: str | None = _field("scanIntervalMode")
    """``manual`` or ``automatic`` (with ``manual``, the ``scan_interval_after_*`` fields do nothing).
    Wire: ``scanIntervalMode``."""
    watched_attributes: list[str] = _field("watchedAttributes", _list)
    """Watched attributes: ``detections``, ``tls``, ``dns``, ``labels``, ``page``, ``meta`` or ``ip``.
    Wire: ``watchedAttributes``."""
    user_agents: list[str] = _field("userAgents", _list)
    """The browser User-Agents used in scanning. Wire: ``userAgents``."""
    user_agents_per_interval: int | None = _field("userAgentsPerInterval", _int)
    """How many of the user agents are used per scan interval. Wire: ``userAgentsPerInterval``."""
    countries: list[str] = _field("countries", _list)
    """The countries to scan from, ISO 3166-1 codes. Wire: ``countries``."""
    countries_per_interval: int | None = _field("countriesPerInterval", _int)
    """How many countries are used per scan interval. Wire: ``countriesPerInterval``."""
    stop_delay_suspended: int | None = _field("stopDelaySuspended", _int)
    """Delay before closing automatically once the observable is suspended (unit not documented). Wire: ``stopDelaySuspended``."""
    stop_delay_inactive: int | None = _field("stopDelayInactive", _int)
    """Delay before closing automatically once the observable is inactive (unit not documented). Wire: ``stopDelayInactive``."""
    stop_delay_malicious: int | None = _field("stopDelayMalicious", _int)
    """Delay before closing automatically once the observable is malicious (unit not documented). Wire: ``stopDelayMalicious``."""
    scan_interval_after_suspended: int | None = _field("scanIntervalAfterSuspended", _int)
    """The scan interval change once the observable is suspended (unit not documented). Wire: ``scanIntervalAfterSuspended``."""
    scan_interval_after_malicious: int | None = _field("scanIntervalAfterMalicious", _int)
    """The scan interval change once the observable is malicious (unit not documented). Wire: ``scanIntervalAfterMalicious``."""
    incident_profile: str | None = _field("incidentProfile")
    """The id of the incident profile used on creation. Wire: ``incidentProfile``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When it was created, aware in UTC. Wire: ``createdAt``."""
    scanned_at: datetime | None = _field("scannedAt", _datetime)
    """When it was last scanned, aware in UTC. Wire: ``scannedAt``."""
    expire_at: datetime | None = _field("expireAt", _datetime)
    """When it closes automatically, aware in UTC. Wire: ``expireAt``."""
    source_type: str | None = _field("sourceType")
    """What created it: ``manual``, ``api``, ``subscription``, ``fork`` or ``copy``. Wire: ``sourceType``."""
    source_id: str | None = _field("sourceId")
    """The id of the item that created it. Wire: ``sourceId``."""
    state: str | None = _field("state")
    """``active`` or ``closed``. Wire: ``state``."""
    state_size: int | None = _field("stateSize", _int)
    """The bytes of its stored incident states. Wire: ``stateSize``."""
    state_count: int | None = _field("stateCount", _int)
    """How many incident states are stored. Wire: ``stateCount``."""
    owner: str | None = _field("owner")
    """Its owner. Wire: ``owner``."""
    type: str | None = _field("type")
    """What the observable is: ``url``, ``ip`` or ``hostname``. Wire: ``type``."""
    labels: list[str] = _field("labels", _list)
    """Its labels. Wire: ``labels``."""
    _repr_fields = ("id", "observable", "state", "state_count")


class IncidentObservation(Model):
    """What one incident state saw (``state.state``). The service documents only
    ``status``; the rest is what the emulator records (and None where absent).
    It also reads as a dict of wire keys: ``state.state["scanId"]``, ``"ip" in``,
    ``.get()``, ``.keys()``, ``dict(...)``."""

    __slots__ = ()
    status: str | None = _field("status")
    """The observable's status: ``active``, ``inactive`` or ``suspended``. Wire: ``status``."""
    malicious: bool | None = _field("malicious")
    """Whether the observable was found malicious. Wire: ``malicious``."""
    observable: str | None = _field("observable")
    """The incident's observable. Wire: ``observable``."""
    url: str | None = _field("url")
    """The URL scanned. Wire: ``url``."""
    user_agent: str | None = _field("userAgent")
    """The User-Agent the scan used. Wire: ``userAgent``."""
    country: str | None = _field("country")
    """The country the scan ran from. Wire: ``country``."""
    ip: str | None = _field("ip")
    """The IP the page was loaded from. Wire: ``ip``."""
    title: str | None = _field("title")
    """The page's title. Wire: ``title``."""
    scan_id: str | None = _field("scanId")
    """The UUID of the scan this observation made (``client.result(scan_id)``). Wire: ``scanId``."""
    attributes: dict[str, Any] | None = _field("attributes")
    """The watched attributes' values, by attribute (``ip``, ``page``, ``tls``, ...). Wire: ``attributes``."""
    _repr_fields = ("status", "scan_id", "ip", "title")

    # Read as a dict of wire keys too, as it was before it was typed.
    def __getitem__(self, key: str) -> Any:
        """The wire value of ``key`` (``KeyError`` when absent)."""
        return self._raw[key]

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def get(self, key: str, default: Any = None) -> Any:
        """The wire value of ``key``, or ``default``."""
        return self._raw.get(key, default)

    def keys(self) -> Any:
        """The wire keys."""
        return self._raw.keys()


class IncidentState(Model):
    """One observation of an incident's observable: ``state`` is what was seen
    (:class:`IncidentObservation`); ``scan_id``, ``status`` and ``malicious``
    read from it directly."""

    __slots__ = ()
    id: str = _field("_id")
    """The state's id. Wire: ``_id``."""
    incident: str | None = _field("incident")
    """The incident's id. Wire: ``incident``."""
    state: IncidentObservation = _field("state", _model(IncidentObservation))
    """What was seen (:class:`IncidentObservation`). Wire: ``state``."""
    time_start: datetime | None = _field("timeStart", _datetime)
    """When the observation started, aware in UTC. Wire: ``timeStart``."""
    time_end: datetime | None = _field("timeEnd", _datetime)
    """When the observation ended, aware in UTC. Wire: ``timeEnd``."""
    _repr_fields = ("id", "incident", "time_start", "scan_id")

    @property
    def scan_id(self) -> str | None:
        """The scan this observation made (read it with ``client.result(scan_id)``)."""
        return self.state.scan_id

    @property
    def status(self) -> str | None:
        """The observable's status then (``active``, ``inactive``, ``suspended``)."""
        return self.state.status

    @property
    def malicious(self) -> bool | None:
        """Whether the scan then was found malicious (None when not said)."""
        return self.state.malicious


class HostnameRecord(_Tabled, Model):
    """One hostname-history observation."""

    __slots__ = ()
    seen_on: date | None = _field("seen_on", _date)
    """The day of the observation (``YYYY-MM-DD`` on the wire). Wire: ``seen_on``."""
    source: str | None = _field("source")
    """What saw it: ``ct``, ``scan``, ``pdns``, ``zonefile``, ``scan-link`` or ``scan-cert-subject``. Wire: ``source``."""
    sub_id: str | None = _field("sub_id")
    """The observation value, maybe empty; for ``pdns`` a record type, or a type and value joined by ``#``. Wire: ``sub_id``."""
    first_seen: datetime | None = _field("first_seen", _datetime)
    """When it was first seen, aware in UTC (ISO 8601 on the wire). Wire: ``first_seen``."""
    last_seen: datetime | None = _field("last_seen", _datetime)
    """When it was last seen, aware in UTC (ISO 8601 on the wire); may be null. Wire: ``last_seen``."""
    data_type: str | None = _field("data_type")
    """``json`` when ``data`` holds extra content. Wire: ``data_type``."""
    data: dict[str, Any] | None = _field("data")
    """Extra JSON content of the record. Wire: ``data``."""
    _repr_fields = ("seen_on", "source", "sub_id")


class Brand(Model):
    """A brand tracked for phishing detection."""

    __slots__ = ()
    id: str | None = _field("_id")
    """The brand's id. Wire: ``_id``."""
    key: str | None = _field("key")
    """Its identifier, e.g. ``facebook``. Wire: ``key``."""
    name: str | None = _field("name")
    """Its name, e.g. ``Facebook``. Wire: ``name``."""
    vertical: list[str] = _field("vertical", _list)
    """Its verticals (sectors), e.g. ``Social Network``. Wire: ``vertical``."""
    country: list[str] = _field("country", _list)
    """Its countries, ISO 3166 codes (lowercase in recorded answers, e.g. ``us``). Wire: ``country``."""
    terms: dict[str, Any] | None = _field("terms")
    """Its terms: lists such as ``domains`` (e.g. ``facebook.com``) and ``asns``. Wire: ``terms``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When it was created, aware in UTC. Wire: ``createdAt``."""
    _repr_fields = ("key", "name", "vertical")


class BrandSummary(Model):
    """A brand with detected phishing pages: total and latest hits."""

    __slots__ = ()
    brand: Brand = _field("brand", _model(Brand))
    """The brand. Wire: ``brand``."""
    total: int | None = _field("total", _int)
    """How many phishing pages were detected for it. Wire: ``total``."""
    hits: list[SearchHit] = _field("hits", _models(SearchHit))
    """Its latest hits. Wire: ``hits``."""

    def __repr__(self) -> str:
        return f"BrandSummary(brand={self.brand.key!r}, total={self.total})"


class MaliciousObservable(Model):
    """What the malicious lookup knows of an observable (``malicious(type, value)``, urlscan Pro):
    how many malicious scans showed it, and when first and last. ``count`` is 0, and the times
    None, for an observable no malicious scan showed."""

    __slots__ = ()
    observable: str | None = _field("observable|value")
    """The observable as the service looked it up (a URL without its scheme and query). Wire:
    ``observable`` (``value`` in the official client's fixture, read when the first is absent)."""
    type: str | None = _field("type")
    """What it is: ``ip``, ``hostname``, ``domain`` or ``url``. Wire: ``type``."""
    count: int | None = _field("count", _int)
    """How many malicious scan results showed it. Wire: ``count``."""
    first_seen: datetime | None = _field("firstSeen", _datetime)
    """When a malicious scan first showed it, aware in UTC. Wire: ``firstSeen``."""
    last_seen: datetime | None = _field("lastSeen", _datetime)
    """When a malicious scan last showed it, aware in UTC. Wire: ``lastSeen``."""
    _repr_fields = ("type", "observable", "count", "last_seen")


class LiveScanner(Model):
    """A live scanning node."""

    __slots__ = ()
    id: str | None = _field("_id")
    """The scanner's id, e.g. ``de01``. Wire: ``_id``."""
    name: str | None = _field("name")
    """Its name. Wire: ``name``."""
    country: str | None = _field("country")
    """The country it scans from. Wire: ``country``."""
    city: str | None = _field("city")
    """The city it scans from. Wire: ``city``."""
    online: bool | None = _field("online")
    """Whether it is online. Wire: ``online``."""
    _repr_fields = ("id", "country", "city", "online")

    def __getattr__(self, name: str) -> Any:
        if name == "id" and "_id" not in self._raw:
            return self._read(name, "id")
        return super().__getattr__(name)


class DataDumpFile(Model):
    """A data-dump file listed for a time window, file type and day."""

    __slots__ = ()
    path: str = _field("path")
    """The file's path, e.g. ``hours/search/20260101/20260101-00.gz`` (what the link endpoint takes). Wire: ``path``."""
    size: int | None = _field("size", _int)
    """The file's size (the unit is not documented). Wire: ``size``."""
    timestamp: datetime | None = _field("timestamp", _datetime)
    """The file's timestamp, aware in UTC. Wire: ``timestamp``."""


def _opt_list(v: Any) -> list[Any] | None:
    """A list; ``{}`` reads as an empty list; absent or anything else is unknown (None)."""
    if isinstance(v, list):
        return list(v)
    if isinstance(v, dict):
        return []
    return None


class HostnameHit(_Tabled, Model):
    """A hit of ``search(datasource="hostnames")``: a hostname and when it was seen."""

    __slots__ = ()
    # BEGIN GENERATED HOSTNAME_HITS by `python -m urlscan_rs._generate`: do not edit
    id: str = _field("_id")
    """The hit's id. Wire: ``_id``."""
    hostname: str | None = _field("hostname")
    """The hostname. Wire: ``hostname``."""
    domain: str | None = _field("domain")
    """Its domain. Wire: ``domain``."""
    apex_domain: str | None = _field("apexDomain|apex_domain")
    """Its registered domain (eTLD+1). Wire: ``apexDomain`` (else ``apex_domain``)."""
    date: datetime | None = _field("date", _datetime)
    """The hit's date, aware in UTC. Wire: ``date``."""
    first_seen: datetime | None = _field("first_seen|firstSeen", _datetime)
    """When it was first seen, aware in UTC. Wire: ``first_seen`` (else ``firstSeen``)."""
    last_seen: datetime | None = _field("last_seen|lastSeen", _datetime)
    """When it was last seen, aware in UTC. Wire: ``last_seen`` (else ``lastSeen``)."""
    sources: list[str] | None = _field("sources", _opt_list)
    """What saw it, e.g. ``pdns`` or ``scan``. Wire: ``sources``."""
    # END GENERATED HOSTNAME_HITS
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    _repr_fields = ("hostname", "domain", "first_seen", "last_seen")


class IncidentHit(Incident):
    """A hit of ``search(datasource="incidents")``: an incident (every
    :class:`Incident` field) with its ``sort`` values and ``date`` (its creation)."""

    __slots__ = ()
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    date: datetime | None = _field("date", _datetime)
    """When the incident was created, aware in UTC. Wire: ``date``."""
    _repr_fields = ("id", "observable", "state", "source_type")


class CertificateHit(_Tabled, Model):
    """A hit of ``search(datasource="certificates")``: a TLS certificate seen by scans."""

    __slots__ = ()
    # BEGIN GENERATED CERTIFICATES by `python -m urlscan_rs._generate`: do not edit
    id: str = _field("_id")
    """The hit's id. Wire: ``_id``."""
    date: datetime | None = _field("date", _datetime)
    """The hit's date, aware in UTC. Wire: ``date``."""
    domain: str | None = _field("domain")
    """The certificate's domain. Wire: ``domain``."""
    subject_name: str | None = _field("subjectName")
    """The certificate's subject name. Wire: ``subjectName``."""
    issuer: str | None = _field("issuer")
    """The certificate's issuer. Wire: ``issuer``."""
    valid_from: datetime | None = _field("validFrom", _datetime)
    """The start of its validity, aware in UTC. Wire: ``validFrom``."""
    valid_to: datetime | None = _field("validTo", _datetime)
    """The end of its validity, aware in UTC. Wire: ``validTo``."""
    hostnames: list[str] | None = _field("hostnames", _opt_list)
    """Its hostnames. Wire: ``hostnames``."""
    first_seen: datetime | None = _field("firstSeen|first_seen", _datetime)
    """When it was first seen, aware in UTC. Wire: ``firstSeen`` (else ``first_seen``)."""
    last_seen: datetime | None = _field("lastSeen|last_seen", _datetime)
    """When it was last seen, aware in UTC. Wire: ``lastSeen`` (else ``last_seen``)."""
    # END GENERATED CERTIFICATES
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    _repr_fields = ("domain", "issuer", "valid_to")


class DomainHit(_Tabled, Model):
    """A hit of ``search(datasource="domains")``: a domain that scans loaded as
    their page, how often and when it was scanned, and where its newest scan
    found it (``ip``, ``asn``, ``asnname``, ``country``; ``last_scan_id`` is
    that scan's uuid: ``client.result(hit.last_scan_id)``).

    The service's documents show no domain hit: these are the emulator's
    fields (see "Data sources" in docs/guide/events.md), read leniently like every model.
    """

    __slots__ = ()
    # BEGIN GENERATED DOMAINS by `python -m urlscan_rs._generate`: do not edit
    id: str = _field("_id")
    """The hit's id (24 hex characters of the domain's SHA-256). Wire: ``_id``."""
    date: datetime | None = _field("date", _datetime)
    """The hit's date: the time of the newest scan, aware in UTC. Wire: ``date``."""
    domain: str | None = _field("domain")
    """The domain scans loaded as their page. Wire: ``domain``."""
    apex_domain: str | None = _field("apexDomain|apex_domain")
    """Its registered domain (eTLD+1). Wire: ``apexDomain`` (else ``apex_domain``)."""
    first_seen: datetime | None = _field("firstSeen|first_seen", _datetime)
    """The time of the first of those scans, aware in UTC. Wire: ``firstSeen`` (else ``first_seen``)."""
    last_seen: datetime | None = _field("lastSeen|last_seen", _datetime)
    """The time of the newest of those scans, aware in UTC. Wire: ``lastSeen`` (else ``last_seen``)."""
    scan_count: int | None = _field("scanCount|scan_count", _int)
    """How many of the scans the caller may search loaded it. Wire: ``scanCount`` (else ``scan_count``)."""
    last_scan_id: str | None = _field("lastScanId|last_scan_id")
    """The UUID of the newest of those scans. Wire: ``lastScanId`` (else ``last_scan_id``)."""
    ip: str | None = _field("ip")
    """Its IP in the newest scan. Wire: ``ip``."""
    asn: str | None = _field("asn")
    """Its autonomous system in the newest scan, e.g. ``AS64496``. Wire: ``asn``."""
    asnname: str | None = _field("asnname")
    """The name of that autonomous system. Wire: ``asnname``."""
    country: str | None = _field("country")
    """Its country in the newest scan, a two-letter code (e.g. ``DE``). Wire: ``country``."""
    # END GENERATED DOMAINS
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    _repr_fields = ("domain", "scan_count", "last_seen")


def _notified_hits(obj: Model, datasource: Any, items: Any) -> list[Any] | None:
    # Notifications carry scan hits or hostname hits.
    if not isinstance(items, list):
        if items is None:
            return None
        if isinstance(items, dict):
            return []
        raise _wrong(_join(obj, "results"), "a list", items)
    cls: type[Model] = HostnameHit if datasource == "hostnames" else SearchHit
    return [cls(x) if isinstance(x, dict) else x for x in items]


class Notification(_Tabled, Model):
    """A notification: what a webhook receives, an e-mail carries and
    ``search(datasource="notifications")`` finds (see
    :func:`urlscan_rs.parse_notification`).

    ``type`` is "subscription" (new items matched a subscription's saved
    searches) or "incident" (a watched attribute of an incident changed).
    ``id`` stays the same on every delivery attempt, so a receiver can
    de-duplicate. ``results`` are typed like the hits of ``search()`` for
    ``datasource``: :class:`SearchHit` for scans (or no datasource),
    :class:`HostnameHit` for hostnames.
    """

    __slots__ = ()
    id: str = _field("id|_id")
    """The id, 24 lowercase hex characters, the same on every delivery attempt (de-duplicate on it).
    Wire: ``id`` (else ``_id``)."""
    type: str | None = _field("type")
    """What made it: ``subscription`` or ``incident``. Wire: ``type``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When it was created, aware in UTC. Wire: ``createdAt``."""
    frequency: str | None = _field("frequency")
    """The schedule that sent it: ``live``, ``hourly`` or ``daily``. Wire: ``frequency``."""
    subscription_id: str | None = _field("subscriptionId")
    """The subscription's id; null for incident notifications. Wire: ``subscriptionId``."""
    subscription_name: str | None = _field("subscriptionName")
    """The subscription's name; null for incident notifications. Wire: ``subscriptionName``."""
    search_ids: list[str] | None = _field("searchIds", _opt_list)
    """The subscription's saved searches (ids); ``[]`` for incident notifications. Wire: ``searchIds``."""
    incident_id: str | None = _field("incidentId")
    """The incident's id; null for subscription notifications. Wire: ``incidentId``."""
    observable: str | None = _field("observable")
    """What the incident observes; null for subscription notifications. Wire: ``observable``."""
    changes: list[dict[str, Any]] | None = _field("changes", _opt_list)
    """For an incident, ``{attribute, before, after}`` per watched attribute that changed; ``[]`` otherwise. Wire: ``changes``."""
    channel_id: str | None = _field("channelId")
    """The channel it went through; null for a subscription's own e-mail addresses. Wire: ``channelId``."""
    datasource: str | None = _field("datasource")
    """What ``results`` hold: ``scans`` or ``hostnames``. Wire: ``datasource``."""

    @property
    @_field_method
    def results(self) -> list[SearchHit | HostnameHit] | None:
        """The matched items: :class:`HostnameHit` for datasource hostnames,
        :class:`SearchHit` otherwise (None when absent)."""
        cache = self._cache
        if "results" not in cache:
            cache["results"] = _notified_hits(self, self._json.get("datasource"), self._json.get("results"))
        return cache["results"]  # type: ignore[no-any-return]

    total: int | None = _field("total", _int)
    """How many ``results`` it carries. Wire: ``total``."""
    _repr_fields = ("id", "type", "created_at", "total")


class NotificationHit(Notification):
    """A hit of ``search(datasource="notifications")``: a :class:`Notification`
    with its ``sort`` values and ``date`` (its creation)."""

    __slots__ = ()
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    date: datetime | None = _field("date", _datetime)
    """When the notification was created, aware in UTC. Wire: ``date``."""

"""Hits of the other data sources and notifications."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ._base import Model, _datetime, _field, _field_method, _int, _join, _list, _Tabled, _wrong
from .premium import Incident
from .scanning import SearchHit

# ---------------------------------------------------------------- data sources and events


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
    fields (see the README's data sources), read leniently like every model.
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

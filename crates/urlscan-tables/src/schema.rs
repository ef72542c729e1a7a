//! The documented flat schemas: one row per search hit, result, hostname
//! record or notification, one column per field a table user wants, each
//! read from one wire path (or the first of a few, where the service names a
//! field two ways). Python's `urlscan_rs.schema` and the API reference's
//! schema page are made from this table.
use std::sync::Arc;

use arrow_schema::{DataType, Field, TimeUnit};

/// Bumped when a column changes name, type or meaning (added columns do not).
pub const VERSION: u32 = 1;

/// What a column holds, and how a wire value becomes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// A string.
    Str,
    /// A whole number (numbers, and numeric strings, as the models read them).
    Int,
    /// A number (numbers and numeric strings).
    Float,
    /// A boolean.
    Bool,
    /// A date-time (ISO 8601 or epoch milliseconds), UTC, microseconds.
    Time,
    /// A day (`YYYY-MM-DD`).
    Date,
    /// A list of strings (`{}` reads as empty).
    StrList,
    /// How many elements the list at the path has.
    Count,
    /// Any JSON value, kept as its JSON text.
    Json,
    /// The report page of a scan, from its result API link
    /// (`.../api/v1/result/{uuid}/` -> `.../result/{uuid}/`): the same host.
    Report,
    /// A dotted wire path not in the schema: the type its first values have.
    Infer,
}

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::Str | Ty::Report => "string",
            Ty::Int => "int64",
            Ty::Count => "int64 (a list's length)",
            Ty::Float => "float64",
            Ty::Bool => "bool",
            Ty::Time => "timestamp[us, UTC]",
            Ty::Date => "date32",
            Ty::StrList => "list<string>",
            Ty::Json => "string (JSON)",
            Ty::Infer => "inferred",
        }
    }

    /// The Arrow type of a column of this type (`Infer` once resolved).
    pub fn arrow(self) -> DataType {
        match self {
            Ty::Str | Ty::Json | Ty::Report | Ty::Infer => DataType::Utf8,
            Ty::Int | Ty::Count => DataType::Int64,
            Ty::Float => DataType::Float64,
            Ty::Bool => DataType::Boolean,
            Ty::Time => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            Ty::Date => DataType::Date32,
            Ty::StrList => DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
        }
    }
}

/// One column: its name, the wire paths it is read from (the first present
/// and not null wins), its type and what it means.
#[derive(Debug, Clone, Copy)]
pub struct Col {
    pub name: &'static str,
    pub paths: &'static [&'static str],
    pub ty: Ty,
    pub doc: &'static str,
}

/// A documented schema: what a row is, and its columns in order.
#[derive(Debug)]
pub struct Schema {
    /// The Python name (`urlscan_rs.schema.SCANS`).
    pub name: &'static str,
    /// What one row is.
    pub row: &'static str,
    pub columns: &'static [Col],
}

const fn c(name: &'static str, paths: &'static [&'static str], ty: Ty, doc: &'static str) -> Col {
    Col {
        name,
        paths,
        ty,
        doc,
    }
}

use Ty::*;

/// The columns of a scan's task time and of the page it reached, which a
/// search hit and a result carry under the same paths.
macro_rules! with_page_columns {
    ([$($before:expr),* $(,)?], [$($after:expr),* $(,)?]) => {
        &[
            $($before,)*
            c("time", &["task.time"], Time, "when the scan ran"),
            c("url", &["page.url", "task.url"], Str, "the page reached (the submitted URL when none was reached)"),
            c("submitted_url", &["task.url"], Str, "the URL submitted for scanning"),
            c("domain", &["page.domain"], Str, "the page's hostname"),
            c("apex_domain", &["page.apexDomain"], Str, "the page's registered domain"),
            c("ip", &["page.ip"], Str, "the page's IP address"),
            c("asn", &["page.asn"], Str, "the page's autonomous system (\"AS15169\")"),
            c("asnname", &["page.asnname"], Str, "the autonomous system's name"),
            c("country", &["page.country"], Str, "the page's country (ISO 3166-1 alpha-2)"),
            c("city", &["page.city"], Str, "the page's city"),
            c("server", &["page.server"], Str, "the page's Server header"),
            c("status", &["page.status"], Str, "the page's HTTP status, as sent (\"200\")"),
            c("title", &["page.title"], Str, "the page's title"),
            c("mime_type", &["page.mimeType"], Str, "the page's MIME type"),
            c("ptr", &["page.ptr"], Str, "the reverse DNS name of the page's IP"),
            c("redirected", &["page.redirected"], Str, "how the page was reached (\"off-domain\", ...)"),
            c("tls_issuer", &["page.tlsIssuer"], Str, "the issuer of the page's TLS certificate"),
            c("tls_valid_days", &["page.tlsValidDays"], Int, "the certificate's validity in days"),
            c("tls_age_days", &["page.tlsAgeDays"], Int, "the certificate's age in days at the scan"),
            c("tls_valid_from", &["page.tlsValidFrom"], Time, "when the certificate became valid"),
            $($after,)*
        ]
    };
}

/// A search hit of scans (`search()`, `similar()`, `phishfeed()`, saved-search results).
pub const SCANS: Schema = Schema {
    name: "SCANS",
    row: "a search hit of a scan (search(), similar(), phishfeed(), saved-search results, data-dump search files)",
    columns: with_page_columns!(
        [
            c("uuid", &["_id", "task.uuid"], Str, "the scan's uuid"),
        ],
        [
            c("requests", &["stats.requests"], Int, "requests the page made"),
            c("uniq_ips", &["stats.uniqIPs"], Int, "distinct IPs contacted"),
            c("uniq_countries", &["stats.uniqCountries"], Int, "distinct countries contacted"),
            c("data_length", &["stats.dataLength"], Int, "bytes received (decoded)"),
            c("encoded_data_length", &["stats.encodedDataLength"], Int, "bytes received (on the wire)"),
            c("score", &["verdicts.score"], Int, "the verdict's score, -100 (legitimate) to 100 (malicious)"),
            c("malicious", &["verdicts.malicious"], Bool, "the verdict; null when the service gave none, never false for unknown"),
            c("tags", &["task.tags"], StrList, "the scan's tags"),
            c("labels", &["labels"], StrList, "the system labels urlscan set (visual.brandai: Brand AI examined the page)"),
            c("usertags", &["usertags"], StrList, "the tags your saved searches applied"),
            c("meta", &["meta"], StrList, "the saved searches of yours it matched (searchhit.search.<id>)"),
            c("brandname", &["visible.brandname"], Str, "the brand Brand AI saw on the page"),
            c("visibility", &["task.visibility"], Str, "public, unlisted or private"),
            c("method", &["task.method"], Str, "how the scan was submitted (api, manual, automatic)"),
            c("source", &["task.source"], Str, "the submitter's source id"),
            c("report", &["result"], Report, "the scan's report page"),
            c("result", &["result"], Str, "the scan's result document (API link)"),
            c("screenshot", &["screenshot"], Str, "the scan's screenshot (link)"),
            c("indexed_at", &["indexedAt"], Time, "when the scan was indexed for search"),
        ]
    ),
};

/// A scan's result document (`result()`, `results()`, data-dump api files).
pub const RESULTS: Schema = Schema {
    name: "RESULTS",
    row: "a scan's result document (result(), results(), data-dump api files); SCANS names for what they share",
    columns: with_page_columns!(
        [
            c("uuid", &["task.uuid"], Str, "the scan's uuid"),
        ],
        [
            c("requests", &["data.requests"], Count, "requests the page made"),
            c("uniq_ips", &["lists.ips"], Count, "distinct IPs contacted"),
            c("uniq_countries", &["stats.uniqCountries"], Int, "distinct countries contacted"),
            c("secure_percentage", &["stats.securePercentage"], Float, "share of requests over TLS, in percent"),
            c("total_links", &["stats.totalLinks"], Int, "links on the page"),
            c("score", &["verdicts.overall.score"], Int, "the overall verdict's score, -100 (legitimate) to 100 (malicious)"),
            c("malicious", &["verdicts.overall.malicious"], Bool, "the overall verdict; null when the service gave none, never false for unknown"),
            c("categories", &["verdicts.overall.categories"], StrList, "the overall verdict's categories"),
            c("engines_malicious", &["verdicts.engines.maliciousTotal"], Int, "engines that found the page malicious"),
            c("community_score", &["verdicts.community.score"], Int, "the community's score"),
            c("tags", &["task.tags"], StrList, "the scan's tags"),
            c("labels", &["labels"], StrList, "the system labels urlscan set (visual.brandai: Brand AI examined the page)"),
            c("usertags", &["usertags"], StrList, "the tags your saved searches applied"),
            c("meta", &["metatags"], StrList, "the saved searches of yours it matched (searchhit.search.<id>; metatags on the wire)"),
            c("brandname", &["visible.brandname"], Str, "the brand Brand AI saw on the page"),
            c("visibility", &["task.visibility"], Str, "public, unlisted or private"),
            c("method", &["task.method"], Str, "how the scan was submitted (api, manual, automatic)"),
            c("source", &["task.source"], Str, "the submitter's source id"),
            c("user_agent", &["task.userAgent"], Str, "the browser's user agent"),
            c("report", &["task.reportURL"], Str, "the scan's report page"),
            c("screenshot", &["task.screenshotURL"], Str, "the scan's screenshot (link)"),
            c("dom", &["task.domURL"], Str, "the scan's DOM snapshot (link)"),
            c("ips", &["lists.ips"], StrList, "every IP contacted"),
            c("domains", &["lists.domains"], StrList, "every domain contacted"),
            c("hashes", &["lists.hashes"], StrList, "SHA-256 of every response"),
            c("submitter_country", &["submitter.country"], Str, "the submitter's country"),
        ]
    ),
};

/// A hostname-history record (`hostnames.history()`).
pub const HOSTNAMES: Schema = Schema {
    name: "HOSTNAMES",
    row: "a hostname-history record (hostnames.history())",
    columns: &[
        c("seen_on", &["seen_on"], Date, "the day of the observation"),
        c(
            "source",
            &["source"],
            Str,
            "what saw it (pdns, ct, scan, ...)",
        ),
        c(
            "sub_id",
            &["sub_id"],
            Str,
            "the source's own id of the record",
        ),
        c("first_seen", &["first_seen"], Time, "first seen"),
        c("last_seen", &["last_seen"], Time, "last seen"),
        c("data_type", &["data_type"], Str, "what `data` holds"),
        c("data", &["data"], Json, "the record's data, as JSON text"),
    ],
};

/// A hit of `search(datasource="hostnames")`.
pub const HOSTNAME_HITS: Schema = Schema {
    name: "HOSTNAME_HITS",
    row: "a hit of search(datasource=\"hostnames\")",
    columns: &[
        c("id", &["_id"], Str, "the hit's id"),
        c("hostname", &["hostname"], Str, "the hostname"),
        c("domain", &["domain"], Str, "its domain"),
        c(
            "apex_domain",
            &["apexDomain", "apex_domain"],
            Str,
            "its registered domain (eTLD+1)",
        ),
        c("date", &["date"], Time, "the hit's date"),
        c(
            "first_seen",
            &["first_seen", "firstSeen"],
            Time,
            "when it was first seen",
        ),
        c(
            "last_seen",
            &["last_seen", "lastSeen"],
            Time,
            "when it was last seen",
        ),
        c(
            "sources",
            &["sources"],
            StrList,
            "what saw it, e.g. ``pdns`` or ``scan``",
        ),
    ],
};

/// A hit of `search(datasource="certificates")`.
pub const CERTIFICATES: Schema = Schema {
    name: "CERTIFICATES",
    row: "a hit of search(datasource=\"certificates\")",
    columns: &[
        c("id", &["_id"], Str, "the hit's id"),
        c("date", &["date"], Time, "the hit's date"),
        c("domain", &["domain"], Str, "the certificate's domain"),
        c(
            "subject_name",
            &["subjectName"],
            Str,
            "the certificate's subject name",
        ),
        c("issuer", &["issuer"], Str, "the certificate's issuer"),
        c(
            "valid_from",
            &["validFrom"],
            Time,
            "the start of its validity",
        ),
        c("valid_to", &["validTo"], Time, "the end of its validity"),
        c("hostnames", &["hostnames"], StrList, "its hostnames"),
        c(
            "first_seen",
            &["firstSeen", "first_seen"],
            Time,
            "when it was first seen",
        ),
        c(
            "last_seen",
            &["lastSeen", "last_seen"],
            Time,
            "when it was last seen",
        ),
    ],
};

/// A hit of `search(datasource="domains")`.
pub const DOMAINS: Schema = Schema {
    name: "DOMAINS",
    row: "a hit of search(datasource=\"domains\")",
    columns: &[
        c(
            "id",
            &["_id"],
            Str,
            "the hit's id (24 hex characters of the domain's SHA-256)",
        ),
        c(
            "date",
            &["date"],
            Time,
            "the hit's date: the time of the newest scan",
        ),
        c(
            "domain",
            &["domain"],
            Str,
            "the domain scans loaded as their page",
        ),
        c(
            "apex_domain",
            &["apexDomain", "apex_domain"],
            Str,
            "its registered domain (eTLD+1)",
        ),
        c(
            "first_seen",
            &["firstSeen", "first_seen"],
            Time,
            "the time of the first of those scans",
        ),
        c(
            "last_seen",
            &["lastSeen", "last_seen"],
            Time,
            "the time of the newest of those scans",
        ),
        c(
            "scan_count",
            &["scanCount", "scan_count"],
            Int,
            "how many of the scans the caller may search loaded it",
        ),
        c(
            "last_scan_id",
            &["lastScanId", "last_scan_id"],
            Str,
            "the UUID of the newest of those scans",
        ),
        c("ip", &["ip"], Str, "its IP in the newest scan"),
        c(
            "asn",
            &["asn"],
            Str,
            "its autonomous system in the newest scan, e.g. ``AS64496``",
        ),
        c(
            "asnname",
            &["asnname"],
            Str,
            "the name of that autonomous system",
        ),
        c(
            "country",
            &["country"],
            Str,
            "its country in the newest scan, a two-letter code (e.g. ``DE``)",
        ),
    ],
};

/// A hit of `search(datasource="incidents")`.
pub const INCIDENTS: Schema = Schema {
    name: "INCIDENTS",
    row: "a hit of search(datasource=\"incidents\")",
    columns: &[
        c("id", &["_id"], Str, "the incident's id"),
        c(
            "date",
            &["date"],
            Time,
            "the hit's date (the incident's creation)",
        ),
        c(
            "observable",
            &["observable"],
            Str,
            "what the incident watches",
        ),
        c("state", &["state"], Str, "the incident's state"),
        c("source_type", &["sourceType"], Str, "what created it"),
        c("source_id", &["sourceId"], Str, "the id of what created it"),
        c(
            "visibility",
            &["visibility"],
            Str,
            "the visibility of its scans",
        ),
        c("owner", &["owner"], Str, "its owner"),
        c("created_at", &["createdAt"], Time, "created"),
        c("scanned_at", &["scannedAt"], Time, "last scanned"),
        c("expire_at", &["expireAt"], Time, "when it expires"),
        c("state_count", &["stateCount"], Int, "states recorded"),
        c("labels", &["labels"], StrList, "its labels"),
    ],
};

/// A notification (events, and `search(datasource="notifications")`).
pub const NOTIFICATIONS: Schema = Schema {
    name: "NOTIFICATIONS",
    row: "a notification (parse_notification(), search(datasource=\"notifications\"))",
    columns: &[
        c(
            "id",
            &["id", "_id"],
            Str,
            "the notification's id (the same on every delivery)",
        ),
        c("type", &["type"], Str, "subscription or incident"),
        c("created_at", &["createdAt"], Time, "created"),
        c(
            "frequency",
            &["frequency"],
            Str,
            "the subscription's frequency",
        ),
        c(
            "subscription_id",
            &["subscriptionId"],
            Str,
            "the subscription",
        ),
        c("subscription_name", &["subscriptionName"], Str, "its name"),
        c(
            "search_ids",
            &["searchIds"],
            StrList,
            "the saved searches that matched",
        ),
        c("incident_id", &["incidentId"], Str, "the incident"),
        c(
            "observable",
            &["observable"],
            Str,
            "the incident's observable",
        ),
        c("channel_id", &["channelId"], Str, "the channel it went to"),
        c(
            "datasource",
            &["datasource"],
            Str,
            "what its results are hits of",
        ),
        c("total", &["total"], Int, "items matched"),
        c("results", &["results"], Count, "items carried"),
        c("date", &["date"], Time, "the hit's date (search hits only)"),
    ],
};

/// Every schema, in the order the reference lists them.
pub const ALL: &[&Schema] = &[
    &SCANS,
    &RESULTS,
    &HOSTNAMES,
    &HOSTNAME_HITS,
    &CERTIFICATES,
    &DOMAINS,
    &INCIDENTS,
    &NOTIFICATIONS,
];

/// A schema by its name (`"SCANS"`).
pub fn by_name(name: &str) -> Option<&'static Schema> {
    ALL.iter().copied().find(|s| s.name == name)
}

impl Schema {
    pub fn column(&'static self, name: &str) -> Option<&'static Col> {
        self.columns.iter().find(|c| c.name == name)
    }
}

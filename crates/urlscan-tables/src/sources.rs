//! What the client makes of each search data source
//! (`urlscan_rules::SEARCH_DATASOURCES`): its hits' model, its table schema
//! and the columns the command line shows. This table is the one place a
//! data source is described; the client's hit class, the stubs' overloads
//! and `Datasource` literal, `urlscan_rs.schema`'s maps and the CLI's
//! `--datasource` and hit tables all follow from it.

/// One search data source as the client reads it.
#[derive(Debug, Clone, Copy)]
pub struct DataSource {
    /// The `datasource` value.
    pub name: &'static str,
    /// The Python model class of its hits (`urlscan_rs.models`).
    pub model: &'static str,
    /// Its table schema (`crate::schema`, `urlscan_rs.schema`).
    pub schema: &'static str,
    /// The schema columns the CLI shows, in order (the first is the time).
    pub shown: &'static [&'static str],
}

const fn source(
    name: &'static str,
    model: &'static str,
    schema: &'static str,
    shown: &'static [&'static str],
) -> DataSource {
    DataSource {
        name,
        model,
        schema,
        shown,
    }
}

/// In the order of `urlscan_rules::SEARCH_DATASOURCES` (the first is the default).
#[rustfmt::skip]
pub const DATA_SOURCES: &[DataSource] = &[
    source("scans", "SearchHit", "SCANS", &["time", "domain", "ip", "country", "score", "uuid"]),
    source("hostnames", "HostnameHit", "HOSTNAME_HITS", &["last_seen", "hostname", "domain", "first_seen", "sources"]),
    source("incidents", "IncidentHit", "INCIDENTS", &["created_at", "state", "observable", "source_type", "id"]),
    source("notifications", "NotificationHit", "NOTIFICATIONS", &["created_at", "type", "subscription_name", "observable", "total", "id"]),
    source("certificates", "CertificateHit", "CERTIFICATES", &["last_seen", "domain", "issuer", "valid_to", "id"]),
    source("domains", "DomainHit", "DOMAINS", &["last_seen", "domain", "scan_count", "ip", "country", "first_seen"]),
];

/// The data source named `name`.
pub fn data_source(name: &str) -> Option<&'static DataSource> {
    DATA_SOURCES.iter().find(|d| d.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{by_name, Ty};

    /// One row for each of the service's data sources, in its order.
    #[test]
    fn one_row_per_data_source_of_the_service() {
        let names: Vec<&str> = DATA_SOURCES.iter().map(|d| d.name).collect();
        assert_eq!(names, urlscan_rules::SEARCH_DATASOURCES);
    }

    /// Every data source names a schema, and columns of it.
    #[test]
    fn data_sources_name_schemas_and_columns() {
        for d in DATA_SOURCES {
            let s =
                by_name(d.schema).unwrap_or_else(|| panic!("{}: no schema {}", d.name, d.schema));
            assert!(!d.shown.is_empty(), "{}: shows no column", d.name);
            for c in d.shown {
                assert!(
                    s.column(c).is_some(),
                    "{}: {} has no column {c}",
                    d.name,
                    s.name
                );
            }
            let first = s.column(d.shown[0]).unwrap();
            assert_eq!(
                first.ty,
                Ty::Time,
                "{}: the first shown column is a time",
                d.name
            );
        }
    }
}

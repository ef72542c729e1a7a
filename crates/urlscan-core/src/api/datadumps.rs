//! Data dumps: listings per time window, file type and day, and temporary links (premium).
use serde_json::{Map, Value};

use super::endpoints::{Endpoint, Returns};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::{req, Kind};
use crate::transport::Req;

pub use urlscan_rules::{DATADUMP_FILE_TYPES as FILE_TYPES, DATADUMP_TIME_WINDOWS as TIME_WINDOWS};

pub const ENDPOINTS: &[Endpoint] = &[Endpoint::listing(
    "datadumps.list",
    "/api/v1/datadump/list/{0}/{1}/{2}",
    &["files"],
)
.ids(&[
    req("time_window", "time_window", Kind::Enum(TIME_WINDOWS)),
    req("file_type", "file_type", Kind::Enum(FILE_TYPES)),
    req("date", "date", Kind::Str),
])
.returns(Returns::Model("DataDumpFile"))
.by_hand()];

fn one_of(what: &str, v: &str, allowed: &[&str]) -> Result<()> {
    if allowed.contains(&v) {
        Ok(())
    } else {
        Err(Error::Validation(format!(
            "{what} must be one of {}, got {:?}",
            allowed.join(", "),
            crate::validate::shown(v, 40)
        )))
    }
}

/// A day as YYYYMMDD (also accepted: YYYY-MM-DD).
pub fn day(date: &str) -> Result<String> {
    let d = date.trim().replace('-', "");
    if d.len() == 8 && chrono::NaiveDate::parse_from_str(&d, "%Y%m%d").is_ok() {
        Ok(d)
    } else {
        Err(Error::Validation(format!(
            "date must be a day as YYYYMMDD, got {:?}",
            crate::validate::shown(date, 40)
        )))
    }
}

/// A data-dump file path such as "hours/search/20260101/20260101-00.gz".
pub fn dump_path(path: &str) -> Result<String> {
    let p = path.trim().trim_start_matches('/');
    let ok = !p.is_empty()
        && p.len() <= 1000
        && p.split('/').all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        });
    if ok {
        Ok(p.to_string())
    } else {
        Err(Error::Validation(format!(
            "path must be a data-dump file path such as \"hours/search/20260101/20260101-00.gz\" (at most 1000 characters), got {:?}",
            crate::validate::shown(path, 80)
        )))
    }
}

impl Client {
    pub async fn datadump_list(
        &self,
        time_window: &str,
        file_type: &str,
        date: &str,
    ) -> Result<bytes::Bytes> {
        one_of("time_window", time_window, TIME_WINDOWS)?;
        one_of("file_type", file_type, FILE_TYPES)?;
        let ids = [time_window.to_string(), file_type.to_string(), day(date)?];
        self.call_raw("datadumps.list", &ids, &Map::new()).await
    }

    /// The temporary address the service redirects to; the redirect is not
    /// followed, so the API key is not sent there.
    pub async fn datadump_link(&self, path: &str) -> Result<String> {
        let p = dump_path(path)?;
        let mut req = Req::get(format!("/api/v1/datadump/link/{p}"));
        req.follow_redirects = false;
        let resp = self.t.send(&req).await?;
        if let Some(loc) = resp
            .headers
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
        {
            // A relative Location is resolved against the base URL.
            let base = url::Url::parse(&self.config().base_url)
                .map_err(|e| Error::Decode(e.to_string()))?;
            return base
                .join(loc)
                .map(|u| u.to_string())
                .map_err(|e| Error::Decode(format!("bad Location header {loc:?}: {e}")));
        }
        // Some deployments answer with the address in a JSON body instead.
        let v: Value = crate::models::decode(&resp.body, "data-dump link")?;
        ["url", "link", "location"]
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str).map(String::from))
            .ok_or_else(|| {
                Error::Decode(format!(
                    "data-dump link: no redirect and no address in the answer (HTTP {})",
                    resp.status
                ))
            })
    }
}

//! Data dumps: listings per time window, file type and day, and temporary links (premium).
use serde_json::{Map, Value};

use reqwest::Method;

use super::endpoints::{Endpoint, Returns, Shape};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::{id, req, Kind};

pub use urlscan_rules::{DATADUMP_FILE_TYPES as FILE_TYPES, DATADUMP_TIME_WINDOWS as TIME_WINDOWS};

#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::listing("datadumps.list", "/api/v1/datadump/list/{0}/{1}/{2}", &["files"])
        .ids(&[
            req("time_window", "time_window", Kind::Enum(TIME_WINDOWS)).doc("Length of one file"),
            req("file_type", "file_type", Kind::Enum(FILE_TYPES)).doc("Kind of data"),
            req("date", "date", Kind::Str).doc("Day: YYYY-MM-DD, YYYYMMDD, today or yesterday"),
        ])
        .returns(Returns::Model("DataDumpFile"))
        .by_hand()
        .doc("The data-dump files of a time window, file type and day"),
    // The path is several segments ("hours/search/20260101/20260101-00.gz").
    Endpoint::new("datadumps.link", Method::GET, "/api/v1/datadump/link/{0}")
        .ids(&[id("path").doc("File path from `datadump list`")])
        .returns(Returns::Json(Shape::Text))
        .by_hand()
        .doc("The temporary download address of a data-dump file"),
];

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

/// A day as YYYYMMDD (also accepted: YYYY-MM-DD, and `today` or
/// `yesterday`, UTC days).
pub fn day(date: &str) -> Result<String> {
    let word = date.trim().to_ascii_lowercase();
    if word == "today" || word == "yesterday" {
        let back = chrono::Days::new(u64::from(word == "yesterday"));
        let d = chrono::Utc::now().date_naive() - back;
        return Ok(d.format("%Y%m%d").to_string());
    }
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
        let mut req = super::endpoints::row(ENDPOINTS, "datadumps.link").request(&[&p]);
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

/// A downloaded file: its size, and the attempts (1 when nothing was resumed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Downloaded {
    pub bytes: u64,
    pub attempts: u32,
}

/// What an interrupted download attempt must have brought for the next
/// resume not to count against `max_retries`.
const MIN_PROGRESS: u64 = 1 << 20;

/// The first byte and the total size a `Content-Range: bytes a-b/N` names.
fn range_of(v: &str) -> (Option<u64>, Option<u64>) {
    let start = v
        .trim()
        .strip_prefix("bytes ")
        .and_then(|r| r.split('-').next())
        .and_then(|a| a.trim().parse().ok());
    let total = v.rsplit('/').next().and_then(|n| n.trim().parse().ok());
    (start, total)
}

impl Client {
    /// The size the listing announces for a dump file (its window, type and
    /// day are in its path); None when the listing does not have it.
    pub async fn datadump_size(&self, path: &str) -> Result<Option<u64>> {
        let p = dump_path(path)?;
        let parts: Vec<&str> = p.split('/').collect();
        let (Some(window), Some(ftype), Some(day)) = (parts.first(), parts.get(1), parts.get(2))
        else {
            return Ok(None);
        };
        let day = day.trim_end_matches(".gz").trim_end_matches(".tar");
        let day: String = day.chars().take(8).collect();
        let body = self.datadump_list(window, ftype, &day).await?;
        let v: Value = crate::models::decode(&body, "data-dump listing")?;
        // The listing as the endpoint table reads it: the files, or the answer holding them.
        let files = match &v {
            Value::Array(a) => a.clone(),
            other => other
                .get("files")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        };
        Ok(files
            .iter()
            .find(|f| f.get("path").and_then(Value::as_str) == Some(p.as_str()))
            .and_then(|f| {
                crate::models::json::lenient_value_u64(f.get("size").unwrap_or(&Value::Null))
                    .ok()
                    .flatten()
            }))
    }

    /// Download a dump file to `dest`: its temporary link (the API key is not
    /// sent to that host), streamed to a temporary file created exclusively
    /// beside `dest` (see `disk::Staged`), renamed into place only when whole
    /// and of `expected` bytes (the listing's size).
    ///
    /// Bounds: nothing past `expected` (or past the client's
    /// `max_download_bytes`) is written: a host that sends more fails the
    /// download then. A body that keeps arriving is never cut by the
    /// client's `timeout`; a stall (no byte for `timeout`) or a dropped
    /// connection resumes with a `Range` request, up to `max_retries` times
    /// in a row without progress (an attempt that takes the file 1 MiB past
    /// the furthest it reached starts the count anew; a host that starts over
    /// on every attempt makes none); then the call fails with the bytes it had,
    /// and the temporary file is removed (no half file under `dest`).
    /// `progress(bytes, total)` follows the bytes (total 0 when unknown).
    pub async fn datadump_download(
        &self,
        path: &str,
        dest: &std::path::Path,
        expected: Option<u64>,
        progress: Option<super::batch::Progress>,
    ) -> Result<Downloaded> {
        use tokio::io::{AsyncSeekExt, AsyncWriteExt};
        let p = dump_path(path)?;
        // What is at `dest` is checked before anything is asked (a pipe, device, socket, link
        // or folder there is refused, never replaced), and again when the file is renamed there.
        crate::disk::checked_target(dest)?;
        let url = self.datadump_link(&p).await?;
        let mut staged = crate::disk::Staged::new(dest)?;
        let temp = staged.temp_path().to_path_buf();
        let write_err = |e: std::io::Error| crate::disk::io_error("write", &temp, &e);
        let mut file = tokio::fs::File::from_std(staged.take_file());
        let cap = self.config().max_download_bytes;
        // Past this, a byte is one the listing (or the client) did not allow.
        let limit = expected.map_or(cap, |e| e.min(cap));
        let budget = self.config().max_retries;
        let mut have: u64 = 0;
        // The size the download host gives (its Content-Length or Content-Range);
        // the listing's `expected` is checked once the host's answer is whole.
        let mut total: Option<u64> = None;
        let mut attempts = 0u32;
        // Resumes in a row since an attempt took the file `MIN_PROGRESS` past
        // the furthest it ever reached: a transfer that keeps moving may
        // resume again and again (at most once per `MIN_PROGRESS` of
        // `limit`); a dead or dripping one, or a host that starts over on
        // every attempt, `max_retries` times.
        let mut streak = 0u32;
        let mut furthest: u64 = 0;
        let too_much = |sent: u64| {
            let why = match expected {
                Some(e) if e <= cap => format!("the {e} bytes the listing announced"),
                _ => format!("max_download_bytes ({cap})"),
            };
            Error::Decode(format!(
                "data-dump file {p}: the download host sent {sent} bytes or more, past {why}; stopped writing there"
            ))
        };
        let outcome: Result<()> = async {
            loop {
                attempts += 1;
                let resp = match self.t.get_elsewhere(&url, have).await {
                    Ok(r) => r,
                    Err(e) if streak < budget && matches!(e, Error::Transport(_) | Error::Connect(_) | Error::Timeout(_)) => {
                        streak += 1;
                        tokio::time::sleep(std::time::Duration::from_millis(200 * u64::from(streak))).await;
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                let status = resp.status().as_u16();
                let (from, announced) = resp
                    .headers()
                    .get(reqwest::header::CONTENT_RANGE)
                    .and_then(|v| v.to_str().ok())
                    .map_or((None, None), range_of);
                match status {
                    // Bytes from elsewhere than asked would be appended at the wrong place.
                    206 if from.is_some_and(|a| a != have) => {
                        return Err(Error::Decode(format!(
                            "data-dump file {p}: the download host answered bytes from {} where {have} were asked for",
                            from.unwrap_or_default()
                        )))
                    }
                    206 => total = announced.or(total),
                    200 => {
                        if have > 0 {
                            // The host ignored the range: start over.
                            file.set_len(0).await.map_err(write_err)?;
                            file.seek(std::io::SeekFrom::Start(0)).await.map_err(write_err)?;
                            have = 0;
                        }
                        total = resp.content_length().or(total);
                    }
                    416 if total.is_some_and(|t| t == have) => return Ok(()),
                    _ => {
                        return Err(Error::Decode(format!(
                            "data-dump file {p}: the download host answered HTTP {status}"
                        )))
                    }
                }
                if let Some(t) = total.filter(|t| *t > limit) {
                    return Err(too_much(t));
                }
                let mut resp = resp;
                let cut = loop {
                    match resp.chunk().await {
                        Ok(Some(chunk)) => {
                            let room = limit - have;
                            if chunk.len() as u64 > room {
                                file.write_all(&chunk[..room as usize]).await.map_err(write_err)?;
                                return Err(too_much(have + chunk.len() as u64));
                            }
                            file.write_all(&chunk).await.map_err(write_err)?;
                            have += chunk.len() as u64;
                            if let Some(cb) = &progress {
                                cb(have as usize, expected.or(total).unwrap_or(0) as usize);
                            }
                        }
                        Ok(None) => break None,
                        Err(e) => break Some(crate::transport::describe_body_error(e)),
                    }
                };
                let short = total.is_some_and(|t| have < t);
                if cut.is_none() && !short {
                    return Ok(());
                }
                if have >= furthest + MIN_PROGRESS {
                    streak = 0;
                }
                furthest = furthest.max(have);
                if streak >= budget {
                    let of = total.map_or(String::new(), |t| format!(" of {t}"));
                    let why = cut.unwrap_or_else(|| "the connection closed early".into());
                    return Err(Error::Transport(format!(
                        "data-dump file {p}: the download stopped at {have}{of} bytes after {attempts} attempts ({why})"
                    )));
                }
                streak += 1;
                log::info!("data-dump file {p}: resuming at byte {have}");
            }
        }
        .await;
        outcome?;
        file.flush().await.map_err(write_err)?;
        file.sync_all().await.map_err(write_err)?;
        if let Some(t) = expected {
            if have != t {
                return Err(Error::Decode(format!(
                    "data-dump file {p}: {have} bytes downloaded where {t} were announced"
                )));
            }
        }
        // Renamed into place (on an error above the staged file is dropped
        // instead, and the temporary file removed).
        drop(file);
        staged.commit()?;
        Ok(Downloaded {
            bytes: have,
            attempts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::day;

    #[test]
    fn a_day_is_a_date_or_today_or_yesterday() {
        assert_eq!(day("2026-11-20").unwrap(), "20261120");
        assert_eq!(day(" 20261120 ").unwrap(), "20261120");
        let today = chrono::Utc::now().date_naive();
        let yesterday = today - chrono::Days::new(1);
        // Around midnight UTC the clock may turn between the two readings.
        let days = [today, yesterday, yesterday - chrono::Days::new(1)]
            .map(|d| d.format("%Y%m%d").to_string());
        assert!(days[..2].contains(&day("Today").unwrap()));
        assert!(days[1..].contains(&day("yesterday").unwrap()));
        assert!(day("tomorrow").is_err() && day("2026-02-30").is_err() && day("").is_err());
    }
}

//! Scanning: submit, poll for results, artifacts, visibility, scan options.
use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::actions;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::models::{list_or_empty, AnyObject, Doc, ResultHead, Submission};
use crate::transport::Req;
use crate::validate;

/// The SHA-256 of no bytes: the one response that is empty.
const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// A body an endpoint promises (a DOM, a result, a screenshot, a file):
/// empty is a `DecodeError`, unless it is the content of `sha256` and that
/// is the hash of nothing.
pub(crate) fn promised(body: Bytes, what: &str, sha256: Option<&str>) -> Result<Bytes> {
    if body.is_empty() && sha256 != Some(EMPTY_SHA256) {
        return Err(Error::Decode(format!(
            "{what} came back empty (HTTP 200 without a body)"
        )));
    }
    Ok(body)
}

/// The options of a scan submission besides the URL.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    pub visibility: Option<String>,
    pub tags: Option<Vec<String>>,
    pub country: Option<String>,
    pub referer: Option<String>,
    pub custom_agent: Option<String>,
    pub override_safety: Option<Value>,
}

impl ScanOptions {
    /// Check every rule and build the wire body (absent options are not sent).
    pub fn body(&self, url: &str) -> Result<Value> {
        let mut m = Map::new();
        m.insert("url".into(), json!(validate::scan_url(url)?));
        if let Some(v) = &self.visibility {
            m.insert(
                "visibility".into(),
                json!(validate::visibility(v, validate::VISIBILITIES)?),
            );
        }
        if let Some(t) = &self.tags {
            validate::tags(t)?;
            m.insert("tags".into(), json!(t));
        }
        if let Some(c) = &self.country {
            m.insert("country".into(), json!(validate::country(c)?));
        }
        if let Some(r) = &self.referer {
            validate::header_value("referer", r)?;
            m.insert("referer".into(), json!(r));
        }
        if let Some(a) = &self.custom_agent {
            validate::header_value("custom_agent", a)?;
            m.insert("customagent".into(), json!(a));
        }
        if let Some(o) = &self.override_safety {
            m.insert("overrideSafety".into(), o.clone());
        }
        Ok(Value::Object(m))
    }

    /// The rate-limit action of a submission is its requested visibility.
    fn action(&self) -> String {
        actions::scan(self.visibility.as_deref())
    }
}

/// The documented polling: wait `initial_wait`, then poll every `interval`,
/// giving up after `timeout` (all in seconds).
#[derive(Debug, Clone, Copy)]
pub struct WaitOptions {
    pub timeout: f64,
    pub initial_wait: f64,
    pub interval: f64,
}

impl Default for WaitOptions {
    fn default() -> Self {
        WaitOptions {
            timeout: 120.0,
            initial_wait: 10.0,
            interval: 2.0,
        }
    }
}

impl WaitOptions {
    pub fn validated(self) -> Result<WaitOptions> {
        validate::seconds("timeout", self.timeout, false)?;
        validate::seconds("initial_wait", self.initial_wait, true)?;
        validate::seconds("interval", self.interval, false)?;
        Ok(self)
    }
}

#[derive(Deserialize)]
struct Countries {
    #[serde(default, deserialize_with = "list_or_empty")]
    countries: Vec<String>,
}

#[derive(Deserialize)]
pub struct UserAgentsHead {
    #[serde(default, rename = "userAgents", deserialize_with = "list_or_empty")]
    pub user_agents: Vec<AnyObject>,
}

impl Client {
    /// POST /api/v1/scan
    pub async fn scan(&self, url: &str, opts: &ScanOptions) -> Result<Doc<Submission>> {
        let body = opts.body(url)?;
        let req = Req::new(Method::POST, "/api/v1/scan/")
            .json(body)
            .action(opts.action());
        let doc: Doc<Submission> = self.doc(req, "scan submission").await?;
        if let (Some(asked), Some(got)) = (&opts.visibility, &doc.head.visibility) {
            if !asked.eq_ignore_ascii_case(got) {
                log::info!(
                    "visibility of scan {} is enforced to {got} (asked {asked})",
                    doc.head.uuid
                );
            }
        }
        Ok(doc)
    }

    /// GET /api/v1/result/{uuid}/
    pub async fn result(&self, uuid: &str) -> Result<Doc<ResultHead>> {
        self.result_of(uuid, false).await
    }

    /// A result; `kept` when the caller keeps it with many others (a batch).
    pub(crate) async fn result_of(&self, uuid: &str, kept: bool) -> Result<Doc<ResultHead>> {
        let id = validate::uuid("uuid", uuid)?;
        let mut req = Req::get(format!("/api/v1/result/{id}/")).action(actions::RETRIEVE);
        req.kept = kept;
        let resp = self.t.send(&req).await?;
        crate::models::index::result_doc(resp.body)
    }

    /// Poll the result as documented: "not finished yet" keeps polling; any
    /// other error (no such scan, 410, auth) ends the wait at once.
    pub async fn wait_for_result(&self, uuid: &str, w: WaitOptions) -> Result<Doc<ResultHead>> {
        let id = validate::uuid("uuid", uuid)?;
        let w = w.validated()?;
        let deadline = Instant::now() + Duration::from_secs_f64(w.timeout);
        let first = Instant::now() + Duration::from_secs_f64(w.initial_wait.min(w.timeout));
        self.t.sleep_until(first).await?;
        let mut polls = 0u32;
        loop {
            polls += 1;
            match self.result(&id).await {
                Ok(doc) => {
                    log::debug!("scan {id} finished after {polls} poll(s)");
                    return Ok(doc);
                }
                Err(e) if e.is_pending() => {}
                Err(e) => return Err(e),
            }
            let next = Instant::now() + Duration::from_secs_f64(w.interval);
            if next > deadline {
                return Err(Error::ScanTimeout {
                    uuid: id,
                    timeout: w.timeout,
                });
            }
            log::debug!(
                "scan {id} not finished yet; polling again in {}s",
                w.interval
            );
            self.t.sleep_until(next).await?;
        }
    }

    /// Submit, then wait for the result.
    pub async fn scan_and_wait(
        &self,
        url: &str,
        opts: &ScanOptions,
        w: WaitOptions,
    ) -> Result<Doc<ResultHead>> {
        let w = w.validated()?;
        let sub = self.scan(url, opts).await?;
        self.wait_for_result(&sub.head.uuid, w).await
    }

    /// GET /screenshots/{uuid}.png
    pub async fn screenshot(&self, uuid: &str) -> Result<Bytes> {
        let id = validate::uuid("uuid", uuid)?;
        let body = self
            .bytes(Req::get(format!("/screenshots/{id}.png")))
            .await?;
        if !body.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err(Error::Decode(format!(
                "screenshot of {id} is not a PNG image ({} bytes)",
                body.len()
            )));
        }
        Ok(body)
    }

    /// GET /dom/{uuid}/
    pub async fn dom(&self, uuid: &str) -> Result<String> {
        let id = validate::uuid("uuid", uuid)?;
        let body = self.bytes(Req::get(format!("/dom/{id}/"))).await?;
        // A page's DOM holds at least its root element: empty is no DOM.
        let body = promised(body, &format!("the DOM of {id}"), None)?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// GET /responses/{sha256}/ (empty only for the hash of nothing)
    pub async fn response(&self, sha256: &str) -> Result<String> {
        let h = validate::sha256(sha256)?;
        let body = self.bytes(Req::get(format!("/responses/{h}/"))).await?;
        let body = promised(body, &format!("the response {h}"), Some(&h))?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// PUT /api/v1/result/{uuid}/visibility
    pub async fn set_visibility(&self, uuid: &str, visibility: &str) -> Result<Doc<AnyObject>> {
        let id = validate::uuid("uuid", uuid)?;
        let v = validate::visibility(visibility, urlscan_rules::VISIBILITY_CHANGES)?;
        let req = Req::new(Method::PUT, format!("/api/v1/result/{id}/visibility/"))
            .json(json!({ "visibility": v }));
        self.doc(req, "visibility change").await
    }

    /// DELETE /api/v1/result/{uuid}/visibility
    pub async fn reset_visibility(&self, uuid: &str) -> Result<Doc<AnyObject>> {
        let id = validate::uuid("uuid", uuid)?;
        let req = Req::new(Method::DELETE, format!("/api/v1/result/{id}/visibility/"));
        self.doc(req, "visibility reset").await
    }

    /// GET /api/v1/availableCountries
    pub async fn available_countries(&self) -> Result<Vec<String>> {
        let body = self.bytes(Req::get("/api/v1/availableCountries")).await?;
        // Either {"countries": [...]} or a bare list.
        if let Ok(list) = serde_json::from_slice::<Vec<String>>(&body) {
            return Ok(list);
        }
        let c: Countries = crate::models::decode(&body, "available countries")?;
        Ok(c.countries)
    }

    /// GET /api/v1/userAgents
    pub async fn user_agents(&self) -> Result<Doc<UserAgentsHead>> {
        self.doc(Req::get("/api/v1/userAgents"), "user agents")
            .await
    }
}

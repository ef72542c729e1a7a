//! Scanning: submit, poll for results, artifacts, visibility, scan options.
use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::actions;
use super::endpoints::{Endpoint, Returns, Shape};
use crate::accept::Accept;
use crate::cache::Keep;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::{build, f, req, Field, Kind};
use crate::models::{Doc, ResultHead, Submission};
use crate::validate;
use urlscan_rules as rules;

/// A submission's fields (`POST /api/v1/scan/`): the one declaration of each
/// scan option. The emulator's table of them is compared with this one.
#[rustfmt::skip]
pub const SCAN_FIELDS: &[Field] = &[
    req("url", "url", Kind::ScanUrl)
        .doc("http or https with a host (one without a scheme is sent as given; the service scans it as http)"),
    f("visibility", "visibility", Kind::AnyCase(rules::VISIBILITIES))
        .doc("public, unlisted or private (none: the account's default); the service may enforce another, which the submission's visibility says"),
    f("tags", "tags", Kind::Tags).doc("At most 10 tags to annotate the scan"),
    f("country", "country", Kind::Country)
        .doc("A two-letter country to scan from (see available_countries; none: the service chooses)"),
    f("referer", "referer", Kind::HeaderValue).doc("The Referer header the scanner sends"),
    f("custom_agent", "customagent", Kind::HeaderValue)
        .doc("The User-Agent the scanner uses (see user_agents)"),
    // The service answers a JSON boolean with `"overrideSafety" must be a string` (a live-aligned
    // fixture) while the OpenAPI says boolean; "true" is read as true under either rule.
    f("override_safety", "overrideSafety", Kind::Switch)
        .doc("Turn off the service's reclassification of URLs that may hold personal data; use with care"),
];

const UUID: &[Field] = &[req("uuid", "uuid", Kind::Uuid).doc("Scan uuid")];

#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new("scan", Method::POST, "/api/v1/scan/")
        .body("", SCAN_FIELDS, true)
        .positional(&["url"])
        .paced(actions::PUBLIC)
        .paced_by("visibility")
        .returns(Returns::Model("Submission"))
        .by_hand()
        .doc("Submit a URL for scanning"),
    Endpoint::new("result", Method::GET, "/api/v1/result/{0}/")
        .ids(UUID)
        .paced(actions::RETRIEVE)
        .cached(Keep::Always)
        .accepts(Accept::ScanResult)
        .returns(Returns::Model("ScanResult"))
        .by_hand()
        .doc("The result of a finished scan"),
    Endpoint::new("screenshot", Method::GET, "/screenshots/{0}.png")
        .ids(UUID)
        .cached(Keep::Always)
        .accepts(Accept::Png)
        .returns(Returns::Model("Screenshot"))
        .by_hand()
        .doc("The screenshot of a finished scan (PNG)"),
    Endpoint::new("dom", Method::GET, "/dom/{0}/")
        .ids(UUID)
        .cached(Keep::Always)
        .accepts(Accept::NotEmpty)
        .returns(Returns::Json(Shape::Text))
        .by_hand()
        .doc("The DOM of a finished scan's page"),
    Endpoint::new("response", Method::GET, "/responses/{0}/")
        .ids(&[req("sha256", "sha256", Kind::Sha256).doc("SHA-256 hash")])
        .returns(Returns::Json(Shape::Text))
        .by_hand()
        .doc("One response body a scan saw, by its SHA-256"),
    Endpoint::new("set_visibility", Method::PUT, "/api/v1/result/{0}/visibility/")
        .ids(UUID)
        .body("", VISIBILITY_CHANGE, true)
        .positional(&["visibility"])
        .returns(Returns::Model("VisibilityChange"))
        .doc("Change the visibility of a scan of yours or your team's"),
    Endpoint::new("reset_visibility", Method::DELETE, "/api/v1/result/{0}/visibility/")
        .ids(UUID)
        .returns(Returns::Model("VisibilityChange"))
        .doc("Reset a scan's visibility to the one it was submitted with"),
    // Either {"countries": [...]} or a bare list.
    Endpoint::listing("available_countries", "/api/v1/availableCountries", &["countries"])
        .returns(Returns::Json(Shape::Text))
        .doc("The two-letter countries a scan may come from"),
    Endpoint::listing("user_agents", "/api/v1/userAgents", &["userAgents"])
        .returns(Returns::Model("UserAgentGroup"))
        .doc("The user agents a scan may use, in groups"),
];

const VISIBILITY_CHANGE: &[Field] = &[req(
    "visibility",
    "visibility",
    Kind::AnyCase(rules::VISIBILITY_CHANGES),
)
.doc("public, unlisted, private or deleted")];

/// The rows of the calls written by hand here.
fn row(name: &str) -> &'static Endpoint {
    super::endpoints::row(ENDPOINTS, name)
}

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

/// A scan's options besides the URL, checked by the rules of
/// `SCAN_FIELDS` once (a batch checks them before anything is sent).
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// The wire fields, checked.
    wire: Map<String, Value>,
}

impl ScanOptions {
    /// The options by their keyword (or wire) names; null ones are not sent.
    pub fn new(opts: &Map<String, Value>) -> Result<ScanOptions> {
        if opts.contains_key("url") {
            return Err(Error::Validation(
                "scan: the url is given on its own, not as an option".into(),
            ));
        }
        // The options are the fields but the URL: a misspelt one is told the options alone.
        let fields: Vec<Field> = SCAN_FIELDS
            .iter()
            .filter(|f| f.name != "url")
            .copied()
            .collect();
        let wire = build("scan", &fields, opts, false)?;
        Ok(ScanOptions { wire })
    }

    /// The visibility asked for, if any.
    pub fn visibility(&self) -> Option<&str> {
        self.wire.get("visibility").and_then(Value::as_str)
    }

    /// The wire body of a submission of `url` with these options.
    pub fn body(&self, url: &str) -> Result<Value> {
        let given = Map::from_iter([("url".to_string(), Value::String(url.to_string()))]);
        let mut body = build("scan", SCAN_FIELDS, &given, true)?;
        body.extend(self.wire.clone());
        Ok(Value::Object(body))
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

impl Client {
    /// POST /api/v1/scan
    pub async fn scan(&self, url: &str, opts: &ScanOptions) -> Result<Doc<Submission>> {
        let req = row("scan").request_with(&[], opts.body(url)?);
        let doc: Doc<Submission> = self.doc(req, "scan submission").await?;
        if let (Some(asked), Some(got)) = (opts.visibility(), &doc.head.visibility) {
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
        let mut req = row("result").request(&[&id]);
        req.kept = kept;
        // The answer is read once, by the check that it is this scan's result (which the
        // transport runs before a cache keeps it, and on what a cache serves).
        let mut doc = None;
        let resp = self
            .t
            .send_checked(&req, &mut |body: &Bytes| {
                doc = Some(crate::accept::scan_result(&id, body.clone())?);
                Ok(())
            })
            .await?;
        match doc {
            Some(doc) => Ok(doc),
            None => crate::accept::scan_result(&id, resp.body),
        }
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
        // A whole PNG: the row's `accept`, checked by `bytes`.
        self.bytes(row("screenshot").request(&[&id])).await
    }

    /// GET /dom/{uuid}/
    pub async fn dom(&self, uuid: &str) -> Result<String> {
        let id = validate::uuid("uuid", uuid)?;
        // Not empty (a page's DOM holds at least its root element): the row's `accept`.
        let body = self.bytes(row("dom").request(&[&id])).await?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// GET /responses/{sha256}/ (empty only for the hash of nothing)
    pub async fn response(&self, sha256: &str) -> Result<String> {
        let h = validate::sha256(sha256)?;
        let body = self.bytes(row("response").request(&[&h])).await?;
        let body = promised(body, &format!("the response {h}"), Some(&h))?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts(v: Value) -> Result<ScanOptions> {
        ScanOptions::new(v.as_object().unwrap())
    }

    fn refused(v: Value) -> String {
        match opts(v) {
            Err(Error::Validation(m)) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn options_are_checked_and_sent_by_the_row() {
        let o = opts(
            json!({"visibility": " Private", "tags": vec!["t"; 10], "country": "DE",
            "custom_agent": "UA/1", "override_safety": true}),
        )
        .unwrap();
        assert_eq!(
            o.body("example.com/x ").unwrap(),
            json!({"url": "example.com/x", "visibility": "private", "tags": vec!["t"; 10],
                "country": "de", "customagent": "UA/1", "overrideSafety": "true"})
        );
        assert_eq!(o.visibility(), Some("private"));
        let row = row("scan");
        let paced = |body: Value| row.request_with(&[], body).action;
        assert_eq!(
            paced(o.body("https://a.example").unwrap()).as_deref(),
            Some("private")
        );
        assert_eq!(
            paced(json!({"url": "https://a.example"})).as_deref(),
            Some("public")
        );
        assert_eq!(
            refused(json!({"visibility": "Secret"})),
            "scan: visibility must be one of public, unlisted, private, got \"Secret\""
        );
        assert!(refused(json!({"tags": vec!["t"; 11]})).contains("at most 10 tags"));
        assert!(refused(json!({"tags": [" "]})).contains("empty tag"));
        assert!(refused(json!({"country": "deu"})).contains("two-letter"));
        assert!(refused(json!({"referer": "a\r\nb"})).contains("control characters"));
        assert!(refused(json!({"override_safety": "yes"})).contains("true or false"));
        // Off is not sent: any value sent turns the switch on.
        let off = opts(json!({"override_safety": false})).unwrap();
        assert_eq!(
            off.body("https://a.example").unwrap(),
            json!({"url": "https://a.example"})
        );
        assert!(refused(json!({"url": "https://a.example"})).contains("on its own"));
        let misspelt = refused(json!({"visiblity": "public"}));
        assert!(misspelt.contains("did you mean \"visibility\"") && !misspelt.contains("url"));
    }

    #[test]
    fn the_url_is_checked_by_the_service_rule() {
        let o = ScanOptions::default();
        assert!(o.body("example.com").is_ok());
        let huge = "x".repeat(10_000_000);
        let long = format!("https://a.com/{}", "x".repeat(2100));
        for bad in [
            "ftp://x.org",
            "javascript:alert(1)",
            "https:///path",
            "http://",
            "mailto:a@b.de",
            &long,
            &huge,
        ] {
            match o.body(bad) {
                Err(Error::Validation(m)) => assert!(m.len() < 400, "{}", m.len()),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}

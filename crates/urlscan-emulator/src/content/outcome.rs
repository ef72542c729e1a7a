//! Pages that did not load as a page: what the service records when the
//! browser could not reach the host, was blocked, got an empty answer, or
//! was handed a file. The submitted host's first label chooses one, so tests
//! and connectors can ask for each: `unreachable.` (connection refused),
//! `unresolved.` (no answer at all, as a real 2021 result of a host that did
//! not resolve), `denied.` (blocked by the browser's policy), `empty.` (a
//! 200 of no bytes) and `download.` (the page is a file the browser saved).
//!
//! The shapes follow the real ones: a failed page keeps only `url` and
//! `domain` in `page` and one request, whose response holds zero lengths and,
//! where the browser said why, `failed.errorText`.
use serde_json::{json, Value};

use super::facts::Outcome;
use super::helpers::{h64, iso};
use super::model::Model;

const NO_LISTS: &[&str] = &[
    "ips",
    "countries",
    "asns",
    "domains",
    "servers",
    "linkDomains",
    "certificates",
    "hashes",
];

impl Model<'_> {
    pub(super) fn outcome(&self) -> Outcome {
        self.facts
            .outcome
            .unwrap_or_else(|| Outcome::of(&self.submitted.host))
    }

    /// The result as the outcome leaves it.
    pub(super) fn shape_result(&self, r: &mut Value) {
        let url = self.submitted.url();
        match self.outcome() {
            Outcome::Loaded => {}
            Outcome::Failed(error) => {
                let mut primary = r["data"]["requests"][0].clone();
                primary["request"]["primaryRequest"] = json!(true);
                primary["request"]["request"]["url"] = json!(url);
                primary["request"]["documentURL"] = json!(url);
                let mut response = json!({"encodedDataLength": 0, "dataLength": 0});
                if let Some(text) = error {
                    response["failed"] = json!({
                        "requestId": primary["request"]["requestId"],
                        "type": "Document",
                        "errorText": text,
                        "canceled": false,
                    });
                }
                primary["response"] = response;
                r["data"] = json!({"requests": [primary], "cookies": [], "console": [], "links": [],
                    "timing": {}, "globals": [], "redirects": [], "storages": []});
                self.bare_page(r, &url);
                r["stats"] = zero_stats();
                r["lists"]["urls"] = json!([url]);
                for k in NO_LISTS {
                    r["lists"][*k] = json!([]);
                }
            }
            Outcome::Empty => {
                let mut primary = r["data"]["requests"][0].clone();
                primary["request"]["primaryRequest"] = json!(true);
                primary["response"]["dataLength"] = json!(0);
                primary["response"]["encodedDataLength"] = json!(0);
                r["data"]["requests"] = json!([primary]);
                r["data"]["links"] = json!([]);
                r["lists"]["urls"] = json!([self.page_url]);
                r["stats"]["dataLength"] = json!(0);
                r["stats"]["encodedDataLength"] = json!(0);
                r["stats"]["requests"] = json!(1);
            }
            Outcome::Download => {
                let file = self.download();
                r["meta"]["processors"]["download"] = json!({"state": "done", "data": [file]});
            }
        }
        self.apply_download_facts(r);
    }

    /// The search hit as the outcome leaves it.
    pub(super) fn shape_hit(&self, hit: &mut Value) {
        match self.outcome() {
            Outcome::Failed(_) => {
                self.bare_page(hit, &self.submitted.url());
                hit["stats"] = json!({"uniqIPs": 0, "consoleMsgs": 0, "uniqCountries": 0,
                    "dataLength": 0, "encodedDataLength": 0, "requests": 1});
            }
            Outcome::Empty => {
                hit["stats"]["dataLength"] = json!(0);
                hit["stats"]["encodedDataLength"] = json!(0);
                hit["stats"]["requests"] = json!(1);
            }
            Outcome::Loaded | Outcome::Download => {}
        }
    }

    fn bare_page(&self, doc: &mut Value, url: &str) {
        doc["page"] = json!({"url": url, "domain": self.submitted.host});
    }

    /// The file a `download.` page hands the browser.
    fn download(&self) -> Value {
        let seed = [self.spec.uuid.as_str(), self.page_url.as_str()];
        let size = 20_000 + h64(&seed) % 2_000_000;
        let sha256 = format!(
            "{:016x}{:016x}{:016x}{:016x}",
            h64(&["dl-a", seed[1]]),
            h64(&["dl-b", seed[1]]),
            h64(&["dl-c", seed[1]]),
            h64(&["dl-d", seed[1]])
        );
        let name = self
            .page
            .path()
            .rsplit('/')
            .next()
            .filter(|n| n.contains('.'))
            .unwrap_or("invoice.zip")
            .to_string();
        json!({
            "sha256": sha256,
            "filename": name,
            "filesize": size,
            "mimeType": "application/zip",
            "mimeDescription": "Zip archive data, at least v2.0 to extract",
            "url": self.page_url,
            "state": "completed",
            "receivedBytes": size,
            "startedAt": iso(self.nav0 + 900),
            "finishedAt": iso(self.nav0 + 2_400),
        })
    }
}

fn zero_stats() -> Value {
    let mut s = json!({"uniqIPs": 0, "uniqCountries": 0, "dataLength": 0, "encodedDataLength": 0,
        "requests": 1, "secureRequests": 0, "securePercentage": 0, "IPv6Percentage": 0,
        "adBlocked": 0, "malicious": 0, "totalLinks": 0});
    for k in [
        "resourceStats",
        "protocolStats",
        "tlsStats",
        "serverStats",
        "domainStats",
        "regDomainStats",
        "ipStats",
    ] {
        s[k] = json!([]);
    }
    s
}

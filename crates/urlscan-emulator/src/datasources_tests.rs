//! The search data sources and the incidents' real scans, over real HTTP.
use std::collections::HashSet;

use reqwest::Method;
use serde_json::{json, Value};

use super::events::Stored;
use crate::test_harness::Harness;

/// The shared harness with the searches these tests make.
struct T(Harness);

impl std::ops::Deref for T {
    type Target = Harness;
    fn deref(&self) -> &Harness {
        &self.0
    }
}

impl T {
    async fn new(scans: usize) -> T {
        T(Harness::start(scans, 11).await)
    }

    /// `who`: a key kind (premium, team, readonly, free, other).
    async fn json(&self, m: Method, path: &str, who: &str, body: Option<Value>) -> (u16, Value) {
        let r = self.call(m, path, who, body).await;
        (r.status, r.json())
    }

    /// One page of a data source search.
    async fn search(&self, ds: &str, q: &str, who: &str, extra: &str) -> Value {
        let q: String = url::form_urlencoded::byte_serialize(q.as_bytes()).collect();
        self.get(
            &format!("/api/v1/search/?datasource={ds}&q={q}{extra}"),
            who,
        )
        .await
        .ok()
    }

    /// Every hit of data source `ds` as the premium user, in pages of `size`:
    /// more than `more_than` of them, each with the fields `strings` as strings.
    async fn every(&self, ds: &str, size: usize, more_than: usize, strings: &[&str]) -> Vec<Value> {
        let all = self.walk(ds, "", "premium", size).await;
        assert!(all.len() > more_than, "{}", all.len());
        for hit in &all {
            assert_strings(hit, strings);
        }
        all
    }

    /// Every hit of a search, page by page with `search_after`; checks the
    /// order, the cursors and that no hit repeats.
    async fn walk(&self, ds: &str, q: &str, who: &str, size: usize) -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        let mut after = String::new();
        let mut total = None;
        loop {
            let v = self
                .search(ds, q, who, &format!("&size={size}{after}"))
                .await;
            let t = v["total"].as_u64().unwrap();
            assert_eq!(*total.get_or_insert(t), t, "total changes between pages");
            assert_eq!(v["has_more"], false);
            let hits = v["results"].as_array().unwrap().clone();
            assert!(hits.len() <= size);
            for h in &hits {
                let id = h["_id"].as_str().expect("_id");
                assert!(!id.is_empty());
                assert_eq!(h["sort"][1], id, "{h}");
                assert!(h["sort"][0].is_i64(), "{h}");
            }
            let done = hits.len() < size;
            if let Some(last) = hits.last() {
                after = format!(
                    "&search_after={},{}",
                    last["sort"][0],
                    last["sort"][1].as_str().unwrap()
                );
            }
            out.extend(hits);
            if done {
                break;
            }
        }
        let ids: HashSet<&str> = out.iter().map(|h| h["_id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), out.len(), "a hit repeats");
        assert_eq!(out.len() as u64, total.unwrap(), "the walk sees every hit");
        let keys: Vec<(i64, String)> = out
            .iter()
            .map(|h| {
                (
                    h["sort"][0].as_i64().unwrap(),
                    h["sort"][1].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert!(keys.windows(2).all(|w| w[0] > w[1]), "newest first");
        out
    }

    /// Submit a scan and let it finish; its uuid.
    async fn scan(&self, url: &str, visibility: &str, who: &str) -> String {
        let v = self
            .post(
                "/api/v1/scan/",
                who,
                json!({"url": url, "visibility": visibility}),
            )
            .await
            .ok();
        self.emu.advance(11.0);
        v["uuid"].as_str().unwrap().to_string()
    }
}

/// `hit` has a string under each of `fields`.
/// The string fields of a hostnames hit.
const HOSTNAME_STRINGS: &[&str] = &[
    "hostname",
    "domain",
    "apexDomain",
    "date",
    "first_seen",
    "last_seen",
];

/// The string fields of a certificates hit.
const CERTIFICATE_STRINGS: &[&str] = &[
    "domain",
    "subjectName",
    "issuer",
    "validFrom",
    "validTo",
    "firstSeen",
    "lastSeen",
    "date",
];

/// The string fields of a domains hit.
const DOMAIN_STRINGS: &[&str] = &[
    "domain",
    "apexDomain",
    "firstSeen",
    "lastSeen",
    "date",
    "lastScanId",
    "ip",
    "asn",
    "country",
];

fn assert_strings(hit: &Value, fields: &[&str]) {
    for f in fields {
        assert!(hit[f].is_string(), "{f} in {hit}");
    }
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------- data sources

#[tokio::test(flavor = "multi_thread")]
async fn search_after_and_plan_checks() {
    let t = T::new(5).await;
    for ds in [
        "hostnames",
        "incidents",
        "notifications",
        "certificates",
        "domains",
    ] {
        let plain = format!("/api/v1/search/?datasource={ds}");
        let (s, _) = t.json(Method::GET, &plain, "free", None).await;
        assert_eq!(s, 403, "{ds} is premium only");
        for bad in ["x", "1700000000000", "1700000000000,", "abc,def", "1,a,b"] {
            let after = format!("/api/v1/search/?datasource={ds}&search_after={bad}");
            let (s, v) = t.json(Method::GET, &after, "premium", None).await;
            assert_eq!(s, 400, "{ds} {bad}: {v}");
        }
        let v = t
            .search(ds, "", "premium", "&search_after=1700000000000,anything")
            .await;
        assert!(v["results"].is_array());
    }
    // scans keep the strict cursor
    let (s, _) = t
        .json(
            Method::GET,
            "/api/v1/search/?search_after=1700000000000,anything",
            "premium",
            None,
        )
        .await;
    assert_eq!(s, 400);
}

#[tokio::test(flavor = "multi_thread")]
async fn hostnames_datasource() {
    let t = T::new(40).await;
    let all = t.every("hostnames", 7, 40, HOSTNAME_STRINGS).await;
    for h in &all {
        assert!(h["sources"].is_array());
        assert_eq!(h["date"], h["last_seen"]);
    }
    let v = t.search("hostnames", "", "premium", "&size=0").await;
    assert_eq!(v["total"].as_u64().unwrap() as usize, all.len());
    assert!(v["results"].as_array().unwrap().is_empty());

    // queries on the documented fields
    let one = all[3]["hostname"].as_str().unwrap();
    let v = t
        .search("hostnames", &format!("hostname:\"{one}\""), "premium", "")
        .await;
    assert_eq!(v["total"], 1);
    assert_eq!(v["results"][0]["hostname"], one);
    let apex = all[3]["domain"].as_str().unwrap();
    let hits = t
        .walk("hostnames", &format!("domain:\"{apex}\""), "premium", 5)
        .await;
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["domain"] == apex));
    assert!(hits.len() < all.len());

    // a private scan's hostnames: owner and team, not others
    t.scan("https://ds-private-host.example.org/", "private", "premium")
        .await;
    let q = "hostname:ds-private-host.example.org";
    for (who, n) in [("premium", 1), ("team", 1), ("other", 0)] {
        assert_eq!(t.search("hostnames", q, who, "").await["total"], n, "{who}");
    }

    // saved searches over hostnames page with search_after too
    let sid = t.saved_search("hostnames", "h", "hostname:*").await;
    let p1 = t
        .get(
            &format!("/api/v1/user/searches/{sid}/results/?size=3"),
            "premium",
        )
        .await
        .ok();
    let hits = p1["results"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    let last = &hits[2]["sort"];
    let p2 = t
        .get(
            &format!(
                "/api/v1/user/searches/{sid}/results/?size=3&search_after={},{}",
                last[0],
                last[1].as_str().unwrap()
            ),
            "premium",
        )
        .await
        .ok();
    let p2 = p2["results"].as_array().unwrap();
    assert_eq!(p2.len(), 3);
    assert_eq!(p2[0]["_id"], all_ids_after(&t, &hits[2]).await);
}

/// The `_id` of the hostname hit that follows `hit` in the full listing.
async fn all_ids_after(t: &T, hit: &Value) -> Value {
    let all = t.walk("hostnames", "", "premium", 1000).await;
    let i = all.iter().position(|h| h["_id"] == hit["_id"]).unwrap();
    all[i + 1]["_id"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn incidents_datasource() {
    let t = T::new(5).await;
    let mut ids = Vec::new();
    for (i, obs) in [
        "one.example.com",
        "two.example.com",
        "https://three.example.net/x",
    ]
    .iter()
    .enumerate()
    {
        let v = t
            .post(
                "/api/v1/user/incidents",
                "premium",
                json!({"incident": {"observable": obs, "visibility": if i == 0 { "unlisted" } else { "private" }, "channels": []}}),
            )
            .await.ok();
        ids.push(v["incident"]["_id"].as_str().unwrap().to_string());
        t.emu.advance(5.0);
    }
    t.post(
        "/api/v1/user/incidents",
        "other",
        json!({"incident": {"observable": "outsider.example.com", "visibility": "private", "channels": []}}),
    )
    .await.ok();
    let (s, _) = t
        .json(
            Method::PUT,
            &format!("/api/v1/user/incidents/{}/close", ids[1]),
            "premium",
            Some(json!({})),
        )
        .await;
    assert_eq!(s, 200);

    let hits = t.walk("incidents", "", "premium", 2).await;
    assert_eq!(hits.len(), 3);
    let got: Vec<&str> = hits.iter().map(|h| h["_id"].as_str().unwrap()).collect();
    assert_eq!(got, [&ids[2], &ids[1], &ids[0]], "newest first");
    let direct = t
        .get(&format!("/api/v1/user/incidents/{}", ids[0]), "premium")
        .await
        .ok();
    let h = &hits[2];
    for f in [
        "observable",
        "state",
        "sourceType",
        "sourceId",
        "type",
        "visibility",
        "owner",
        "createdAt",
        "expireAt",
        "channels",
    ] {
        assert_eq!(h[f], direct["incident"][f], "{f}");
    }
    assert_eq!(h["date"], h["createdAt"]);

    // queries on the documented fields
    let count = |q: &'static str, who: &'static str| {
        let t = &t;
        async move { t.search("incidents", q, who, "").await["total"].clone() }
    };
    assert_eq!(count("observable:\"two.example.com\"", "premium").await, 1);
    assert_eq!(count("state:closed", "premium").await, 1);
    assert_eq!(count("state:active", "premium").await, 2);
    assert_eq!(count("sourceType:api", "premium").await, 3);
    assert_eq!(count("sourceId:*", "premium").await, 0);
    assert_eq!(count("type:url", "premium").await, 1);
    assert_eq!(count("type:hostname", "premium").await, 2);
    assert_eq!(count("visibility:unlisted", "premium").await, 1);
    assert_eq!(count("owner:analyst", "premium").await, 3);

    // forks name their source
    let f = t
        .post(
            &format!("/api/v1/user/incidents/{}/fork", ids[0]),
            "premium",
            json!({}),
        )
        .await
        .ok();
    let fid = f["incidents"]["_id"].as_str().unwrap();
    let v = t
        .search("incidents", &format!("sourceId:{}", ids[0]), "premium", "")
        .await;
    assert_eq!(v["total"], 1);
    assert_eq!(v["results"][0]["_id"], fid);
    assert_eq!(v["results"][0]["sourceType"], "fork");

    // visibility: the team reads them, an outsider sees only its own
    assert_eq!(count("", "team").await, 4);
    assert_eq!(count("", "other").await, 1);
    assert_eq!(count("observable:\"one.example.com\"", "other").await, 0);
}

fn note(owner: &str, team: Option<&str>, ms: i64, payload: Value) -> Stored {
    Stored {
        owner: owner.into(),
        team: team.map(String::from),
        created_ms: ms,
        payload,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn notifications_datasource() {
    let t = T::new(5).await;
    let base = 1_790_000_000_000i64;
    let iso = super::ratelimit::iso_ms;
    let sub = |i: i64, ds: &str, channel: Option<&str>| {
        json!({
            "id": format!("{:024x}", 0xa000 + i), "type": "subscription", "createdAt": iso(base + i * 1000),
            "frequency": "live", "subscriptionId": "sub00000000000000000001", "subscriptionName": "s",
            "searchIds": ["search000000000000000001"], "incidentId": null, "observable": null, "changes": [],
            "channelId": channel, "datasource": ds, "results": [], "total": 0,
        })
    };
    let inc = |i: i64| {
        json!({
            "id": format!("{:024x}", 0xb000 + i), "type": "incident", "createdAt": iso(base + i * 1000),
            "frequency": "live", "subscriptionId": null, "subscriptionName": null, "searchIds": [],
            "incidentId": "inc000000000000000000001", "observable": "changing.example.net",
            "changes": [{"attribute": "ip", "before": {"ip": "192.0.2.1"}, "after": {"ip": "192.0.2.2"}}],
            "channelId": "chan00000000000000000001", "datasource": "scans", "results": [], "total": 0,
        })
    };
    {
        let mut ev = t.emu.state.events();
        let blue = Some("blue-team");
        ev.notifications.extend([
            note(
                "analyst",
                blue,
                base + 1000,
                sub(1, "scans", Some("chan00000000000000000001")),
            ),
            note("analyst", blue, base + 2000, sub(2, "hostnames", None)),
            note("analyst", blue, base + 3000, inc(3)),
            note("analyst", blue, base + 4000, sub(4, "scans", None)),
            note("teammate", blue, base + 5000, sub(5, "scans", None)),
            note("analyst", None, base + 6000, sub(6, "scans", None)),
            note(
                "outsider",
                Some("red-team"),
                base + 7000,
                sub(7, "scans", None),
            ),
        ]);
    }
    let hits = t.walk("notifications", "", "premium", 2).await;
    assert_eq!(hits.len(), 6);
    assert_eq!(hits[0]["id"], format!("{:024x}", 0xa006));
    assert_eq!(hits[5]["id"], format!("{:024x}", 0xa001));
    for h in &hits {
        assert_eq!(h["_id"], h["id"]);
        assert_eq!(h["date"], h["createdAt"]);
        for f in [
            "type",
            "subscriptionId",
            "incidentId",
            "searchIds",
            "datasource",
            "observable",
            "channelId",
            "results",
            "total",
        ] {
            assert!(h.get(f).is_some(), "{f} in {h}");
        }
    }
    let count = |q: &'static str, who: &'static str| {
        let t = &t;
        async move { t.search("notifications", q, who, "").await["total"].clone() }
    };
    assert_eq!(count("type:incident", "premium").await, 1);
    assert_eq!(count("type:subscription", "premium").await, 5);
    assert_eq!(
        count("incidentId:inc000000000000000000001", "premium").await,
        1
    );
    assert_eq!(
        count("subscriptionId:sub00000000000000000001", "premium").await,
        5
    );
    assert_eq!(
        count("searchIds:search000000000000000001", "premium").await,
        5
    );
    assert_eq!(count("datasource:hostnames", "premium").await, 1);
    assert_eq!(
        count("observable:\"changing.example.net\"", "premium").await,
        1
    );
    assert_eq!(
        count("channelId:chan00000000000000000001", "premium").await,
        2
    );
    assert_eq!(count("date:>=2026-09-21", "premium").await, 6);
    // the team sees the team's; the outsider only its own
    assert_eq!(count("", "team").await, 5);
    assert_eq!(count("", "other").await, 1);
    assert_eq!(count("type:incident", "other").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn certificates_datasource() {
    let t = T::new(30).await;
    let all = t.every("certificates", 9, 10, CERTIFICATE_STRINGS).await;
    for c in &all {
        assert_eq!(c["domain"], c["subjectName"]);
        assert_eq!(c["date"], c["lastSeen"]);
        assert!(c["firstSeen"].as_str() <= c["lastSeen"].as_str());
        assert!(c["validFrom"].as_str() < c["validTo"].as_str());
        assert!(!c["hostnames"].as_array().unwrap().is_empty());
        let id = super::datasources::certificate_id(
            c["subjectName"].as_str().unwrap(),
            c["issuer"].as_str().unwrap(),
            c["validFrom"].as_str().unwrap(),
        );
        assert_eq!(c["_id"], id);
        assert_eq!(id.len(), 24);
    }

    // every certificate of a scan's result is there, seen on its hosts
    let uuid = t
        .scan("https://www.ds-cert-check.com/", "private", "premium")
        .await;
    let res = t
        .get(&format!("/api/v1/result/{uuid}/"), "premium")
        .await
        .ok();
    let listed = res["lists"]["certificates"].as_array().unwrap();
    assert!(!listed.is_empty());
    let page_cert = listed
        .iter()
        .find(|c| {
            let s = c["subjectName"].as_str().unwrap();
            s == "www.ds-cert-check.com" || s == "*.ds-cert-check.com"
        })
        .expect("the page's certificate")
        .clone();
    let subject = page_cert["subjectName"].as_str().unwrap();
    let v = t
        .search("certificates", "domain:ds-cert-check.com", "premium", "")
        .await;
    assert_eq!(v["total"], 1, "{v}");
    let hit = &v["results"][0];
    assert_eq!(hit["subjectName"], subject);
    assert_eq!(hit["issuer"], page_cert["issuer"]);
    let from_ms = page_cert["validFrom"].as_i64().unwrap() * 1000;
    assert_eq!(hit["validFrom"], super::ratelimit::iso_ms(from_ms));
    assert_eq!(hit["firstSeen"], res["task"]["time"]);
    assert!(strs(&hit["hostnames"]).contains(&"www.ds-cert-check.com".to_string()));
    // private: not for others
    assert_eq!(
        t.search("certificates", "domain:ds-cert-check.com", "other", "")
            .await["total"],
        0
    );
    assert_eq!(
        t.search("certificates", "domain:ds-cert-check.com", "team", "")
            .await["total"],
        1
    );

    // issuer filters
    let issuer = all[0]["issuer"].as_str().unwrap();
    let by_issuer = t
        .walk(
            "certificates",
            &format!("issuer:\"{issuer}\""),
            "premium",
            50,
        )
        .await;
    assert!(!by_issuer.is_empty());
    assert!(by_issuer.iter().all(|c| c["issuer"] == issuer));
    let other_issuers = all.iter().filter(|c| c["issuer"] != issuer).count();
    assert!(other_issuers > 0);
    let now = t.search("certificates", "", "premium", "&size=0").await;
    assert!(now["total"].as_u64().unwrap() as usize > all.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn domains_datasource() {
    let t = T::new(40).await;
    let all = t.every("domains", 7, 20, DOMAIN_STRINGS).await;
    let scans = t.walk("scans", "", "premium", 100).await;
    assert_eq!(scans.len(), 40);
    // one hit per page domain of the scans, counting them all
    let counted: u64 = all.iter().map(|d| d["scanCount"].as_u64().unwrap()).sum();
    assert_eq!(counted, 40);
    let names: HashSet<&str> = scans
        .iter()
        .map(|h| h["page"]["domain"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), all.len());
    for d in &all {
        let domain = d["domain"].as_str().unwrap();
        assert!(names.contains(domain), "{domain}");
        assert_eq!(
            d["_id"],
            crate::premium_model::hostnames::hostname_id(domain)
        );
        assert_eq!(d["date"], d["lastSeen"]);
        assert!(d["firstSeen"].as_str() <= d["lastSeen"].as_str());
        // the newest scan of the domain gives the last-scan fields
        let mine: Vec<&Value> = scans
            .iter()
            .filter(|h| h["page"]["domain"] == domain)
            .collect();
        assert_eq!(d["scanCount"], mine.len(), "{domain}");
        let (newest, oldest) = (mine[0], mine[mine.len() - 1]);
        assert_eq!(d["lastScanId"], newest["_id"]);
        assert_eq!(d["lastSeen"], newest["task"]["time"]);
        assert_eq!(d["firstSeen"], oldest["task"]["time"]);
        for f in ["ip", "asn", "asnname", "country", "apexDomain"] {
            assert_eq!(d[f], newest["page"][f], "{f} of {domain}");
        }
    }

    // queries on the documented fields
    let one = all[5]["domain"].as_str().unwrap();
    let v = t
        .search("domains", &format!("domain:\"{one}\""), "premium", "")
        .await;
    assert_eq!(v["total"], 1, "{v}");
    assert_eq!(v["results"][0]["domain"], one);
    let busy = t.walk("domains", "scanCount:>1", "premium", 5).await;
    let expect = all.iter().filter(|d| d["scanCount"].as_u64() > Some(1));
    assert_eq!(busy.len(), expect.count());
    assert!(busy.iter().all(|d| d["scanCount"].as_u64() > Some(1)));
    let country = all[0]["country"].as_str().unwrap();
    let local = t
        .walk("domains", &format!("country:{country}"), "premium", 5)
        .await;
    assert!(!local.is_empty() && local.iter().all(|d| d["country"] == country));
    let ip = all[2]["ip"].as_str().unwrap();
    let v = t
        .search("domains", &format!("ip:\"{ip}\""), "premium", "")
        .await;
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["_id"] == all[2]["_id"]));

    // a private scan's domain: for the owner and the team, counted and
    // described by its newest scan; sub-domains match the parent
    let first = t
        .scan("https://ds-domain-check.com/", "private", "premium")
        .await;
    let www = t
        .scan("https://www.ds-domain-check.com/", "private", "premium")
        .await;
    let again = t
        .scan("https://www.ds-domain-check.com/", "private", "premium")
        .await;
    let res = t
        .get(&format!("/api/v1/result/{again}/"), "premium")
        .await
        .ok();
    let host = res["page"]["domain"].as_str().unwrap().to_string();
    assert_eq!(host, "www.ds-domain-check.com");
    let hits = t
        .walk("domains", "domain:ds-domain-check.com", "premium", 1)
        .await;
    let got: Vec<&str> = hits.iter().map(|h| h["domain"].as_str().unwrap()).collect();
    assert_eq!(got, ["www.ds-domain-check.com", "ds-domain-check.com"]);
    assert_eq!(hits[0]["scanCount"], 2);
    assert_eq!(hits[0]["lastScanId"], again.as_str());
    assert_eq!(hits[0]["lastSeen"], res["task"]["time"]);
    assert_eq!(hits[0]["ip"], res["page"]["ip"]);
    assert_eq!(hits[0]["apexDomain"], "ds-domain-check.com");
    let www_res = t
        .get(&format!("/api/v1/result/{www}/"), "premium")
        .await
        .ok();
    assert_eq!(hits[0]["firstSeen"], www_res["task"]["time"]);
    assert_eq!(hits[1]["lastScanId"], first.as_str());
    assert_eq!(hits[1]["scanCount"], 1);
    let q = "apexDomain:\"ds-domain-check.com\"";
    for (who, n) in [("premium", 2), ("team", 2), ("other", 0)] {
        assert_eq!(t.search("domains", q, who, "").await["total"], n, "{who}");
    }
    let v = t.search("domains", "", "premium", "&size=0").await;
    assert_eq!(v["total"].as_u64().unwrap() as usize, all.len() + 2);
    assert!(v["results"].as_array().unwrap().is_empty());
}

// ---------------------------------------------------------------- incident scans

async fn incident(t: &T, fields: Value) -> (String, Value) {
    let v = t
        .post(
            "/api/v1/user/incidents",
            "premium",
            json!({ "incident": fields }),
        )
        .await
        .ok();
    let id = v["incident"]["_id"].as_str().unwrap().to_string();
    (id, v["incident"].clone())
}

async fn states(t: &T, id: &str) -> Vec<Value> {
    t.get(&format!("/api/v1/user/incidentstates/{id}"), "premium")
        .await
        .ok()["incidentstates"]
        .as_array()
        .unwrap()
        .clone()
}

fn ms_of(iso: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(iso.as_str().unwrap())
        .unwrap()
        .timestamp_millis()
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_scans_are_real() {
    let t = T::new(5).await;
    let fields = json!({"observable": "www.incident-scan.example.com", "visibility": "private", "channels": [],
                        "scanInterval": 600, "userAgents": ["UA-a", "UA-b"], "countries": ["de", "us"]});
    let (id, _) = incident(&t, fields).await;
    t.emu.advance(1_250.0);
    let list = states(&t, &id).await;
    assert_eq!(list.len(), 3);
    let mut ids = HashSet::new();
    for s in &list {
        let uuid = s["state"]["scanId"].as_str().expect("scanId").to_string();
        assert!(uuid::Uuid::try_parse(&uuid).is_ok());
        let res = t
            .get(&format!("/api/v1/result/{uuid}/"), "premium")
            .await
            .ok();
        assert_eq!(res["task"]["uuid"], uuid.as_str());
        assert_eq!(res["task"]["url"], s["state"]["url"]);
        assert_eq!(res["task"]["time"], s["timeStart"]);
        assert_eq!(res["task"]["visibility"], "private");
        assert_eq!(res["page"]["ip"], s["state"]["ip"]);
        assert_eq!(res["page"]["title"], s["state"]["title"]);
        t.get(&format!("/api/v1/result/{uuid}/"), "team").await.ok();
        let r = t.get(&format!("/api/v1/result/{uuid}/"), "other").await;
        assert_eq!(r.status, 404, "private to others");
        let r = t.get(&format!("/screenshots/{uuid}.png"), "premium").await;
        assert_eq!(r.status, 200);
        assert_eq!(&r.body[1..4], b"PNG");
        let r = t.get(&format!("/dom/{uuid}/"), "premium").await;
        assert_eq!(r.status, 200);
        let dom = r.body;
        assert!(String::from_utf8_lossy(&dom).contains("<html"));
        ids.insert(uuid);
    }
    assert_eq!(ids.len(), 3);
    // found by search for the owner and the team, not for others
    let q = "page.domain:www.incident-scan.example.com";
    for (who, n) in [("premium", 3), ("team", 3), ("other", 0)] {
        let v = t.search("scans", q, who, "").await;
        assert_eq!(v["total"], n, "{who}");
        if n > 0 {
            let found: HashSet<String> = v["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["_id"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(found, ids);
        }
    }

    // unlisted: readable with the uuid, still not found by others
    let (uid, created) = incident(
        &t,
        json!({"observable": "unlisted-scan.example.org", "visibility": "unlisted", "channels": []}),
    )
    .await;
    assert_eq!(created["stateCount"], 1);
    let s0 = &states(&t, &uid).await[0];
    let uuid = s0["state"]["scanId"].as_str().unwrap();
    let res = t
        .get(&format!("/api/v1/result/{uuid}/"), "other")
        .await
        .ok();
    assert_eq!(res["task"]["visibility"], "unlisted");
    let q = "page.domain:unlisted-scan.example.org";
    assert_eq!(t.search("scans", q, "premium", "").await["total"], 1);
    assert_eq!(t.search("scans", q, "other", "").await["total"], 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_scans_are_capped() {
    let t = T::new(5).await;
    let fields = json!({"observable": "busy.example.org", "visibility": "private", "channels": [],
                        "scanInterval": 60, "expireAfter": 31_536_000});
    let (id, _) = incident(&t, fields).await;
    t.emu.advance(86_400.0);
    let list = states(&t, &id).await;
    assert_eq!(list.len(), 1_441);
    let real: Vec<&Value> = list
        .iter()
        .filter(|s| !s["state"]["scanId"].is_null())
        .collect();
    // the creation's scan, then the last intervals' only
    assert_eq!(real.len(), 251);
    assert!(list[1..list.len() - 250]
        .iter()
        .all(|s| s["state"]["scanId"].is_null()));
    let v = t
        .search(
            "scans",
            "page.domain:busy.example.org",
            "premium",
            "&size=0",
        )
        .await;
    assert_eq!(v["total"], 251);
    let size: usize = list.iter().map(|s| s.to_string().len()).sum();
    let inc = t
        .get(&format!("/api/v1/user/incidents/{id}"), "premium")
        .await
        .ok();
    assert_eq!(
        inc["incident"]["stateSize"].as_u64().unwrap() as usize,
        size
    );
}

/// Every change reported for the incident: queued ones, or those already
/// turned into notifications (one per channel); as (changes, hit, at ms).
fn changes_of(t: &T, id: &str) -> Vec<(Vec<Value>, Value, i64)> {
    let ev = t.emu.state.events();
    let mut out: Vec<(Vec<Value>, Value, i64)> = ev
        .incident_changes
        .iter()
        .filter(|c| c.incident_id == id)
        .map(|c| (c.changes.clone(), c.hit.clone(), c.at_ms))
        .collect();
    for n in &ev.notifications {
        let p = &n.payload;
        if p["incidentId"] == id && !out.iter().any(|o| o.1["_id"] == p["results"][0]["_id"]) {
            let hit = p["results"][0].clone();
            let at = hit["sort"][0].as_i64().unwrap_or_default();
            out.push((p["changes"].as_array().unwrap().clone(), hit, at));
        }
    }
    out.sort_by_key(|o| o.2);
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn changing_observable_reports_changes() {
    let t = T::new(5).await;
    let ch = t
        .post(
            "/api/v1/user/channels/",
            "premium",
            json!({"channel": {"type": "email", "name": "c", "emailAddresses": ["soc@example.com"]}}),
        )
        .await.ok();
    let cid = ch["channel"]["_id"].as_str().unwrap().to_string();
    let (id, _) = incident(
        &t,
        json!({"observable": "changing.example.net", "visibility": "private", "channels": [cid],
               "scanInterval": 600}),
    )
    .await;
    let (stable, _) = incident(
        &t,
        json!({"observable": "stable.example.net", "visibility": "private", "channels": [cid],
               "scanInterval": 600}),
    )
    .await;
    let (narrow, _) = incident(
        &t,
        json!({"observable": "changing.example.org", "visibility": "private", "channels": [],
               "scanInterval": 600, "watchedAttributes": ["tls", "meta"]}),
    )
    .await;
    assert!(changes_of(&t, &id).is_empty(), "the first observation");
    {
        let ev = t.emu.state.events();
        assert!(ev.incident_changes.iter().all(|c| c.incident_id == id));
    }
    t.emu.advance(1_250.0);
    let list = states(&t, &id).await;
    assert_eq!(list.len(), 3);
    let ips: Vec<&Value> = list.iter().map(|s| &s["state"]["ip"]).collect();
    let titles: Vec<&Value> = list.iter().map(|s| &s["state"]["title"]).collect();
    assert!(ips[0] != ips[1] && ips[1] != ips[2], "{ips:?}");
    assert!(titles[0] != titles[1] && titles[1] != titles[2]);

    let got = changes_of(&t, &id);
    assert_eq!(got.len(), 2);
    for (i, (changes, hit, at)) in got.iter().enumerate() {
        let (prev, now) = (&list[i], &list[i + 1]);
        assert_eq!(*at, ms_of(&now["timeStart"]));
        assert_eq!(hit["_id"], now["state"]["scanId"]);
        assert_eq!(hit["page"]["ip"], now["state"]["ip"]);
        assert_eq!(hit["page"]["title"], now["state"]["title"]);
        let attrs: Vec<&str> = changes
            .iter()
            .map(|c| c["attribute"].as_str().unwrap())
            .collect();
        assert_eq!(attrs, ["dns", "page", "ip"], "{changes:?}");
        let ip = changes.iter().find(|c| c["attribute"] == "ip").unwrap();
        assert_eq!(ip["before"], prev["state"]["attributes"]["ip"]);
        assert_eq!(ip["after"], now["state"]["attributes"]["ip"]);
        assert_eq!(ip["after"]["ip"], now["state"]["ip"]);
        assert_ne!(ip["before"], ip["after"]);
    }
    {
        let ev = t.emu.state.events();
        if let Some(c) = ev.incident_changes.iter().find(|c| c.incident_id == id) {
            assert_eq!(c.owner, "analyst");
            assert_eq!(c.team.as_deref(), Some("blue-team"));
            assert_eq!(c.observable, "changing.example.net");
            assert_eq!(c.channels, vec![cid.clone()]);
        }
    }
    assert!(changes_of(&t, &stable).is_empty(), "a stable host");
    assert!(changes_of(&t, &narrow).is_empty(), "unwatched attributes");

    // the scan shows what it observed: result, hit and index agree
    let last = &list[2]["state"];
    let uuid = last["scanId"].as_str().unwrap();
    let res = t
        .get(&format!("/api/v1/result/{uuid}/"), "premium")
        .await
        .ok();
    assert_eq!(res["page"]["ip"], last["ip"]);
    assert_eq!(res["page"]["title"], last["title"]);
    assert!(strs(&res["lists"]["ips"]).contains(&last["ip"].as_str().unwrap().to_string()));
    for q in [
        format!("page.ip:\"{}\"", last["ip"].as_str().unwrap()),
        format!("ip:\"{}\"", last["ip"].as_str().unwrap()),
    ] {
        // the other `changing.` host walks the same addresses
        let q = format!("{q} AND page.domain:changing.example.net");
        let v = t.search("scans", &q, "premium", "").await;
        assert_eq!(v["total"], 1, "{q}");
        assert_eq!(v["results"][0]["_id"], uuid);
        assert_eq!(v["results"][0]["page"]["title"], last["title"]);
    }

    // a restarted incident observes afresh
    let base = format!("/api/v1/user/incidents/{id}");
    t.put(&format!("{base}/close"), "premium", json!({})).await;
    t.put(&format!("{base}/restart"), "premium", json!({}))
        .await;
    assert_eq!(changes_of(&t, &id).len(), 2);
    t.emu.advance(600.0);
    assert_eq!(changes_of(&t, &id).len(), 3);
}

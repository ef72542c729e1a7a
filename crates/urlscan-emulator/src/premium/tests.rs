//! The premium endpoints over real HTTP.
use std::collections::{HashMap, HashSet};
use std::io::Read;

use serde_json::{json, Value};

use super::incidents;
use crate::test_harness::{Harness, Resp};

type T = Harness;

/// An emulator with `scans` scans, from the seed these tests' data needs.
async fn emulator(scans: usize) -> T {
    Harness::start(scans, 7).await
}

fn assert_validation(r: &Resp, needle: &str) {
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json();
    assert_eq!(v["code"], "validationerror");
    let m = v["message"].as_str().unwrap();
    assert!(m.contains(needle), "{m:?} lacks {needle:?}");
}

// ---------------------------------------------------------------- access

#[tokio::test(flavor = "multi_thread")]
async fn access_rules() {
    let t = emulator(20).await;
    for path in [
        "/api/v1/livescan/scanners/",
        "/api/v1/user/searches/",
        "/api/v1/user/subscriptions/",
        "/api/v1/user/watchableAttributes",
        "/api/v1/pro/availableBrands",
        "/api/v1/pro/brands",
        "/api/v1/hostname/example.com",
        "/api/v1/datadump/list/days/api/20250101",
        "/downloads/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ] {
        assert_eq!(t.get(path, "free").await.status, 403, "free {path}");
        assert_eq!(t.get(path, "").await.status, 401, "anonymous {path}");
    }
    // Channels are not premium in the specification: any key, but not none.
    t.expect_get("/api/v1/user/channels/", "free", 200).await;
    t.expect_get("/api/v1/user/channels/", "", 401).await;
    // the read-only key reads but does not write
    t.expect_get("/api/v1/user/searches/", "readonly", 200)
        .await;
    t.expect_get("/api/v1/user/searches", "readonly", 200).await;
    let search = json!({"search": {"datasource": "scans", "name": "n", "query": "x"}});
    let r = t.post("/api/v1/user/searches/", "readonly", search).await;
    assert_eq!(r.status, 403);
    assert!(r.message().contains("readwrite"));
    let inc =
        json!({"incident": {"observable": "example.com", "visibility": "private", "channels": []}});
    t.expect_post("/api/v1/user/incidents", "readonly", inc.clone(), 403)
        .await;
    t.expect_post("/api/v1/user/incidents", "free", inc, 403)
        .await;
    let task = json!({"task": {"url": "https://example.com/"}});
    t.expect_post("/api/v1/livescan/de01/task/", "readonly", task, 403)
        .await;
    // hostname history needs the readwrite scope
    t.expect_get("/api/v1/hostname/example.com", "readonly", 403)
        .await;
    let ch = json!({"channel": {"type": "email", "name": "c"}});
    t.expect_post("/api/v1/user/channels/", "readonly", ch, 403)
        .await;
}

// ---------------------------------------------------------------- saved searches

#[tokio::test(flavor = "multi_thread")]
async fn saved_searches() {
    let t = emulator(200).await;
    let p = "/api/v1/user/searches/";
    // validation
    let r = t
        .post(
            p,
            "premium",
            json!({"search": {"datasource": "scans", "query": "x"}}),
        )
        .await;
    assert_validation(&r, "\"search.name\" is required");
    let r = t
        .post(p, "premium", json!({"search": {"datasource": "urls", "name": "n", "query": "x", "tlp": "white", "bogus": 1}}))
        .await;
    assert_validation(&r, "\"search.bogus\" is not allowed");
    assert_validation(
        &r,
        "\"search.datasource\" must be one of [hostnames, scans]",
    );
    assert_validation(&r, "\"search.tlp\" must be one of");
    let r = t
        .post(p, "premium", json!({"search": {"datasource": "scans", "name": "n", "query": "x", "userTags": ["nope.tag"]}}))
        .await;
    assert_validation(&r, "userTags[0]");
    assert_validation(
        &t.post(p, "premium", json!({"name": "x"})).await,
        "\"search\" is required",
    );
    let r = t
        .post(p, "premium", json!({"search": {"datasource": "scans", "name": "n", "query": "x", "permissions": ["team:admin"]}}))
        .await;
    assert_validation(&r, "permissions[0]");

    // create; `usertags` is accepted as the schema spells it
    let r = t
        .post(p, "premium", json!({"search": {
            "datasource": "scans", "name": "Public API scans", "query": "task.method:api",
            "description": "d", "tlp": "amber+strict", "usertags": ["private.mine"], "permissions": ["team:read"],
        }}))
        .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let s = r.json()["search"].clone();
    let id = s["_id"].as_str().unwrap().to_string();
    let item = format!("{p}{id}/");
    assert_eq!(id.len(), 24);
    assert_eq!(s["userTags"], json!(["private.mine"]));
    assert_eq!(s["tlp"], "amber+strict");
    assert!(s["createdAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(s["ownerDescription"], "analyst");

    // list: the owner (and the read-only key of the same user) and the team see it
    for who in ["premium", "readonly", "team"] {
        let l = t.get(p, who).await.json();
        assert!(
            l["searches"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["_id"] == id.as_str()),
            "{who}"
        );
    }
    let l = t.get(p, "other").await.json();
    assert!(l["searches"].as_array().unwrap().is_empty());

    // results, search-style
    let res = t.get(&format!("{p}{id}/results/"), "team").await;
    assert_eq!(res.status, 200);
    let v = res.json();
    assert!(v["total"].as_u64().unwrap() > 0);
    assert!(v["has_more"].is_boolean() && v["took"].is_u64());
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["task"]["method"] == "api"));
    let small = t
        .get(&format!("{p}{id}/results/?size=2"), "premium")
        .await
        .json();
    assert_eq!(small["results"].as_array().unwrap().len(), 2);
    t.expect_get(&format!("{p}{id}/results/"), "other", 404)
        .await;

    // team:read does not allow changes; the outsider does not see it at all
    let upd = json!({"search": {"name": "Renamed"}});
    t.expect_put(&item, "team", upd.clone(), 403).await;
    t.expect_put(&item, "other", upd.clone(), 404).await;
    t.expect_put(&item, "readonly", upd.clone(), 403).await;
    let renamed = json!({"search": {"name": "Renamed", "permissions": ["team:write"]}});
    let r = t.put(&item, "premium", renamed).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["search"]["name"], "Renamed");
    assert_eq!(r.json()["search"]["_id"], id.as_str());
    // now the team may change it
    let described = json!({"search": {"description": "by team", "_id": id}});
    let r = t.put(&format!("{p}{id}"), "team", described).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["search"]["description"], "by team");
    let r = t
        .put(&item, "premium", json!({"search": {"tlp": "purple"}}))
        .await;
    assert_validation(&r, "tlp");
    let unknown = format!("{p}0123456789abcdef01234567/");
    t.expect_put(&unknown, "premium", upd, 404).await;

    // hostnames datasource
    let search =
        json!({"search": {"datasource": "hostnames", "name": "h", "query": "hostname:com"}});
    let r = t.post(p, "premium", search).await;
    let hid = r.json()["search"]["_id"].as_str().unwrap().to_string();
    let v = t.get(&format!("{p}{hid}/results/"), "premium").await.json();
    let hits = v["results"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits
        .iter()
        .all(|h| h["hostname"].as_str().unwrap().ends_with(".com")));
    assert!(hits[0]["first_seen"].is_string() && hits[0]["sources"].is_array());

    // a stored query that does not parse answers 400 on results
    let search =
        json!({"search": {"datasource": "scans", "name": "bad", "query": "page.domain:(("}});
    let r = t.post(p, "premium", search).await;
    let bid = r.json()["search"]["_id"].as_str().unwrap().to_string();
    let r = t.get(&format!("{p}{bid}/results/"), "premium").await;
    assert_eq!(r.status, 400);
    assert!(r.message().contains("Failed to parse query"));

    // delete
    t.expect_delete(&format!("{p}{bid}/"), "team", 404).await;
    let r = t.delete(&format!("{p}{bid}/"), "premium").await;
    assert_eq!((r.status, r.json()), (200, json!({})));
    t.expect_delete(&format!("{p}{bid}/"), "premium", 404).await;
    t.expect_get(&format!("{p}{bid}/results/"), "premium", 404)
        .await;
}

// ---------------------------------------------------------------- labels and saved-search matches

/// The hits of a scan search as `who` (up to 10,000; 100 without premium).
async fn scan_hits(t: &T, q: &str, who: &str) -> Vec<Value> {
    let q: String = url::form_urlencoded::byte_serialize(q.as_bytes()).collect();
    let v = t
        .get(&format!("/api/v1/search/?q={q}&size=10000"), who)
        .await
        .ok();
    v["results"].as_array().unwrap().clone()
}

fn ids(hits: &[Value]) -> HashSet<String> {
    hits.iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect()
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn brand_ai_labels_results_hits_and_searches() {
    let t = emulator(300).await;
    let all = scan_hits(&t, "", "premium").await;
    let brand: Vec<Value> = all
        .iter()
        .filter(|h| h.get("brand").is_some())
        .cloned()
        .collect();
    assert!(
        !brand.is_empty() && brand.len() < all.len(),
        "{}",
        brand.len()
    );
    for h in &all {
        if h.get("brand").is_some() {
            assert_eq!(h["labels"], json!(["visual.brandai"]));
            assert_eq!(h["visible"]["brandname"], h["brand"][0]["name"]);
        } else {
            assert_eq!(h["labels"], json!([]));
            assert!(h.get("visible").is_none(), "{h}");
        }
    }
    // `labels` and `visible.brandname` are searchable, by anyone.
    assert_eq!(
        ids(&scan_hits(&t, "labels:visual.brandai", "premium").await),
        ids(&brand)
    );
    let free = scan_hits(&t, "labels:visual.brandai", "free").await;
    assert!(!free.is_empty() && free.iter().all(|h| h.get("brand").is_some()));
    let name = brand[0]["visible"]["brandname"].as_str().unwrap();
    let same: Vec<Value> = brand
        .iter()
        .filter(|h| h["visible"]["brandname"] == name)
        .cloned()
        .collect();
    for q in [
        format!("visible.brandname:\"{}\"", name.to_lowercase()),
        format!("visible.brandname:\"{}\"", name.to_uppercase()),
    ] {
        assert_eq!(ids(&scan_hits(&t, &q, "premium").await), ids(&same), "{q}");
    }
    assert!(scan_hits(&t, "visible.brandname:nobrand", "premium")
        .await
        .is_empty());
    // The result documents agree with the hits.
    let plain = all.iter().find(|h| h.get("brand").is_none()).unwrap();
    for h in [&brand[0], plain] {
        let path = format!("/api/v1/result/{}/", h["_id"].as_str().unwrap());
        let r = t.get(&path, "free").await.ok();
        assert_eq!(r["labels"], h["labels"]);
        assert_eq!(r.get("visible"), h.get("visible"));
        assert_eq!((&r["usertags"], &r["metatags"]), (&json!([]), &json!([])));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn saved_search_matches_show_in_meta_and_usertags() {
    let t = emulator(300).await;
    let p = "/api/v1/user/searches/";
    let all = scan_hits(&t, "", "premium").await;
    // Saved after the scans were indexed: one shared with the team, one not,
    // one over hostnames (never tagged on scans).
    let query = "page.country:US";
    let saved = |query: &str, tags: Value, perms: Value, ds: &str| {
        json!({"search": {"datasource": ds, "name": "n", "query": query,
            "userTags": tags, "permissions": perms}})
    };
    let body = saved(
        query,
        json!(["private.matched", "team.shared"]),
        json!(["team:read"]),
        "scans",
    );
    let r = t.post(p, "premium", body).await.ok();
    let id = r["search"]["_id"].as_str().unwrap().to_string();
    let tag = format!("searchhit.search.{id}");
    let body = saved(
        "labels:visual.brandai",
        json!(["private.mine"]),
        json!([]),
        "scans",
    );
    let r = t.post(p, "premium", body).await.ok();
    let own = format!("searchhit.search.{}", r["search"]["_id"].as_str().unwrap());
    let body = saved(
        "hostname:com",
        json!(["private.hosts"]),
        json!([]),
        "hostnames",
    );
    let r = t.post(p, "premium", body).await.ok();
    let hosts = format!("searchhit.search.{}", r["search"]["_id"].as_str().unwrap());

    let matched = ids(&scan_hits(&t, query, "premium").await);
    assert!(!matched.is_empty() && matched.len() < all.len());
    // The owner (either key) and the team see the shared search's matches;
    // only the owner sees the unshared one's.
    for who in ["premium", "readonly", "team"] {
        let hits = scan_hits(&t, "", who).await;
        assert_eq!(hits.len(), all.len(), "{who}");
        for h in &hits {
            let (meta, usertags) = (strs(&h["meta"]), strs(&h["usertags"]));
            let hit = matched.contains(h["_id"].as_str().unwrap());
            assert_eq!(meta.contains(&tag.as_str()), hit, "{who} {h}");
            assert_eq!(usertags.contains(&"private.matched"), hit, "{who}");
            assert_eq!(usertags.contains(&"team.shared"), hit, "{who}");
            let brand = h.get("brand").is_some() && who != "team";
            assert_eq!(meta.contains(&own.as_str()), brand, "{who} {h}");
            assert_eq!(usertags.contains(&"private.mine"), brand, "{who}");
            assert!(!meta.contains(&hosts.as_str()) && !usertags.contains(&"private.hosts"));
            assert_eq!(
                meta.len(),
                usize::from(hit) + usize::from(brand),
                "{who}: {meta:?}"
            );
        }
    }
    // Another team's key, and no key: empty lists.
    for who in ["other", ""] {
        let hits = scan_hits(&t, "", who).await;
        assert!(!hits.is_empty());
        for h in &hits {
            assert_eq!(
                (&h["meta"], &h["usertags"]),
                (&json!([]), &json!([])),
                "{who}"
            );
        }
    }
    // `meta` and `usertags` are searched per caller.
    let q = format!("meta:{tag}");
    for who in ["premium", "team"] {
        assert_eq!(ids(&scan_hits(&t, &q, who).await), matched, "{who}");
    }
    for who in ["other", ""] {
        assert!(scan_hits(&t, &q, who).await.is_empty(), "{who}");
    }
    let mine = scan_hits(&t, "usertags:PRIVATE.MATCHED", "premium").await;
    assert_eq!(ids(&mine), matched);
    let rest = scan_hits(&t, &format!("NOT meta:{tag}"), "premium").await;
    assert_eq!(rest.len(), all.len() - matched.len());
    assert!(ids(&rest).is_disjoint(&matched));
    let both = scan_hits(
        &t,
        &format!("meta:{tag} AND labels:visual.brandai"),
        "premium",
    )
    .await;
    assert!(both
        .iter()
        .all(|h| strs(&h["meta"]) == [tag.as_str(), own.as_str()]));
    // The saved search's own results show it.
    let res = t
        .get(&format!("{p}{id}/results/?size=10000"), "team")
        .await
        .ok();
    let res = res["results"].as_array().unwrap();
    assert_eq!(ids(res), matched);
    assert!(res.iter().all(|h| strs(&h["meta"]).contains(&tag.as_str())));

    // The result documents: `metatags` and `usertags`.
    let hit_id = matched.iter().next().unwrap();
    let miss_id = all
        .iter()
        .map(|h| h["_id"].as_str().unwrap())
        .find(|u| !matched.contains(*u))
        .unwrap();
    let result = |uuid: &str| format!("/api/v1/result/{uuid}/");
    for who in ["premium", "team"] {
        let r = t.get(&result(hit_id), who).await.ok();
        assert!(strs(&r["metatags"]).contains(&tag.as_str()), "{who}");
        let u = strs(&r["usertags"]);
        assert!(u.contains(&"private.matched") && u.contains(&"team.shared"));
        let r = t.get(&result(miss_id), who).await.ok();
        assert!(!strs(&r["metatags"]).contains(&tag.as_str()), "{who}");
        assert!(!strs(&r["usertags"]).contains(&"private.matched"));
    }
    let r = t.get(&result(hit_id), "other").await.ok();
    assert_eq!((&r["metatags"], &r["usertags"]), (&json!([]), &json!([])));

    // Removed, it tags nothing: the count is not a stale one.
    t.expect_delete(&format!("{p}{id}/"), "premium", 200).await;
    assert!(scan_hits(&t, &q, "premium").await.is_empty());
    let hits = scan_hits(&t, "", "team").await;
    assert!(hits.iter().all(|h| h["meta"] == json!([])));
}

// ---------------------------------------------------------------- subscriptions

#[tokio::test(flavor = "multi_thread")]
async fn subscriptions() {
    let t = emulator(200).await;
    let sid = t.saved_search("scans", "n", "task.method:api").await;
    let ch = t
        .post("/api/v1/user/channels/", "premium", json!({"channel": {"type": "email", "name": "mail", "emailAddresses": ["a@example.com"]}}))
        .await
        .json();
    let cid = ch["channel"]["_id"].as_str().unwrap().to_string();
    let p = "/api/v1/user/subscriptions/";
    let good = json!({"subscription": {
        "searchIds": [sid], "frequency": "daily", "emailAddresses": ["a@example.com"], "name": "Daily",
        "isActive": true, "ignoreTime": false, "weekDays": ["Monday", "Friday"], "channelIds": [cid],
        "incidentVisibility": "private", "incidentCreationMode": "ignore-if-exists", "incidentWatchKeys": "scans/page.domain",
    }});
    // validation
    let r = t
        .post(
            p,
            "premium",
            json!({"subscription": {"searchIds": [], "name": "x"}}),
        )
        .await;
    assert_validation(&r, "\"subscription.frequency\" is required");
    assert_validation(&r, "\"subscription.isActive\" is required");
    let mut bad = good.clone();
    bad["subscription"]["searchIds"] = json!(["ffffffffffffffffffffffff"]);
    assert_validation(&t.post(p, "premium", bad).await, "unknown saved search");
    let mut bad = good.clone();
    bad["subscription"]["emailAddresses"] = json!(["not-an-email"]);
    assert_validation(&t.post(p, "premium", bad).await, "must be a valid email");
    let mut bad = good.clone();
    bad["subscription"]["weekDays"] = json!(["Funday"]);
    assert_validation(&t.post(p, "premium", bad).await, "weekDays[0]");
    let mut bad = good.clone();
    bad["subscription"]["incidentCreationMode"] = json!("sometimes");
    assert_validation(&t.post(p, "premium", bad).await, "incidentCreationMode");
    // another team's key does not see the search
    assert_validation(
        &t.post(p, "other", good.clone()).await,
        "unknown saved search",
    );

    let r = t.post(p, "premium", good).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let sub = r.json()["subscription"].clone();
    let id = sub["_id"].as_str().unwrap().to_string();
    let item = format!("{p}{id}/");
    assert_eq!(sub["frequency"], "daily");
    assert_eq!(sub["searchIds"], json!([sid]));
    let l = t.get(p, "premium").await.json();
    assert_eq!(l["subscriptions"].as_array().unwrap().len(), 1);
    // not shared with the team
    assert!(t.get_list(p, "team", "subscriptions").await.is_empty());
    t.expect_get(&format!("{p}{id}/results/scans/"), "team", 404)
        .await;

    let res = t.get(&format!("{p}{id}/results/scans/"), "premium").await;
    assert_eq!(res.status, 200);
    let hits = res.json()["results"].as_array().unwrap().clone();
    assert!(!hits.is_empty() && hits.len() <= 100);
    let times: Vec<i64> = hits
        .iter()
        .map(|h| h["sort"][0].as_i64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]));
    let none = t
        .get(&format!("{p}{id}/results/hostnames"), "premium")
        .await
        .json();
    assert_eq!(none, json!({"results": []}));
    assert_validation(
        &t.get(&format!("{p}{id}/results/urls/"), "premium").await,
        "datasource",
    );

    let hourly = json!({"subscription": {"frequency": "hourly", "permissions": ["team:read"]}});
    let r = t.put(&item, "premium", hourly).await;
    assert_eq!(r.json()["subscription"]["frequency"], "hourly");
    assert_eq!(
        t.get(p, "team").await.json()["subscriptions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    t.expect_put(&item, "team", json!({"subscription": {"name": "x"}}), 403)
        .await;
    t.expect_delete(&item, "other", 404).await;
    assert_eq!(t.delete(&item, "premium").await.json(), json!({}));
    assert!(t.get(p, "premium").await.json()["subscriptions"]
        .as_array()
        .unwrap()
        .is_empty());
}

// ---------------------------------------------------------------- channels

#[tokio::test(flavor = "multi_thread")]
async fn channels() {
    let t = emulator(10).await;
    let p = "/api/v1/user/channels/";
    // an invalid channel, and what the message names
    for (channel, needle) in [
        (json!({"name": "x"}), "\"channel.type\" is required"),
        (
            json!({"type": "sms", "name": "x"}),
            "\"channel.type\" must be one of [webhook, email]",
        ),
        (
            json!({"type": "email", "name": "x", "utcTime": "25:00"}),
            "HH:MM",
        ),
        (
            json!({"type": "webhook", "name": "x", "webhookURL": "ftp://x"}),
            "webhookURL",
        ),
        (
            json!({"type": "email", "name": "x", "emailAddresses": ["@x"]}),
            "valid email",
        ),
    ] {
        let r = t.post(p, "premium", json!({ "channel": channel })).await;
        assert_validation(&r, needle);
    }
    let r = t
        .post(p, "premium", json!({"channel": {"type": "webhook", "name": "Hook", "webhookURL": "https://hooks.example.com/x", "utcTime": "09:30", "frequency": "live"}}))
        .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let ch = r.json()["channel"].clone();
    let id = ch["_id"].as_str().unwrap().to_string();
    let item = format!("{p}{id}");
    assert_eq!(ch["isDefault"], false);
    assert_eq!(ch["ignoreTime"], false);
    assert_eq!(ch["utcTime"], "09:30");
    for path in [format!("{p}{id}"), format!("{p}{id}/")] {
        let g = t.get(&path, "premium").await;
        assert_eq!(g.json()["channel"]["name"], "Hook");
    }
    t.expect_get(&item, "team", 404).await;
    t.expect_get(&item, "other", 404).await;
    let renamed = json!({"channel": {"name": "Hook 2", "permissions": ["team:read"]}});
    let r = t.put(&item, "premium", renamed).await;
    assert_eq!(r.json()["channel"]["name"], "Hook 2");
    t.expect_get(&item, "team", 200).await;
    t.expect_put(&item, "team", json!({"channel": {"name": "x"}}), 403)
        .await;
    let l = t.get(p, "team").await.json();
    assert_eq!(l["channels"].as_array().unwrap().len(), 1);
    assert!(t.get_list(p, "other", "channels").await.is_empty());
}

// ---------------------------------------------------------------- incidents

async fn channel(t: &T) -> String {
    let r = t
        .post("/api/v1/user/channels/", "premium", json!({"channel": {"type": "email", "name": "c", "emailAddresses": ["soc@example.com"]}}))
        .await;
    r.json()["channel"]["_id"].as_str().unwrap().to_string()
}

async fn incident(t: &T, fields: Value) -> Value {
    let r = t
        .post(
            "/api/v1/user/incidents",
            "premium",
            json!({ "incident": fields }),
        )
        .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    r.json()["incident"].clone()
}

/// The incident's state and how many states it has had.
async fn incident_state(t: &T, id: &str) -> (String, u64) {
    let i = incident_get(t, id).await;
    let state = i["state"].as_str().unwrap().to_string();
    (state, i["stateCount"].as_u64().unwrap())
}

async fn incident_get(t: &T, id: &str) -> Value {
    let r = t
        .get(&format!("/api/v1/user/incidents/{id}"), "premium")
        .await;
    assert_eq!(r.status, 200);
    r.json()["incident"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_validation_and_shape() {
    let t = emulator(10).await;
    let cid = channel(&t).await;
    let p = "/api/v1/user/incidents";
    let r = t
        .post(p, "premium", json!({"incident": {"visibility": "public"}}))
        .await;
    assert_validation(&r, "\"incident.observable\" is required");
    assert_validation(&r, "\"incident.channels\" is required");
    assert_validation(
        &r,
        "\"incident.visibility\" must be one of [unlisted, private]",
    );
    let base = json!({"observable": "example.com", "visibility": "private", "channels": [cid]});
    let with = |k: &str, v: Value| {
        let mut b = base.clone();
        b[k] = v;
        json!({ "incident": b })
    };
    let long = format!("/{}", "a".repeat(2000));
    // one wrong field at a time, and what the message names
    for (k, v, needle) in [
        ("channels", json!(["nope"]), "unknown channel"),
        ("extraPath", json!("no-slash"), "pattern"),
        ("extraPath", json!("/a b"), "pattern"),
        ("extraPath", json!(long), "2000"),
        (
            "watchedAttributes",
            json!(["dns", "html"]),
            "watchedAttributes[1]",
        ),
        ("scanIntervalMode", json!("sometimes"), "scanIntervalMode"),
        ("countries", json!(["deu"]), "countries[0]"),
        ("scanInterval", json!("1h"), "must be an integer"),
        ("color", json!("red"), "\"incident.color\" is not allowed"),
        ("observable", json!("not a host"), "observable"),
    ] {
        assert_validation(&t.post(p, "premium", with(k, v)).await, needle);
    }
    // another team's channel is unknown to the caller
    assert_validation(
        &t.post(p, "other", json!({ "incident": base.clone() }))
            .await,
        "unknown channel",
    );

    let mut b = base.clone();
    b["extraPath"] = json!("/login?x=1&y=[2]");
    b["expireAfter"] = json!(86_400);
    b["incidentProfile"] = json!("profile-1");
    let inc = incident(&t, b).await;
    // Every field a client may set (but expireAfter, shown as expireAt) and
    // every response-only field it may echo back.
    let settable = incidents::FIELDS.iter().map(|f| f.name);
    let shown = settable.filter(|k| *k != "expireAfter");
    for k in shown.chain(incidents::READ_ONLY.iter().copied()) {
        assert!(inc.get(k).is_some(), "missing {k}");
    }
    assert!(inc.get("expireAfter").is_none());
    assert_eq!(inc["state"], "active");
    assert_eq!(inc["sourceType"], "api");
    assert_eq!(inc["type"], "hostname");
    assert_eq!(inc["owner"], "analyst");
    assert_eq!(inc["stateCount"], 1);
    assert!(inc["stateSize"].as_u64().unwrap() > 0);
    assert_eq!(inc["scannedAt"], inc["createdAt"]);
    let created = chrono::DateTime::parse_from_rfc3339(inc["createdAt"].as_str().unwrap()).unwrap();
    let expire = chrono::DateTime::parse_from_rfc3339(inc["expireAt"].as_str().unwrap()).unwrap();
    assert_eq!((expire - created).num_seconds(), 86_400);

    let typed = |o: &str| json!({"observable": o, "visibility": "unlisted", "channels": []});
    assert_eq!(
        incident(&t, typed("https://example.com/a")).await["type"],
        "url"
    );
    assert_eq!(incident(&t, typed("93.184.216.34")).await["type"], "ip");

    let a = t
        .get("/api/v1/user/watchableAttributes", "premium")
        .await
        .json();
    assert_eq!(
        a,
        json!({"attributes": ["detections", "tls", "dns", "labels", "page", "meta", "ip"]})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_transitions_and_states() {
    let t = emulator(10).await;
    let cid = channel(&t).await;
    let inc = incident(
        &t,
        json!({
            "observable": "www.example.com", "visibility": "private", "channels": [cid],
            "scanInterval": 600, "userAgents": ["UA-a", "UA-b", "UA-c"], "userAgentsPerInterval": 1,
            "countries": ["DE", "us"], "countriesPerInterval": 1, "expireAfter": 86_400,
        }),
    )
    .await;
    let id = inc["_id"].as_str().unwrap().to_string();
    assert_eq!(inc["countries"], json!(["de", "us"]));
    t.advance(1_250.0);
    let now = incident_get(&t, &id).await;
    assert_eq!(now["stateCount"], 3);
    assert!(now["stateSize"].as_u64() > inc["stateSize"].as_u64());
    let sts = t
        .get(&format!("/api/v1/user/incidentstates/{id}/"), "premium")
        .await
        .json();
    let list = sts["incidentstates"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    let uas: Vec<&str> = list
        .iter()
        .map(|s| s["state"]["userAgent"].as_str().unwrap())
        .collect();
    let ccs: Vec<&str> = list
        .iter()
        .map(|s| s["state"]["country"].as_str().unwrap())
        .collect();
    assert_eq!(uas, ["UA-a", "UA-b", "UA-c"]);
    assert_eq!(ccs, ["de", "us", "de"]);
    let s0 = &list[0];
    assert_eq!(s0["incident"], id.as_str());
    assert_eq!(s0["state"]["status"], "active");
    assert_eq!(s0["state"]["malicious"], false);
    assert!(s0["_id"].is_string() && s0["timeStart"].is_string() && s0["timeEnd"].is_string());
    assert!(s0["state"]["title"].is_string() && s0["state"]["ip"].is_string());
    assert!(s0["state"]["attributes"]["page"]["title"].is_string());
    assert!(s0["state"]["attributes"]["ip"]["asn"].is_string());
    assert_eq!(now["scannedAt"], list[2]["timeStart"]);

    // close, close again, restart, restart again
    let base = format!("/api/v1/user/incidents/{id}");
    t.expect_put(&format!("{base}/close"), "team", json!({}), 403)
        .await;
    t.expect_put(&format!("{base}/close"), "other", json!({}), 404)
        .await;
    let r = t.put(&format!("{base}/close"), "premium", json!({})).await;
    assert_eq!(r.json(), json!({"message": "Incident closed"}));
    assert_eq!(incident_get(&t, &id).await["state"], "closed");
    let r = t.put(&format!("{base}/close"), "premium", json!({})).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.message(), "Incident is already closed");
    t.advance(3_600.0);
    assert_eq!(
        incident_get(&t, &id).await["stateCount"],
        3,
        "a closed incident is not scanned"
    );
    let r = t
        .put(&format!("{base}/restart"), "premium", json!({}))
        .await;
    assert_eq!(r.json(), json!({"message": "Incident restarted"}));
    let back = incident_get(&t, &id).await;
    assert_eq!(back["state"], "active");
    assert_eq!(back["stateCount"], 1);
    assert!(back["expireAt"].as_str() > now["expireAt"].as_str());
    let r = t
        .put(&format!("{base}/restart/"), "premium", json!({}))
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.message(), "Incident is not closed");

    // update runtime options
    let r = t
        .put(
            &base,
            "premium",
            json!({"incident": {"scanInterval": 1200, "userAgentsPerInterval": 2}}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["incident"]["scanInterval"], 1200);
    assert_validation(
        &t.put(
            &base,
            "premium",
            json!({"incident": {"observable": "other.example"}}),
        )
        .await,
        "cannot be changed",
    );
    t.expect_put(
        &base,
        "team",
        json!({"incident": {"scanInterval": 600}}),
        403,
    )
    .await;

    // team reads, outsiders do not
    t.expect_get(&base, "team", 200).await;
    t.expect_get(&base, "readonly", 200).await;
    t.expect_get(&base, "other", 404).await;
    t.expect_get(&format!("/api/v1/user/incidentstates/{id}"), "other", 404)
        .await;

    // expiry closes it
    t.advance(86_401.0);
    assert_eq!(incident_get(&t, &id).await["state"], "closed");
    t.expect_get(
        "/api/v1/user/incidents/ffffffffffffffffffffffff",
        "premium",
        404,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_rotation_per_interval() {
    let t = emulator(10).await;
    let inc = incident(&t, json!({
        "observable": "www.example.org", "visibility": "unlisted", "channels": [],
        "scanInterval": 3600, "userAgents": ["a", "b", "c", "d"], "userAgentsPerInterval": 2,
        "countries": ["de", "us", "jp"], "countriesPerInterval": 1, "watchedAttributes": ["page", "ip"],
    }))
    .await;
    let id = inc["_id"].as_str().unwrap();
    assert_eq!(inc["stateCount"], 2);
    t.advance(3_600.0);
    let sts = t
        .get(&format!("/api/v1/user/incidentstates/{id}"), "premium")
        .await
        .json();
    let pairs: Vec<(String, String)> = sts["incidentstates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["state"]["userAgent"].as_str().unwrap().into(),
                s["state"]["country"].as_str().unwrap().into(),
            )
        })
        .collect();
    let attrs = sts["incidentstates"][0]["state"]["attributes"]
        .as_object()
        .unwrap();
    assert_eq!(attrs.keys().collect::<Vec<_>>(), ["page", "ip"]);
    let want: Vec<(String, String)> = [("a", "de"), ("b", "de"), ("c", "us"), ("d", "us")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(pairs, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_automatic_closes() {
    let t = emulator(10).await;
    // suspended: closes stopDelaySuspended after the first scan saw it
    let suspended = json!({
        "observable": "suspended.example.com", "visibility": "private", "channels": [],
        "scanInterval": 3600, "stopDelaySuspended": 7200, "scanIntervalAfterSuspended": 1800,
    });
    let s = incident(&t, suspended).await;
    let sid = s["_id"].as_str().unwrap().to_string();
    assert_eq!(s["labels"], json!(["suspended"]));
    // inactive
    let i = incident(&t, json!({
        "observable": "https://inactive.example.net/path", "visibility": "private", "channels": [],
        "stopDelayInactive": 600,
    }))
    .await;
    let iid = i["_id"].as_str().unwrap().to_string();
    // malicious by name, and by the content generator's phishing verdict
    let malicious = json!({
        "observable": "malicious.example.org", "visibility": "private", "channels": [],
        "scanInterval": 3600, "scanIntervalAfterMalicious": 600, "stopDelayMalicious": 3000,
    });
    let m = incident(&t, malicious).await;
    let mid = m["_id"].as_str().unwrap().to_string();
    let ph = incident(&t, json!({
        "observable": "paypal-secure-login.xyz", "visibility": "private", "channels": [], "stopDelayMalicious": 60,
    }))
    .await;
    assert!(ph["labels"]
        .as_array()
        .unwrap()
        .contains(&json!("malicious")));
    assert!(ph["labels"]
        .as_array()
        .unwrap()
        .contains(&json!("brand:paypal")));
    // manual mode keeps the interval after it became malicious
    let man = incident(
        &t,
        json!({
            "observable": "malicious.example.com", "visibility": "private", "channels": [],
            "scanInterval": 3600, "scanIntervalAfterMalicious": 600, "scanIntervalMode": "manual",
        }),
    )
    .await;
    let manid = man["_id"].as_str().unwrap().to_string();
    // benign: stays active
    let b = incident(&t, json!({"observable": "www.example.com", "visibility": "private", "channels": [], "stopDelayMalicious": 0}))
        .await;
    let bid = b["_id"].as_str().unwrap().to_string();

    let sts = t
        .get(&format!("/api/v1/user/incidentstates/{sid}"), "premium")
        .await
        .json();
    assert_eq!(sts["incidentstates"][0]["state"]["status"], "suspended");
    let sts = t
        .get(&format!("/api/v1/user/incidentstates/{iid}"), "premium")
        .await
        .json();
    assert_eq!(sts["incidentstates"][0]["state"]["status"], "inactive");
    let sts = t
        .get(&format!("/api/v1/user/incidentstates/{mid}"), "premium")
        .await
        .json();
    assert_eq!(sts["incidentstates"][0]["state"]["malicious"], true);
    assert_eq!(sts["incidentstates"][0]["state"]["status"], "active");

    t.advance(595.0);
    assert_eq!(incident_get(&t, &iid).await["state"], "active");
    assert_eq!(
        incident_get(&t, ph["_id"].as_str().unwrap()).await["state"],
        "closed"
    );
    t.advance(5.0);
    assert_eq!(incident_get(&t, &iid).await["state"], "closed");
    // malicious: rescanned every 600 s
    t.advance(2_395.0);
    assert_eq!(incident_state(&t, &mid).await, ("active".to_string(), 5));
    assert_eq!(incident_get(&t, &manid).await["stateCount"], 1);
    t.advance(5.0);
    assert_eq!(incident_get(&t, &mid).await["state"], "closed");
    // suspended: rescanned every 1800 s, closed at 7200 s
    t.advance(4_195.0);
    assert_eq!(incident_state(&t, &sid).await, ("active".to_string(), 4));
    t.advance(5.0);
    assert_eq!(incident_get(&t, &sid).await["state"], "closed");
    assert_eq!(incident_get(&t, &bid).await["state"], "active");
    // a closed incident keeps its states
    let states = format!("/api/v1/user/incidentstates/{sid}");
    let sts = t.get_list(&states, "premium", "incidentstates").await;
    assert_eq!(sts.len(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_copy_and_fork() {
    let t = emulator(10).await;
    let orig = incident(&t, json!({
        "observable": "www.example.com", "visibility": "private", "channels": [], "scanInterval": 600, "expireAfter": 7200,
    }))
    .await;
    let id = orig["_id"].as_str().unwrap().to_string();
    let inc = format!("/api/v1/user/incidents/{id}");
    t.advance(1_200.0);
    assert_eq!(incident_get(&t, &id).await["stateCount"], 3);
    t.put(&format!("{inc}/close"), "premium", json!({})).await;

    let r = t.post(&format!("{inc}/copy"), "premium", json!({})).await;
    assert_eq!(r.status, 200);
    let copy = r.json()["incidents"].clone();
    assert!(r.json().get("incident").is_none());
    assert_eq!(copy["sourceType"], "copy");
    assert_eq!(copy["sourceId"], id.as_str());
    assert_eq!(copy["state"], "active");
    assert_eq!(copy["stateCount"], 1);
    assert_ne!(copy["_id"], id.as_str());
    assert_eq!(copy["scanInterval"], 600);

    let fork = t
        .post(&format!("{inc}/fork/"), "premium", json!({}))
        .await
        .json()["incidents"]
        .clone();
    assert_eq!(fork["sourceType"], "fork");
    assert_eq!(fork["sourceId"], id.as_str());
    assert_eq!(fork["state"], "active");
    assert_eq!(fork["stateCount"], 4);
    let fid = fork["_id"].as_str().unwrap();
    let states = format!("/api/v1/user/incidentstates/{fid}");
    let sts = t.get_list(&states, "premium", "incidentstates").await;
    assert!(sts.iter().all(|s| s["incident"] == fid));

    // the team can copy (and then owns the copy); outsiders cannot see the original
    let r = t.post(&format!("{inc}/copy"), "team", json!({})).await;
    assert_eq!(r.json()["incidents"]["owner"], "teammate");
    t.expect_post(&format!("{inc}/fork"), "other", json!({}), 404)
        .await;
    t.expect_post(&format!("{inc}/fork"), "readonly", json!({}), 403)
        .await;
    // the original stays closed
    assert_eq!(incident_get(&t, &id).await["state"], "closed");
}

// ---------------------------------------------------------------- live scanning

#[tokio::test(flavor = "multi_thread")]
async fn livescan_lifecycle() {
    let t = emulator(10).await;
    let sc = t.get("/api/v1/livescan/scanners/", "premium").await.json();
    let ids: Vec<&str> = sc["scanners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"de01") && ids.contains(&"us01") && ids.len() >= 4);
    assert_eq!(sc["scanners"][0]["online"], true);

    let task = |url: &str| json!({"task": {"url": url, "visibility": "unlisted"}, "scanner": {"pageTimeout": 10000, "captureDelay": 3000, "extraHeaders": {}, "enableFeatures": ["bannerBypass"], "disableFeatures": []}});
    // validation
    t.expect_post(
        "/api/v1/livescan/zz99/task/",
        "premium",
        task("https://example.com/"),
        404,
    )
    .await;
    assert_validation(
        &t.post(
            "/api/v1/livescan/de01/task/",
            "premium",
            json!({"task": {}}),
        )
        .await,
        "\"task.url\" is required",
    );
    assert_validation(
        &t.post(
            "/api/v1/livescan/de01/task/",
            "premium",
            json!({"task": {"url": "https://example.com", "visibility": "secret"}}),
        )
        .await,
        "visibility",
    );
    assert_validation(
        &t.post("/api/v1/livescan/de01/task/", "premium", json!({"task": {"url": "https://example.com"}, "scanner": {"enableFeatures": ["stealth"]}})).await,
        "enableFeatures[0]",
    );
    assert_validation(
        &t.post("/api/v1/livescan/de01/task/", "premium", json!({"task": {"url": "https://example.com"}, "scanner": {"disableFeatures": ["bannerBypass"]}})).await,
        "disableFeatures[0]",
    );

    // task: finishes after the scan duration
    let r = t
        .post(
            "/api/v1/livescan/de01/task/",
            "premium",
            task("https://www.example.com/"),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-rate-limit-action"), "livescan");
    let uuid = r.json()["uuid"].as_str().unwrap().to_string();
    let stored = format!("/api/v1/livescan/de01/{uuid}/");
    let snapshot = format!("/api/v1/result/{uuid}/");
    let res = format!("/api/v1/livescan/de01/result/{uuid}");
    let r = t.get(&res, "premium").await;
    assert_eq!(r.status, 404);
    assert_eq!(r.message(), "Scan is not finished yet");
    t.advance(10.0);
    let r = t.get(&res, "premium").await;
    assert_eq!(r.status, 200);
    let result = r.json();
    assert_eq!(result["task"]["uuid"], uuid.as_str());
    t.expect_get(&res, "team", 200).await;
    t.expect_get(&res, "other", 404).await;
    let elsewhere = format!("/api/v1/livescan/us01/result/{uuid}");
    t.expect_get(&elsewhere, "premium", 404).await;
    let png = t
        .get(
            &format!("/api/v1/livescan/de01/screenshot/{uuid}"),
            "premium",
        )
        .await;
    assert_eq!(png.header("content-type"), "image/png");
    assert!(png.body.starts_with(b"\x89PNG"));
    let dom = t
        .get(&format!("/api/v1/livescan/de01/dom/{uuid}"), "premium")
        .await;
    assert!(String::from_utf8_lossy(&dom.body).contains("<html") || !dom.body.is_empty());
    let hash = result["lists"]["hashes"][0].as_str().unwrap().to_string();
    let body = t
        .get(&format!("/api/v1/livescan/de01/response/{hash}"), "premium")
        .await;
    assert_eq!(body.status, 200);
    assert_eq!(super::common::hex_sha256(&body.body), hash);
    let dl = t
        .get(&format!("/api/v1/livescan/de01/download/{hash}"), "premium")
        .await;
    assert_eq!(dl.body, body.body);

    // store: becomes a permanent, searchable snapshot of the caller
    t.expect_put(
        &stored,
        "other",
        json!({"task": {"visibility": "public"}}),
        404,
    )
    .await;
    let r = t
        .put(
            &stored,
            "premium",
            json!({"task": {"visibility": "private"}}),
        )
        .await;
    assert_eq!(
        r.json(),
        json!({"uuid": uuid, "message": "Scan stored", "visibility": "private"})
    );
    t.expect_get(&snapshot, "premium", 200).await;
    t.expect_get(&snapshot, "other", 404).await;
    let private = "/api/v1/search/?q=task.visibility:private";
    let found = t.get_list(private, "premium", "results").await;
    assert!(found.iter().any(|h| h["_id"] == uuid.as_str()));

    // stored, it left the temporary state: the scanner no longer has it
    t.expect_get(&res, "premium", 404).await;
    t.expect_delete(&stored, "premium", 404).await;
    let public = json!({"task": {"visibility": "public"}});
    t.expect_put(&stored, "premium", public, 404).await;
    // the stored snapshot stays
    t.expect_get(&snapshot, "premium", 200).await;

    // scan: blocking, finished at once; disabled features are absent
    let mut body = task("https://www.example.org/");
    body["scanner"]["disableFeatures"] = json!(["screenshot"]);
    let r = t.post("/api/v1/livescan/jp01/scan/", "premium", body).await;
    let u2 = r.json()["uuid"].as_str().unwrap().to_string();
    let result2 = format!("/api/v1/livescan/jp01/result/{u2}");
    t.expect_get(&result2, "premium", 200).await;
    let screenshot2 = format!("/api/v1/livescan/jp01/screenshot/{u2}");
    t.expect_get(&screenshot2, "premium", 404).await;
    t.expect_get(&format!("/api/v1/livescan/jp01/bogus/{u2}"), "premium", 404)
        .await;
    // purged automatically 60 minutes after the scan
    t.advance(3_590.0);
    t.expect_get(&result2, "premium", 200).await;
    t.advance(10.0);
    t.expect_get(&result2, "premium", 404).await;
    t.expect_delete(&format!("/api/v1/livescan/jp01/{u2}/"), "premium", 404)
        .await;
}

// ---------------------------------------------------------------- hostnames

/// The page host seen in most scans.
fn popular_host(t: &T) -> String {
    let store = t.emu.state.store();
    let mut n: HashMap<String, usize> = HashMap::new();
    for e in store.by_time.values().filter(|e| e.visibility == "public") {
        if let Some(d) = e.doc["page"]["domain"].as_str() {
            *n.entry(d.to_string()).or_default() += 1;
        }
    }
    n.into_iter()
        .max_by_key(|(h, c)| (*c, h.clone()))
        .unwrap()
        .0
}

#[tokio::test(flavor = "multi_thread")]
async fn hostname_history_paging() {
    let t = emulator(400).await;
    let host = popular_host(&t);
    let all = t
        .get(&format!("/api/v1/hostname/{host}"), "premium")
        .await
        .json();
    assert!(all["pageState"].is_null());
    let all = all["results"].as_array().unwrap().clone();
    assert!(all.len() >= 25, "{host}: {}", all.len());
    let sources: HashSet<&str> = all.iter().map(|r| r["source"].as_str().unwrap()).collect();
    assert!(
        sources.contains("scan") && sources.contains("pdns"),
        "{sources:?}"
    );
    assert!(all
        .iter()
        .any(|r| r["sub_id"].as_str().unwrap().starts_with("A#")));
    assert!(all
        .iter()
        .any(|r| r["sub_id"].as_str().unwrap().starts_with("NS#")));
    for r in &all {
        assert_eq!(r["seen_on"].as_str().unwrap().len(), 10);
        assert!(r["first_seen"].is_string());
        assert_eq!(r["data_type"].is_null(), r["data"].is_null());
    }
    let scan = all.iter().find(|r| r["source"] == "scan").unwrap();
    assert_eq!(scan["data_type"], "json");
    assert_eq!(scan["data"]["uuid"], scan["sub_id"]);
    let days: Vec<&str> = all.iter().map(|r| r["seen_on"].as_str().unwrap()).collect();
    assert!(days.windows(2).all(|w| w[0] >= w[1]), "newest first");

    // paging with limit=10 returns the same records
    let mut paged = Vec::new();
    let mut state: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut path = format!("/api/v1/hostname/{host}?limit=10");
        if let Some(s) = &state {
            path.push_str(&format!("&pageState={s}"));
        }
        let v = t.get(&path, "premium").await.json();
        let batch = v["results"].as_array().unwrap();
        assert!(batch.len() <= 10);
        paged.extend(batch.iter().cloned());
        pages += 1;
        match v.get("pageState") {
            Some(Value::String(s)) => state = Some(s.clone()),
            Some(Value::Null) => break, // the last page, as the service sends it
            other => panic!("pageState {other:?}"),
        }
    }
    assert_eq!(pages, all.len().div_ceil(10));
    assert_eq!(paged, all);

    // an unknown host, bad limits and a bad pageState
    let v = t
        .get("/api/v1/hostname/never-seen.example", "premium")
        .await
        .json();
    assert_eq!(v, json!({"results": [], "pageState": null}));
    assert_validation(
        &t.get(&format!("/api/v1/hostname/{host}?limit=9"), "premium")
            .await,
        "limit",
    );
    assert_validation(
        &t.get(&format!("/api/v1/hostname/{host}?limit=10001"), "premium")
            .await,
        "limit",
    );
    assert_validation(
        &t.get(&format!("/api/v1/hostname/{host}?limit=ten"), "premium")
            .await,
        "limit",
    );
    let r = t
        .get(&format!("/api/v1/hostname/{host}?pageState=zzz"), "premium")
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.message(), "Invalid pageState");
}

// ---------------------------------------------------------------- brands

#[tokio::test(flavor = "multi_thread")]
async fn brands() {
    let t = emulator(400).await;
    let kits = t.get("/api/v1/pro/availableBrands", "premium").await.json();
    let kits = kits["kits"].as_array().unwrap();
    let paypal = kits.iter().find(|k| k["key"] == "paypal").unwrap();
    assert_eq!(paypal["name"], "PayPal");
    assert!(paypal["terms"]["domains"]
        .as_array()
        .unwrap()
        .contains(&json!("paypal.com")));
    assert!(paypal["terms"]["asns"].is_array() && paypal["createdAt"].is_string());
    assert_eq!(paypal["_id"].as_str().unwrap().len(), 24);

    let v = t.get("/api/v1/pro/brands", "premium").await.json();
    let rows = v["responses"].as_array().unwrap();
    assert!(!rows.is_empty());
    let total: u64 = rows.iter().map(|r| r["total"].as_u64().unwrap()).sum();
    let malicious = {
        let store = t.emu.state.store();
        store
            .by_time
            .values()
            .filter(|e| e.visibility == "public" && e.doc["verdicts"]["malicious"] == true)
            .count() as u64
    };
    assert_eq!(total, malicious);
    for r in rows {
        let hit = &r["hits"][0];
        assert_eq!(hit["brand"][0]["key"], r["brand"]["key"]);
        assert_eq!(hit["_id"], hit["task"]["uuid"]);
        assert!(hit["result"].as_str().unwrap().ends_with('/'));
        for k in [
            "_id",
            "name",
            "key",
            "vertical",
            "country",
            "region",
            "keywords",
            "terms",
            "createdAt",
            "updatedAt",
        ] {
            assert!(r["brand"].get(k).is_some(), "brand.{k}");
        }
    }
}

// ---------------------------------------------------------------- files

#[tokio::test(flavor = "multi_thread")]
async fn file_download_zip() {
    let t = emulator(20).await;
    let hash = {
        let store = t.emu.state.store();
        let mut hs: Vec<&String> = store.hashes.keys().collect();
        hs.sort();
        hs[0].clone()
    };
    let open = |zip: &[u8], password: &[u8]| -> Result<(String, Vec<u8>), String> {
        let mut a =
            zip::ZipArchive::new(std::io::Cursor::new(zip.to_vec())).map_err(|e| e.to_string())?;
        assert_eq!(a.len(), 1);
        let mut f = a.by_index_decrypt(0, password).map_err(|e| e.to_string())?;
        let name = f.name().map_err(|e| e.to_string())?.to_string();
        let mut data = Vec::new();
        f.read_to_end(&mut data).map_err(|e| e.to_string())?;
        Ok((name, data))
    };
    let r = t.get(&format!("/downloads/{hash}"), "premium").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), "application/zip");
    assert_eq!(
        r.header("content-disposition"),
        format!("attachment; filename=\"{hash}.zip\"")
    );
    let (name, data) = open(&r.body, b"urlscan!").unwrap();
    assert_eq!(name, hash);
    assert_eq!(super::common::hex_sha256(&data), hash);
    assert!(open(&r.body, b"wrong").is_err());

    let r = t
        .get(
            &format!(
                "/downloads/{}?password=s3cret&filename=x.zip",
                hash.to_uppercase()
            ),
            "premium",
        )
        .await;
    assert_eq!(
        r.header("content-disposition"),
        "attachment; filename=\"x.zip\""
    );
    let (_, data2) = open(&r.body, b"s3cret").unwrap();
    assert_eq!(data2, data);

    t.expect_get(&format!("/downloads/{}", "0".repeat(64)), "premium", 404)
        .await;
    t.expect_get("/downloads/abc", "premium", 400).await;
    t.expect_get(&format!("/downloads/{}", "g".repeat(64)), "premium", 400)
        .await;
}

// ---------------------------------------------------------------- data dumps

/// The datadump listing under `/api/v1/datadump/list/`, as the premium user.
async fn listing(t: &T, path: &str) -> Value {
    let url = format!("{DATADUMP_LIST}{path}");
    t.get(&url, "premium").await.json()
}

const DATADUMP_LIST: &str = "/api/v1/datadump/list/";

/// A listing renders each file once for the scans it holds; listed again, the
/// sizes are remembered, and each is the size of the file downloaded after it.
#[tokio::test(flavor = "multi_thread")]
async fn datadump_sizes_are_rendered_once() {
    let t = emulator(300).await;
    let yesterday =
        chrono::DateTime::<chrono::Utc>::from_timestamp_millis(t.emu.state.now_ms() - 86_400_000)
            .unwrap()
            .format("%Y%m%d")
            .to_string();
    let path = format!("hours/api/{yesterday}");
    let first = listing(&t, &path).await;
    let remembered = t.emu.state.premium().dump_sizes.len();
    assert!(remembered > 0);
    assert_eq!(listing(&t, &path).await, first);
    assert_eq!(t.emu.state.premium().dump_sizes.len(), remembered);
    for f in first["files"].as_array().unwrap() {
        let file = f["path"].as_str().unwrap();
        let link = t
            .get(&format!("/api/v1/datadump/link/{file}"), "premium")
            .await;
        let body = t.get(&link.header("location"), "").await.body;
        assert_eq!(f["size"].as_u64().unwrap() as usize, body.len(), "{file}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn datadumps() {
    let t = emulator(300).await;
    let now = t.emu.state.now_ms();
    let day = |ms: i64| {
        chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
            .unwrap()
            .format("%Y%m%d")
            .to_string()
    };
    let yesterday = day(now - 86_400_000);
    let today = day(now);
    let tomorrow = day(now + 86_400_000);

    let v = listing(&t, &format!("days/api/{yesterday}")).await;
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(v["files"][0]["path"], format!("days/api/{yesterday}.gz"));
    assert!(v["files"][0]["size"].as_u64().unwrap() > 0);
    let v = listing(&t, &format!("hours/search/{yesterday}/")).await;
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 24);
    assert_eq!(
        files[0]["path"],
        format!("hours/search/{yesterday}/{yesterday}-00.gz")
    );
    assert!(files[0]["timestamp"].is_string());
    let v = listing(&t, &format!("minutes/dom/{yesterday}")).await;
    assert_eq!(v["files"].as_array().unwrap().len(), 1440);
    let hour = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(now)
        .unwrap()
        .format("%H")
        .to_string();
    let v = listing(&t, &format!("hours/search/{today}")).await;
    assert_eq!(
        v["files"].as_array().unwrap().len(),
        hour.parse::<usize>().unwrap()
    );
    let v = listing(&t, &format!("days/search/{tomorrow}")).await;
    assert_eq!(v, json!({"files": []}));

    for (path, needle) in [
        (format!("weeks/api/{today}"), "timeWindow"),
        (format!("days/pdf/{today}"), "fileType"),
        ("days/api/2025-01-01".to_string(), "date"),
        ("days/api/20250231".to_string(), "date"),
    ] {
        let r = t.get(&format!("{DATADUMP_LIST}{path}"), "premium").await;
        assert_validation(&r, needle);
    }

    // the busiest hour of the last week holds search hits
    let (busy_day, busy_hour) = {
        let store = t.emu.state.store();
        let e = store
            .by_time
            .values()
            .find(|e| e.visibility == "public" && e.spec.time_ms < now - 3_600_000)
            .unwrap();
        let d = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(e.spec.time_ms).unwrap();
        (d.format("%Y%m%d").to_string(), d.format("%H").to_string())
    };
    let path = format!("hours/search/{busy_day}/{busy_day}-{busy_hour}.gz");
    let r = t
        .get(&format!("/api/v1/datadump/link/{path}"), "premium")
        .await;
    assert_eq!(r.status, 302);
    let loc = r.header("location");
    assert!(
        loc.starts_with(&format!("{}/datadump-files/{path}?token=", t.emu.url())),
        "{loc}"
    );
    // the temporary address needs no key
    let f = t.get(&loc, "").await;
    assert_eq!(f.status, 200);
    assert_eq!(f.header("content-type"), "application/gzip");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&f.body[..])
        .read_to_string(&mut text)
        .unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    assert!(lines.iter().all(|h| h["task"]["visibility"] == "public"));
    // the listed size is the file's size
    let listed = listing(&t, &format!("hours/search/{busy_day}")).await;
    let entry = listed["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["path"] == path.as_str())
        .unwrap()
        .clone();
    assert_eq!(entry["size"].as_u64().unwrap() as usize, f.body.len());

    let wrong = format!("{}/datadump-files/{path}?token=nope", t.emu.url());
    t.expect_get(&wrong, "", 403).await;
    let other_path = loc.replace(
        &format!("{busy_day}-{busy_hour}.gz"),
        &format!("{busy_day}-{busy_hour}x.gz"),
    );
    t.expect_get(&other_path, "", 403).await;
    let future = format!("/api/v1/datadump/link/days/api/{tomorrow}.gz");
    t.expect_get(&future, "premium", 404).await;
    t.expect_get("/api/v1/datadump/link/nothing/here", "premium", 404)
        .await;
    t.expect_get(&format!("/api/v1/datadump/link/{path}"), "free", 403)
        .await;

    // screenshots come as a tar of PNGs
    let old_day = {
        let store = t.emu.state.store();
        let e = store
            .by_time
            .values()
            .find(|e| e.visibility == "public" && e.spec.time_ms < now - 2 * 86_400_000)
            .unwrap();
        day(e.spec.time_ms)
    };
    let r = t
        .get(
            &format!("/api/v1/datadump/link/days/screenshots/{old_day}.gz"),
            "premium",
        )
        .await;
    assert_eq!(r.status, 302);
    let f = t.get(&r.header("location"), "").await;
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(&f.body[..])
        .read_to_end(&mut tar)
        .unwrap();
    assert_eq!(&tar[257..262], b"ustar");
    assert!(String::from_utf8_lossy(&tar[..100]).contains(".png"));
    // links expire after an hour
    t.advance(3_601.0);
    t.expect_get(&loc, "", 403).await;
}

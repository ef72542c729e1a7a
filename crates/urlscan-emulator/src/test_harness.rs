//! The emulator over real HTTP, as the endpoint tests drive it: a running
//! emulator and a client that sends any kind of key.
use std::collections::HashMap;

use reqwest::Method;
use serde_json::{json, Value};

use crate::{Emulator, EmulatorConfig};

/// An answer, with the request it answers for the failure messages.
pub(crate) struct Resp {
    pub what: String,
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|_| {
            panic!(
                "not JSON ({}) from {}: {}",
                self.status,
                self.what,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The JSON body of a 200 answer.
    pub fn ok(&self) -> Value {
        let v = self.json();
        assert_eq!(self.status, 200, "{}: {v}", self.what);
        v
    }

    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    }

    pub fn message(&self) -> String {
        self.json()["message"].as_str().unwrap_or("").to_string()
    }
}

pub(crate) struct Harness {
    pub emu: Emulator,
    pub http: reqwest::Client,
    pub keys: HashMap<&'static str, String>,
}

impl Harness {
    /// An emulator holding `scans` scans made from `seed`; scans take 10 s.
    pub async fn start(scans: usize, seed: u64) -> Harness {
        let emu = Emulator::start(EmulatorConfig {
            scans,
            seed,
            scan_duration: 10.0,
            ..EmulatorConfig::default()
        })
        .await
        .expect("emulator starts");
        let keys = emu.keys().into_iter().collect();
        // redirects are answers under test, not something to follow
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Harness { emu, http, keys }
    }

    /// `path`: on the emulator, or a whole URL. `who`: a key kind (premium,
    /// team, readonly, free, other) or "" for none.
    pub async fn call(&self, m: Method, path: &str, who: &str, body: Option<Value>) -> Resp {
        let what = format!("{m} {path} as {who}");
        let url = if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.emu.url())
        };
        let mut rb = self.http.request(m, url);
        if !who.is_empty() {
            rb = rb.header("api-key", &self.keys[who]);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().await.expect("request");
        Resp {
            what,
            status: r.status().as_u16(),
            headers: r.headers().clone(),
            body: r.bytes().await.unwrap().to_vec(),
        }
    }

    pub async fn get(&self, path: &str, who: &str) -> Resp {
        self.call(Method::GET, path, who, None).await
    }

    pub async fn post(&self, path: &str, who: &str, body: Value) -> Resp {
        self.call(Method::POST, path, who, Some(body)).await
    }

    pub async fn put(&self, path: &str, who: &str, body: Value) -> Resp {
        self.call(Method::PUT, path, who, Some(body)).await
    }

    pub async fn delete(&self, path: &str, who: &str) -> Resp {
        self.call(Method::DELETE, path, who, None).await
    }

    /// The array under `key` in the JSON answer to `GET path` as `who`.
    pub async fn get_list(&self, path: &str, who: &str, key: &str) -> Vec<Value> {
        let v = self.get(path, who).await.json();
        match v[key].as_array() {
            Some(list) => list.clone(),
            None => panic!("no {key} list from GET {path} as {who}: {v}"),
        }
    }

    /// Sends `m path` as `who` and asserts the answer's status is `want`.
    pub async fn expect(
        &self,
        m: Method,
        path: &str,
        who: &str,
        body: Option<Value>,
        want: u16,
    ) -> Resp {
        let r = self.call(m, path, who, body).await;
        let text = String::from_utf8_lossy(&r.body);
        assert_eq!(r.status, want, "{}: {text}", r.what);
        r
    }

    pub async fn expect_get(&self, path: &str, who: &str, want: u16) -> Resp {
        self.expect(Method::GET, path, who, None, want).await
    }

    pub async fn expect_post(&self, path: &str, who: &str, body: Value, want: u16) -> Resp {
        self.expect(Method::POST, path, who, Some(body), want).await
    }

    pub async fn expect_put(&self, path: &str, who: &str, body: Value, want: u16) -> Resp {
        self.expect(Method::PUT, path, who, Some(body), want).await
    }

    pub async fn expect_delete(&self, path: &str, who: &str, want: u16) -> Resp {
        self.expect(Method::DELETE, path, who, None, want).await
    }

    /// A saved search of the premium user; its id.
    pub async fn saved_search(&self, datasource: &str, name: &str, query: &str) -> String {
        let search = json!({"search": {"datasource": datasource, "name": name, "query": query}});
        let s = self
            .post("/api/v1/user/searches/", "premium", search)
            .await
            .ok();
        s["search"]["_id"].as_str().unwrap().to_string()
    }

    pub fn advance(&self, secs: f64) {
        self.emu.advance(secs);
    }
}

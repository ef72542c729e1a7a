//! The premium endpoints that follow one pattern (path, optional wrapped body
//! built from a field table, wrapped or unwrapped answer), one table row each.
//! Endpoints with their own logic (live-scan resources, hostname paging, file
//! downloads, data-dump links) have functions in their area's file.
use reqwest::Method;
use serde_json::{Map, Value};

use crate::core::client::Client;
use crate::core::error::{Error, Result};
use crate::core::fields::{build, Field};
use crate::core::transport::Req;
use crate::core::validate;

#[derive(Debug)]
pub struct Endpoint {
    /// "namespace.method", as the Python API names it.
    pub name: &'static str,
    pub method: Method,
    /// Path with `{0}`, `{1}`, ... for the ids.
    pub path: &'static str,
    /// The request body: wrapper key (or "" for none) and its fields.
    pub body: Option<(&'static str, &'static [Field])>,
    /// Required fields are enforced (create) or not (update).
    pub creating: bool,
    /// Keys under which the answer may come wrapped, tried in order; the
    /// answer is used as it is when none is present.
    pub answer: &'static [&'static str],
    /// Options sent as query parameters (checked like body fields).
    pub params: &'static [Field],
    /// A rule across fields of the body (`crate::rules`), checked after each field.
    pub check: Option<crate::rules::BodyRule>,
}

impl Endpoint {
    pub const fn new(name: &'static str, method: Method, path: &'static str) -> Endpoint {
        Endpoint {
            name,
            method,
            path,
            body: None,
            creating: false,
            answer: &[],
            params: &[],
            check: None,
        }
    }
    pub const fn check(mut self, rule: crate::rules::BodyRule) -> Endpoint {
        self.check = Some(rule);
        self
    }
    pub const fn body(
        mut self,
        wrapper: &'static str,
        fields: &'static [Field],
        creating: bool,
    ) -> Endpoint {
        self.body = Some((wrapper, fields));
        self.creating = creating;
        self
    }
    pub const fn answer(mut self, keys: &'static [&'static str]) -> Endpoint {
        self.answer = keys;
        self
    }
    pub const fn params(mut self, fields: &'static [Field]) -> Endpoint {
        self.params = fields;
        self
    }
}

/// Every table of every area.
pub fn all() -> impl Iterator<Item = &'static Endpoint> {
    use crate::core::api::{
        brands, channels, datadumps, incidents, livescan, saved_searches, subscriptions,
    };
    [
        saved_searches::ENDPOINTS,
        subscriptions::ENDPOINTS,
        channels::ENDPOINTS,
        incidents::ENDPOINTS,
        brands::ENDPOINTS,
        livescan::ENDPOINTS,
        datadumps::ENDPOINTS,
    ]
    .into_iter()
    .flatten()
}

pub fn find(name: &str) -> Result<&'static Endpoint> {
    all()
        .find(|e| e.name == name)
        .ok_or_else(|| Error::Validation(format!("unknown endpoint {name:?}")))
}

/// The value under the first wrapper key present, or the answer itself.
pub fn unwrap(v: Value, keys: &[&str]) -> Value {
    if let Value::Object(m) = &v {
        for k in keys {
            if let Some(inner) = m.get(*k) {
                if inner.is_object() || inner.is_array() {
                    return inner.clone();
                }
            }
        }
    }
    v
}

/// The options an endpoint takes as query parameters, and the others.
fn split_params(
    ep: &Endpoint,
    opts: &Map<String, Value>,
) -> (Map<String, Value>, Map<String, Value>) {
    opts.iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .partition(|(k, _)| ep.params.iter().any(|f| f.name == k || f.wire == k))
}

impl Client {
    /// Call a table endpoint: `ids` fill the path, `opts` (snake_case) build the body.
    pub async fn call(
        &self,
        name: &str,
        ids: &[String],
        opts: &Map<String, Value>,
    ) -> Result<Value> {
        let ep = find(name)?;
        let mut path = ep.path.to_string();
        for (i, id) in ids.iter().enumerate() {
            let seg = validate::object_id(&format!("{name}: id"), id)?;
            path = path.replace(&format!("{{{i}}}"), &seg);
        }
        if path.contains('{') {
            return Err(Error::Validation(format!("{name}: missing id")));
        }
        let mut req = Req::new(ep.method.clone(), path);
        let (params, opts) = split_params(ep, opts);
        let built = build(name, ep.params, &params, false)?;
        for field in ep.params {
            match built.get(field.wire) {
                Some(Value::String(s)) => req = req.query(field.wire, s),
                Some(v) => req = req.query(field.wire, v),
                None => {}
            }
        }
        let opts = &opts;
        match ep.body {
            Some((wrapper, fields)) => {
                let body = build(name, fields, opts, ep.creating)?;
                if let Some(rule) = ep.check {
                    rule(&body).map_err(|why| Error::Validation(format!("{name}: {why}")))?;
                }
                let body = Value::Object(body);
                req = req.json(if wrapper.is_empty() {
                    body
                } else {
                    Value::Object(Map::from_iter([(wrapper.to_string(), body)]))
                });
            }
            None if !opts.is_empty() => {
                let keys: Vec<_> = opts.keys().cloned().collect();
                return Err(Error::Validation(format!(
                    "{name} takes no options, got {}",
                    keys.join(", ")
                )));
            }
            // Actions such as close and restart send an empty object.
            None if ep.method == Method::PUT || ep.method == Method::POST => {
                req = req.json(Value::Object(Map::new()))
            }
            None => {}
        }
        if ep.name.starts_with("livescan.task") || ep.name.starts_with("livescan.scan") {
            req = req.action("livescan");
        }
        let resp = self.t.send(&req).await?;
        if resp.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Value::Null);
        }
        let v: Value = crate::core::models::decode(&resp.body, name)?;
        Ok(unwrap(v, ep.answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_unique_and_paths_well_formed() {
        let mut names: Vec<_> = all().map(|e| e.name).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
        assert!(all().all(|e| e.path.starts_with("/api/v1/")));
    }

    #[test]
    fn query_params_are_split_from_the_body() {
        let ep = find("saved_searches.results").unwrap();
        let opts = json!({"size": 5, "search_after": "1611489992146,x", "other": 1});
        let (params, rest) = split_params(ep, opts.as_object().unwrap());
        assert_eq!(params.len(), 2);
        assert_eq!(rest.keys().collect::<Vec<_>>(), ["other"]);
        let built = build(ep.name, ep.params, &params, false).unwrap();
        assert_eq!(built["size"], json!(5));
        let bad = json!({"size": 0});
        assert!(build(ep.name, ep.params, bad.as_object().unwrap(), false).is_err());
    }

    #[test]
    fn unwrapping() {
        assert_eq!(
            unwrap(json!({"incident": {"_id": "a"}}), &["incident"]),
            json!({"_id": "a"})
        );
        assert_eq!(
            unwrap(
                json!({"incidents": {"_id": "a"}}),
                &["incidents", "incident"]
            ),
            json!({"_id": "a"})
        );
        assert_eq!(
            unwrap(json!({"_id": "a"}), &["channel"]),
            json!({"_id": "a"})
        );
        assert_eq!(unwrap(json!({"channels": []}), &["channels"]), json!([]));
    }
}

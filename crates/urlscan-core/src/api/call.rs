//! Calling a row: the table of every area's rows, and the one request a
//! row describes (`Client::call_raw`).
use bytes::Bytes;
use reqwest::Method;
use serde_json::{Map, Value};

use super::endpoints::{answer, valid, Endpoint, Returns, Shape};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::{build, Kind};
use crate::transport::Req;
use crate::validate;

/// Every table of every area.
pub fn all() -> impl Iterator<Item = &'static Endpoint> {
    use crate::api::{
        account, brands, channels, datadumps, files, hostnames, incidents, livescan, malicious,
        saved_searches, scanning, search, subscriptions,
    };
    [
        account::ENDPOINTS,
        malicious::ENDPOINTS,
        scanning::ENDPOINTS,
        search::ENDPOINTS,
        saved_searches::ENDPOINTS,
        subscriptions::ENDPOINTS,
        channels::ENDPOINTS,
        incidents::ENDPOINTS,
        hostnames::ENDPOINTS,
        brands::ENDPOINTS,
        files::ENDPOINTS,
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

/// The row's path with `ids` in it, each checked: an id with a kind of its
/// own (a uuid, a data source) as a field of that kind (and sent as that
/// check gives it, a uuid lowercase), the others as object ids.
fn path(ep: &Endpoint, ids: &[String]) -> Result<String> {
    let mut path = ep.path.to_string();
    for (i, id) in ids.iter().enumerate() {
        // An object id is letters, digits, - and _; an id of another kind is checked by it,
        // then percent-encoded as one segment (a URL looked up holds slashes).
        let seg = match ep.ids.get(i).filter(|f| !matches!(f.kind, Kind::Str)) {
            None => validate::object_id(&format!("{}: id", ep.name), id)?,
            Some(field) => {
                let given = Map::from_iter([(field.name.to_string(), Value::String(id.clone()))]);
                let built = build(ep.name, std::slice::from_ref(field), &given, false)?;
                let value = match built.get(field.wire) {
                    Some(Value::String(s)) => s.clone(),
                    _ => id.clone(),
                };
                validate::segment(&format!("{}: {}", ep.name, field.name), &value)?
            }
        };
        path = path.replace(&format!("{{{i}}}"), &seg);
    }
    if path.contains('{') {
        return Err(Error::Validation(format!("{}: missing id", ep.name)));
    }
    Ok(path)
}

/// A list of strings, as a list row of `Shape::Text` promises: another element is an
/// error naming its place (`countries[1]`).
fn texts(list: &[u8], key: &str) -> Result<()> {
    let items: Vec<Value> = crate::models::decode(list, key)?;
    match items.iter().position(|v| !v.is_string()) {
        Some(i) => Err(crate::models::wrong_json(
            &format!("{key}[{i}]"),
            "a string",
            &serde_json::to_vec(&items[i]).unwrap_or_default(),
        )),
        None => Ok(()),
    }
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
    /// A table endpoint: `ids` fill the path, `opts` build the query and
    /// the body; the answer is the part the row names, as bytes (`answer`),
    /// or the body as sent when the row names none (`null` when empty).
    pub async fn call_raw(
        &self,
        name: &str,
        ids: &[String],
        opts: &Map<String, Value>,
    ) -> Result<Bytes> {
        let ep = find(name)?;
        let mut req = Req::new(ep.method.clone(), path(ep, ids)?);
        req.template = Some(ep.path);
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
        if let Some(a) = ep.action_for(req.body.as_ref()) {
            req = req.action(a);
        }
        let resp = self.t.send(&req).await?;
        // A model is read from an object (or a list), even without a key to unwrap.
        let read = !ep.answer.is_empty() || matches!(ep.returns, Returns::Model(_));
        if resp.body.iter().all(u8::is_ascii_whitespace) {
            if read {
                return Err(Error::Decode(format!(
                    "{name}: the answer is empty, expected {}",
                    if ep.list { "a list" } else { "an object" }
                )));
            }
            return Ok(Bytes::from_static(b"null"));
        }
        if read {
            let part = answer(ep, resp.body)?;
            if let Some(asked) = ep.own_id(ids) {
                same_object(name, &part, asked)?;
            }
            if ep.list && matches!(ep.returns, Returns::Json(Shape::Text)) {
                texts(&part, ep.answer.first().copied().unwrap_or(name))?;
            }
            Ok(part)
        } else {
            valid(&resp.body, name)?;
            Ok(resp.body)
        }
    }
}

/// The object `part` answers is the one asked for: its `_id`, when it has one, is `asked` (a
/// hostile server's other object is a `DecodeError`, never that object).
fn same_object(name: &str, part: &[u8], asked: &str) -> Result<()> {
    let index = crate::models::index::object_index(part)?;
    let Some(e) = crate::models::doc::member(&index, part, "_id") else {
        return Ok(());
    };
    match serde_json::from_slice::<Value>(&part[e.start..e.end]) {
        Ok(Value::String(got)) if got.trim().eq_ignore_ascii_case(asked.trim()) => Ok(()),
        Ok(Value::Null) => Ok(()),
        Ok(Value::String(got)) => Err(Error::Decode(format!(
            "{name}: asked for {asked}, the answer is {}",
            crate::validate::shown(&got, 60)
        ))),
        Ok(other) => Err(crate::models::wrong_json(
            "_id",
            "a string",
            other.to_string().as_bytes(),
        )),
        Err(e) => Err(Error::Decode(format!("{name}: _id: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::endpoints::answer;
    use serde_json::json;

    #[test]
    fn an_object_read_by_its_id_is_that_object() {
        assert!(same_object("x", br#"{"_id": "ab12"}"#, "AB12").is_ok());
        assert!(same_object("x", br#"{"name": "n"}"#, "ab12").is_ok());
        let e = same_object("x", br#"{"_id": "cd34"}"#, "ab12").unwrap_err();
        assert!(matches!(e, Error::Decode(_)) && e.to_string().contains("cd34"));
        assert!(same_object("x", br#"{"_id": 5}"#, "ab12").is_err());
        let rows: Vec<_> = all()
            .filter(|e| e.own_id(&["i".to_string()]).is_some())
            .map(|e| e.name)
            .collect();
        for expected in [
            "channels.get",
            "channels.update",
            "incidents.get",
            "saved_searches.update",
        ] {
            assert!(rows.contains(&expected), "{expected} not in {rows:?}");
        }
        for not in [
            "incidents.copy",
            "incidents.states",
            "hostnames.history",
            "result",
        ] {
            assert!(!rows.contains(&not), "{not}");
        }
    }

    #[test]
    fn names_are_unique_and_paths_well_formed() {
        let mut names: Vec<_> = all().map(|e| e.name).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
        // The API's paths, and the artifacts of a scan.
        let roots = [
            "/api/v1/",
            "/screenshots/",
            "/dom/",
            "/responses/",
            "/downloads/",
        ];
        assert!(all().all(|e| roots.iter().any(|r| e.path.starts_with(r))));
    }

    #[test]
    fn every_row_names_its_ids_and_documents_its_method() {
        for e in all() {
            assert_eq!(e.ids.len(), e.path.matches('{').count(), "{}", e.name);
            assert!(!e.doc.is_empty(), "{}", e.name);
            let body: Vec<_> = e
                .body
                .map(|(_, f)| f)
                .unwrap_or_default()
                .iter()
                .chain(e.params)
                .map(|f| f.name)
                .collect();
            // Positional: fields of the body or the query (a search's `q`).
            assert!(e.positional.iter().all(|p| body.contains(p)), "{}", e.name);
            // The reference and the command line's help show each field's documentation.
            let fields = e
                .ids
                .iter()
                .chain(e.params)
                .chain(e.walk)
                .chain(e.body.map(|b| b.1).unwrap_or_default());
            for f in fields {
                assert!(!f.doc.is_empty(), "{}: {} has no doc", e.name, f.name);
            }
        }
    }

    #[test]
    fn ids_are_sent_as_their_check_gives_them() {
        let set = find("set_visibility").unwrap();
        let upper = "0196D976-07F6-7AAE-8A57-AA019145F31C".to_string();
        assert_eq!(
            path(set, std::slice::from_ref(&upper)).unwrap(),
            "/api/v1/result/0196d976-07f6-7aae-8a57-aa019145f31c/visibility/"
        );
        assert!(path(set, &["nope".into()]).is_err());
        assert!(path(set, &[]).is_err());
        let get = find("channels.get").unwrap();
        assert_eq!(
            path(get, &["Ab_1".into()]).unwrap(),
            "/api/v1/user/channels/Ab_1"
        );
    }

    #[test]
    fn a_list_of_strings_is_checked_element_by_element() {
        assert!(texts(br#"["de", "us"]"#, "countries").is_ok());
        match texts(br#"["de", 5]"#, "countries") {
            Err(Error::Decode(m)) => {
                assert_eq!(m, "countries[1]: expected a string, found a number (5)")
            }
            other => panic!("{other:?}"),
        }
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
    fn answers_by_shape() {
        let get = find("incidents.get").unwrap();
        let copy = find("incidents.copy").unwrap();
        let list = find("channels.list").unwrap();
        let part = |ep, v: Value| answer(ep, Bytes::from(v.to_string()));
        let ok = |ep, v| serde_json::from_slice::<Value>(&part(ep, v).unwrap()).unwrap();
        let err = |ep, v| match part(ep, v) {
            Err(Error::Decode(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            ok(get, json!({"incident": {"_id": "a"}})),
            json!({"_id": "a"})
        );
        assert_eq!(
            ok(copy, json!({"incidents": {"_id": "a"}})),
            json!({"_id": "a"})
        );
        assert_eq!(ok(get, json!({"_id": "a"})), json!({"_id": "a"}));
        assert_eq!(ok(get, json!({"incident": null})), json!({}));
        assert_eq!(
            err(get, json!({"incident": [1]})),
            "incident: expected an object, found a list ([1])"
        );
        assert_eq!(
            err(get, json!("x")),
            "incidents.get: expected an object, found a string (\"x\")"
        );
        assert_eq!(
            ok(list, json!({"channels": [{"_id": "a"}]})),
            json!([{"_id": "a"}])
        );
        assert_eq!(ok(list, json!([{"_id": "a"}])), json!([{"_id": "a"}]));
        for empty in [
            json!({"channels": {}}),
            json!({"channels": null}),
            json!({}),
        ] {
            assert_eq!(ok(list, empty), json!([]));
        }
        assert_eq!(
            err(list, json!({"channels": "x"})),
            "channels: expected a list, found a string (\"x\")"
        );
        assert_eq!(
            err(list, json!({"channels": {"_id": "a"}})),
            "channels: expected a list, found an object ({\"_id\":\"a\"})"
        );
        assert_eq!(
            err(list, Value::Null),
            "channels.list: expected an object, found null"
        );
    }
}

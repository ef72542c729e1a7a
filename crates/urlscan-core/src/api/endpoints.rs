//! The premium endpoints that follow one pattern (path, optional wrapped body
//! built from a field table, wrapped or unwrapped answer), one table row each.
//! Endpoints with their own logic (live-scan resources, hostname paging, file
//! downloads, data-dump links) have functions in their area's file.
use bytes::Bytes;
use reqwest::Method;
use serde_json::{Map, Value};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::{build, Field, Kind};
use crate::transport::Req;
use crate::validate;

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
    /// answer is used as it is when none is present. Endpoints with keys
    /// answer a JSON object (or a list, see `list`); an empty body is then
    /// an error. Without keys the answer is not read (an empty body is null).
    pub answer: &'static [&'static str],
    /// Options sent as query parameters (checked like body fields).
    pub params: &'static [Field],
    /// A rule across fields of the body (`urlscan_rules`), checked after each field.
    pub check: Option<urlscan_rules::BodyRule>,
    /// The answer is a list: `{}`, null or a missing key read as `[]`.
    pub list: bool,
    // What the Python API is made of (`python -m urlscan_rs._generate` writes
    // the methods and the stubs from these; `_native.endpoint_table()`).
    /// The path's parameters, in order, as the Python method names them
    /// (`Kind::Str` ones are object ids; others are checked by their kind).
    pub ids: &'static [Field],
    /// Body fields the Python method takes by position, after the ids.
    pub positional: &'static [&'static str],
    /// What the Python method returns.
    pub returns: Returns,
    /// The docstring: what the call does; the generator adds the method and
    /// path to its first paragraph.
    pub doc: &'static str,
    /// The Python method is written by hand, since it does more than this
    /// call (its stub is in the sync part of `_namespaces.pyi`).
    pub by_hand: bool,
    /// The rate-limit action the service counts this call against (its
    /// `X-Rate-Limit-Action`), which the client paces it as; None: not paced
    /// until an answer names one.
    pub action: Option<&'static str>,
}

/// What a table endpoint's Python method returns.
#[derive(Debug, Clone, Copy)]
pub enum Returns {
    /// The answer as plain Python values, of this Python type.
    Json(&'static str),
    /// The answer as this class of `urlscan_rs.models` (each element of a list).
    Model(&'static str),
    /// The answer's field of this name, of this Python type.
    Field(&'static str, &'static str),
    /// None: the answer is dropped.
    Nothing,
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
            list: false,
            ids: &[],
            positional: &[],
            returns: Returns::Json("Any"),
            doc: "",
            by_hand: false,
            action: None,
        }
    }
    pub const fn paced(mut self, action: &'static str) -> Endpoint {
        self.action = Some(action);
        self
    }
    /// A GET answering a list, bare or under the first of `keys` present.
    pub const fn listing(
        name: &'static str,
        path: &'static str,
        keys: &'static [&'static str],
    ) -> Endpoint {
        Endpoint::new(name, Method::GET, path).answer(keys).list()
    }
    pub const fn ids(mut self, ids: &'static [Field]) -> Endpoint {
        self.ids = ids;
        self
    }
    pub const fn positional(mut self, names: &'static [&'static str]) -> Endpoint {
        self.positional = names;
        self
    }
    pub const fn returns(mut self, returns: Returns) -> Endpoint {
        self.returns = returns;
        self
    }
    pub const fn doc(mut self, doc: &'static str) -> Endpoint {
        self.doc = doc;
        self
    }
    pub const fn by_hand(mut self) -> Endpoint {
        self.by_hand = true;
        self
    }
    pub const fn check(mut self, rule: urlscan_rules::BodyRule) -> Endpoint {
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
    pub const fn list(mut self) -> Endpoint {
        self.list = true;
        self
    }
}

/// A resource whose usual rows follow one pattern: listed and created at
/// `collection`, read, changed and deleted at `item`; the body is built from
/// `fields` under `wrapper`, and one resource comes back under the same key.
/// Its other rows are written out beside these.
pub struct Resource {
    pub collection: &'static str,
    /// One resource's path, `{0}` standing for its id.
    pub item: &'static str,
    /// The item path's id, as the Python methods name it.
    pub id: &'static [Field],
    /// The class of `urlscan_rs.models` its answers are read as.
    pub model: &'static str,
    pub wrapper: &'static str,
    pub fields: &'static [Field],
}

impl Resource {
    /// `model` read from the answers' `wrapper` key, and `fields` sent under
    /// it; `id` names the item path's id. Its paths follow with [`Resource::at`].
    pub const fn new(
        model: &'static str,
        wrapper: &'static str,
        id: &'static [Field],
        fields: &'static [Field],
    ) -> Resource {
        let (collection, item) = ("", "");
        Resource {
            collection,
            item,
            id,
            model,
            wrapper,
            fields,
        }
    }
    pub const fn at(mut self, collection: &'static str, item: &'static str) -> Resource {
        (self.collection, self.item) = (collection, item);
        self
    }
    /// A row about one resource (by its id) that answers with it.
    pub const fn on_item(
        &'static self,
        name: &'static str,
        method: Method,
        path: &'static str,
    ) -> Endpoint {
        Endpoint::new(name, method, path)
            .ids(self.id)
            .returns(Returns::Model(self.model))
    }
    /// All of them, under the first of `keys` present.
    pub const fn list(
        &'static self,
        name: &'static str,
        keys: &'static [&'static str],
        doc: &'static str,
    ) -> Endpoint {
        Endpoint::listing(name, self.collection, keys)
            .returns(Returns::Model(self.model))
            .doc(doc)
    }
    /// A new one; its required fields must be given.
    pub const fn create(&'static self, name: &'static str, doc: &'static str) -> Endpoint {
        Endpoint::new(name, Method::POST, self.collection)
            .returns(Returns::Model(self.model))
            .doc(doc)
            .body(self.wrapper, self.fields, true)
            .answer(std::slice::from_ref(&self.wrapper))
    }
    pub const fn get(&'static self, name: &'static str, doc: &'static str) -> Endpoint {
        self.on_item(name, Method::GET, self.item)
            .doc(doc)
            .answer(std::slice::from_ref(&self.wrapper))
    }
    /// A change of the fields given; the others keep their value.
    pub const fn update(&'static self, name: &'static str, doc: &'static str) -> Endpoint {
        self.on_item(name, Method::PUT, self.item)
            .doc(doc)
            .body(self.wrapper, self.fields, false)
            .answer(std::slice::from_ref(&self.wrapper))
    }
    /// The answer is dropped.
    pub const fn delete(&'static self, name: &'static str, doc: &'static str) -> Endpoint {
        Endpoint::new(name, Method::DELETE, self.item)
            .ids(self.id)
            .returns(Returns::Nothing)
            .doc(doc)
    }
}

/// Every table of every area.
pub fn all() -> impl Iterator<Item = &'static Endpoint> {
    use crate::api::{
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

/// The part of an answer the row names (`answer`: the first of its keys
/// present, unwrapped), as a slice of the body: no copy and no decoding, so
/// each binding builds its values from the bytes once. A missing or null
/// part reads as empty (`[]` or `{}`; `{}` where a list is expected is `[]`);
/// a part of another type is an error naming its key.
pub fn answer(ep: &Endpoint, body: Bytes) -> Result<Bytes> {
    part(body, ep.name, ep.answer, ep.list)
}

/// The value under the first of `keys` present in the JSON object `body`
/// (or `body` itself, a list when `list`), by the rules of `answer`; `name`
/// names the body in errors.
pub fn part(body: Bytes, name: &str, keys: &[&str], list: bool) -> Result<Bytes> {
    use crate::models::{first_byte, wrong_json};
    match first_byte(&body) {
        Some(b'{') => {}
        Some(b'[') if list => return Ok(body),
        _ => return Err(wrong_json(name, "an object", &body)),
    }
    let index = crate::models::index::object_index(&body)
        .map_err(|e| valid(&body, name).err().unwrap_or(e))?;
    let found = keys.iter().find_map(|k| {
        // The last of duplicate keys wins, as in any JSON reader here.
        let e = index.iter().rev().find(|e| e.key_is(&body, k))?;
        Some((*k, e.start, e.end))
    });
    let Some((key, start, end)) = found else {
        return Ok(if list {
            Bytes::from_static(b"[]")
        } else {
            body
        });
    };
    let part = body.slice(start..end);
    let empty = |b: &[u8]| b[1..b.len() - 1].iter().all(u8::is_ascii_whitespace);
    match first_byte(&part) {
        Some(b'n') if &part[..] == b"null" => {
            Ok(Bytes::from_static(if list { b"[]" } else { b"{}" }))
        }
        Some(b'{') if list && empty(&part) => Ok(Bytes::from_static(b"[]")),
        Some(b'[') if list => Ok(part),
        Some(b'{') if !list => Ok(part),
        _ => Err(wrong_json(
            key,
            if list { "a list" } else { "an object" },
            &part,
        )),
    }
}

/// The body checked to be JSON, with the error the decoders give.
fn valid(body: &[u8], name: &str) -> Result<()> {
    crate::models::decode::<serde::de::IgnoredAny>(body, name).map(|_| ())
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
        let mut path = ep.path.to_string();
        for (i, id) in ids.iter().enumerate() {
            // An id with a kind of its own (a data source) is checked like a field.
            if let Some(field) = ep.ids.get(i).filter(|f| !matches!(f.kind, Kind::Str)) {
                let given = Map::from_iter([(field.name.to_string(), Value::String(id.clone()))]);
                build(name, std::slice::from_ref(field), &given, false)?;
            }
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
        if let Some(a) = ep.action {
            req = req.action(a);
        }
        let resp = self.t.send(&req).await?;
        let read = !ep.answer.is_empty();
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
            answer(ep, resp.body)
        } else {
            valid(&resp.body, name)?;
            Ok(resp.body)
        }
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
    fn every_row_names_its_ids_and_documents_its_method() {
        for e in all() {
            assert_eq!(e.ids.len(), e.path.matches('{').count(), "{}", e.name);
            assert!(e.by_hand || !e.doc.is_empty(), "{}", e.name);
            let body: Vec<_> = e
                .body
                .map(|(_, f)| f)
                .unwrap_or_default()
                .iter()
                .map(|f| f.name)
                .collect();
            assert!(e.positional.iter().all(|p| body.contains(p)), "{}", e.name);
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

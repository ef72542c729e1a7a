//! Every endpoint is one row of a table: its path, method, pacing action,
//! fields with their rules and what it answers. Most are called through the
//! row alone (`Client::call_raw`). Those with logic of their own (polling,
//! walks, batches, bytes, live-scan resources, hostname paging, file
//! downloads, data-dump links) are marked `by_hand`: their functions in the
//! area's file build each request from the row (`Endpoint::request`), so
//! the path, method and action are still declared once.
use bytes::Bytes;
use reqwest::Method;
use serde_json::Value;

use crate::error::Result;
use crate::fields::Field;
use crate::transport::Req;

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
    /// Options of a walk over pages that are not sent (how many hits in
    /// all, how many shards at once), checked like the others.
    pub walk: &'static [Field],
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
    /// A body field whose value (lowercase) is the action when given, as a
    /// submission counts against the visibility it asks for.
    pub action_field: Option<&'static str>,
    /// What a client's result cache may keep of the answer (None: nothing).
    pub cached: Option<crate::cache::Keep>,
    /// What a 200 must be to be kept or served from a cache (every cached row has one).
    pub accept: Option<crate::accept::Accept>,
}

/// The shape of a plain JSON answer, which bindings map to their own types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Any,
    /// An object of names to values.
    Object,
    /// A string (each element's, in a list row).
    Text,
    /// Bytes (not JSON).
    Bytes,
}

/// The row of `table` named `name`, for an area's hand-written calls (a
/// name that is not there is a mistake in this crate, caught by its tests).
pub fn row(table: &'static [Endpoint], name: &str) -> &'static Endpoint {
    table
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no row {name:?} in its area's table"))
}

/// What a table endpoint's method returns.
#[derive(Debug, Clone, Copy)]
pub enum Returns {
    /// The answer as plain values, of this shape.
    Json(Shape),
    /// The answer as this model class (each element of a list).
    Model(&'static str),
    /// The answer's field of this name, of this shape.
    Field(&'static str, Shape),
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
            walk: &[],
            check: None,
            list: false,
            ids: &[],
            positional: &[],
            returns: Returns::Json(Shape::Any),
            doc: "",
            by_hand: false,
            action: None,
            action_field: None,
            cached: None,
            accept: None,
        }
    }
    /// What a 200 of this row must be before a cache keeps or serves it.
    pub const fn accepts(mut self, accept: crate::accept::Accept) -> Endpoint {
        self.accept = Some(accept);
        self
    }
    /// The answer may be kept by a client's result cache (`cache::Keep`).
    pub const fn cached(mut self, keep: crate::cache::Keep) -> Endpoint {
        self.cached = Some(keep);
        self
    }
    pub const fn paced(mut self, action: &'static str) -> Endpoint {
        self.action = Some(action);
        self
    }
    /// Paced as the body's `field` says (lowercase), `paced`'s action without it.
    pub const fn paced_by(mut self, field: &'static str) -> Endpoint {
        self.action_field = Some(field);
        self
    }
    /// The action a request with this wire body is paced as.
    pub fn action_for(&self, body: Option<&Value>) -> Option<String> {
        let given = self
            .action_field
            .and_then(|f| body?.get(f)?.as_str())
            .map(str::to_ascii_lowercase);
        given.or(self.action.map(String::from))
    }
    /// The id of the one object this row reads or changes (a GET or PUT of one object by its id,
    /// answering that object), which its answer's `_id` must be when it has one.
    pub fn own_id<'a>(&self, ids: &'a [String]) -> Option<&'a str> {
        let one_object = matches!(self.method, Method::GET | Method::PUT)
            && !self.list
            && matches!(self.returns, Returns::Model(_))
            && matches!(self.ids, [f] if f.kind.name() == "Str");
        ids.first().map(String::as_str).filter(|_| one_object)
    }
    /// The row's request, `ids` (already checked) filling its path, paced as
    /// the row says; the caller adds the query (a body: `request_with`).
    pub fn request(&self, ids: &[&str]) -> Req {
        let mut path = self.path.to_string();
        for (i, id) in ids.iter().enumerate() {
            path = path.replace(&format!("{{{i}}}"), id);
        }
        debug_assert!(!path.contains('{'), "{}: missing id", self.name);
        let mut req = Req::new(self.method.clone(), path);
        req.template = Some(self.path);
        req.cache = self.cached;
        req.accept = self.accept;
        match self.action {
            Some(a) => req.action(a),
            None => req,
        }
    }
    /// `request` with this JSON body, paced as the body says (`paced_by`).
    pub fn request_with(&self, ids: &[&str], body: Value) -> Req {
        let req = self.request(ids);
        let req = match self.action_for(Some(&body)) {
            Some(a) => req.action(a),
            None => req,
        };
        req.json(body)
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
    pub const fn walk(mut self, fields: &'static [Field]) -> Endpoint {
        self.walk = fields;
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
        let e = crate::models::doc::member(&index, &body, k)?;
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
pub(crate) fn valid(body: &[u8], name: &str) -> Result<()> {
    crate::models::decode::<serde::de::IgnoredAny>(body, name).map(|_| ())
}

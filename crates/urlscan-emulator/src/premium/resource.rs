//! The list, create, read, update and remove handlers of the user-created
//! items (channels, saved searches, subscriptions), written once. Each kind
//! describes only what differs in its `Resource` implementation, and
//! `routes::<Kind>()` serves it.
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::Path;
use axum::response::Response;
use axum::routing::{get, put, MethodRouter};
use serde_json::{json, Map, Value};

use super::super::answer::{ok_json, or_return};
use super::super::state::premium_records::{Item, PremiumState};
use super::super::state::{AppState, KeyInfo};
use super::common::{check, find, wrapped, Access, RequestField};
use super::entry::Entry;
use super::need::Needs;

/// What one kind of user-created item looks like on the wire.
pub(super) trait Resource: 'static {
    /// The collection's address (`/api/v1/user/channels`); items are under
    /// `{PATH}/{id}`.
    const PATH: &'static str;
    /// Whether `GET {PATH}/{id}` answers the item.
    const READABLE: bool = false;
    /// Whether `DELETE {PATH}/{id}` removes the item.
    const REMOVABLE: bool = true;
    /// Key of one item in request and answer bodies (`{"channel": {...}}`).
    const ONE: &'static str;
    /// The item's name in "not found" and "not allowed" answers.
    const WHAT: &'static str = Self::ONE;
    /// What listing and reading need of the caller.
    type Read: Needs;
    /// What creating, changing and removing need of the caller.
    type Write: Needs;
    const FIELDS: &'static [RequestField];
    /// Read-only fields a client may send back unchanged; they are dropped.
    const READ_ONLY: &'static [&'static str] = &["_id", "createdAt"];
    /// Array fields answered as `[]` while unset.
    const LISTS: &'static [&'static str] = &["permissions"];
    /// Boolean fields set on create when the request leaves them out.
    const DEFAULTS: &'static [(&'static str, bool)] = &[];

    /// Key of the list answer, the collection's last path segment
    /// (`{"channels": [...]}`).
    fn many() -> &'static str {
        Self::PATH.rsplit('/').next().unwrap_or(Self::PATH)
    }

    /// The kind's items in the premium state.
    fn items(p: &mut PremiumState) -> &mut Vec<Item>;

    /// Rewrites the request object before its fields are checked.
    fn prepare(_obj: &mut Map<String, Value>) {}

    /// Checks the validated request fields against the caller's other items.
    fn check_request(
        _p: &PremiumState,
        _k: &KeyInfo,
        _fields: &Map<String, Value>,
    ) -> Result<(), Response> {
        Ok(())
    }

    /// Checks the whole body the item would have after the request.
    fn check_stored(_body: &Map<String, Value>) -> Result<(), Response> {
        Ok(())
    }

    /// Whether the list answer shows the item to `k`.
    fn listed(it: &Item, k: &KeyInfo) -> bool {
        it.access(k) >= Access::Read
    }

    /// Adds answer-only fields to an item's JSON.
    fn decorate(_it: &Item, _m: &mut Map<String, Value>) {}
}

/// The kind's routes: list and create on the collection, update (and read
/// or remove, as the kind offers) on an item.
pub(super) fn routes<R: Resource>() -> Vec<(String, MethodRouter<Arc<AppState>>)> {
    let mut item = put(update::<R>);
    if R::READABLE {
        item = item.get(read::<R>);
    }
    if R::REMOVABLE {
        item = item.delete(remove::<R>);
    }
    vec![
        (R::PATH.to_string(), get(list::<R>).post(create::<R>)),
        (format!("{}/{{id}}", R::PATH), item),
    ]
}

/// The kind's routes, and `extra` on `{PATH}/{id}{tail}`.
pub(super) fn routes_with<R: Resource>(
    tail: &str,
    extra: MethodRouter<Arc<AppState>>,
) -> Vec<(String, MethodRouter<Arc<AppState>>)> {
    let mut routes = routes::<R>();
    routes.push((format!("{}/{{id}}{tail}", R::PATH), extra));
    routes
}

/// The item as answered: stored fields, unset lists as `[]`, then what the
/// kind adds.
fn view<R: Resource>(it: &Item) -> Value {
    let mut m = it.json();
    for k in R::LISTS {
        m.entry(*k).or_insert(json!([]));
    }
    R::decorate(it, &mut m);
    Value::Object(m)
}

/// `{ONE: item}`.
fn one<R: Resource>(it: &Item) -> Response {
    ok_json(json!({ R::ONE: view::<R>(it) }))
}

/// Validate a `{ONE: {...}}` request body.
fn parse<R: Resource>(
    p: &PremiumState,
    k: &KeyInfo,
    body: &[u8],
    creating: bool,
) -> Result<Map<String, Value>, Response> {
    let mut obj = wrapped(body, R::ONE)?;
    R::prepare(&mut obj);
    let fields = check(&obj, R::ONE, R::FIELDS, R::READ_ONLY, creating)?;
    R::check_request(p, k, &fields)?;
    Ok(fields)
}

async fn list<R: Resource>(req: Entry<R::Read>) -> Response {
    let k = req.key();
    let mut p = req.st.premium();
    let items: Vec<Value> = R::items(&mut p)
        .iter()
        .filter(|it| R::listed(it, k))
        .map(view::<R>)
        .collect();
    ok_json(json!({ R::many(): items }))
}

async fn create<R: Resource>(req: Entry<R::Write, Bytes>) -> Response {
    let k = req.key();
    let mut p = req.st.premium();
    let mut fields = or_return!(parse::<R>(&p, k, &req.body, true));
    or_return!(R::check_stored(&fields));
    for (name, v) in R::DEFAULTS {
        fields.entry(*name).or_insert(json!(v));
    }
    let it = Item::new(k, req.now, fields);
    let out = one::<R>(&it);
    R::items(&mut p).push(it);
    out
}

async fn read<R: Resource>(Path(id): Path<String>, req: Entry<R::Read>) -> Response {
    let mut p = req.st.premium();
    one::<R>(or_return!(find(
        R::items(&mut p),
        &id,
        req.key(),
        Access::Read,
        R::WHAT
    )))
}

/// Merge the request's fields into the item.
async fn update<R: Resource>(Path(id): Path<String>, req: Entry<R::Write, Bytes>) -> Response {
    let k = req.key();
    let mut p = req.st.premium();
    // Missing or not writable answers before a bad body does.
    or_return!(find(R::items(&mut p), &id, k, Access::Write, R::WHAT));
    let fields = or_return!(parse::<R>(&p, k, &req.body, false));
    let it = or_return!(find(R::items(&mut p), &id, k, Access::Write, R::WHAT));
    let mut merged = it.body.clone();
    merged.extend(fields);
    or_return!(R::check_stored(&merged));
    it.body = merged;
    one::<R>(it)
}

async fn remove<R: Resource>(Path(id): Path<String>, req: Entry<R::Write>) -> Response {
    let mut p = req.st.premium();
    let items = R::items(&mut p);
    or_return!(find(items, &id, req.key(), Access::Write, R::WHAT));
    items.retain(|it| it.id != id);
    ok_json(json!({}))
}

//! What a thread that builds many scans in a row keeps between them (the
//! corpus at the emulator's start, `content::indexing_corpus`), and what a
//! scan built only for its index and hit leaves out (`without_dom`).
//!
//! Sites repeat across a corpus (a few hundred sites in a hundred thousand
//! scans), and so do their stylesheets, scripts and images: generating and
//! hashing those bodies was most of a scan's cost. Each is a pure function
//! of the inputs its generator reads, which make its key here, so a kept
//! body is the very bytes the generator would make again.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::helpers::sha256_hex;
use super::words::{Brand, Provider};

/// A response body: shared, as the same body serves many scans.
pub(super) type Body = Arc<str>;

/// The most bodies (and sites) kept: a corpus's sites have a few thousand;
/// more (scans of ever new sites) are no longer worth keeping.
const MOST: usize = 50_000;

/// Things kept by a hash of what they are made of; each is kept with all of
/// that, compared in full before it is reused. Kept as `Any`, so that this
/// module names nothing of the sites and hosts it keeps.
struct Store<K> {
    by_hash: HashMap<u64, Entries<K>>,
    count: usize,
}

/// The things of one hash, each with its key.
type Entries<K> = Vec<(K, Box<dyn Any>)>;

impl<K> Default for Store<K> {
    fn default() -> Self {
        Store {
            by_hash: HashMap::new(),
            count: 0,
        }
    }
}

#[derive(Default)]
struct Kept {
    /// `(sha256 hex, body)` by the generator and every input it reads.
    bodies: Store<Vec<String>>,
    /// Sites, by apex and the brand a page impersonates (its address).
    sites: Store<(String, usize)>,
    /// Hosts, by what makes them but the time (see `host`).
    hosts: Store<HostKey>,
}

/// A host's name, provider (its address), server, certificate issuer, and
/// whether it is reached over IPv6.
type HostKey = (String, usize, String, Option<String>, bool);

thread_local! {
    /// `None`: nothing is kept (outside `keeping`).
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
    /// Set while a scan is built for what needs no DOM (`without_dom`).
    static SKIP_DOM: Cell<bool> = const { Cell::new(false) };
}

/// Run `f` with bodies and sites kept on this thread, and reused; they are
/// dropped after.
pub(super) fn keeping<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Kept>);
    impl Drop for Restore {
        fn drop(&mut self) {
            KEPT.with(|k| *k.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(KEPT.with(|k| k.borrow_mut().replace(Kept::default())));
    f()
}

/// `f`, whose models leave `dom` empty: rendering it is a tenth of a scan's
/// cost, and the index and the hit do not hold it.
pub(super) fn without_dom<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SKIP_DOM.set(self.0);
        }
    }
    let _restore = Restore(SKIP_DOM.replace(true));
    f()
}

/// Whether the model being built leaves out its DOM (`without_dom`).
pub(super) fn skip_dom() -> bool {
    SKIP_DOM.get()
}

/// The body `make` generates of `inputs` (the generator's name first, then
/// every input it reads), and its SHA-256, made once per thread while
/// `keeping`.
pub(super) fn body(inputs: &[&str], make: impl FnOnce() -> String) -> (String, Body) {
    let same = |known: &Vec<String>| {
        known.len() == inputs.len() && known.iter().zip(inputs).all(|(a, b)| a == b)
    };
    let key = || inputs.iter().map(|s| s.to_string()).collect();
    kept_or_made(
        |k| &mut k.bodies,
        hash_of(inputs),
        same,
        key,
        || {
            let body = make();
            (sha256_hex(body.as_bytes()), Body::from(body))
        },
    )
}

/// `make()`, the site of `apex` (impersonating `brand`), made once per thread
/// while `keeping`.
pub(super) fn site<S: Clone + 'static>(
    apex: &str,
    brand: Option<&'static Brand>,
    make: impl FnOnce() -> S,
) -> S {
    let brand = brand.map_or(0, |b| b as *const Brand as usize);
    let same = |k: &(String, usize)| k.0 == apex && k.1 == brand;
    let key = || (apex.to_string(), brand);
    kept_or_made(|k| &mut k.sites, hash_of((apex, brand)), same, key, make)
}

/// `make()`, the host `key` names (name, provider, server, issuer, IPv6),
/// made once per thread while `keeping`.
pub(super) fn host<H: Clone + 'static>(
    key: (&str, &'static Provider, &str, Option<&str>, bool),
    make: impl FnOnce() -> H,
) -> H {
    let (name, prov, server, issuer, v6) = key;
    let prov = prov as *const Provider as usize;
    let same = |k: &HostKey| {
        k.0 == name && k.1 == prov && k.2 == server && k.3.as_deref() == issuer && k.4 == v6
    };
    let key = || {
        let issuer = issuer.map(String::from);
        (name.to_string(), prov, server.to_string(), issuer, v6)
    };
    let hash = hash_of((name, prov, server, issuer, v6));
    kept_or_made(|k| &mut k.hosts, hash, same, key, make)
}

fn hash_of(what: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    what.hash(&mut h);
    h.finish()
}

/// What `store` of this thread keeps under `hash` and a key that is `same`,
/// else `make()`, kept there (under `key()`) while `keeping`. A store of
/// `MOST` things starts again.
fn kept_or_made<K, V: Clone + 'static>(
    store: impl Fn(&mut Kept) -> &mut Store<K>,
    hash: u64,
    same: impl Fn(&K) -> bool,
    key: impl FnOnce() -> K,
    make: impl FnOnce() -> V,
) -> V {
    let known = with_kept(|kept| {
        let found = store(kept)
            .by_hash
            .get(&hash)?
            .iter()
            .find(|(k, _)| same(k));
        found.and_then(|(_, v)| v.downcast_ref::<V>().cloned())
    });
    if let Some(Some(known)) = known {
        return known;
    }
    let new = make();
    with_kept(|kept| {
        let store = store(kept);
        if store.count >= MOST {
            store.by_hash.clear();
            store.count = 0;
        }
        let entry = (key(), Box::new(new.clone()) as Box<dyn Any>);
        store.by_hash.entry(hash).or_default().push(entry);
        store.count += 1;
    });
    new
}

/// `f` of what this thread keeps; `None` when it keeps nothing. No borrow
/// outlives it, so a generator run between two calls may keep things too.
fn with_kept<R>(f: impl FnOnce(&mut Kept) -> R) -> Option<R> {
    KEPT.with(|k| k.borrow_mut().as_mut().map(f))
}

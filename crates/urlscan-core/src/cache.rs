//! A result cache on disk that any client may be given: a finished scan's
//! result, screenshot and DOM never change, so they are served from here
//! without a request once fetched; search pages may be kept for a time the
//! user sets.
//!
//! One SQLite file (in WAL mode, with a busy timeout) holds the entries, so
//! several processes share one cache safely. Its size is bounded: past
//! `max_bytes` the least recently used entries go. What may be kept, and for
//! how long, is on the endpoint's row ([`Keep`]); the transport asks the cache
//! before it sends and stores what a 200 brought, once the row's check
//! (`accept`) passed. Each entry keeps a checksum of its body: one that fails
//! it, or no longer passes its row's check, is dropped and fetched anew
//! (`Stats::damaged`). A 410 (the scan was deleted) or a change of visibility
//! drops every entry of that scan. The cache is an optimisation: once open, a
//! failure to read or write it is logged and the request goes to the service
//! as if there were no cache.
//!
//! Its files (the database and SQLite's `-wal` and `-shm` beside it) follow no
//! link and are their owner's alone; entries are scoped by digests of the
//! server and of the API key, so neither a key nor a password in the base URL
//! is ever written.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{Error, Result};

/// What an endpoint's answer may be kept for (its row's `cached`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// A finished scan's artifact: it never changes, kept until evicted.
    Always,
    /// A search page: kept for the cache's `search_ttl`, if it has one.
    ForTtl,
}

/// The file inside the cache's folder.
pub const FILE_NAME: &str = "urlscan-cache.sqlite3";
/// The default bound on the bodies kept.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;
/// The longest `search_ttl`: ten years (a search page older than that is no answer).
pub const MAX_SEARCH_TTL: f64 = 10.0 * 366.0 * 86400.0;
/// The largest `max_bytes` (SQLite's integers are signed 64-bit).
pub const MAX_MAX_BYTES: u64 = i64::MAX as u64;
/// How long a process waits for another's write before going without the cache.
const BUSY: Duration = Duration::from_secs(10);
/// The layout of the file (`PRAGMA user_version`): 2 added each body's checksum.
const LAYOUT: i64 = 2;
/// Marks the file as this package's cache (`PRAGMA application_id`, "urlc").
const APPLICATION_ID: i64 = 0x7572_6c63;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    scan TEXT,
    body BLOB NOT NULL,
    content_type TEXT,
    size INTEGER NOT NULL,
    expires REAL,
    used REAL NOT NULL,
    crc INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_used ON entries(used);
CREATE INDEX IF NOT EXISTS entries_scan ON entries(scan);
CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 0), bytes INTEGER NOT NULL);
INSERT OR IGNORE INTO totals VALUES (0, 0);
CREATE TRIGGER IF NOT EXISTS entries_in AFTER INSERT ON entries
    BEGIN UPDATE totals SET bytes = bytes + new.size; END;
CREATE TRIGGER IF NOT EXISTS entries_out AFTER DELETE ON entries
    BEGIN UPDATE totals SET bytes = bytes - old.size; END;
";

/// A body served from the cache.
#[derive(Debug, Clone)]
pub struct Stored {
    pub body: Bytes,
    pub content_type: Option<String>,
}

/// What this cache object did since it was opened (entries and bytes are
/// the file's, across processes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub hits: u64,
    /// Answers fetched that the cache may keep but did not have (a pending
    /// scan's 404 is not one).
    pub misses: u64,
    pub stored: u64,
    pub evicted: u64,
    pub errors: u64,
    /// Entries dropped because their body failed its checksum or its row's
    /// check; each was fetched again.
    pub damaged: u64,
    /// Requests not sent, by the rate-limit action they would have counted against.
    pub saved: BTreeMap<String, u64>,
    pub bytes_served: u64,
    pub entries: u64,
    pub bytes: u64,
}

#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    max_bytes: u64,
    search_ttl: Option<Duration>,
    db: Mutex<Connection>,
    stats: Mutex<Stats>,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or_default()
}

impl Cache {
    /// Open (or create) the cache in folder `dir`, creating the folder;
    /// `search_ttl` in seconds (None: search pages are not kept).
    pub fn open(dir: &Path, max_bytes: u64, search_ttl: Option<f64>) -> Result<Cache> {
        if !(1..=MAX_MAX_BYTES).contains(&max_bytes) {
            return Err(Error::Validation(format!(
                "cache max_bytes must be 1 to {MAX_MAX_BYTES} (it bounds the bodies kept), got {max_bytes}"
            )));
        }
        let search_ttl = match search_ttl {
            None => None,
            Some(t) if t.is_finite() && t > 0.0 && t <= MAX_SEARCH_TTL => {
                Some(Duration::from_secs_f64(t))
            }
            Some(t) => {
                return Err(Error::Validation(format!(
                    "cache search_ttl must be a positive number of seconds up to {MAX_SEARCH_TTL} \
                     (ten years), or None to keep no search pages; got {t}"
                )))
            }
        };
        std::fs::create_dir_all(dir)
            .map_err(|e| crate::disk::io_error("create the cache folder", dir, &e))?;
        let path = dir.join(FILE_NAME);
        for file in [
            path.clone(),
            side_file(&path, "-wal"),
            side_file(&path, "-shm"),
        ] {
            own_file(&file)?;
        }
        let db = open_db(&path)?;
        Ok(Cache {
            path: dir.to_path_buf(),
            max_bytes,
            search_ttl,
            db: Mutex::new(db),
            stats: Mutex::new(Stats::default()),
        })
    }

    /// The folder given to `open`.
    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }
    pub fn search_ttl(&self) -> Option<Duration> {
        self.search_ttl
    }

    /// Whether answers kept as `keep` are kept at all.
    pub fn keeps(&self, keep: Keep) -> bool {
        keep == Keep::Always || self.search_ttl.is_some()
    }

    /// Logged and counted, never raised: the request goes on without the cache.
    fn failed(&self, what: &str, e: &rusqlite::Error) {
        self.stats.lock().unwrap().errors += 1;
        log::warn!(
            "result cache {}: cannot {what} ({e}); going on without it",
            self.path.display()
        );
    }

    /// The body kept under `key`, if any and not expired; counts a hit
    /// (saving a request of `action`).
    pub fn get(&self, key: &str, action: Option<&str>) -> Option<Stored> {
        let found = {
            let db = self.db.lock().unwrap();
            let at = now();
            let row = db
                .query_row(
                    "SELECT body, content_type, crc FROM entries
                     WHERE key = ?1 AND (expires IS NULL OR expires > ?2)",
                    params![key, at],
                    |r| {
                        // Another type than the layout's is damage too, not an error each time.
                        use rusqlite::types::ValueRef;
                        let body = match r.get_ref(0)? {
                            ValueRef::Blob(b) => Some(b.to_vec()),
                            _ => None,
                        };
                        let crc = match r.get_ref(2)? {
                            ValueRef::Integer(n) => Some(n),
                            _ => None,
                        };
                        let ct = match r.get_ref(1)? {
                            ValueRef::Text(t) => std::str::from_utf8(t).ok().map(String::from),
                            _ => None,
                        };
                        Ok((body, ct, crc))
                    },
                )
                .optional();
            if let Ok(Some((body, _, crc))) = &row {
                let whole = matches!((body, crc), (Some(b), Some(c)) if checksum(b) == *c);
                if !whole {
                    drop(db);
                    self.drop_damaged(key, "its checksum does not match its body");
                    return None;
                }
                // Recency for the eviction rule; a lost update only makes it less exact.
                let _ = db.execute(
                    "UPDATE entries SET used = ?2 WHERE key = ?1",
                    params![key, at],
                );
            }
            row
        };
        let mut stats = self.stats.lock().unwrap();
        match found {
            Ok(Some((Some(body), content_type, _))) => {
                stats.hits += 1;
                stats.bytes_served += body.len() as u64;
                *stats
                    .saved
                    .entry(action.unwrap_or("other").to_string())
                    .or_default() += 1;
                Some(Stored {
                    body: Bytes::from(body),
                    content_type,
                })
            }
            Ok(_) => None,
            Err(e) => {
                drop(stats);
                self.failed("read", &e);
                None
            }
        }
    }

    /// Keep `body`, an answer the cache did not have (a miss), under `key`
    /// (of scan `scan`, for eviction by scan), then evict the least recently used entries while the total passes the bound.
    /// A body larger than the bound is not kept.
    pub fn put(
        &self,
        key: &str,
        scan: Option<&str>,
        keep: Keep,
        body: &[u8],
        content_type: Option<&str>,
    ) {
        self.stats.lock().unwrap().misses += 1;
        let size = body.len() as u64;
        if size > self.max_bytes || !self.keeps(keep) {
            return;
        }
        let at = now();
        let expires = match keep {
            Keep::Always => None,
            Keep::ForTtl => self.search_ttl.map(|t| at + t.as_secs_f64()),
        };
        let done = (|| -> rusqlite::Result<u64> {
            let mut db = self.db.lock().unwrap();
            let tx = db.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            // Deleted first, not replaced: a REPLACE fires no delete trigger, and the total would
            // keep the old size.
            tx.execute("DELETE FROM entries WHERE key = ?1", params![key])?;
            tx.execute(
                "INSERT INTO entries (key, scan, body, content_type, size, expires, used, crc)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    key,
                    scan,
                    body,
                    content_type,
                    size as i64,
                    expires,
                    at,
                    checksum(body)
                ],
            )?;
            let mut evicted = 0u64;
            // Expired pages go first, then the least recently used.
            evicted += tx.execute(
                "DELETE FROM entries WHERE expires IS NOT NULL AND expires <= ?1",
                params![at],
            )? as u64;
            loop {
                let total: i64 = tx.query_row("SELECT bytes FROM totals", [], |r| r.get(0))?;
                if total as u64 <= self.max_bytes {
                    break;
                }
                // A tenth of the bound at a time, so eviction is not paid on every store.
                let target = (self.max_bytes - self.max_bytes / 10) as i64;
                let mut excess = total - target;
                let victims: Vec<(String, i64)> = {
                    let mut q = tx.prepare(
                        "SELECT key, size FROM entries WHERE key != ?1 ORDER BY used LIMIT 256",
                    )?;
                    let rows = q.query_map(params![key], |r| Ok((r.get(0)?, r.get(1)?)))?;
                    rows.collect::<rusqlite::Result<_>>()?
                };
                if victims.is_empty() {
                    break;
                }
                for (victim, size) in victims {
                    if excess <= 0 {
                        break;
                    }
                    tx.execute("DELETE FROM entries WHERE key = ?1", params![victim])?;
                    excess -= size;
                    evicted += 1;
                }
            }
            tx.commit()?;
            Ok(evicted)
        })();
        match done {
            Ok(evicted) => {
                let mut stats = self.stats.lock().unwrap();
                stats.stored += 1;
                stats.evicted += evicted;
            }
            Err(e) => self.failed("store", &e),
        }
    }

    /// Drop the entry under `key`, served but found damaged (`why`); counted
    /// in `Stats::damaged`, and the caller fetches it anew.
    pub fn drop_damaged(&self, key: &str, why: &str) {
        log::warn!(
            "result cache {}: an entry is dropped and fetched again: {why}",
            self.path.display()
        );
        self.stats.lock().unwrap().damaged += 1;
        if let Err(e) = self
            .db
            .lock()
            .unwrap()
            .execute("DELETE FROM entries WHERE key = ?1", params![key])
        {
            self.failed("drop a damaged entry", &e);
        }
    }

    /// Drop every entry of scan `uuid` (deleted, or its visibility changed).
    pub fn evict_scan(&self, uuid: &str) -> usize {
        let done = self.db.lock().unwrap().execute(
            "DELETE FROM entries WHERE scan = ?1",
            params![uuid.trim().to_ascii_lowercase()],
        );
        match done {
            Ok(n) => {
                self.stats.lock().unwrap().evicted += n as u64;
                n
            }
            Err(e) => {
                self.failed("evict", &e);
                0
            }
        }
    }

    /// Drop every entry; how many there were.
    pub fn clear(&self) -> Result<usize> {
        self.db
            .lock()
            .unwrap()
            .execute("DELETE FROM entries", [])
            .map_err(|e| Error::Io {
                errno: None,
                message: format!("cannot clear the cache ({e})"),
                path: self.path.display().to_string(),
            })
    }

    /// This object's counters, with the file's entries and bytes.
    pub fn stats(&self) -> Stats {
        let (entries, bytes) = self
            .db
            .lock()
            .unwrap()
            .query_row(
                "SELECT (SELECT count(*) FROM entries), (SELECT bytes FROM totals)",
                [],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
            )
            .unwrap_or_default();
        Stats {
            entries: entries as u64,
            bytes: bytes as u64,
            ..self.stats.lock().unwrap().clone()
        }
    }
}

/// The key of a request: who asks where (`scope`, see [`scope`]), then its path and a digest of
/// its query as sent (a search's query may hold a URL with its secrets: never written).
pub fn key(scope: &str, path: &str, query: &[(impl AsRef<str>, impl AsRef<str>)]) -> String {
    use sha2::{Digest, Sha256};
    if query.is_empty() {
        return format!("{scope} {path}");
    }
    let mut h = Sha256::new();
    for (name, value) in query {
        for part in [name.as_ref(), value.as_ref()] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
    }
    format!("{scope} {path}?{}", &hex::encode(h.finalize())[..32])
}

/// Whose answers these are: digests of the service's address (without any credentials it
/// carries) and of the API key, never either itself. Answers depend on both (a private scan, a
/// team's search), so clients of another key or another server never read each other's entries.
pub fn scope(base_url: &str, api_key: Option<&str>) -> String {
    use sha2::{Digest, Sha256};
    let server = match url::Url::parse(base_url.trim()) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string().trim_end_matches('/').to_string()
        }
        Err(_) => base_url.trim().trim_end_matches('/').to_string(),
    };
    let digest = |label: &[u8], value: &str| {
        let mut h = Sha256::new();
        h.update(label);
        h.update(value.as_bytes());
        hex::encode(h.finalize())[..16].to_string()
    };
    format!(
        "{}#{}",
        digest(b"urlscan-rs cache server\0", &server),
        digest(b"urlscan-rs cache scope\0", api_key.unwrap_or(""))
    )
}

/// The checksum kept with each body (CRC-32: it finds damage, not forgery; what is kept was
/// checked by its row before).
fn checksum(body: &[u8]) -> i64 {
    i64::from(crc32fast::hash(body))
}

/// `path` with `suffix` added to its name (SQLite's `-wal` and `-shm` files).
fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// `file`, if it exists, checked to be a regular file that is no link, made its owner's alone.
fn own_file(file: &Path) -> Result<()> {
    let refuse = |why: String| Error::Io {
        errno: None,
        message: format!("cannot use the cache file: {why}"),
        path: file.display().to_string(),
    };
    let meta = match std::fs::symlink_metadata(file) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(crate::disk::io_error("read the cache file", file, &e)),
    };
    // What is there, by the containment module's words for it.
    match crate::disk::kind_of(&meta.file_type()) {
        None => {}
        Some(kind) if meta.file_type().is_symlink() => {
            return Err(refuse(format!(
                "it is {kind} (the cache follows none: its files stay in its folder)"
            )))
        }
        Some(kind) => return Err(refuse(format!("it is {kind}, not a regular file"))),
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            // It may hold private results: readable by its owner alone.
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)).map_err(
                |e| {
                    refuse(format!(
                        "others may read it and its mode cannot be made 0600 ({e})"
                    ))
                },
            )?;
        }
    }
    Ok(())
}

/// The database at `path`, created its owner's alone, in WAL mode, of this package's layout.
fn open_db(path: &Path) -> Result<Connection> {
    let bad = |e: rusqlite::Error| {
        let why = match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                format!(
                    "another process held it locked for over {} s; try again",
                    BUSY.as_secs()
                )
            }
            Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt) => {
                format!("it is not a cache or it is damaged ({e}); give the cache another folder")
            }
            _ => e.to_string(),
        };
        Error::Io {
            errno: None,
            message: format!("cannot open the cache: {why}"),
            path: path.display().to_string(),
        }
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Created here, exclusively and with its mode, before SQLite opens it (SQLite gives its
        // -wal and -shm files the database's mode). One that exists is kept.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
        {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(crate::disk::io_error("create the cache file", path, &e)),
        }
    }
    use rusqlite::OpenFlags;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let db = Connection::open_with_flags(path, flags).map_err(bad)?;
    db.busy_timeout(BUSY).map_err(bad)?;
    let (app, layout): (i64, i64) = db
        .query_row(
            "SELECT (SELECT application_id FROM pragma_application_id), \
                    (SELECT user_version FROM pragma_user_version)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(bad)?;
    let tables: i64 = db
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .map_err(bad)?;
    let ours = app == APPLICATION_ID;
    let earlier = app == 0 && layout == 0 && has_entries_table(&db);
    if tables > 0 && !ours && !earlier {
        return Err(Error::Io {
            errno: None,
            message: "cannot open the cache: the file is another program's SQLite database \
                      (give the cache another folder)"
                .into(),
            path: path.display().to_string(),
        });
    }
    // WAL: readers never wait for the writer, across processes.
    db.pragma_update(None, "journal_mode", "wal").map_err(bad)?;
    db.pragma_update(None, "synchronous", "normal")
        .map_err(bad)?;
    if layout != LAYOUT {
        if ours && layout > LAYOUT {
            return Err(Error::Io {
                errno: None,
                message: format!(
                    "cannot open the cache: it was written by a newer urlscan-rs (layout {layout})"
                ),
                path: path.display().to_string(),
            });
        }
        // A new file, or one of an earlier layout: its entries are only copies of answers, so
        // they start afresh (in one transaction, as other processes may open it too).
        db.execute_batch(&format!(
            "BEGIN IMMEDIATE;
             DROP TABLE IF EXISTS entries; DROP TABLE IF EXISTS totals;
             {SCHEMA}
             PRAGMA application_id = {APPLICATION_ID};
             PRAGMA user_version = {LAYOUT};
             COMMIT;"
        ))
        .map_err(bad)?;
    }
    Ok(db)
}

fn has_entries_table(db: &Connection) -> bool {
    db.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'entries'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .is_ok_and(|n| n == 1)
}

/// The scan a path names: its first segment that is a uuid.
pub fn scan_of(path: &str) -> Option<&str> {
    path.split(['/', '.'])
        .find(|s| s.len() == 36 && s.bytes().filter(|b| *b == b'-').count() == 4)
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;

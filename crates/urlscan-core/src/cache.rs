//! A result cache on disk that any client may be given: a finished scan's
//! result, screenshot and DOM never change, so they are served from here
//! without a request once fetched; search pages may be kept for a time the
//! user sets.
//!
//! One SQLite file (in WAL mode, with a busy timeout) holds the entries, so
//! several processes share one cache safely. Its size is bounded: past
//! `max_bytes` the least recently used entries go. What may be kept, and for
//! how long, is on the endpoint's row ([`Keep`]); the transport asks the cache
//! before it sends and stores what a 200 brought. A 410 (the scan was deleted)
//! or a change of visibility drops every entry of that scan. The cache is an
//! optimisation: once open, a failure to read or write it is logged and the
//! request goes to the service as if there were no cache.
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
/// How long a process waits for another's write before going without the cache.
const BUSY: Duration = Duration::from_secs(10);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    scan TEXT,
    body BLOB NOT NULL,
    content_type TEXT,
    size INTEGER NOT NULL,
    expires REAL,
    used REAL NOT NULL
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
    /// Open (or create) the cache in folder `dir`, creating the folder.
    pub fn open(dir: &Path, max_bytes: u64, search_ttl: Option<Duration>) -> Result<Cache> {
        if max_bytes == 0 {
            return Err(Error::Validation(
                "cache max_bytes must be at least 1 (it bounds the bodies kept)".into(),
            ));
        }
        if search_ttl.is_some_and(|t| t.is_zero()) {
            return Err(Error::Validation(
                "cache search_ttl must be positive, or None to keep no search pages".into(),
            ));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| crate::disk::io_error("create the cache folder", dir, &e))?;
        let path = dir.join(FILE_NAME);
        let bad = |e: rusqlite::Error| Error::Io {
            errno: None,
            message: format!("cannot open the cache ({e}); remove the file to start afresh"),
            path: path.display().to_string(),
        };
        // It may hold private results: readable by its owner alone (SQLite gives its -wal
        // and -shm files the same mode).
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let _ = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&path);
        }
        let db = Connection::open(&path).map_err(bad)?;
        db.busy_timeout(BUSY).map_err(bad)?;
        // WAL: readers never wait for the writer, across processes.
        db.pragma_update(None, "journal_mode", "wal").map_err(bad)?;
        db.pragma_update(None, "synchronous", "normal")
            .map_err(bad)?;
        db.execute_batch(SCHEMA).map_err(bad)?;
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
                    "SELECT body, content_type FROM entries
                     WHERE key = ?1 AND (expires IS NULL OR expires > ?2)",
                    params![key, at],
                    |r| Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, Option<String>>(1)?)),
                )
                .optional();
            if let Ok(Some(_)) = &row {
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
            Ok(Some((body, content_type))) => {
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
            Ok(None) => None,
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
                "INSERT INTO entries (key, scan, body, content_type, size, expires, used)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![key, scan, body, content_type, size as i64, expires, at],
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

/// The key of a request: who asks where (`scope`, see [`scope`]), then its path and query as sent.
pub fn key(scope: &str, path: &str, query: &[(impl AsRef<str>, impl AsRef<str>)]) -> String {
    let mut k = format!("{scope} {path}");
    for (i, (name, value)) in query.iter().enumerate() {
        k.push(if i == 0 { '?' } else { '&' });
        k.push_str(
            &percent_encoding::utf8_percent_encode(
                name.as_ref(),
                percent_encoding::NON_ALPHANUMERIC,
            )
            .to_string(),
        );
        k.push('=');
        k.push_str(
            &percent_encoding::utf8_percent_encode(
                value.as_ref(),
                percent_encoding::NON_ALPHANUMERIC,
            )
            .to_string(),
        );
    }
    k
}

/// Whose answers these are: the service's address and a digest of the API key (never the key
/// itself). Answers depend on both (a private scan, a team's search), so clients of another
/// key or another server never read each other's entries.
pub fn scope(base_url: &str, api_key: Option<&str>) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"urlscan-rs cache scope\0");
    h.update(api_key.unwrap_or("").as_bytes());
    format!(
        "{}#{}",
        base_url.trim_end_matches('/'),
        &hex::encode(h.finalize())[..16]
    )
}

/// Whether `body`, a 200 answering the row of `template`, is what that row promises; only such
/// bodies are kept (a proxy's HTML page or a cut-off JSON would otherwise be served forever).
pub fn worth_keeping(template: Option<&str>, body: &[u8]) -> bool {
    match template {
        Some(t) if t.ends_with(".png") => body.starts_with(b"\x89PNG\r\n\x1a\n"),
        Some(t) if t.starts_with("/dom/") => !body.is_empty(),
        // JSON answers (results, search pages): one whole object.
        _ => {
            serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok()
                && body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        }
    }
}

/// The scan a path names: its first segment that is a uuid.
pub fn scan_of(path: &str) -> Option<&str> {
    path.split(['/', '.'])
        .find(|s| s.len() == 36 && s.bytes().filter(|b| *b == b'-').count() == 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: &str = "0a1b2c3d-0000-4000-8000-000000000001";

    #[test]
    fn keeps_evicts_and_shares_between_handles() {
        let dir = tempfile::tempdir().unwrap();
        let a = Cache::open(dir.path(), 3000, None).unwrap();
        let b = Cache::open(dir.path(), 3000, None).unwrap();
        assert!(a.get("/r/1", Some("retrieve")).is_none());
        a.put(
            "/r/1",
            Some(U),
            Keep::Always,
            &[1; 1000],
            Some("application/json"),
        );
        // Another handle (another process) sees it.
        let got = b.get("/r/1", Some("retrieve")).unwrap();
        assert_eq!(got.body.len(), 1000);
        assert_eq!(got.content_type.as_deref(), Some("application/json"));
        // Search pages are not kept without a TTL.
        a.put("/s?q=x", None, Keep::ForTtl, b"{}", None);
        assert!(a.get("/s?q=x", Some("search")).is_none());
        // Past the bound, the least recently used goes: /r/2 was not read since.
        a.put("/r/2", None, Keep::Always, &[2; 1000], None);
        assert!(a.get("/r/1", None).is_some());
        a.put("/r/3", None, Keep::Always, &[3; 1500], None);
        assert!(a.get("/r/2", None).is_none());
        assert!(a.get("/r/1", None).is_some() && a.get("/r/3", None).is_some());
        let s = a.stats();
        assert_eq!((s.entries, s.bytes), (2, 2500));
        assert_eq!(s.evicted, 1);
        assert_eq!(b.stats().hits, 1);
        assert_eq!(b.stats().saved.get("retrieve"), Some(&1));
        // Larger than the bound: not kept at all.
        a.put("/big", None, Keep::Always, &[0; 4000], None);
        assert!(a.get("/big", None).is_none());
        assert_eq!(a.evict_scan(U), 1);
        assert!(b.get("/r/1", None).is_none());
    }

    #[test]
    fn storing_a_key_again_keeps_the_total_exact() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::open(dir.path(), 10_000, None).unwrap();
        for n in [1000, 3000, 500] {
            c.put("/r/1", None, Keep::Always, &vec![7; n], None);
        }
        c.put("/r/2", None, Keep::Always, &[8; 100], None);
        let s = c.stats();
        assert_eq!((s.entries, s.bytes, s.evicted), (2, 600, 0));
        assert_eq!(c.clear().unwrap(), 2);
        assert_eq!(c.stats().bytes, 0);
    }

    #[test]
    fn search_pages_expire() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::open(dir.path(), 1 << 20, Some(Duration::from_millis(1))).unwrap();
        c.put("/s?q=x", None, Keep::ForTtl, b"{}", None);
        std::thread::sleep(Duration::from_millis(5));
        assert!(c.get("/s?q=x", None).is_none());
        let c = Cache::open(dir.path(), 1 << 20, Some(Duration::from_secs(3600))).unwrap();
        c.put("/s?q=x", None, Keep::ForTtl, b"{}", None);
        assert!(c.get("/s?q=x", None).is_some());
    }

    #[test]
    fn keys_and_scans() {
        assert_eq!(
            key("s", "/a", &[("q", "x y"), ("size", "1")]),
            "s /a?q=x%20y&size=1"
        );
        let (a, b) = (
            scope("http://h/", Some("k1")),
            scope("http://h", Some("k2")),
        );
        assert!(a.starts_with("http://h#") && a != b && !a.contains("k1"));
        assert_eq!(scope("http://h", Some("k1")), a);
        assert!(worth_keeping(
            Some("/screenshots/{0}.png"),
            b"\x89PNG\r\n\x1a\nrest"
        ));
        assert!(!worth_keeping(Some("/screenshots/{0}.png"), b"<html>"));
        assert!(worth_keeping(Some("/api/v1/result/{0}/"), b" {\"a\": 1}\n"));
        assert!(!worth_keeping(Some("/api/v1/result/{0}/"), b"{\"a\": "));
        assert!(!worth_keeping(Some("/api/v1/result/{0}/"), b"[1]"));
        assert!(!worth_keeping(Some("/dom/{0}/"), b""));
        assert_eq!(scan_of(&format!("/screenshots/{U}.png")), Some(U));
        assert_eq!(scan_of(&format!("/api/v1/result/{U}/")), Some(U));
        assert_eq!(scan_of("/api/v1/search/"), None);
        assert!(Cache::open(Path::new("/proc/no/such"), 1, None).is_err());
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            Cache::open(dir.path(), 0, None),
            Err(Error::Validation(_))
        ));
    }
}

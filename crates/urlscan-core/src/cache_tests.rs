//! The tests of `cache` (in a file of their own, beside it).
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
    let c = Cache::open(dir.path(), 1 << 20, Some(0.001)).unwrap();
    c.put("/s?q=x", None, Keep::ForTtl, b"{}", None);
    std::thread::sleep(Duration::from_millis(5));
    assert!(c.get("/s?q=x", None).is_none());
    let c = Cache::open(dir.path(), 1 << 20, Some(3600.0)).unwrap();
    c.put("/s?q=x", None, Keep::ForTtl, b"{}", None);
    assert!(c.get("/s?q=x", None).is_some());
}

#[test]
fn keys_and_scans() {
    let q = |pairs: &[(&str, &str)]| key("s", "/a", pairs);
    assert_eq!(
        q(&[("q", "x y"), ("size", "1")]),
        q(&[("q", "x y"), ("size", "1")])
    );
    assert_ne!(
        q(&[("q", "x y"), ("size", "1")]),
        q(&[("q", "x y"), ("size", "2")])
    );
    // Names and values are told apart however they are cut.
    assert_ne!(q(&[("q", "ab")]), q(&[("qa", "b")]));
    assert_eq!(key("s", "/a", &[] as &[(&str, &str)]), "s /a");
    let (a, b) = (
        scope("http://h/", Some("k1")),
        scope("http://h", Some("k2")),
    );
    assert!(a != b && !a.contains("k1") && !a.contains("http"));
    assert_eq!(scope("http://h", Some("k1")), a);
    // The server's credentials are not part of it (and never written).
    let with = scope("http://user:secret@h/", Some("k1"));
    assert_eq!(with, a);
    assert_ne!(scope("http://other", Some("k1")), a);
    // A search's query is kept as a digest only.
    let k = key(
        "s",
        "/api/v1/search/",
        &[("q", "page.url:\"https://u:pw@x/?token=t\"")],
    );
    assert!(!k.contains("pw") && !k.contains("token") && k.starts_with("s /api/v1/search/?"));
    assert_eq!(scan_of(&format!("/screenshots/{U}.png")), Some(U));
    assert_eq!(scan_of(&format!("/api/v1/result/{U}/")), Some(U));
    assert_eq!(scan_of("/api/v1/search/"), None);
    assert!(Cache::open(Path::new("/proc/no/such"), 1, None).is_err());
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        Cache::open(dir.path(), 0, None),
        Err(Error::Validation(_))
    ));
    for ttl in [0.0, -1.0, 1e20, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Cache::open(dir.path(), 1, Some(ttl)),
            Err(Error::Validation(_))
        ));
    }
    assert!(matches!(
        Cache::open(dir.path(), u64::MAX, None),
        Err(Error::Validation(_))
    ));
}

#[test]
fn a_damaged_entry_is_dropped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let c = Cache::open(dir.path(), 1 << 20, None).unwrap();
    c.put("/r/1", Some(U), Keep::Always, b"{\"a\": 1}", None);
    c.db.lock()
        .unwrap()
        .execute("UPDATE entries SET body = X'7B7D' WHERE key = '/r/1'", [])
        .unwrap();
    assert!(c.get("/r/1", None).is_none());
    let s = c.stats();
    assert_eq!((s.damaged, s.entries, s.hits), (1, 0, 0));
}

#[cfg(unix)]
#[test]
fn its_files_follow_no_link_and_are_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    for name in [
        FILE_NAME.to_string(),
        format!("{FILE_NAME}-wal"),
        format!("{FILE_NAME}-shm"),
    ] {
        let d = dir.path().join(&name).with_extension("d");
        std::fs::create_dir_all(&d).unwrap();
        let target = outside.path().join(&name);
        std::os::unix::fs::symlink(&target, d.join(&name)).unwrap();
        let e = Cache::open(&d, 1 << 20, None).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{name}: {e}");
        assert!(!target.exists(), "{name}: written through the link");
    }
    let file = dir.path().join(FILE_NAME);
    std::fs::write(&file, b"").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    Cache::open(dir.path(), 1 << 20, None).unwrap();
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn another_programs_database_is_refused_and_never_changed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    {
        let db = Connection::open(&file).unwrap();
        db.execute_batch("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('a');")
            .unwrap();
    }
    let e = Cache::open(dir.path(), 1 << 20, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("another program's"), "{e}");
    let db = Connection::open(&file).unwrap();
    let n: i64 = db
        .query_row("SELECT count(*) FROM people", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
    // Random bytes are no database: an error naming the file, not a panic or advice to delete.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(FILE_NAME), [7u8; 4096]).unwrap();
    let e = Cache::open(dir.path(), 1 << 20, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains(FILE_NAME) && !e.contains("remove"), "{e}");
    // A zero-byte file is an empty database: a cache is made in it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(FILE_NAME), b"").unwrap();
    assert!(Cache::open(dir.path(), 1 << 20, None).is_ok());
}

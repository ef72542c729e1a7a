//! The tests of `parquet_out` (in a file of their own, beside it).
use super::*;
use crate::schema::SCANS;
use crate::{Item, TableBuilder};

fn batch(from: usize, n: usize) -> RecordBatch {
    let mut b = TableBuilder::new(&SCANS, None).unwrap();
    for i in from..from + n {
        let row = format!(
            r#"{{"_id":"u{i}","task":{{"time":"2026-11-2{}T00:00:00Z"}},"page":{{"country":"C/{}"}}}}"#,
            i % 2,
            i % 3
        );
        b.append(row.as_bytes(), None, &Item("results", i)).unwrap();
    }
    b.finish().unwrap()
}

fn opts(keys: &[&str]) -> Options {
    Options {
        partition_by: keys.iter().map(|k| k.to_string()).collect(),
        compression: compression("zstd").unwrap(),
        row_group_rows: 10,
        fingerprint: "test".into(),
        overwrite: false,
    }
}

fn rows_of(path: &Path) -> i64 {
    let f = File::open(path).unwrap();
    ParquetMetaDataReader::new()
        .parse_and_finish(&f)
        .unwrap()
        .file_metadata()
        .num_rows()
}

/// An empty folder of its own for a test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("urlscan-tables-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A named pipe at `path` (by mkfifo(1): this crate has no libc); false where there is none.
#[cfg(unix)]
fn fifo(path: &Path) -> bool {
    std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(unix)]
#[test]
fn special_files_and_links_at_an_export_s_names_are_refused_and_kept() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("special");
    let is_fifo = |p: &Path| fs::symlink_metadata(p).unwrap().file_type().is_fifo();
    // At the file: refused before the walk, whatever `overwrite` says.
    let out = dir.join("a.parquet");
    if !fifo(&out) {
        return;
    }
    for overwrite in [false, true] {
        let e = Export::start(
            &out,
            Options {
                overwrite,
                ..opts(&[])
            },
            None,
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("a named pipe"), "{e}");
    }
    assert!(is_fifo(&out));
    // In place of a partitioned export's folder, and inside one being overwritten.
    assert!(Export::start(&out, opts(&["date"]), None).is_err());
    let lake = dir.join("lake");
    fs::create_dir(&lake).unwrap();
    assert!(fifo(&lake.join(STATE)));
    let e = Export::start(
        &lake,
        Options {
            overwrite: true,
            ..opts(&["date"])
        },
        None,
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("not an export's"), "{e}");
    assert!(is_fifo(&lake.join(STATE)));
    // A resume reads its state from a regular file only: a pipe there is refused, not waited on.
    let e = Export::resume_point(&lake, &opts(&["date"])).unwrap_err();
    assert!(e.to_string().contains("a named pipe"), "{e}");
    // A link at the staging folder's name is not followed by a resume.
    let outside = scratch("special-outside");
    fs::write(outside.join(STATE), b"{}").unwrap();
    let linked = dir.join("b.parquet");
    std::os::unix::fs::symlink(&outside, dir.join("b.parquet.parts")).unwrap();
    let e = Export::resume_point(&linked, &opts(&[])).unwrap_err();
    assert!(e.to_string().contains("a symbolic link"), "{e}");
    assert_eq!(fs::read(outside.join(STATE)).unwrap(), b"{}");
    fs::remove_dir_all(&dir).unwrap();
    fs::remove_dir_all(&outside).unwrap();
}

#[test]
fn an_export_that_fails_before_its_first_chunk_leaves_no_staging_folder() {
    let dir = scratch("nothing-recorded");
    let out = dir.join("a.parquet");
    let export = Export::start(&out, opts(&[]), None).unwrap();
    assert!(dir.join("a.parquet.parts").is_dir());
    drop(export); // as a failed walk does
    assert!(!dir.join("a.parquet.parts").exists());
    // One with a recorded chunk keeps it: that is where a resume starts.
    let mut export = Export::start(&out, opts(&[]), None).unwrap();
    export.write(batch(0, 10), Some("c1".into())).unwrap();
    drop(export);
    assert!(dir.join("a.parquet.parts").join(STATE).is_file());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn distinct_text_is_written_without_a_dictionary() {
    let dir = scratch("dict");
    let path = dir.join("d.parquet");
    let props = WriterProperties::builder().build();
    write_file(&path, &[batch(0, 1000)], &props).unwrap();
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&File::open(&path).unwrap())
        .unwrap();
    let rg = meta.row_group(0);
    let col = |name: &str| {
        (0..rg.num_columns())
            .map(|i| rg.column(i))
            .find(|c| c.column_path().string() == name)
            .unwrap()
    };
    // uuid: 1,000 distinct values; country: 3.
    assert!(col("uuid").dictionary_page_offset().is_none());
    assert!(col("country").dictionary_page_offset().is_some());
    let back = arrow_from(&path);
    assert_eq!(back.num_rows(), 1000);
    fs::remove_dir_all(&dir).unwrap();
}

fn arrow_from(path: &Path) -> RecordBatch {
    let f = File::open(path).unwrap();
    let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .with_batch_size(1 << 20)
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = r.map(|b| b.unwrap()).collect();
    arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap()
}

#[test]
fn a_chunk_is_written_once_its_batches_reach_the_memory_cap() {
    let dir = scratch("cap");
    let wide = |i: usize| {
        let mut b = TableBuilder::new(&SCANS, None).unwrap();
        let title = "x".repeat(CHUNK_BYTES / 2 + 1);
        let row = format!(r#"{{"_id":"w{i}","page":{{"title":"{title}"}}}}"#);
        b.append(row.as_bytes(), None, &Item("results", i)).unwrap();
        b.finish().unwrap()
    };
    let mut o = opts(&[]);
    o.row_group_rows = 1000;
    let mut e = Export::start(&dir.join("w.parquet"), o, None).unwrap();
    e.write(wide(0), None).unwrap();
    assert_eq!(e.chunk, 0, "half the cap is kept");
    e.write(wide(1), None).unwrap();
    assert_eq!(
        (e.chunk, e.rows, e.pending_bytes),
        (1, 2, 0),
        "two rows reach it"
    );
    e.write(wide(2), None).unwrap();
    assert_eq!(e.finish(batch(0, 0).schema()).unwrap(), 3);
    assert_eq!(rows_of(&dir.join("w.parquet")), 3);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_is_joined_from_its_chunks_and_resumes_after_the_last_recorded() {
    let dir = scratch("join");
    let dest = dir.join("a.parquet");
    let mut e = Export::start(&dest, opts(&[]), None).unwrap();
    e.write(batch(0, 6), Some("c6".into())).unwrap();
    e.write(batch(6, 6), Some("c12".into())).unwrap(); // a chunk of 12 is recorded
    e.write(batch(12, 3), Some("c15".into())).unwrap(); // pending, then lost
    drop(e);
    let point = Export::resume_point(&dest, &opts(&[])).unwrap().unwrap();
    assert_eq!(
        point,
        Resume {
            cursor: Some("c12".into()),
            rows: 12,
            chunk: 1
        }
    );
    let other = Options {
        fingerprint: "other".into(),
        ..opts(&[])
    };
    assert!(Export::resume_point(&dest, &other).is_err());
    // A chunk written after the last record is dropped.
    fs::write(dir.join("a.parquet.parts/part-1.parquet"), b"junk").unwrap();
    let mut e = Export::start(&dest, opts(&[]), Some(point)).unwrap();
    e.write(batch(12, 8), Some("c20".into())).unwrap();
    assert_eq!(e.finish(batch(0, 0).schema()).unwrap(), 20);
    assert_eq!(rows_of(&dest), 20);
    assert!(!dir.join("a.parquet.parts").exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn partitions_are_hive_folders_with_escaped_values() {
    let dir = std::env::temp_dir().join(format!("urlscan-tables-p-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let mut e = Export::start(&dir, opts(&["date", "country"]), None).unwrap();
    e.write(batch(0, 12), None).unwrap();
    e.finish(batch(0, 0).schema()).unwrap();
    let day = dir.join("date=2026-11-20");
    let names: Vec<String> = fs::read_dir(&day)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"country=C%2F0".to_string()), "{names:?}");
    assert_eq!(rows_of(&day.join("country=C%2F0/part-0.parquet")), 2);
    assert!(!dir.join(STATE).exists());
    // Not empty: a new export there is refused without resume or overwrite.
    let e = Export::start(&dir, opts(&["date"]), None).err().unwrap();
    assert!(e.to_string().contains("give overwrite=True"), "{e}");
    // Overwrite replaces an export's folder, never one holding other files.
    fs::write(dir.join("notes.txt"), b"mine").unwrap();
    let over = Options {
        overwrite: true,
        ..opts(&["date"])
    };
    assert!(Export::start(&dir, over.clone(), None).is_err());
    fs::remove_file(dir.join("notes.txt")).unwrap();
    let e = Export::start(&dir, over, None).unwrap();
    assert_eq!(e.finish(batch(0, 0).schema()).unwrap(), 0);
    assert!(!day.exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_existing_file_is_refused_unless_overwritten() {
    let dir = scratch("o");
    let dest = dir.join("a.parquet");
    fs::write(&dest, b"an earlier file").unwrap();
    let e = Export::start(&dest, opts(&[]), None).err().unwrap();
    assert!(e.to_string().contains("exists: give overwrite=True"), "{e}");
    let over = Options {
        overwrite: true,
        ..opts(&[])
    };
    let mut e = Export::start(&dest, over, None).unwrap();
    e.write(batch(0, 3), None).unwrap();
    assert_eq!(e.finish(batch(0, 0).schema()).unwrap(), 3);
    assert_eq!(rows_of(&dest), 3);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn long_and_odd_partition_values_get_bounded_distinct_names() {
    let long_a = format!("{}a", "é/".repeat(200));
    let long_b = format!("{}b", "é/".repeat(200));
    let (a, b) = (partition_name(&long_a), partition_name(&long_b));
    assert!(
        a.len() <= MAX_PARTITION_NAME && b.len() <= MAX_PARTITION_NAME,
        "{a}"
    );
    assert_ne!(a, b);
    assert!(!a.contains('/') && a.contains('~'), "{a}");
    assert_eq!(partition_name("C/0"), "C%2F0");
    for odd in ["..", ".", "", "a\0b", "x\\y", "%", "=", "~"] {
        let n = partition_name(odd);
        assert!(
            !n.contains('/') && !n.contains('\\') && !n.contains('\0'),
            "{odd:?} -> {n:?}"
        );
    }
}

//! Parquet exports written as a walk goes, safe to resume.
//!
//! Batches are gathered into chunks of about `row_group_rows` rows (fewer
//! when their columns reach `CHUNK_BYTES` in memory); each
//! chunk becomes complete Parquet files (one row group each) before the
//! export records, in its state file, the walk's cursor after the chunk's
//! last row. An interrupted export so leaves only complete files behind
//! plus a cursor that matches them: a rerun with `resume` deletes files of a
//! chunk it had not recorded and walks on from that cursor (no duplicate, no
//! gap). A single-file export stages its chunks in `<path>.parts/` and joins
//! them at the end by copying their row groups (no re-encoding); a
//! partitioned one writes `key=value/part-<chunk>.parquet` under `path`.
//!
//! Every file is written by `urlscan_core::disk`'s rule (an exclusive
//! temporary file beside it, renamed when whole), a partition value becomes
//! a bounded, escaped folder name, and an existing target (a file, or a
//! folder that is not empty) is refused unless the caller asks to overwrite
//! it or to resume there.
use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, UInt32Array};
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use serde_json::{json, Value};
use urlscan_core::{Error, Result};

/// The state file's name (a leading `_`: engines reading the folder skip it).
const STATE: &str = "_urlscan_export.json";
/// A chunk is written once its batches hold this much memory, whatever its rows: rows of full
/// results are wide, and memory must not grow with the rows asked for per row group.
const CHUNK_BYTES: usize = 16 << 20;
/// The largest state file read (one holds a cursor and a few numbers).
const MAX_STATE_BYTES: u64 = 1 << 20;
/// The partition value of a null, as Hive and the engines spell it.
const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";
/// The longest escaped partition value kept whole in a folder name (bytes);
/// a longer one is cut and ends in a hash of the whole value (`~<16 hex>`),
/// so distinct values stay distinct folders and a name fits every file system.
const MAX_PARTITION_NAME: usize = 120;

/// How an export writes.
#[derive(Debug, Clone)]
pub struct Options {
    /// Hive partition keys: column names, or "date" (the UTC day of `time`).
    pub partition_by: Vec<String>,
    pub compression: Compression,
    /// Rows per chunk (per row group and file), at most: memory grows with it up to `CHUNK_BYTES`.
    pub row_group_rows: usize,
    /// What the export is of (the query and its options): a resume checks it.
    pub fingerprint: String,
    /// Replace an existing target (a file, or a folder of an earlier export).
    pub overwrite: bool,
}

/// The codec named (`zstd`, `snappy`, `gzip`, `none`).
pub fn compression(name: &str) -> Result<Compression> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "zstd" => Compression::ZSTD(ZstdLevel::default()),
        "snappy" => Compression::SNAPPY,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "none" | "uncompressed" => Compression::UNCOMPRESSED,
        _ => {
            return Err(Error::Validation(format!(
                "compression: {name:?} is not one of zstd, snappy, gzip, none"
            )))
        }
    })
}

fn io(what: &str, path: &Path, e: std::io::Error) -> Error {
    urlscan_core::disk::io_error(what, path, &e)
}

/// A Parquet writer's error: the OS's failure underneath (a full disk) as the
/// I/O error it is, anything else as a fault of this package.
fn pq(path: &Path, e: parquet::errors::ParquetError) -> Error {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(c) = cause {
        if let Some(io_err) = c.downcast_ref::<std::io::Error>() {
            return urlscan_core::disk::io_error("write", path, io_err);
        }
        cause = c.source();
    }
    if let parquet::errors::ParquetError::External(inner) = &e {
        if let Some(io_err) = inner.downcast_ref::<std::io::Error>() {
            return urlscan_core::disk::io_error("write", path, io_err);
        }
    }
    Error::Internal(format!("writing Parquet {}: {e}", path.display()))
}

/// Where an interrupted export stopped (its state file).
#[derive(Debug, Clone, PartialEq)]
pub struct Resume {
    /// The walk's cursor after the last recorded chunk (None: at the start).
    pub cursor: Option<String>,
    pub rows: u64,
    pub chunk: u64,
}

/// A Parquet export in progress.
pub struct Export {
    dest: PathBuf,
    /// Where the chunk files go: `<path>.parts/` for one file, `path` when partitioned.
    dir: PathBuf,
    opts: Options,
    props: WriterProperties,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    pending_bytes: usize,
    cursor: Option<String>,
    rows: u64,
    chunk: u64,
    schema: Option<SchemaRef>,
}

impl Export {
    fn dir_of(dest: &Path, opts: &Options) -> PathBuf {
        if opts.partition_by.is_empty() {
            let mut name = dest.file_name().unwrap_or_default().to_os_string();
            name.push(".parts");
            dest.with_file_name(name)
        } else {
            dest.to_path_buf()
        }
    }

    /// Where a previous run of the same export stopped, if it left a state
    /// file; an error when that state is of another export.
    pub fn resume_point(dest: &Path, opts: &Options) -> Result<Option<Resume>> {
        let dir = Export::dir_of(dest, opts);
        if opts.partition_by.is_empty() {
            // `<path>.parts` is the package's own name: a link there is not ours to follow.
            if fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
                urlscan_core::disk::checked_target(&dir)?;
            }
        } else {
            urlscan_core::disk::checked_folder(&dir)?;
        }
        // A regular file only: a pipe planted there is refused, never opened to wait on.
        let state = dir.join(STATE);
        let Some(text) = urlscan_core::disk::read_regular(&state, MAX_STATE_BYTES)? else {
            return Ok(None);
        };
        let v: Value = serde_json::from_slice(&text).map_err(|e| {
            Error::Validation(format!(
                "resume: {} is not an export state this package wrote ({e}); remove it or write elsewhere",
                state.display()
            ))
        })?;
        if v["fingerprint"].as_str() != Some(opts.fingerprint.as_str()) {
            return Err(Error::Validation(format!(
                "resume: {} holds an interrupted export of something else ({}), not of {}; remove it or write elsewhere",
                dest.display(),
                v["fingerprint"].as_str().unwrap_or("?"),
                opts.fingerprint
            )));
        }
        if v["partition_by"] != json!(opts.partition_by) {
            return Err(Error::Validation(format!(
                "resume: {} was partitioned by {}, not {:?}",
                dest.display(),
                v["partition_by"],
                opts.partition_by
            )));
        }
        Ok(Some(Resume {
            cursor: v["cursor"].as_str().map(str::to_string),
            rows: v["rows"].as_u64().unwrap_or(0),
            chunk: v["chunk"].as_u64().unwrap_or(0),
        }))
    }

    /// Start an export to `dest` (a file, or a folder when partitioned),
    /// continuing `resume` when given.
    pub fn start(dest: &Path, opts: Options, resume: Option<Resume>) -> Result<Export> {
        let dir = Export::dir_of(dest, &opts);
        // The one rule for what may be at a target (`urlscan_core::disk`), before the walk
        // starts: a pipe, device, socket or link at the file (or in place of the folder)
        // is refused, not found after the whole walk when the file is renamed there. A
        // folder at the file fails where the file is renamed, as the I/O error it is
        // (the chunks stay recorded: a resume finishes once it is gone).
        if opts.partition_by.is_empty() {
            match urlscan_core::disk::checked_target(dest) {
                Err(Error::Io { .. }) | Ok(_) => {}
                Err(e) => return Err(e),
            }
        } else {
            urlscan_core::disk::checked_folder(dest)?;
        }
        if opts.row_group_rows == 0 {
            return Err(Error::Validation(
                "row_group_rows: must be at least 1".into(),
            ));
        }
        match &resume {
            Some(r) => drop_unrecorded(&dir, r.chunk)?,
            None => {
                let taken = if opts.partition_by.is_empty() {
                    dest.exists()
                } else {
                    dir.exists()
                        && fs::read_dir(&dir)
                            .map_err(|e| io("read", &dir, e))?
                            .next()
                            .is_some()
                };
                if taken && !opts.overwrite {
                    let what = if opts.partition_by.is_empty() {
                        "exists"
                    } else {
                        "exists and is not empty"
                    };
                    return Err(Error::Validation(format!(
                        "{} {what}: give overwrite=True to replace it, resume=True to continue an interrupted export there, or write elsewhere",
                        dest.display()
                    )));
                }
                if taken && !opts.partition_by.is_empty() {
                    clear_export(&dir)?;
                }
                if opts.partition_by.is_empty() && dir.exists() {
                    // Our own staging folder of an earlier run: not resumed, so gone.
                    fs::remove_dir_all(&dir).map_err(|e| io("remove", &dir, e))?;
                }
            }
        }
        fs::create_dir_all(&dir).map_err(|e| io("create", &dir, e))?;
        let props = WriterProperties::builder()
            .set_compression(opts.compression)
            // A chunk is one row group, however many pages made it.
            .set_max_row_group_row_count(Some(usize::MAX))
            .build();
        let (cursor, rows, chunk) = resume.map_or((None, 0, 0), |r| (r.cursor, r.rows, r.chunk));
        Ok(Export {
            dest: dest.to_path_buf(),
            dir,
            opts,
            props,
            pending: Vec::new(),
            pending_rows: 0,
            pending_bytes: 0,
            cursor,
            rows,
            chunk,
            schema: None,
        })
    }

    /// Rows taken so far, written or waiting for their chunk (with those of a resumed run).
    pub fn rows(&self) -> u64 {
        self.rows + self.pending_rows as u64
    }

    /// Add a batch; `cursor` resumes the walk after its last row.
    pub fn write(&mut self, batch: RecordBatch, cursor: Option<String>) -> Result<()> {
        if self.schema.is_none() {
            self.schema = Some(batch.schema());
        }
        self.pending_rows += batch.num_rows();
        if batch.num_rows() > 0 {
            self.pending_bytes += batch.get_array_memory_size();
            self.pending.push(batch);
        }
        self.cursor = cursor.or(self.cursor.take());
        if self.pending_rows >= self.opts.row_group_rows || self.pending_bytes >= CHUNK_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Write the rows gathered so far as a chunk and record it (a walk that
    /// failed: a resume starts after them). Not without a cursor after them
    /// (rows given before any page): a resume could not start after them,
    /// so they are left out, as a resume will read them again.
    pub fn checkpoint(&mut self) -> Result<()> {
        if self.cursor.is_none() {
            return Ok(());
        }
        self.flush()
    }

    /// Write the rows gathered as a chunk, then record it.
    fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let batches = std::mem::take(&mut self.pending);
        let rows = std::mem::take(&mut self.pending_rows) as u64;
        self.pending_bytes = 0;
        if self.opts.partition_by.is_empty() {
            let path = self.dir.join(format!("part-{}.parquet", self.chunk));
            write_file(&path, &batches, &self.props)?;
        } else {
            for (dir, part) in partitions(&batches, &self.opts.partition_by)? {
                let dir = self.dir.join(dir);
                fs::create_dir_all(&dir).map_err(|e| io("create", &dir, e))?;
                write_file(
                    &dir.join(format!("part-{}.parquet", self.chunk)),
                    &part,
                    &self.props,
                )?;
            }
        }
        self.chunk += 1;
        self.rows += rows;
        self.record()
    }

    fn record(&self) -> Result<()> {
        let state = self.dir.join(STATE);
        let v = json!({
            "fingerprint": self.opts.fingerprint,
            "partition_by": self.opts.partition_by,
            "cursor": self.cursor,
            "rows": self.rows,
            "chunk": self.chunk,
        });
        urlscan_core::disk::write_whole(&state, v.to_string().as_bytes()).map(drop)
    }

    /// Write what is left and finish: a single file is joined from its
    /// chunks; the state file goes. `schema` is the table's, for an export
    /// that wrote no row (an empty file that still has its columns).
    pub fn finish(mut self, schema: SchemaRef) -> Result<u64> {
        self.flush()?;
        if self.opts.partition_by.is_empty() {
            let parts = chunk_files(&self.dir)?;
            if parts.is_empty() {
                write_file(&self.dest, &[RecordBatch::new_empty(schema)], &self.props)?;
            } else {
                concat(&parts, &self.dest)?;
            }
            fs::remove_dir_all(&self.dir).map_err(|e| io("remove", &self.dir, e))?;
        } else {
            // Not there when no row was written (no chunk was recorded).
            let state = self.dir.join(STATE);
            match fs::remove_file(&state) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io("remove", &state, e))
                }
                _ => {}
            }
        }
        Ok(self.rows)
    }
}

impl Drop for Export {
    /// A single file's staging folder left empty (an export that failed before
    /// its first chunk was recorded) is removed; one holding recorded chunks is
    /// the resume point, and kept.
    fn drop(&mut self) {
        if self.opts.partition_by.is_empty() {
            let _ = fs::remove_dir(&self.dir);
        }
    }
}

/// Remove an earlier export's folder (`overwrite`), only when it holds
/// nothing but what an export writes: Hive partition folders, Parquet files
/// and the export's state (regular files). Anything else is the user's, and kept.
fn clear_export(dir: &Path) -> Result<()> {
    fn ours(dir: &Path) -> Result<bool> {
        for e in fs::read_dir(dir).map_err(|e| io("read", dir, e))? {
            let e = e.map_err(|e| io("read", dir, e))?;
            let name = e.file_name().to_string_lossy().into_owned();
            let kind = e.file_type().map_err(|err| io("read", &e.path(), err))?;
            // A pipe, device, socket or link is never an export's, whatever its name.
            let fine = if kind.is_dir() {
                name.contains('=') && ours(&e.path())?
            } else {
                kind.is_file() && (name.ends_with(".parquet") || name == STATE || is_staged(&name))
            };
            if !fine {
                return Ok(false);
            }
        }
        Ok(true)
    }
    if !ours(dir)? {
        return Err(Error::Validation(format!(
            "overwrite: {} holds files that are not an export's (only partition folders and Parquet files are replaced); write elsewhere",
            dir.display()
        )));
    }
    fs::remove_dir_all(dir).map_err(|e| io("remove", dir, e))
}

/// A temporary file `disk::Staged` leaves behind when the process was killed.
fn is_staged(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".part")
}

/// `props` with dictionaries off for the text columns whose values are
/// mostly distinct in `batches` (uuids, URLs, titles): a dictionary of them
/// costs a hash of every value, then is dropped for plain encoding once it
/// outgrows its page. Judged on a sample of the first rows; the columns of
/// repeated values (countries, servers, issuers) keep theirs.
fn fitted(props: &WriterProperties, batches: &[RecordBatch]) -> WriterProperties {
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    const SAMPLE: usize = 2048;
    let Some(first) = batches.first() else {
        return props.clone();
    };
    let mut out = props.clone().into_builder();
    for (i, field) in first.schema().fields().iter().enumerate() {
        if field.data_type() != &DataType::Utf8 {
            continue;
        }
        let values = batches
            .iter()
            .flat_map(|b| b.column(i).as_string::<i32>().iter().flatten());
        let mut seen = std::collections::HashSet::new();
        let mut n = 0;
        for v in values.take(SAMPLE) {
            seen.insert(v);
            n += 1;
        }
        if n >= 256 && seen.len() * 2 > n {
            out = out.set_column_dictionary_enabled(
                parquet::schema::types::ColumnPath::from(field.name().as_str()),
                false,
            );
        }
    }
    out.build()
}

/// Write batches as one complete file (staged, renamed when whole).
fn write_file(path: &Path, batches: &[RecordBatch], props: &WriterProperties) -> Result<()> {
    let mut staged = urlscan_core::disk::Staged::new(path)?;
    let schema = batches[0].schema();
    let props = fitted(props, batches);
    let mut w =
        ArrowWriter::try_new(staged.take_file(), schema, Some(props)).map_err(|e| pq(path, e))?;
    for b in batches {
        w.write(b).map_err(|e| pq(path, e))?;
    }
    let file = w.into_inner().map_err(|e| pq(path, e))?;
    file.sync_all().map_err(|e| io("write", path, e))?;
    staged.commit().map(drop)
}

/// The chunk number of a file name `part-<n>.parquet`.
fn chunk_of(name: &str) -> Option<u64> {
    name.strip_prefix("part-")?
        .strip_suffix(".parquet")?
        .parse()
        .ok()
}

/// The chunk files of a staging folder, in chunk order.
fn chunk_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut parts: Vec<(u64, PathBuf)> = fs::read_dir(dir)
        .map_err(|e| io("cannot read", dir, e))?
        .filter_map(|e| {
            let e = e.ok()?;
            let n = chunk_of(e.file_name().to_str()?)?;
            Some((n, e.path()))
        })
        .collect();
    parts.sort();
    Ok(parts.into_iter().map(|(_, p)| p).collect())
}

/// Remove files of chunks from `from` on, and unfinished files, under `dir`
/// (an interrupted run wrote them after its last record).
fn drop_unrecorded(dir: &Path, from: u64) -> Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            drop_unrecorded(&path, from)?;
        } else if is_staged(&name) || chunk_of(&name).is_some_and(|n| n >= from) {
            fs::remove_file(&path).map_err(|e| io("remove", &path, e))?;
        }
    }
    Ok(())
}

/// Join Parquet files of one schema into one, copying their row groups
/// (staged, renamed to `out` when whole).
fn concat(parts: &[PathBuf], out: &Path) -> Result<()> {
    let inputs = parts
        .iter()
        .map(|p| {
            let f = File::open(p).map_err(|e| io("read", p, e))?;
            let meta = ParquetMetaDataReader::new()
                .parse_and_finish(&f)
                .map_err(|e| pq(p, e))?;
            Ok((f, meta))
        })
        .collect::<Result<Vec<_>>>()?;
    let first = &inputs[0].1;
    let props = WriterProperties::builder()
        .set_key_value_metadata(first.file_metadata().key_value_metadata().cloned())
        .build();
    let schema = first.file_metadata().schema_descr().root_schema_ptr();
    let mut staged = urlscan_core::disk::Staged::new(out)?;
    let mut w = SerializedFileWriter::new(staged.take_file(), schema, Arc::new(props))
        .map_err(|e| pq(out, e))?;
    for (input, meta) in &inputs {
        for rg in meta.row_groups() {
            let mut rg_out = w.next_row_group().map_err(|e| pq(out, e))?;
            for column in rg.columns() {
                let result = ColumnCloseResult {
                    bytes_written: column.compressed_size() as _,
                    rows_written: rg.num_rows() as _,
                    metadata: column.clone(),
                    bloom_filter: None,
                    column_index: None,
                    offset_index: None,
                };
                rg_out
                    .append_column(input, result)
                    .map_err(|e| pq(out, e))?;
            }
            rg_out.close().map_err(|e| pq(out, e))?;
        }
    }
    let file = w.into_inner().map_err(|e| pq(out, e))?;
    file.sync_all().map_err(|e| io("write", out, e))?;
    staged.commit().map(drop)
}

/// A partition value as a folder name: Hive's escapes for what a path cannot
/// hold, cut to `MAX_PARTITION_NAME` bytes with a hash of the whole value.
fn partition_name(v: &str) -> String {
    let escaped = escape(v);
    if escaped.len() <= MAX_PARTITION_NAME {
        return escaped;
    }
    use sha2::Digest;
    let hash = hex::encode(&sha2::Sha256::digest(v.as_bytes())[..8]);
    // The escaped text is ASCII (every other byte is escaped); an escape
    // (`%2F`) is never split.
    let mut cut = MAX_PARTITION_NAME - 17;
    if let Some(p) = escaped[..cut].rfind('%').filter(|p| cut - p < 3) {
        cut = p;
    }
    format!("{}~{hash}", &escaped[..cut])
}

/// Hive's escapes for what a path cannot hold.
fn escape(v: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
        .add(b'/')
        .add(b'\\')
        .add(b'=')
        .add(b'%')
        .add(b':')
        .add(b'"')
        .add(b'#')
        .add(b'*')
        .add(b'?')
        .add(b'<')
        .add(b'>')
        .add(b'|')
        .add(b'{')
        .add(b'[')
        .add(b'^');
    percent_encoding::utf8_percent_encode(v, SET).to_string()
}

/// The value of each row of a partition column, as text (a timestamp or a
/// date as its UTC day).
fn key_texts(col: &ArrayRef, name: &str) -> Result<Vec<Option<String>>> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Date32Type, Int64Type, TimestampMicrosecondType};
    let n = col.len();
    let day = |days: i64| {
        chrono::DateTime::from_timestamp(days * 86_400, 0).map(|d| d.format("%Y-%m-%d").to_string())
    };
    let out = match col.data_type() {
        DataType::Utf8 => {
            let a = col.as_string::<i32>();
            (0..n).map(|i| a.is_valid(i).then(|| a.value(i).to_string())).collect()
        }
        DataType::Int64 => {
            let a = col.as_primitive::<Int64Type>();
            (0..n).map(|i| a.is_valid(i).then(|| a.value(i).to_string())).collect()
        }
        DataType::Boolean => {
            let a = col.as_boolean();
            (0..n).map(|i| a.is_valid(i).then(|| a.value(i).to_string())).collect()
        }
        DataType::Date32 => {
            let a = col.as_primitive::<Date32Type>();
            (0..n).map(|i| a.is_valid(i).then(|| day(i64::from(a.value(i)))).flatten()).collect()
        }
        DataType::Timestamp(..) => {
            let a = col.as_primitive::<TimestampMicrosecondType>();
            (0..n)
                .map(|i| a.is_valid(i).then(|| day(a.value(i).div_euclid(86_400_000_000))).flatten())
                .collect()
        }
        other => {
            return Err(Error::Validation(format!(
                "partition_by: {name:?} is a column of type {other}, not a string, number, boolean, date or time"
            )))
        }
    };
    Ok(out)
}

/// The rows of `batches` split by the partition keys: (the relative folder,
/// its rows without the key columns), in the order the folders first occur.
fn partitions(
    batches: &[RecordBatch],
    keys: &[String],
) -> Result<Vec<(PathBuf, Vec<RecordBatch>)>> {
    let schema = batches[0].schema();
    // Each key's column: "date" is the UTC day of `time` unless there is a `date` column.
    let mut sources = Vec::with_capacity(keys.len());
    for k in keys {
        let src = if schema.index_of(k).is_ok() {
            k.as_str()
        } else if k == "date" && schema.index_of("time").is_ok() {
            "time"
        } else {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            return Err(Error::Validation(format!(
                "partition_by: {k:?} is not a column of the table ({}), nor \"date\" (the day of `time`)",
                names.join(", ")
            )));
        };
        sources.push(src);
    }
    // The key columns are in the folder names, not in the files (Hive's way);
    // `time` stays when it only gives the day.
    let dropped: Vec<&String> = keys.iter().filter(|k| schema.index_of(k).is_ok()).collect();
    let kept: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| !dropped.iter().any(|k| schema.field(i).name() == *k))
        .collect();
    let mut order: Vec<PathBuf> = Vec::new();
    let mut groups: HashMap<PathBuf, Vec<RecordBatch>> = HashMap::new();
    for batch in batches {
        let texts = keys
            .iter()
            .zip(&sources)
            .map(|(k, src)| key_texts(batch.column_by_name(src).expect("checked above"), k))
            .collect::<Result<Vec<_>>>()?;
        let mut rows: HashMap<PathBuf, Vec<u32>> = HashMap::new();
        let mut batch_order = Vec::new();
        for i in 0..batch.num_rows() {
            let mut dir = PathBuf::new();
            for (k, t) in keys.iter().zip(&texts) {
                let v = t[i]
                    .as_deref()
                    .map_or_else(|| NULL_PARTITION.to_string(), partition_name);
                dir.push(format!("{}={v}", escape(k)));
            }
            rows.entry(dir.clone())
                .or_insert_with(|| {
                    batch_order.push(dir);
                    Vec::new()
                })
                .push(i as u32);
        }
        let projected = batch
            .project(&kept)
            .map_err(|e| Error::Internal(e.to_string()))?;
        for dir in batch_order {
            let idx = UInt32Array::from(rows.remove(&dir).unwrap_or_default());
            let part = arrow_select::take::take_record_batch(&projected, &idx)
                .map_err(|e| Error::Internal(e.to_string()))?;
            if !groups.contains_key(&dir) {
                order.push(dir.clone());
            }
            groups.entry(dir).or_default().push(part);
        }
    }
    Ok(order
        .into_iter()
        .map(|d| {
            let g = groups.remove(&d).unwrap_or_default();
            (d, g)
        })
        .collect())
}

#[cfg(test)]
#[path = "parquet_out_tests.rs"]
mod tests;

//! JSON objects (hits, results, records) straight into Arrow columns: the
//! values a table asks for are found by a scan of each object's structure
//! (the same one-pass index the models use), and each is decoded into its
//! column's builder. No value outside the table is decoded.
//!
//! The reading rules are the models' (`urlscan_rs.models`): missing and null
//! read as null, `{}` where a list is expected as an empty list, numbers may
//! come as numeric strings and date-times as epoch milliseconds; any other
//! type is a `DecodeError` naming the JSON path and what was found.
use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, ListBuilder,
    StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema as ArrowSchema, SchemaRef};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime};
use urlscan_core::models::index::DocIndex;
use urlscan_core::models::index::{
    parsed_array_spans, parsed_member, parsed_object_index, parsed_object_index_into, Entry, Part,
};
use urlscan_core::{Error, Result};

use crate::schema::{Col, Schema, Ty, VERSION};

/// Where a row is in its answer (`results[3]`), for error messages; made
/// into text only when a value is wrong.
pub trait At {
    fn path(&self) -> String;
}

/// Element `i` of the list under a key (`results[3]`), or the answer itself (`key` "").
pub struct Item<'a>(pub &'a str, pub usize);

impl At for Item<'_> {
    fn path(&self) -> String {
        if self.0.is_empty() {
            String::new()
        } else {
            format!("{}[{}]", self.0, self.1)
        }
    }
}

impl At for String {
    fn path(&self) -> String {
        self.to_string()
    }
}

fn join(base: &str, rest: &str) -> String {
    match (base.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => base.to_string(),
        _ => format!("{base}.{rest}"),
    }
}

/// What a wrong value is, shortly, as the models say it: `a string ("many")`.
fn found(v: &[u8]) -> String {
    let kind = match v.first() {
        Some(b'{') => "an object",
        Some(b'[') => "a list",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        _ => "a number",
    };
    let text = String::from_utf8_lossy(v);
    let text = if text.chars().count() > 40 {
        format!("{}...", text.chars().take(37).collect::<String>())
    } else {
        text.into_owned()
    };
    format!("{kind} ({text})")
}

fn wrong(path: String, what: &str, v: &[u8]) -> Error {
    let path = if path.is_empty() {
        "(document)".into()
    } else {
        path
    };
    Error::Decode(format!("{path}: expected {what}, found {}", found(v)))
}

/// The text of a JSON string value (with its quotes).
fn string_of(v: &[u8]) -> Option<Cow<'_, str>> {
    let inner = v.get(1..v.len().checked_sub(1)?)?;
    if !inner.contains(&b'\\') {
        return std::str::from_utf8(inner).ok().map(Cow::Borrowed);
    }
    serde_json::from_slice::<String>(v).ok().map(Cow::Owned)
}

fn is_null(v: &[u8]) -> bool {
    v == b"null"
}

/// A number, or a numeric string (as the models' `_int` and `_float` read them).
fn number(v: &[u8]) -> Option<f64> {
    match v.first()? {
        b'"' => string_of(v)?.trim().parse::<f64>().ok(),
        b'-' | b'0'..=b'9' => std::str::from_utf8(v).ok()?.parse::<f64>().ok(),
        _ => None,
    }
}

fn int(v: &[u8]) -> Option<i64> {
    if let Some(i) = std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
    {
        return Some(i);
    }
    let f = number(v)?;
    // Truncated like Python's int(float): finite values only.
    (f.is_finite() && f.abs() < 9.2e18).then_some(f as i64)
}

/// The service's own layout, `"YYYY-MM-DDTHH:MM:SS.mmmZ"` (quotes
/// included), as microseconds since the epoch, read without a general
/// parser; None for anything else (the general rules then apply).
fn service_time(v: &[u8]) -> Option<i64> {
    let &[b'"', y0, y1, y2, y3, b'-', mo0, mo1, b'-', d0, d1, b'T', h0, h1, b':', mi0, mi1, b':', s0, s1, b'.', f0, f1, f2, b'Z', b'"'] =
        v
    else {
        return None;
    };
    let n = |ds: &[u8]| -> Option<i64> {
        ds.iter().try_fold(0i64, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
        })
    };
    let (year, month, day) = (n(&[y0, y1, y2, y3])?, n(&[mo0, mo1])?, n(&[d0, d1])?);
    let (hour, minute, second) = (n(&[h0, h1])?, n(&[mi0, mi1])?, n(&[s0, s1])?);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // chrono checks the day against its month (and leap years).
    let date = NaiveDate::from_ymd_opt(year as i32, month as u32, day as u32)?;
    let days = i64::from(date.num_days_from_ce()) - 719_163;
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second;
    Some(secs * 1_000_000 + n(&[f0, f1, f2])? * 1000)
}

/// An ISO 8601 date-time (`...Z`, an offset, or none for UTC; a day alone
/// is its midnight) or epoch milliseconds, as microseconds since the epoch.
fn micros(v: &[u8]) -> Option<Option<i64>> {
    if let Some(us) = service_time(v) {
        return Some(Some(us));
    }
    if v.first() == Some(&b'"') {
        let s = string_of(v)?;
        let s = s.trim();
        if s.is_empty() {
            return Some(None);
        }
        if let Ok(d) = DateTime::parse_from_rfc3339(s) {
            return Some(Some(d.timestamp_micros()));
        }
        for f in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
            if let Ok(d) = NaiveDateTime::parse_from_str(s, f) {
                return Some(Some(d.and_utc().timestamp_micros()));
            }
        }
        if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
            return Some(Some(d.and_hms_opt(0, 0, 0)?.and_utc().timestamp_micros()));
        }
        return None;
    }
    let ms = number(v)?;
    let us = ms * 1000.0;
    (us.is_finite() && us.abs() < 9.2e18).then_some(Some(us as i64))
}

/// A day (`YYYY-MM-DD`, or the day of a date-time) as days since the epoch.
fn days(v: &[u8]) -> Option<Option<i32>> {
    let s = string_of(v)?;
    let s = s.trim();
    if s.is_empty() {
        return Some(None);
    }
    let day = NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d").ok()?;
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1)?;
    Some(Some(i32::try_from((day - epoch).num_days()).ok()?))
}

/// A column's builder.
enum Cells {
    Str(StringBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    Time(TimestampMicrosecondBuilder),
    Date(Date32Builder),
    List(ListBuilder<StringBuilder>),
    /// An inferred column's values until its type is decided: the JSON text
    /// of each (None for missing or null).
    Raw(Vec<Option<String>>),
}

impl Cells {
    fn new(ty: Ty, cap: usize) -> Cells {
        match ty {
            Ty::Str | Ty::Json | Ty::Report => {
                Cells::Str(StringBuilder::with_capacity(cap, cap * 16))
            }
            Ty::Int | Ty::Count => Cells::Int(Int64Builder::with_capacity(cap)),
            Ty::Float => Cells::Float(Float64Builder::with_capacity(cap)),
            Ty::Bool => Cells::Bool(BooleanBuilder::with_capacity(cap)),
            Ty::Time => {
                Cells::Time(TimestampMicrosecondBuilder::with_capacity(cap).with_timezone("UTC"))
            }
            Ty::Date => Cells::Date(Date32Builder::with_capacity(cap)),
            Ty::StrList => Cells::List(ListBuilder::new(StringBuilder::new())),
            Ty::Infer => Cells::Raw(Vec::with_capacity(cap)),
        }
    }

    /// A builder of `ty` with room for a batch like the one `sizes` measured.
    fn sized(ty: Ty, (rows, bytes, items): (usize, usize, usize)) -> Cells {
        match ty {
            Ty::Str | Ty::Json | Ty::Report => {
                Cells::Str(StringBuilder::with_capacity(rows, bytes))
            }
            Ty::StrList => Cells::List(ListBuilder::with_capacity(
                StringBuilder::with_capacity(items, bytes),
                rows,
            )),
            _ => Cells::new(ty, rows),
        }
    }

    /// Rows, bytes of text and list items held (what `sized` reserves).
    fn sizes(&self) -> (usize, usize, usize) {
        match self {
            Cells::Str(b) => (b.len(), b.values_slice().len(), 0),
            Cells::List(b) => (
                b.len(),
                b.values_ref().values_slice().len(),
                b.values_ref().len(),
            ),
            Cells::Int(b) => (b.len(), 0, 0),
            Cells::Float(b) => (b.len(), 0, 0),
            Cells::Bool(b) => (b.len(), 0, 0),
            Cells::Time(b) => (b.len(), 0, 0),
            Cells::Date(b) => (b.len(), 0, 0),
            Cells::Raw(v) => (v.len(), 0, 0),
        }
    }

    fn null(&mut self) {
        match self {
            Cells::Str(b) => b.append_null(),
            Cells::Int(b) => b.append_null(),
            Cells::Float(b) => b.append_null(),
            Cells::Bool(b) => b.append_null(),
            Cells::Time(b) => b.append_null(),
            Cells::Date(b) => b.append_null(),
            Cells::List(b) => b.append_null(),
            Cells::Raw(v) => v.push(None),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Cells::Str(b) => Arc::new(b.finish()),
            Cells::Int(b) => Arc::new(b.finish()),
            Cells::Float(b) => Arc::new(b.finish()),
            Cells::Bool(b) => Arc::new(b.finish()),
            Cells::Time(b) => Arc::new(b.finish()),
            Cells::Date(b) => Arc::new(b.finish()),
            Cells::List(b) => Arc::new(b.finish()),
            Cells::Raw(_) => unreachable!("an inferred column is typed before it is finished"),
        }
    }
}

/// A column of a table being built.
struct Column {
    name: String,
    ty: Ty,
    /// The wire paths it reads, as slots of the row's spans (first wins).
    slots: Vec<usize>,
    /// The path named in errors (the first).
    path: String,
    /// An inferred whole-number column: a later fraction is an error, not truncated.
    exact: bool,
    /// A path through a list (`data.requests[].request.url`): the keys after
    /// `[]`, read in each element; the column is a list of their values.
    each: Option<Vec<String>>,
    cells: Cells,
}

/// A tree of the wire paths a table reads: each node a key, its value a
/// slot when a column reads it, its children the keys read below it.
#[derive(Default)]
struct Node {
    children: Vec<(String, Node)>,
    slot: Option<usize>,
    /// How many nodes with children are below this one (their scratch indexes).
    below: usize,
}

impl Node {
    fn insert(&mut self, path: &[&str], slot: usize) {
        let Some((head, rest)) = path.split_first() else {
            self.slot = Some(slot);
            return;
        };
        let i = match self.children.iter().position(|(k, _)| k == head) {
            Some(i) => i,
            None => {
                self.children.push(((*head).to_string(), Node::default()));
                self.children.len() - 1
            }
        };
        self.children[i].1.insert(rest, slot);
    }

    /// Set `below` everywhere; the number of nodes with children at or below this one's children.
    fn count(&mut self) -> usize {
        self.below = self.children.iter_mut().map(|(_, c)| c.count()).sum();
        self.below + usize::from(!self.children.is_empty())
    }
}

/// A value's span in the row's body; the slot's path names it in errors.
type Span = Option<(usize, usize)>;

/// Builds record batches of one schema (or of the columns asked for) from
/// JSON objects, batch after batch with the same Arrow schema.
pub struct TableBuilder {
    schema: &'static Schema,
    columns: Vec<Column>,
    tree: Node,
    /// Each slot's dotted path.
    paths: Vec<String>,
    spans: Vec<Span>,
    /// A reusable index per object the tree opens (no allocation per row).
    scratch: Vec<DocIndex>,
    /// The top-level index of rows given without one.
    top: DocIndex,
    rows: usize,
    /// Bytes of the values appended since the last batch (as sent: about
    /// what the batch will hold).
    bytes: usize,
    /// The sizes of each column's last batch, reserved when the next starts
    /// (so a batch's builders do not regrow from empty).
    reserve: Option<Vec<(usize, usize, usize)>>,
    arrow: Option<SchemaRef>,
}

/// A column asked for: its name, the wire paths it reads and its type.
struct Spec {
    name: String,
    paths: Vec<String>,
    ty: Ty,
    each: Option<Vec<String>>,
}

impl Spec {
    fn of(c: &Col) -> Spec {
        Spec {
            name: c.name.to_string(),
            paths: c.paths.iter().map(|p| (*p).to_string()).collect(),
            ty: c.ty,
            each: None,
        }
    }
}

/// A column asked for by name: a schema column, or else a wire path
/// (`page.redirected`, `sort`; a leading dot is allowed: `._score`).
fn column_of(schema: &'static Schema, name: &str) -> Result<Spec> {
    if let Some(c) = schema.column(name) {
        return Ok(Spec::of(c));
    }
    let path = name.strip_prefix('.').unwrap_or(name);
    if let Some((list, rest)) = path.split_once("[]") {
        // A path through a list: one `[]`, after a key, then keys or nothing.
        let rest = match rest {
            "" => Some(Vec::new()),
            r => r
                .strip_prefix('.')
                .map(|r| r.split('.').map(str::to_string).collect::<Vec<_>>()),
        };
        let bad =
            |why: &str| Error::Validation(format!("columns: {name:?} is not a wire path ({why})"));
        let rest = rest.ok_or_else(|| bad("a key follows `[]` after a dot"))?;
        if list.is_empty()
            || list.split('.').any(str::is_empty)
            || rest.iter().any(String::is_empty)
        {
            return Err(bad("an empty part"));
        }
        if rest.iter().any(|k| k.contains('[') || k.contains(']')) {
            return Err(bad("one `[]` at most"));
        }
        return Ok(Spec {
            name: name.to_string(),
            paths: vec![list.to_string()],
            ty: Ty::StrList,
            each: Some(rest),
        });
    }
    if path.split('.').any(str::is_empty) {
        return Err(Error::Validation(format!(
            "columns: {name:?} is not a wire path (an empty part)"
        )));
    }
    // A path a schema column reads is that column's type.
    // (A count or a rewritten link is computed from the value, not its type.)
    let known = schema
        .columns
        .iter()
        .filter(|c| !matches!(c.ty, Ty::Count | Ty::Report))
        .find(|c| c.paths.first() == Some(&path));
    Ok(Spec {
        name: name.to_string(),
        paths: vec![path.to_string()],
        ty: known.map_or(Ty::Infer, |c| c.ty),
        each: None,
    })
}

impl TableBuilder {
    /// A builder of `schema`'s columns, or of `columns` (schema names or
    /// wire paths) in that order and by those names.
    pub fn new(schema: &'static Schema, columns: Option<&[String]>) -> Result<TableBuilder> {
        let cols: Vec<Spec> = match columns {
            None => schema.columns.iter().map(Spec::of).collect(),
            Some(names) => {
                let mut seen = std::collections::HashSet::new();
                let mut out = Vec::with_capacity(names.len());
                for n in names {
                    if !seen.insert(n.as_str()) {
                        return Err(Error::Validation(format!("columns: {n:?} is named twice")));
                    }
                    out.push(column_of(schema, n)?);
                }
                out
            }
        };
        let mut tree = Node::default();
        let mut paths: Vec<String> = Vec::new();
        let mut columns = Vec::with_capacity(cols.len());
        for col in cols {
            let mut slots = Vec::with_capacity(col.paths.len());
            for p in &col.paths {
                let slot = match paths.iter().position(|q| q == p) {
                    Some(s) => s,
                    None => {
                        paths.push(p.clone());
                        let parts: Vec<&str> = p.split('.').collect();
                        tree.insert(&parts, paths.len() - 1);
                        paths.len() - 1
                    }
                };
                slots.push(slot);
            }
            columns.push(Column {
                name: col.name,
                ty: col.ty,
                slots,
                path: col.paths[0].clone(),
                exact: false,
                each: col.each,
                cells: Cells::new(col.ty, 0),
            });
        }
        let spans = vec![None; paths.len()];
        tree.count();
        let scratch = vec![DocIndex::new(); tree.below];
        Ok(TableBuilder {
            schema,
            columns,
            tree,
            paths,
            spans,
            scratch,
            top: DocIndex::new(),
            rows: 0,
            bytes: 0,
            reserve: None,
            arrow: None,
        })
    }

    /// Whether a column takes its type from its first values.
    pub fn infers(&self) -> bool {
        self.arrow.is_none() && self.columns.iter().any(|c| c.ty == Ty::Infer)
    }

    pub fn schema_name(&self) -> &'static str {
        self.schema.name
    }

    /// Rows appended since the last batch.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// About how many bytes the rows since the last batch hold.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Append the JSON object `body` (known to be valid JSON); `index` is
    /// its members' spans when already found (a search page's hits),
    /// relative to `body`; `at` names it in errors.
    pub fn append(&mut self, body: &[u8], index: Option<&DocIndex>, at: &dyn At) -> Result<()> {
        self.append_parts(body, index, &[], at)
    }

    /// `append`, given also the members of objects among the row's values
    /// when already found (a search page's `parts`), so they are not scanned again.
    pub fn append_parts(
        &mut self,
        body: &[u8],
        index: Option<&DocIndex>,
        parts: &[Part],
        at: &dyn At,
    ) -> Result<()> {
        if let Some(sizes) = self.reserve.take() {
            for (c, size) in self.columns.iter_mut().zip(sizes) {
                if c.ty != Ty::Infer {
                    c.cells = Cells::sized(c.ty, size);
                }
            }
        }
        self.spans.iter_mut().for_each(|s| *s = None);
        let index = match index {
            Some(i) => i,
            None => {
                if parsed_object_index_into(body, &mut self.top).is_none() {
                    let end = body.len().min(60);
                    return Err(wrong(at.path(), "an object", &body[..end]));
                }
                &self.top
            }
        };
        resolve(
            &self.tree,
            body,
            index,
            0,
            parts,
            &mut self.spans,
            &mut self.scratch,
            &|| at.path(),
        )?;
        for c in &mut self.columns {
            let span = c
                .slots
                .iter()
                .map(|&s| self.spans[s])
                .find(|s| s.is_some_and(|(a, b)| !is_null(&body[a..b])))
                .flatten();
            match span {
                None => c.cells.null(),
                Some((a, b)) => {
                    let slot = c
                        .slots
                        .iter()
                        .copied()
                        .find(|&s| self.spans[s] == Some((a, b)));
                    let path = slot.map_or(c.path.as_str(), |s| self.paths[s].as_str());
                    let v = &body[a..b];
                    let here = || join(&at.path(), path);
                    match (&c.each, &mut c.cells) {
                        (Some(keys), Cells::List(list)) => {
                            self.bytes += put_each(list, keys, v, &here)?;
                        }
                        _ => {
                            put(&mut c_ref(&mut c.cells, c.ty, c.exact), v, &here)?;
                            self.bytes += b - a;
                        }
                    }
                }
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// The Arrow schema of the batches (inferred columns decided by the first batch).
    pub fn arrow_schema(&self) -> SchemaRef {
        if let Some(s) = &self.arrow {
            return s.clone();
        }
        let fields: Vec<Field> = self
            .columns
            .iter()
            .map(|c| Field::new(&c.name, c.ty.arrow(), true))
            .collect();
        Arc::new(ArrowSchema::new_with_metadata(fields, self.metadata()))
    }

    fn metadata(&self) -> std::collections::HashMap<String, String> {
        [
            (
                "urlscan_rs.schema".to_string(),
                self.schema.name.to_string(),
            ),
            ("urlscan_rs.schema_version".to_string(), VERSION.to_string()),
        ]
        .into_iter()
        .collect()
    }

    /// The first `rows` rows appended as a record batch, the rest dropped
    /// (a row that failed half-way has some of its cells only).
    pub fn finish_first(&mut self, rows: usize) -> Result<RecordBatch> {
        for c in &mut self.columns {
            if let Cells::Raw(values) = &mut c.cells {
                values.truncate(rows);
            }
        }
        let batch = self.finish_columns(Some(rows))?;
        self.reserve = None;
        Ok(batch)
    }

    /// Drop the rows appended since the last batch.
    pub fn discard(&mut self) {
        for c in &mut self.columns {
            c.cells = Cells::new(c.ty, 0);
        }
        self.rows = 0;
        self.bytes = 0;
    }

    /// The rows appended so far as a record batch (the builder starts anew).
    pub fn finish(&mut self) -> Result<RecordBatch> {
        self.finish_columns(None)
    }

    fn finish_columns(&mut self, keep: Option<usize>) -> Result<RecordBatch> {
        for c in &mut self.columns {
            if let Cells::Raw(values) = &mut c.cells {
                let values = std::mem::take(values);
                let (ty, exact) = infer(&values);
                c.ty = ty;
                c.exact = exact;
                c.cells = Cells::new(ty, values.len());
                for (i, v) in values.iter().enumerate() {
                    match v {
                        None => c.cells.null(),
                        Some(text) => {
                            let name = &c.path;
                            put(
                                &mut c_ref(&mut c.cells, c.ty, c.exact),
                                text.as_bytes(),
                                &|| format!("{name} (value {i} of the batch)"),
                            )?;
                        }
                    }
                }
            }
        }
        let schema = self.arrow_schema();
        self.arrow = Some(schema.clone());
        self.reserve = Some(self.columns.iter().map(|c| c.cells.sizes()).collect());
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|c| {
                let a = c.cells.finish();
                match keep {
                    Some(n) if n < a.len() => a.slice(0, n),
                    _ => a,
                }
            })
            .collect();
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(schema, arrays)
            .map_err(|e| Error::Internal(format!("a table batch does not fit its schema: {e}")))
    }
}

/// A column's cells with its type, for `put` (inferred columns being typed).
struct CellsRef<'a> {
    cells: &'a mut Cells,
    ty: Ty,
    exact: bool,
}

fn c_ref(cells: &mut Cells, ty: Ty, exact: bool) -> CellsRef<'_> {
    CellsRef { cells, ty, exact }
}

/// The type an inferred column takes from its first values: strings,
/// booleans, whole numbers or numbers when all are; JSON text otherwise (or
/// strings when all are null). The flag: whole numbers, read exactly.
fn infer(values: &[Option<String>]) -> (Ty, bool) {
    let mut kinds = values.iter().flatten().map(|v| match v.as_bytes()[0] {
        b'"' => 0u8,
        b't' | b'f' => 1,
        b'{' | b'[' => 4,
        _ if v.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) => 3,
        _ => 2,
    });
    let Some(first) = kinds.next() else {
        return (Ty::Str, false);
    };
    let mut kind = first;
    for k in kinds {
        kind = match (kind, k) {
            (a, b) if a == b => a,
            (2 | 3, 2 | 3) => 3,
            _ => 4,
        };
    }
    match kind {
        0 => (Ty::Str, false),
        1 => (Ty::Bool, false),
        2 => (Ty::Int, true),
        3 => (Ty::Float, false),
        _ => (Ty::Json, false),
    }
}

/// Find the spans of the tree's paths in the object whose members are
/// `entries` (spans relative to `body[base..]`). `scratch` holds a reusable
/// index per tree node below the top (in tree order); `path` names the object.
#[allow(clippy::too_many_arguments)]
fn resolve(
    node: &Node,
    body: &[u8],
    entries: &[Entry],
    base: usize,
    parts: &[Part],
    spans: &mut [Span],
    scratch: &mut [DocIndex],
    path: &dyn Fn() -> String,
) -> Result<()> {
    let here = &body[base..];
    let mut next = 0;
    for (key, child) in &node.children {
        // Each child with children owns `scratch[next]`, then its own children's
        // scratch follows it: a tree laid out in pre-order.
        let own = next;
        if !child.children.is_empty() {
            next += 1 + child.below;
        }
        // The last of duplicate keys wins, as with json.loads.
        let Some(e) = entries.iter().rev().find(|e| e.key.is(here, key)) else {
            continue;
        };
        let (a, b) = (base + e.start, base + e.end);
        if let Some(s) = child.slot {
            spans[s] = Some((a, b));
        }
        if child.children.is_empty() {
            continue;
        }
        let v = &body[a..b];
        if is_null(v) {
            continue;
        }
        let child_path = || join(&path(), key);
        let (sub, rest) = scratch[own..]
            .split_first_mut()
            .expect("a scratch index per node");
        // Found already (spans relative to `body`), or scanned now (relative to the value).
        let (sub, sub_base): (&[Entry], usize) = match parts.iter().find(|p| p.start == a) {
            Some(p) => (&p.index, 0),
            None => {
                if v.first() != Some(&b'{') || parsed_object_index_into(v, sub).is_none() {
                    return Err(wrong(child_path(), "an object", v));
                }
                (sub, a)
            }
        };
        resolve(
            child,
            body,
            sub,
            sub_base,
            &[],
            spans,
            &mut rest[..child.below],
            &child_path,
        )?;
    }
    Ok(())
}

/// The elements of the list `v` (`{}` reads as an empty list, as the models read it).
fn list_items(v: &[u8], path: &dyn Fn() -> String) -> Result<Vec<(usize, usize)>> {
    match v.first() {
        Some(b'[') => parsed_array_spans(v).ok_or_else(|| wrong(path(), "a list", v)),
        Some(b'{') if parsed_object_index(v).is_some_and(|i| i.is_empty()) => Ok(Vec::new()),
        _ => Err(wrong(path(), "a list", v)),
    }
}

/// `path[i].k1.k2` for element `i` of a list and the keys read in it.
fn element_path(path: &dyn Fn() -> String, i: usize, keys: &[String]) -> String {
    let mut p = format!("{}[{i}]", path());
    for k in keys {
        p.push('.');
        p.push_str(k);
    }
    p
}

/// The value at `keys` in each element of the list `v` into a list cell:
/// a string as its text, another value as its JSON text, missing or null as
/// null. A list given as `{}` is empty; an element (or a value on the way)
/// that is not an object where a key is read is an error naming its path.
/// The bytes appended.
fn put_each(
    b: &mut ListBuilder<StringBuilder>,
    keys: &[String],
    v: &[u8],
    path: &dyn Fn() -> String,
) -> Result<usize> {
    let items = list_items(v, path)?;
    let mut bytes = 0;
    for (i, (x, y)) in items.into_iter().enumerate() {
        let mut item = &v[x..y];
        for (depth, key) in keys.iter().enumerate() {
            if is_null(item) {
                break;
            }
            let here = || element_path(path, i, &keys[..depth]);
            if item.first() != Some(&b'{') {
                return Err(wrong(here(), "an object", item));
            }
            item = match parsed_member(item, key) {
                Some(Some((s, e))) => &item[s..e],
                Some(None) => b"null",
                None => return Err(wrong(here(), "an object", item)),
            };
        }
        if is_null(item) {
            b.values().append_null();
            continue;
        }
        let text = if item.first() == Some(&b'"') {
            // (None: an escape that is no text, a lone surrogate.)
            string_of(item).ok_or_else(|| wrong(element_path(path, i, keys), "a string", item))?
        } else {
            Cow::Borrowed(std::str::from_utf8(item).map_err(|_| wrong(path(), "JSON", item))?)
        };
        bytes += text.len();
        b.values().append_value(text);
    }
    b.append(true);
    Ok(bytes)
}

/// Decode one present, non-null value into a column.
fn put(col: &mut CellsRef<'_>, v: &[u8], path: &dyn Fn() -> String) -> Result<()> {
    let exact = col.exact;
    match (&mut *col.cells, col.ty) {
        (Cells::Str(b), Ty::Str) => {
            let s = (v.first() == Some(&b'"'))
                .then(|| string_of(v))
                .flatten()
                .ok_or_else(|| wrong(path(), "a string", v))?;
            b.append_value(s);
        }
        (Cells::Str(b), Ty::Report) => {
            let s = (v.first() == Some(&b'"'))
                .then(|| string_of(v))
                .flatten()
                .ok_or_else(|| wrong(path(), "a string", v))?;
            // The report page's link, written into the builder (no string a row).
            const API: &str = "/api/v1/result/";
            match s.find(API) {
                Some(i) => {
                    use std::fmt::Write;
                    for piece in [&s[..i], "/result/", &s[i + API.len()..]] {
                        b.write_str(piece).expect("a builder takes text");
                    }
                    b.append_value("");
                }
                None => b.append_value(s),
            }
        }
        (Cells::Str(b), _) => {
            // JSON text, as sent (valid JSON: the answer was parsed).
            b.append_value(std::str::from_utf8(v).map_err(|_| wrong(path(), "JSON", v))?);
        }
        (Cells::Int(b), Ty::Count) => b.append_value(list_items(v, path)?.len() as i64),
        (Cells::Int(b), _) => {
            if v.first() == Some(&b't') || v.first() == Some(&b'f') {
                return Err(wrong(path(), "a number", v));
            }
            let n = if exact {
                std::str::from_utf8(v)
                    .ok()
                    .and_then(|s| s.parse::<i64>().ok())
            } else {
                int(v)
            };
            let what = if exact {
                "a whole number (the column's type, from its first values)"
            } else {
                "a number"
            };
            b.append_value(n.ok_or_else(|| wrong(path(), what, v))?);
        }
        (Cells::Float(b), _) => {
            b.append_value(number(v).ok_or_else(|| wrong(path(), "a number", v))?);
        }
        (Cells::Bool(b), _) => match v {
            b"true" => b.append_value(true),
            b"false" => b.append_value(false),
            _ => return Err(wrong(path(), "a boolean", v)),
        },
        (Cells::Time(b), _) => {
            if !matches!(v.first(), Some(b'"' | b'-' | b'0'..=b'9')) {
                return Err(wrong(path(), "a date-time", v));
            }
            match micros(v).ok_or_else(|| wrong(path(), "a date-time", v))? {
                Some(us) => b.append_value(us),
                None => b.append_null(),
            }
        }
        (Cells::Date(b), _) => {
            if v.first() != Some(&b'"') {
                return Err(wrong(path(), "a date", v));
            }
            match days(v).ok_or_else(|| wrong(path(), "a date", v))? {
                Some(d) => b.append_value(d),
                None => b.append_null(),
            }
        }
        (Cells::List(b), _) => {
            for (i, (x, y)) in list_items(v, path)?.into_iter().enumerate() {
                let item = &v[x..y];
                if is_null(item) {
                    b.values().append_null();
                    continue;
                }
                let s = (item.first() == Some(&b'"'))
                    .then(|| string_of(item))
                    .flatten()
                    .ok_or_else(|| wrong(element_path(path, i, &[]), "a string", item))?;
                b.values().append_value(s);
            }
            b.append(true);
        }
        (Cells::Raw(values), _) => values.push(Some(String::from_utf8_lossy(v).into_owned())),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{HOSTNAMES, RESULTS, SCANS};
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, TimestampMicrosecondType};
    use arrow_array::Array;

    fn table(schema: &'static Schema, cols: Option<&[&str]>, rows: &[&str]) -> Result<RecordBatch> {
        let cols: Option<Vec<String>> = cols.map(|c| c.iter().map(|s| s.to_string()).collect());
        let mut b = TableBuilder::new(schema, cols.as_deref())?;
        for (i, r) in rows.iter().enumerate() {
            b.append(r.as_bytes(), None, &Item("results", i))?;
        }
        b.finish()
    }

    fn err(schema: &'static Schema, cols: Option<&[&str]>, rows: &[&str]) -> String {
        table(schema, cols, rows).unwrap_err().to_string()
    }

    #[test]
    fn values_are_read_as_the_models_read_them() {
        let rows = [
            r#"{"_id":"a","task":{"time":"2026-11-20T13:01:02.500Z","tags":["x","y"]},"page":{"domain":"d\u00e9.example","tlsValidDays":"90"},"stats":{"uniqIPs":3.0},"verdicts":{"malicious":true},"result":"https://h/api/v1/result/a/"}"#,
            r#"{"_id":"b","task":{"time":1700000000000,"tags":{}},"page":null,"verdicts":{}}"#,
            r#"{"task":{"uuid":"c","time":""}}"#,
        ];
        let b = table(&SCANS, None, &rows).unwrap();
        assert_eq!(b.num_rows(), 3);
        let s = |n: &str| b.column_by_name(n).unwrap().as_string::<i32>().clone();
        assert_eq!(s("uuid").value(0), "a");
        // The first present path wins: `_id`, else `task.uuid`.
        assert_eq!(s("uuid").value(2), "c");
        assert_eq!(s("domain").value(0), "dé.example");
        assert!(s("domain").is_null(1));
        assert_eq!(s("report").value(0), "https://h/result/a/");
        let t = b
            .column_by_name("time")
            .unwrap()
            .as_primitive::<TimestampMicrosecondType>();
        assert_eq!(t.value(0), 1_795_179_662_500_000);
        assert_eq!(t.value(1), 1_700_000_000_000_000);
        assert!(t.is_null(2));
        let i = |n: &str| {
            b.column_by_name(n)
                .unwrap()
                .as_primitive::<Int64Type>()
                .clone()
        };
        assert_eq!(i("tls_valid_days").value(0), 90);
        assert_eq!(i("uniq_ips").value(0), 3);
        let m = b.column_by_name("malicious").unwrap().as_boolean().clone();
        assert!(m.value(0) && m.is_null(1) && m.is_null(2));
        let tags = b.column_by_name("tags").unwrap().as_list::<i32>().clone();
        assert_eq!(tags.value(0).len(), 2);
        assert!(tags.is_valid(1) && tags.value(1).is_empty());
        assert!(tags.is_null(2));
    }

    #[test]
    fn wrong_types_name_their_path() {
        let ok = r#"{"page":{"asn":"AS1"}}"#;
        let e = err(&SCANS, None, &[ok, r#"{"page":{"asn":15169}}"#]);
        assert!(
            e.contains("results[1].page.asn: expected a string, found a number (15169)"),
            "{e}"
        );
        let e = err(&SCANS, None, &[r#"{"page":[1]}"#]);
        assert!(
            e.contains("results[0].page: expected an object, found a list"),
            "{e}"
        );
        let e = err(&SCANS, None, &[r#"{"task":{"tags":["a",1]}}"#]);
        assert!(
            e.contains("results[0].task.tags[1]: expected a string"),
            "{e}"
        );
        let e = err(&SCANS, None, &[r#"{"verdicts":{"malicious":0}}"#]);
        assert!(
            e.contains("results[0].verdicts.malicious: expected a boolean"),
            "{e}"
        );
        let e = err(&RESULTS, None, &[r#"{"data":{"requests":7}}"#]);
        assert!(
            e.contains("results[0].data.requests: expected a list"),
            "{e}"
        );
        let e = err(&HOSTNAMES, None, &[r#"{"seen_on":"soon"}"#]);
        assert!(e.contains("results[0].seen_on: expected a date"), "{e}");
    }

    #[test]
    fn paths_outside_the_schema_take_the_type_of_their_first_values() {
        let rows = [
            r#"{"a":1,"b":1.5,"c":"x","d":true,"e":{"k":1},"f":null,"g":2}"#,
            r#"{"a":2,"b":2,"c":"y","d":false,"e":[1],"g":"z"}"#,
        ];
        let cols = ["a", "b", "c", "d", "e", "f", "g", ".a"];
        let b = table(&SCANS, Some(&cols), &rows).unwrap();
        let types: Vec<String> = b
            .schema()
            .fields()
            .iter()
            .map(|f| f.data_type().to_string())
            .collect();
        assert_eq!(
            types,
            ["Int64", "Float64", "Utf8", "Boolean", "Utf8", "Utf8", "Utf8", "Int64"]
        );
        let e = b.column_by_name("e").unwrap().as_string::<i32>().clone();
        assert_eq!((e.value(0), e.value(1)), (r#"{"k":1}"#, "[1]"));
        // Mixed values are kept as JSON text.
        let g = b.column_by_name("g").unwrap().as_string::<i32>().clone();
        assert_eq!((g.value(0), g.value(1)), ("2", "\"z\""));
        // Once decided (by the first batch), a type holds: a fraction in a whole-number column is an error.
        let mut bld = TableBuilder::new(&SCANS, Some(&["a".to_string()])).unwrap();
        bld.append(br#"{"a":1}"#, None, &Item("results", 0))
            .unwrap();
        bld.finish().unwrap();
        let e = bld
            .append(br#"{"a":1.5}"#, None, &Item("results", 1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("results[1].a: expected a whole number"), "{e}");
        assert!(TableBuilder::new(&SCANS, Some(&["x".into(), "x".into()])).is_err());
    }

    #[test]
    fn the_service_time_layout_reads_as_the_general_parser_reads_it() {
        let cases = [
            "\"2026-11-20T13:01:02.500Z\"",
            "\"1970-01-01T00:00:00.000Z\"",
            "\"1969-12-31T23:59:59.999Z\"",
            "\"2024-02-29T23:59:59.001Z\"",
            "\"0001-01-01T00:00:00.000Z\"",
            "\"9999-12-31T23:59:59.999Z\"",
        ];
        for c in cases {
            let general = DateTime::parse_from_rfc3339(c.trim_matches('"'))
                .unwrap()
                .timestamp_micros();
            assert_eq!(service_time(c.as_bytes()), Some(general), "{c}");
            assert_eq!(micros(c.as_bytes()), Some(Some(general)), "{c}");
        }
        // Not the layout, or not a time: the general rules decide.
        for c in [
            "\"2023-02-29T00:00:00.000Z\"",
            "\"2026-11-20T24:00:00.000Z\"",
            "\"2026-13-20T00:00:00.000Z\"",
            "\"2026-11-20T13:01:02.5Z\"",
            "\"2026-11-20T13:01:02.500+01:00\"",
            "\"2026-11-2xT13:01:02.500Z\"",
        ] {
            assert_eq!(service_time(c.as_bytes()), None, "{c}");
        }
        assert_eq!(
            micros(b"\"2026-11-20T13:01:02.500+01:00\""),
            Some(Some(1_795_176_062_500_000))
        );
        assert_eq!(micros(b"\"2023-02-29T00:00:00.000Z\""), None);
    }

    #[test]
    fn members_found_with_the_page_read_as_a_scan_finds_them() {
        // A page as the service indents it: each hit's `page`, `task`, `stats` and
        // `verdicts` come with the hit's index (the page's scan); the rows are those
        // of a builder that scans them itself.
        let hits: Vec<serde_json::Value> = (0..5)
            .map(|i| {
                serde_json::json!({
                    "_id": format!("u{i}"), "sort": [i, format!("u{i}")],
                    "task": {"uuid": format!("u{i}"), "time": "2026-11-20T13:01:02.500Z", "tags": ["a", "b"], "visibility": "public"},
                    "page": {"domain": format!("d{i}.example"), "asn": "AS1", "status": "200", "tlsValidDays": i, "x": {"y": 1}},
                    "stats": {"uniqIPs": i}, "verdicts": {"malicious": i % 2 == 0, "overall": {"score": i}},
                    "result": format!("https://h/api/v1/result/u{i}/"),
                })
            })
            .collect();
        let body = bytes::Bytes::from(
            serde_json::to_vec_pretty(&serde_json::json!({"results": hits, "total": 5})).unwrap(),
        );
        let head = urlscan_core::models::index::search_page(body.clone())
            .unwrap()
            .head;
        assert_eq!(head.parts.len(), 5);
        assert!(
            head.parts.iter().all(|p| p.len() == 4),
            "task, page, stats, verdicts"
        );
        let mut with = TableBuilder::new(&SCANS, None).unwrap();
        let mut without = TableBuilder::new(&SCANS, None).unwrap();
        for (i, idx) in head.hits.iter().enumerate() {
            with.append_parts(&body, Some(idx), &head.parts[i], &Item("results", i))
                .unwrap();
            without
                .append(&body, Some(idx), &Item("results", i))
                .unwrap();
        }
        let (a, b) = (with.finish().unwrap(), without.finish().unwrap());
        assert_eq!(a, b);
        assert_eq!(
            a.column_by_name("domain")
                .unwrap()
                .as_string::<i32>()
                .value(3),
            "d3.example"
        );
    }

    #[test]
    fn a_path_through_a_list_reads_each_element() {
        let rows = [
            r#"{"data":{"requests":[{"request":{"url":"https://a/","n":1}},{"request":{}},{"request":null},{"request":{"url":{"k":1}}},null]}}"#,
            r#"{"data":{"requests":{}}}"#,
            r#"{"data":{}}"#,
        ];
        let cols = ["data.requests[].request.url", "data.requests[]"];
        let b = table(&RESULTS, Some(&cols), &rows).unwrap();
        let urls = b.column(0).as_list::<i32>();
        let first = urls.value(0);
        let first = first.as_string::<i32>();
        assert_eq!(first.len(), 5);
        assert_eq!(first.value(0), "https://a/");
        assert!(first.is_null(1) && first.is_null(2) && first.is_null(4));
        assert_eq!(first.value(3), r#"{"k":1}"#);
        assert!(urls.is_valid(1) && urls.value(1).is_empty());
        assert!(urls.is_null(2));
        let whole = b.column(1).as_list::<i32>().value(0);
        assert_eq!(
            whole.as_string::<i32>().value(0),
            r#"{"request":{"url":"https://a/","n":1}}"#
        );
        let e = err(
            &RESULTS,
            Some(&cols[..1]),
            &[r#"{"data":{"requests":[{"request":{"url":"x"}},{"request":[1]}]}}"#],
        );
        assert!(
            e.contains("results[0].data.requests[1].request: expected an object, found a list"),
            "{e}"
        );
        let e = err(
            &RESULTS,
            Some(&cols[..1]),
            &[r#"{"data":{"requests":"x"}}"#],
        );
        assert!(
            e.contains("results[0].data.requests: expected a list"),
            "{e}"
        );
        for bad in ["[]", "a[]b", "a[].b[].c", "a[].", "a..b[]"] {
            assert!(
                TableBuilder::new(&RESULTS, Some(&[bad.to_string()])).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_empty_batch_has_every_column() {
        let b = table(&RESULTS, None, &[]).unwrap();
        assert_eq!(b.num_rows(), 0);
        assert_eq!(b.num_columns(), RESULTS.columns.len());
        assert_eq!(b.schema().metadata()["urlscan_rs.schema"], "RESULTS");
    }

    #[test]
    fn escaped_keys_and_duplicate_keys_read_as_json_loads_does() {
        let b = table(
            &SCANS,
            Some(&["domain", "uuid"]),
            &[r#"{"page":{"dom\u0061in":"a","domain":"b"},"_id":"x","_id":"y"}"#],
        )
        .unwrap();
        let s = |n: &str| {
            b.column_by_name(n)
                .unwrap()
                .as_string::<i32>()
                .value(0)
                .to_string()
        };
        assert_eq!((s("domain"), s("uuid")), ("b".to_string(), "y".to_string()));
    }
}

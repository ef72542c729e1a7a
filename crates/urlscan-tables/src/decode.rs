//! JSON objects (hits, results, records) straight into Arrow columns: the
//! values a table asks for are found by a scan of each object's structure
//! (the same one-pass index the models use), and each is decoded into its
//! column's builder. No value outside the table is decoded.
//!
//! The reading rules are the models' (`urlscan_rs.models`): missing and null
//! read as null, `{}` where a list is expected as an empty list, numbers may
//! come as numeric strings and date-times as epoch milliseconds; any other
//! type is a `DecodeError` naming the JSON path and what was found.
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema as ArrowSchema, SchemaRef};
use urlscan_core::models::index::DocIndex;
use urlscan_core::models::index::{parsed_object_index_into, Entry, Parts};
use urlscan_core::{Error, Result};

use crate::cells::{c_ref, infer, is_null, join, put, put_each, wrong, At, Cells};
use crate::schema::{Col, Schema, Ty, VERSION};

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
    /// Bit c of `by_len[n]` is set when child c's key is n bytes long (for
    /// at most 64 children): a member's key is compared with those alone.
    by_len: Vec<u64>,
    /// Where each child's scratch index is, relative to this node's.
    scratch_at: Vec<usize>,
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

    /// Set `below`, `by_len` and `scratch_at` everywhere; the number of
    /// nodes with children at or below this one's children.
    fn count(&mut self) -> usize {
        // Each child with children owns a scratch index, then its own
        // children's follow it: a tree laid out in pre-order.
        let mut next = 0;
        self.scratch_at.clear();
        for (_, c) in &mut self.children {
            let own = c.count();
            self.scratch_at.push(next);
            next += own;
        }
        self.below = next;
        self.by_len.clear();
        if self.children.len() <= 64 {
            for (i, (k, _)) in self.children.iter().enumerate() {
                if self.by_len.len() <= k.len() {
                    self.by_len.resize(k.len() + 1, 0);
                }
                self.by_len[k.len()] |= 1 << i;
            }
        }
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
    pub fn append(&mut self, body: &[u8], index: Option<&[Entry]>, at: &dyn At) -> Result<()> {
        self.append_parts(body, index, Parts::NONE, at)
    }

    /// `append`, given also the members of objects among the row's values
    /// when already found (a search page's `parts`), so they are not scanned again.
    pub fn append_parts(
        &mut self,
        body: &[u8],
        index: Option<&[Entry]>,
        parts: Parts<'_>,
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
                &self.top[..]
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

/// Find the spans of the tree's paths in the object whose members are
/// `entries` (spans relative to `body[base..]`). `scratch` holds a reusable
/// index per tree node below the top (in tree order); `path` names the object.
#[allow(clippy::too_many_arguments)]
fn resolve(
    node: &Node,
    body: &[u8],
    entries: &[Entry],
    base: usize,
    parts: Parts<'_>,
    spans: &mut [Span],
    scratch: &mut [DocIndex],
    path: &dyn Fn() -> String,
) -> Result<()> {
    let here = &body[base..];
    let mut visit =
        |c: usize, e: &Entry| visit_child(node, c, e, body, base, parts, spans, scratch, path);
    if node.children.len() > 64 {
        for (c, (key, _)) in node.children.iter().enumerate() {
            // The last of duplicate keys wins, as with json.loads.
            if let Some(e) = entries.iter().rev().find(|e| e.key.is(here, key)) {
                visit(c, e)?;
            }
        }
        return Ok(());
    }
    // Each member once, from the last (the last of duplicate keys wins, as
    // with json.loads), against the children of its key's length alone.
    let n = node.children.len();
    let mut want = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    for e in entries.iter().rev() {
        if want == 0 {
            break;
        }
        let key = e.key.bytes(here);
        let mut candidates = node.by_len.get(key.len()).map_or(0, |m| m & want);
        while candidates != 0 {
            let c = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let k = node.children[c].0.as_bytes();
            // The ends before the bytes: keys of one length mostly differ there.
            if k.first() == key.first() && k.last() == key.last() && k == key {
                want &= !(1 << c);
                visit(c, e)?;
                break;
            }
        }
    }
    Ok(())
}

/// `resolve`'s work for child `c` of `node`, whose value is `e`'s.
#[allow(clippy::too_many_arguments)]
fn visit_child(
    node: &Node,
    c: usize,
    e: &Entry,
    body: &[u8],
    base: usize,
    parts: Parts<'_>,
    spans: &mut [Span],
    scratch: &mut [DocIndex],
    path: &dyn Fn() -> String,
) -> Result<()> {
    let (key, child) = &node.children[c];
    let (a, b) = (base + e.start, base + e.end);
    if let Some(s) = child.slot {
        spans[s] = Some((a, b));
    }
    if child.children.is_empty() {
        return Ok(());
    }
    let v = &body[a..b];
    if is_null(v) {
        return Ok(());
    }
    let child_path = || join(&path(), key);
    let (sub, rest) = scratch[node.scratch_at[c]..]
        .split_first_mut()
        .expect("a scratch index per node");
    // Found already (spans relative to `body`), or scanned now (relative to the value).
    let (sub, sub_base): (&[Entry], usize) = match parts.at(a) {
        Some(p) => (p, 0),
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
        Parts::NONE,
        spans,
        &mut rest[..child.below],
        &child_path,
    )
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;

//! A table read page by page: the rows of each page appended to one builder,
//! cut into record batches across pages (at `BATCH_ROWS` rows or
//! `BATCH_BYTES` of values, at the end, or where a page fails), each batch
//! with the cursor to resume after its last row. Where the pages come from
//! (a search, a hostname walk, a data-dump file) is a `Pages`.
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use urlscan_core::models::index::{self, parsed_array_spans};
use urlscan_core::models::{Doc, SearchPageHead};
use urlscan_core::Result;

use crate::{Item, TableBuilder};

/// A batch is finished once it holds this many rows (pages of 100 make few,
/// large batches rather than one small batch a page) ...
pub const BATCH_ROWS: usize = 65_536;
/// ... or this many bytes of values, whichever comes first.
pub const BATCH_BYTES: usize = 16 << 20;

/// Where the pages of a table come from.
pub trait Pages {
    /// What a page (or the progress callback) fails with.
    type Error: From<urlscan_core::Error>;
    /// The next page's rows appended to `builder`, at most `max`: how many,
    /// and the cursor after the last (None where the source has none); None
    /// once there is no page left.
    fn read_into(
        &mut self,
        builder: &mut TableBuilder,
        max: usize,
    ) -> std::result::Result<Option<(usize, Option<String>)>, Self::Error>;
    /// Whether its batches carry a cursor to resume after them.
    fn resumable(&self) -> bool;
}

/// Told the rows read so far, after each page.
pub type Progress<E> = Box<dyn FnMut(u64) -> std::result::Result<(), E> + Send>;

/// A table being read: batches ready, and the pages that make more. The
/// builder holds the rows of pages read since the last batch.
pub struct Walk<P: Pages> {
    pub builder: TableBuilder,
    ready: VecDeque<(RecordBatch, Option<String>)>,
    /// None once the last page was read.
    source: Option<P>,
    /// Rows still to read (the caller's limit).
    remaining: Option<u64>,
    /// The cursor after the last row handed out (shared with whoever reports it).
    pub cursor: Arc<Mutex<Option<String>>>,
    /// Rows handed out.
    pub rows: u64,
    /// The cursor after the last row in the builder.
    pending_cursor: Option<String>,
    /// What stopped the walk, given once the rows read before it are out.
    failed: Option<P::Error>,
    progress: Option<Progress<P::Error>>,
    /// Rows read so far (handed out or in the builder).
    pub read: u64,
    /// The rows `progress` was last told of.
    told: u64,
    /// A batch is finished once it holds this many rows (`BATCH_ROWS`, or
    /// a Parquet export's row group when smaller).
    pub batch_rows: usize,
}

impl<P: Pages> Walk<P> {
    /// The rows already in `builder` (`read` of them), then `source`'s
    /// pages, `remaining` rows at most.
    pub fn new(builder: TableBuilder, source: Option<P>, remaining: Option<u64>) -> Walk<P> {
        Walk {
            read: builder.len() as u64,
            builder,
            ready: VecDeque::new(),
            source,
            remaining,
            cursor: Arc::new(Mutex::new(None)),
            rows: 0,
            pending_cursor: None,
            failed: None,
            progress: None,
            told: 0,
            batch_rows: BATCH_ROWS,
        }
    }

    /// `progress(rows)` after each page that read rows.
    pub fn on_progress(&mut self, progress: Progress<P::Error>) {
        self.progress = Some(progress);
    }

    /// The next batch (the cursor after its last row is then `cursor`);
    /// None at the end.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> std::result::Result<Option<RecordBatch>, P::Error> {
        if !self.fill()? {
            return Ok(None);
        }
        let (b, c) = self.ready.pop_front().expect("fill leaves a batch");
        self.rows += b.num_rows() as u64;
        if c.is_some() {
            *self.cursor.lock().unwrap() = c;
        }
        Ok(Some(b))
    }

    /// Every batch left, read now; an empty batch of the schema when none.
    pub fn read_all(&mut self) -> std::result::Result<Vec<RecordBatch>, P::Error> {
        let schema = self.schema()?;
        let mut out = Vec::new();
        while let Some(b) = self.next()? {
            out.push(b);
        }
        if out.is_empty() {
            out.push(RecordBatch::new_empty(schema));
        }
        Ok(out)
    }

    /// Read pages until a batch is ready; false at the end.
    fn fill(&mut self) -> std::result::Result<bool, P::Error> {
        while self.ready.is_empty() {
            if let Some(e) = self.failed.take() {
                return Err(e);
            }
            if self.remaining == Some(0) || self.source.is_none() {
                // The rows given at the start, when no page followed them, are told of here.
                let told = self.tell();
                if self.builder.is_empty() {
                    return told.map(|()| false);
                }
                self.finish(None)?;
                self.failed = told.err();
                continue;
            }
            let before = self.builder.len();
            match self.read_page() {
                Ok(()) => {
                    let told = self.tell();
                    let full = self.builder.len() >= self.batch_rows
                        || self.builder.bytes() >= BATCH_BYTES;
                    if full || (told.is_err() && !self.builder.is_empty()) {
                        self.finish(None)?;
                    }
                    self.failed = told.err();
                }
                // The rows of the pages before the one that failed are handed
                // out first (a writer keeps them, and its cursor is theirs);
                // not rows a walk holds with no cursor after them (given
                // before any page): a resume could not start after them.
                Err(e) if before > 0 && (self.pending_cursor.is_some() || !self.resumable()) => {
                    self.finish(Some(before))?;
                    self.failed = Some(e);
                }
                Err(e) => {
                    self.builder.discard();
                    return Err(e);
                }
            }
        }
        Ok(true)
    }

    fn resumable(&self) -> bool {
        self.source.as_ref().is_some_and(P::resumable)
    }

    /// `progress(rows)`, when rows were read since it was last called.
    fn tell(&mut self) -> std::result::Result<(), P::Error> {
        let Some(f) = &mut self.progress else {
            return Ok(());
        };
        if self.read == self.told {
            return Ok(());
        }
        self.told = self.read;
        f(self.read)
    }

    /// The builder's rows (its first `keep` alone: a page that failed
    /// half-way is dropped) as a batch ready to hand out.
    fn finish(&mut self, keep: Option<usize>) -> std::result::Result<(), P::Error> {
        let batch = match keep {
            None => self.builder.finish(),
            Some(n) => self.builder.finish_first(n),
        }?;
        self.ready.push_back((batch, self.pending_cursor.take()));
        Ok(())
    }

    /// One page into the builder (no source after the last).
    fn read_page(&mut self) -> std::result::Result<(), P::Error> {
        let max = self.remaining.map_or(usize::MAX, |r| r as usize);
        let Some(source) = &mut self.source else {
            return Ok(());
        };
        let Some((n, cursor)) = source.read_into(&mut self.builder, max)? else {
            self.source = None;
            return Ok(());
        };
        if let Some(r) = &mut self.remaining {
            *r = r.saturating_sub(n as u64);
        }
        if cursor.is_some() {
            self.pending_cursor = cursor;
        }
        self.read += n as u64;
        Ok(())
    }

    /// The schema of the batches: known at once, unless a column's type
    /// comes from its first values (then the first batch is read now).
    pub fn schema(&mut self) -> std::result::Result<SchemaRef, P::Error> {
        if self.ready.is_empty() && self.builder.infers() {
            self.fill()?;
        }
        Ok(match self.ready.front() {
            Some((b, _)) => b.schema(),
            None => self.builder.arrow_schema(),
        })
    }

    /// A walk of no page over `batches` (read already), with this one's
    /// builder and cursor.
    pub fn of_batches(self, batches: Vec<RecordBatch>) -> Walk<P> {
        let mut out = Walk::new(self.builder, None, None);
        out.ready = batches.into_iter().map(|b| (b, None)).collect();
        *out.cursor.lock().unwrap() = self.cursor.lock().unwrap().clone();
        out
    }
}

/// The hits of a search page appended to `builder` (`max` at most): how
/// many, and the cursor after the last.
pub fn append_search_page(
    builder: &mut TableBuilder,
    doc: Doc<SearchPageHead>,
    max: usize,
) -> Result<(usize, Option<String>)> {
    let body = doc.body;
    let head = if doc.head.hits.len() == doc.head.results.len() {
        doc.head
    } else {
        index::search_page(body.clone())?.head
    };
    let n = head.hits.len().min(max);
    for i in 0..n {
        // With the members of the hit's objects, when the page's scan found them.
        let (idx, parts) = (&head.hits[i], head.hits.parts(i));
        builder.append_parts(&body, Some(idx), parts, &Item("results", i))?;
    }
    let cursor = n.checked_sub(1).and_then(|i| head.results[i].cursor());
    Ok((n, cursor))
}

/// The items of a page's `results` list appended to `builder` (`max` at
/// most): how many. The page was checked whole when its head was decoded.
pub fn append_results_list(builder: &mut TableBuilder, body: &[u8], max: usize) -> Result<usize> {
    let Some(Some((a, b))) = index::parsed_member(body, "results") else {
        return Ok(0);
    };
    let list = &body[a..b];
    let items = parsed_array_spans(list).unwrap_or_default();
    let n = items.len().min(max);
    for (i, (a, b)) in items.into_iter().take(n).enumerate() {
        builder.append(&list[a..b], None, &Item("results", i))?;
    }
    Ok(n)
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;

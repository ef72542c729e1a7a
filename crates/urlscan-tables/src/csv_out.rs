//! CSV of table batches (arrow-csv): a header, then each batch as it
//! comes. CSV has no lists, so a list column is written as its JSON text
//! (`["a","b"]`); times are RFC 3339.
use std::io::Write;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use urlscan_core::{Error, Result};

/// Writes batches as CSV to `W` (named `path` in errors).
pub struct CsvOut<W: Write> {
    writer: arrow_csv::Writer<Watched<W>>,
    failed: Failed,
    path: std::path::PathBuf,
}

type Failed = Arc<std::sync::Mutex<Option<std::io::Error>>>;

/// The sink, keeping the OS's error of a failed write: arrow-csv hands it
/// on as text, and a full disk or a closed pipe must stay the I/O error it is.
struct Watched<W> {
    inner: W,
    failed: Failed,
}

impl<W> Watched<W> {
    fn keep(&self, e: &std::io::Error) {
        *self.failed.lock().unwrap() = Some(copy(e));
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| self.keep(e))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().inspect_err(|e| self.keep(e))
    }
}

fn copy(e: &std::io::Error) -> std::io::Error {
    match e.raw_os_error() {
        Some(n) => std::io::Error::from_raw_os_error(n),
        None => std::io::Error::new(e.kind(), e.to_string()),
    }
}

impl<W: Write> CsvOut<W> {
    pub fn new(w: W, path: &std::path::Path) -> CsvOut<W> {
        let failed = Failed::default();
        let sink = Watched {
            inner: w,
            failed: Arc::clone(&failed),
        };
        CsvOut {
            writer: arrow_csv::WriterBuilder::new()
                .with_header(true)
                .build(sink),
            failed,
            path: path.to_path_buf(),
        }
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let flat = flatten(batch)?;
        let written = self.writer.write(&flat);
        written.map_err(|e| match self.failed.lock().unwrap().take() {
            Some(io) => urlscan_core::disk::io_error("write", &self.path, &io),
            None => Error::Internal(format!("cannot write CSV: {e}")),
        })
    }

    pub fn into_inner(self) -> W {
        self.writer.into_inner().inner
    }
}

/// The batch with each list column as JSON text.
fn flatten(batch: &RecordBatch) -> Result<RecordBatch> {
    let schema = batch.schema();
    if !schema
        .fields()
        .iter()
        .any(|f| matches!(f.data_type(), DataType::List(_)))
    {
        return Ok(batch.clone());
    }
    let mut fields = Vec::with_capacity(schema.fields().len());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(fields.capacity());
    for (f, col) in schema.fields().iter().zip(batch.columns()) {
        if !matches!(f.data_type(), DataType::List(_)) {
            fields.push(f.as_ref().clone());
            columns.push(col.clone());
            continue;
        }
        let list = col.as_list::<i32>();
        let text: StringArray = (0..list.len())
            .map(|i| {
                list.is_valid(i).then(|| {
                    let v = list.value(i);
                    let items = v.as_string::<i32>();
                    let items: Vec<Option<&str>> = (0..items.len())
                        .map(|j| items.is_valid(j).then(|| items.value(j)))
                        .collect();
                    serde_json::to_string(&items).unwrap_or_default()
                })
            })
            .collect();
        fields.push(Field::new(f.name(), DataType::Utf8, true));
        columns.push(Arc::new(text));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| Error::Internal(format!("a CSV batch does not fit its schema: {e}")))
}

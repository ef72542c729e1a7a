//! CSV of table batches (arrow-csv): a header, then each batch as it
//! comes. CSV has no lists, so a list column is written as its JSON text
//! (`["a","b"]`); times are RFC 3339.
use std::io::Write;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use urlscan_core::{Error, Result};

/// Writes batches as CSV to `W`.
pub struct CsvOut<W: Write> {
    writer: arrow_csv::Writer<W>,
}

impl<W: Write> CsvOut<W> {
    pub fn new(w: W) -> CsvOut<W> {
        CsvOut {
            writer: arrow_csv::WriterBuilder::new().with_header(true).build(w),
        }
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let flat = flatten(batch)?;
        self.writer
            .write(&flat)
            .map_err(|e| Error::Validation(format!("cannot write CSV: {e}")))
    }

    pub fn into_inner(self) -> W {
        self.writer.into_inner()
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

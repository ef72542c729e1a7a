//! Rows as Python dicts of a schema's columns (`to_record()`,
//! `to_records()`), by the same decoder as the tables.

use arrow_array::Array;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};

use super::tables::{batch_of, builder, rows_of};

/// The rows of `items` (models, dicts or JSON bytes) as dicts of the
/// schema's columns (or of `columns` alone): the same decoder as the tables
/// (`to_record()`, `to_records()`), so a record and a table row always agree.
#[pyfunction]
#[pyo3(signature = (schema, items, columns=None))]
pub fn records<'py>(
    py: Python<'py>,
    schema: &str,
    items: &Bound<'py, PyAny>,
    columns: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut builder = builder(py, schema, columns)?;
    let rows = rows_of(items)?;
    let batch = batch_of(py, &mut builder, &rows)?;
    let py_types = PyTypes::new(py)?;
    let dicts: Vec<Bound<'py, PyDict>> = (0..batch.num_rows()).map(|_| PyDict::new(py)).collect();
    for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
        let name = PyString::new(py, field.name());
        for (i, d) in dicts.iter().enumerate() {
            d.set_item(&name, py_types.cell(col, i)?)?;
        }
    }
    PyList::new(py, dicts)
}

/// Python's datetime classes, for the time and date columns of a record.
struct PyTypes<'py> {
    datetime: Bound<'py, PyAny>,
    date: Bound<'py, PyAny>,
    utc: Bound<'py, PyAny>,
}

impl<'py> PyTypes<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        let m = py.import("datetime")?;
        Ok(PyTypes {
            datetime: m.getattr("datetime")?,
            date: m.getattr("date")?,
            utc: m.getattr("timezone")?.getattr("utc")?,
        })
    }

    /// Row `i` of `col` as a Python value (None when null).
    fn cell(&self, col: &dyn Array, i: usize) -> PyResult<Bound<'py, PyAny>> {
        use arrow_array::cast::AsArray;
        use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
        use arrow_schema::{DataType, TimeUnit};
        use chrono::{Datelike, Timelike};
        let py = self.utc.py();
        if col.is_null(i) {
            return Ok(py.None().into_bound(py));
        }
        Ok(match col.data_type() {
            DataType::Utf8 => PyString::new(py, col.as_string::<i32>().value(i)).into_any(),
            DataType::Int64 => col
                .as_primitive::<Int64Type>()
                .value(i)
                .into_pyobject(py)?
                .into_any(),
            DataType::Float64 => col
                .as_primitive::<Float64Type>()
                .value(i)
                .into_pyobject(py)?
                .into_any(),
            DataType::Boolean => PyBool::new(py, col.as_boolean().value(i))
                .to_owned()
                .into_any(),
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                let us = col.as_primitive::<TimestampMicrosecondType>().value(i);
                let t = chrono::DateTime::from_timestamp_micros(us).ok_or_else(|| {
                    pyo3::exceptions::PyOverflowError::new_err(format!(
                        "time out of range: {us} µs"
                    ))
                })?;
                let parts = (
                    t.year(),
                    t.month(),
                    t.day(),
                    t.hour(),
                    t.minute(),
                    t.second(),
                );
                let (y, mo, d, h, mi, s) = parts;
                let us = t.timestamp_subsec_micros();
                self.datetime.call1((y, mo, d, h, mi, s, us, &self.utc))?
            }
            DataType::Date32 => {
                let days = col.as_primitive::<Date32Type>().value(i);
                let d = chrono::DateTime::from_timestamp(i64::from(days) * 86_400, 0).ok_or_else(
                    || pyo3::exceptions::PyOverflowError::new_err("date out of range"),
                )?;
                self.date.call1((d.year(), d.month(), d.day()))?
            }
            DataType::List(_) => {
                let items = col.as_list::<i32>().value(i);
                let out = PyList::empty(py);
                for j in 0..items.len() {
                    out.append(self.cell(items.as_ref(), j)?)?;
                }
                out.into_any()
            }
            other => {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "no Python value for a column of {other}"
                )))
            }
        })
    }
}

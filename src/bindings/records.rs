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
    let dicts: Vec<Bound<'py, PyDict>> = (0..batch.num_rows()).map(|_| PyDict::new(py)).collect();
    for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
        let name = PyString::new(py, field.name());
        for (i, d) in dicts.iter().enumerate() {
            d.set_item(&name, cell(py, col, i)?)?;
        }
    }
    PyList::new(py, dicts)
}

/// Row `i` of `col` as a Python value (None when null); times are aware
/// datetimes in UTC and dates are dates (pyo3's chrono conversions).
fn cell<'py>(py: Python<'py>, col: &dyn Array, i: usize) -> PyResult<Bound<'py, PyAny>> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
    use arrow_schema::{DataType, TimeUnit};
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
                pyo3::exceptions::PyOverflowError::new_err(format!("time out of range: {us} µs"))
            })?;
            t.into_pyobject(py)?.into_any()
        }
        DataType::Date32 => {
            let days = col.as_primitive::<Date32Type>().value(i);
            let d = chrono::DateTime::from_timestamp(i64::from(days) * 86_400, 0)
                .ok_or_else(|| pyo3::exceptions::PyOverflowError::new_err("date out of range"))?;
            d.date_naive().into_pyobject(py)?.into_any()
        }
        DataType::List(_) => {
            let items = col.as_list::<i32>().value(i);
            let out = PyList::empty(py);
            for j in 0..items.len() {
                out.append(cell(py, items.as_ref(), j)?)?;
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

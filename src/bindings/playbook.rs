//! What playbooks read of a scan: its indicators, decoded from the model's bytes.
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{fields_dict, to_pyerr};
use super::tables::rows_of;
use urlscan_core::models::indicators::{indicators as read_indicators, indicators_in};

/// The indicators of a model (a result or search hit; or a dict, or JSON
/// bytes) as a dict of lists; certificates as dicts.
#[pyfunction]
pub fn indicators<'py>(item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let py = item.py();
    let one = PyList::new(py, [item])?;
    let (data, index, path) = rows_of(one.as_any())?.pop().expect("one row for one item");
    // A hit's index locates its members in its page's bytes.
    let found = py
        .detach(|| match &index {
            Some(index) => indicators_in(&data, index),
            None => read_indicators(&data),
        })
        .map_err(|e| match e {
            urlscan_core::Error::Decode(m) if !path.starts_with('[') => {
                to_pyerr(py, urlscan_core::Error::Decode(format!("{path}.{m}")))
            }
            e => to_pyerr(py, e),
        })?;
    let out = PyDict::new(py);
    for (name, values) in [
        ("urls", found.urls),
        ("domains", found.domains),
        ("apex_domains", found.apex_domains),
        ("ipv4", found.ipv4),
        ("ipv6", found.ipv6),
        ("asns", found.asns),
        ("hashes", found.hashes),
        ("redirects", found.redirects),
        ("links", found.links),
    ] {
        out.set_item(name, values)?;
    }
    let certs = PyList::empty(py);
    for c in found.certificates {
        certs.append(fields_dict!(py, c; subject, issuer, valid_from, valid_to, san, sha256))?;
    }
    out.set_item("certificates", certs)?;
    Ok(out)
}

/// A scan's uuid as the core checks it everywhere (trimmed, lower case), for
/// what uses one outside an API call (the file names of saved artifacts).
#[pyfunction]
pub fn scan_uuid(py: Python<'_>, uuid: &str) -> PyResult<String> {
    urlscan_core::validate::uuid("uuid", uuid).map_err(|e| to_pyerr(py, e))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(indicators, m)?)?;
    m.add_function(wrap_pyfunction!(scan_uuid, m)?)
}

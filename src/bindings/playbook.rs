//! What playbooks read of a scan: its indicators, decoded from the model's bytes.
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::to_pyerr;
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
    out.set_item("urls", found.urls)?;
    out.set_item("domains", found.domains)?;
    out.set_item("apex_domains", found.apex_domains)?;
    out.set_item("ipv4", found.ipv4)?;
    out.set_item("ipv6", found.ipv6)?;
    out.set_item("asns", found.asns)?;
    out.set_item("hashes", found.hashes)?;
    let certs = PyList::empty(py);
    for c in found.certificates {
        let d = PyDict::new(py);
        d.set_item("subject", c.subject)?;
        d.set_item("issuer", c.issuer)?;
        d.set_item("valid_from", c.valid_from)?;
        d.set_item("valid_to", c.valid_to)?;
        d.set_item("san", c.san)?;
        d.set_item("sha256", c.sha256)?;
        certs.append(d)?;
    }
    out.set_item("certificates", certs)?;
    out.set_item("redirects", found.redirects)?;
    out.set_item("links", found.links)?;
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(indicators, m)?)
}

//! Scenarios for test suites: `urlscan_rs.testing.result`, a result document
//! the emulator's generator builds with the facts a test states.
use pyo3::prelude::*;

use super::convert::{json, to_pyerr};
use urlscan_core as core;
use urlscan_emulator::content;

/// The result document of `url` as the service answers it (links under
/// https://urlscan.io), with `facts` (a JSON object of the keywords of
/// `testing.result`) applied; every bad value is a ValidationError naming
/// its keyword.
#[pyfunction]
pub fn built_result<'py>(
    py: Python<'py>,
    url: &str,
    uuid: &str,
    time_ms: i64,
    visibility: &str,
    facts: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let invalid = |m: String| to_pyerr(py, core::Error::Validation(m));
    let facts: serde_json::Value =
        serde_json::from_str(facts).map_err(|e| invalid(format!("facts are not JSON: {e}")))?;
    let facts = content::Facts::from_json(&facts).map_err(invalid)?;
    let spec = content::scenario_spec(url, uuid, time_ms, visibility).map_err(invalid)?;
    let body = py
        .detach(|| {
            content::built_result(&spec, &facts, "https://urlscan.io")
                .map(|doc| serde_json::to_vec(&doc))
        })
        .map_err(invalid)?
        .map_err(|e| invalid(e.to_string()))?;
    json(py, &body)
}

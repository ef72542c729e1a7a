//! Scenarios on an emulator in this process: results planted in its corpus,
//! and the rule that chooses what a submission finishes as.
use std::sync::Arc;

use pyo3::prelude::*;

use super::convert::to_pyerr;
use super::emulator::NativeEmulator;
use urlscan_core as core;

fn invalid(py: Python<'_>, message: String) -> PyErr {
    to_pyerr(py, core::Error::Validation(message))
}

#[pymethods]
impl NativeEmulator {
    /// Add a result document (JSON text) to the corpus: its uuid.
    #[pyo3(signature = (doc, screenshot=None, dom=None))]
    fn plant(
        &self,
        py: Python<'_>,
        doc: &str,
        screenshot: Option<Vec<u8>>,
        dom: Option<String>,
    ) -> PyResult<String> {
        let doc: serde_json::Value = serde_json::from_str(doc)
            .map_err(|e| invalid(py, format!("the result document is not JSON: {e}")))?;
        self.with(|e| e.state.plant(doc, screenshot, dom))?
            .map_err(|m| invalid(py, m))
    }

    /// Set (or with None clear) the rule submissions finish by: called with
    /// the submitted URL, it returns a result document as JSON text, or None
    /// for the emulator's own content.
    fn on_scan(&self, rule: Option<Py<PyAny>>) -> PyResult<()> {
        let rule = rule.map(|f| {
            let f = Arc::new(f);
            let choose: urlscan_emulator::state::OnScan = Arc::new(move |url: &str| {
                Python::attach(|py| {
                    let given = f.call1(py, (url,)).map_err(|e| e.to_string())?;
                    if given.is_none(py) {
                        return Ok(None);
                    }
                    let text: String = given
                        .extract(py)
                        .map_err(|_| "the rule's answer is not JSON text".to_string())?;
                    serde_json::from_str(&text)
                        .map(Some)
                        .map_err(|e| format!("the rule's answer is not JSON: {e}"))
                })
            });
            choose
        });
        self.with(|e| e.state.on_scan.set(rule))
    }
}

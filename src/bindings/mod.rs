//! The thin Python layer. Each endpoint is one method of `Core`; the same
//! method serves `Client` (blocking, GIL released) and `AsyncClient` (an
//! awaitable), depending on how the `Core` was made. Python code builds the
//! public classes around it.
mod client;
mod convert;
mod emulator;
mod run;

use pyo3::prelude::*;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Rust log records go to Python's `logging` (logger names start with
    // "urlscan_rs"); failure means a logger is already set, which is fine.
    let _ = pyo3_log::try_init();
    if let Ok(rt) = crate::core::runtime::runtime() {
        let _ = pyo3_async_runtimes::tokio::init_with_runtime(rt);
    }
    m.add_class::<client::Core>()?;
    m.add_class::<client::NativeCursor>()?;
    m.add_class::<emulator::NativeEmulator>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

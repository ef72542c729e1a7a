//! The thin Python layer around the core. `NativeClient` (client.rs, premium.rs) is
//! the native client: a method per special endpoint and one generic `call`
//! for every table-driven one (`core::api::endpoints`). Each method serves
//! `Client` (blocking, GIL released; run.rs) and `AsyncClient` (an awaitable;
//! bridge.rs), depending on how the `NativeClient` was made; outcome.rs converts the
//! results, convert.rs and lazy.rs make models and exceptions, reader.rs reads
//! their fields. The public classes are Python code (`python/urlscan_rs`)
//! built around it.
mod bridge;
mod cache;
mod client;
mod convert;
mod disk;
mod dump_tables;
mod emulator;
mod hooks;
mod lazy;
mod options;
mod outcome;
mod planted;
mod playbook;
mod premium;
mod reader;
mod record;
mod records;
mod run;
mod scenario;
mod tables;
mod telemetry;
mod walk;

use pyo3::prelude::*;

/// pyo3-log, made safe for threads that outlive the interpreter: a record
/// logged while Python shuts down is dropped instead of crashing the process.
struct GuardedLogger(pyo3_log::Logger);

impl log::Log for GuardedLogger {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        let target = python_target(m.target());
        let m = log::Metadata::builder()
            .level(m.level())
            .target(&target)
            .build();
        !bridge::is_finalizing() && self.0.enabled(&m)
    }
    fn log(&self, r: &log::Record<'_>) {
        if !self.enabled(r.metadata()) {
            return;
        }
        let target = python_target(r.target());
        // A log line shows the URLs in it redacted (a looked-up URL's password or token).
        let line = r.args().to_string();
        let line = urlscan_core::redact::text(&line);
        let send = |args: std::fmt::Arguments<'_>| {
            let record = log::Record::builder()
                .args(args)
                .level(r.level())
                .target(&target)
                .module_path(r.module_path())
                .file(r.file())
                .line(r.line())
                .build();
            // Inside Python already (a call on a Python thread), or entering from a Rust thread.
            if Python::try_attach(|_| ()).is_some() && !bridge::is_finalizing() {
                bridge::enter_python(|_| self.0.log(&record));
            }
        };
        send(format_args!("{line}"));
    }
    fn flush(&self) {}
}

/// The workspace's crates log under one Python logger, as one package:
/// `urlscan_core::transport` becomes `urlscan_rs.core.transport`.
fn python_target(target: &str) -> std::borrow::Cow<'_, str> {
    for (krate, name) in [
        ("urlscan_core", "urlscan_rs::core"),
        ("urlscan_emulator", "urlscan_rs::emulator"),
        ("urlscan_rules", "urlscan_rs::rules"),
    ] {
        if let Some(rest) = target.strip_prefix(krate) {
            if rest.is_empty() || rest.starts_with("::") {
                return format!("{name}{rest}").into();
            }
        }
    }
    target.into()
}

static LOG_RESET: std::sync::OnceLock<pyo3_log::ResetHandle> = std::sync::OnceLock::new();

/// Forget the cached Python log levels (called when a level changes).
/// The emulator at `base_url` in this process moved its clock: clients of
/// it forget the rate-limit windows they paced by, as the windows moved on
/// too (clients of other servers keep theirs).
#[pyfunction]
fn _server_clock_moved(base_url: &str) {
    urlscan_core::transport::server_clock_moved(base_url);
}

#[pyfunction]
fn _reset_log_cache() {
    if let Some(h) = LOG_RESET.get() {
        h.reset();
    }
}

fn install_logger(py: Python<'_>) -> PyResult<()> {
    // Our records at every level; other crates' (reqwest, hyper) from warnings up.
    let logger = pyo3_log::Logger::new(py, pyo3_log::Caching::LoggersAndLevels)?
        .filter(log::LevelFilter::Warn)
        .filter_target("urlscan_rs".to_string(), log::LevelFilter::Trace);
    let _ = LOG_RESET.set(logger.reset_handle());
    // Failure means a logger is already installed, which is fine.
    if log::set_boxed_logger(Box::new(GuardedLogger(logger))).is_ok() {
        log::set_max_level(log::LevelFilter::Trace);
    }
    Ok(())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Rust log records go to Python's `logging` (logger names start with "urlscan_rs").
    install_logger(m.py())?;
    m.add_function(wrap_pyfunction!(bridge::_shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(_reset_log_cache, m)?)?;
    m.add_function(wrap_pyfunction!(_server_clock_moved, m)?)?;
    m.add_function(wrap_pyfunction!(premium::endpoint_table, m)?)?;
    m.add_class::<lazy::LazyDoc>()?;
    m.add_class::<lazy::ModelBase>()?;
    m.add_function(wrap_pyfunction!(lazy::make_model, m)?)?;
    m.add_class::<reader::FieldReader>()?;
    m.add_class::<walk::PagedWalk>()?;
    m.add_class::<bridge::CancelOnDone>()?;
    m.add_class::<bridge::Completions>()?;
    m.add_class::<cache::NativeCache>()?;
    m.add_class::<client::NativeClient>()?;
    m.add_class::<client::NativeCursor>()?;
    m.add_class::<premium::HostnameCursor>()?;
    tables::register(m)?;
    m.add_class::<dump_tables::DumpReader>()?;
    m.add_function(wrap_pyfunction!(records::records, m)?)?;
    playbook::register(m)?;
    disk::register(m)?;
    telemetry::register(m)?;
    m.add_class::<run::RawCapture>()?;
    m.add_class::<emulator::NativeEmulator>()?;
    m.add_function(wrap_pyfunction!(scenario::built_result, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The service's bound on a scan's tags, for `playbook.normalize_tags`.
    m.add("MAX_TAGS", urlscan_rules::MAX_TAGS)?;
    // The documented polling, declared once in the core: the Python methods'
    // and the command line's defaults.
    let wait = urlscan_core::api::WaitOptions::default();
    let wait = convert::fields_dict!(m.py(), wait; timeout, initial_wait, interval);
    m.add("WAIT_DEFAULTS", wait)?;
    Ok(())
}

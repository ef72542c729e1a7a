//! A local emulator of the service: a real HTTP server on loopback that
//! behaves like the service (state machines, visibility, rate limits, errors).
//!
//! The modules form layers; each uses only the ones below it (the test
//! `tests/module_graph.rs` fails on a cycle):
//! * HTTP: `routes`, `premium` (handlers), `fault_middleware`, `search`, `answer`,
//!   `replay` (recorded answers, in front of the rest);
//! * the logic that changes the state: `clock`, `events`, `datasources`,
//!   `premium_model`;
//! * the state: `state` (with the records of premium features and
//!   notifications, and the lock order), `faults` (the fault plan);
//! * plain parts: `content`, `query`, `ratelimit`, `access`, `names`, `document`.
pub mod access;
pub mod answer;
pub mod clock;
pub mod content;
pub mod datasources;
#[cfg(test)]
mod datasources_tests;
pub mod document;
pub mod events;
#[cfg(test)]
mod events_tests;
pub mod fault_middleware;
pub mod faults;
pub mod json_form;
pub mod names;
pub mod premium;
pub(crate) mod premium_model;
pub mod query;
pub mod ratelimit;
pub mod replay;
pub(crate) mod request_fields;
pub mod routes;
pub mod scenario;
pub(crate) mod search;
pub mod state;
#[cfg(test)]
mod test_harness;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::{oneshot, watch};

pub use faults::{FaultKind, FaultSpec};
pub use ratelimit::Limits;
pub use state::{
    AppState, EmulatorConfig, KeyInfo, Latency, LATENCY_GROUPS, MAX_RESULT_SIZE, MAX_SCANS,
    MAX_SCAN_DURATION, MAX_WAIT,
};

/// A running emulator; it stops when dropped or on `stop()`.
pub struct Emulator {
    pub addr: SocketAddr,
    pub state: Arc<AppState>,
    shutdown: Option<oneshot::Sender<()>>,
    /// The background clock tick of notifications.
    ticker: Option<tokio::task::JoinHandle<()>>,
    /// Starts webhook attempts until `stop`.
    runner: Option<Arc<events::Runner>>,
}

impl Emulator {
    /// Bind and serve on the current tokio runtime; settings that
    /// `EmulatorConfig::validate` refuses are an `InvalidInput` error.
    pub async fn start(cfg: EmulatorConfig) -> std::io::Result<Emulator> {
        cfg.validate()
            .map_err(|m| std::io::Error::new(std::io::ErrorKind::InvalidInput, m))?;
        let listener = tokio::net::TcpListener::bind((cfg.host.as_str(), cfg.port)).await?;
        let addr = listener.local_addr()?;
        let base = format!("http://{addr}");
        // Building the corpus is CPU work; keep it off the async workers.
        let state = Arc::new(
            tokio::task::spawn_blocking(move || AppState::new(cfg, base))
                .await
                .map_err(std::io::Error::other)?,
        );
        let app = routes::router(Arc::clone(&state), premium::router());
        // Recorded answers, in front of everything else (`replay`).
        let app = match state.cfg.recordings.clone() {
            Some(r) => replay::layer(app, r, state.cfg.body_timeout),
            None => app,
        };
        let (tx, rx) = oneshot::channel::<()>();
        let header_timeout = Duration::from_secs_f64(state.cfg.header_read_timeout.max(0.001));
        tokio::spawn(serve(listener, app, rx, header_timeout, Arc::clone(&state)));
        let (runner, ticker) = events::start(&state);
        log::info!("emulator listening on http://{addr}");
        Ok(Emulator {
            addr,
            state,
            shutdown: Some(tx),
            ticker: Some(ticker),
            runner: Some(runner),
        })
    }

    pub fn url(&self) -> String {
        self.state.base_url.clone()
    }

    /// (kind, key) for every key kind: premium, team, readonly, free, other.
    pub fn keys(&self) -> Vec<(&'static str, String)> {
        self.state
            .keys
            .iter()
            .map(|(k, i)| (i.kind, k.clone()))
            .collect()
    }

    pub fn api_key(&self) -> String {
        self.state.keys[0].0.clone()
    }

    /// Move the emulator clock forward.
    pub fn advance(&self, secs: f64) {
        clock::advance(&self.state, secs, self.runner.as_deref());
    }

    /// Queue a fault (see `faults`); an error names the option that is wrong.
    pub fn inject(&self, spec: FaultSpec) -> Result<(), String> {
        self.state.faults.lock().unwrap().push(spec)
    }

    /// Drop every queued fault.
    pub fn clear_faults(&self) {
        self.state.faults.lock().unwrap().clear();
    }

    /// How many more requests the queued faults will affect (unlimited ones count as one).
    pub fn faults_remaining(&self) -> u64 {
        self.state.faults.lock().unwrap().remaining()
    }

    pub fn stop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.ticker.take() {
            t.abort();
        }
        if let Some(r) = self.runner.take() {
            events::stop(&r);
        }
    }
}

/// Serve HTTP/1 connections until `stop`, then let open ones finish their
/// answer. Unlike `axum::serve`, a client that does not finish sending its
/// request headers within `header_timeout` is disconnected.
async fn serve(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    mut stop: oneshot::Receiver<()>,
    header_timeout: Duration,
    state: Arc<AppState>,
) {
    let (closing, _) = watch::channel(());
    loop {
        let stream = tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    log::debug!("emulator accept failed: {e}");
                    continue;
                }
            },
        };
        state
            .connections
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let service = TowerToHyperService::new(app.clone());
        let mut closed = closing.subscribe();
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            tokio::select! {
                done = conn.as_mut() => {
                    if let Err(e) = done {
                        log::debug!("emulator connection ended: {e}");
                    }
                }
                _ = closed.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    log::info!("emulator stopped");
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::time::Instant;

    /// Send `head` (and nothing more) to the emulator, then read until it
    /// closes the connection: what it sent, and how long that took. A read
    /// timeout far above the emulator's own fails the test.
    async fn stall(addr: SocketAddr, head: String) -> (String, Duration) {
        tokio::task::spawn_blocking(move || {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            let start = Instant::now();
            s.write_all(head.as_bytes()).unwrap();
            let mut got = Vec::new();
            s.read_to_end(&mut got)
                .expect("the emulator closes the connection");
            (String::from_utf8_lossy(&got).into_owned(), start.elapsed())
        })
        .await
        .unwrap()
    }

    async fn start(cfg: EmulatorConfig) -> Emulator {
        Emulator::start(EmulatorConfig { scans: 0, ..cfg })
            .await
            .expect("emulator starts")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stalled_body_is_answered_408_and_the_connection_closed() {
        let emu = start(EmulatorConfig {
            body_timeout: 0.3,
            ..EmulatorConfig::default()
        })
        .await;
        let head = format!(
            "POST /api/v1/scan/ HTTP/1.1\r\nHost: x\r\nAPI-Key: {}\r\n\
             Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"url\": \"h",
            emu.api_key()
        );
        let (answer, took) = stall(emu.addr, head).await;
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
        assert!(answer.contains("connection: close"), "{answer}");
        assert!(took >= Duration::from_millis(250), "{took:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stalled_headers_close_the_connection() {
        let emu = start(EmulatorConfig {
            header_read_timeout: 0.3,
            ..EmulatorConfig::default()
        })
        .await;
        let (answer, took) = stall(
            emu.addr,
            "GET /api/v1/search/ HTTP/1.1\r\nHost: x\r\n".into(),
        )
        .await;
        // hyper closes the connection without an answer.
        assert_eq!(answer, "");
        assert!(took >= Duration::from_millis(250), "{took:?}");
    }

    #[tokio::test]
    async fn start_refuses_settings_it_cannot_honour() {
        let refused = |cfg: EmulatorConfig| async move {
            match Emulator::start(cfg).await {
                Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => e.to_string(),
                Err(e) => panic!("{e}"),
                Ok(_) => panic!("started"),
            }
        };
        let m = refused(EmulatorConfig {
            scans: usize::MAX,
            ..EmulatorConfig::default()
        })
        .await;
        assert_eq!(
            m,
            format!(
                "scans must be an integer from 0 to {MAX_SCANS}, got {}",
                usize::MAX
            )
        );
        let m = refused(EmulatorConfig {
            body_timeout: f64::NAN,
            ..EmulatorConfig::default()
        })
        .await;
        assert_eq!(
            m,
            "body_timeout must be more than 0 and at most 3600 seconds, got NaN"
        );
    }
}

/// The extension's allocator (the workspace's Cargo.toml), for the tests'
/// measurements.
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

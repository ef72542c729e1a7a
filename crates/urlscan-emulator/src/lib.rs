//! A local emulator of the service: a real HTTP server on loopback that
//! behaves like the service (state machines, visibility, rate limits, errors).
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
pub mod premium;
pub mod query;
pub mod ratelimit;
pub mod routes;
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
pub use state::{AppState, EmulatorConfig, KeyInfo, Latency};

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
    /// Bind and serve on the current tokio runtime.
    pub async fn start(cfg: EmulatorConfig) -> std::io::Result<Emulator> {
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
        let (tx, rx) = oneshot::channel::<()>();
        let header_timeout = Duration::from_secs_f64(state.cfg.header_read_timeout.max(0.001));
        tokio::spawn(serve(listener, app, rx, header_timeout));
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

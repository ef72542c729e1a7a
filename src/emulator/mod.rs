//! A local emulator of the service: a real HTTP server on loopback that
//! behaves like the service (state machines, visibility, rate limits, errors).
pub mod content;
pub mod datasources;
#[cfg(test)]
mod datasources_tests;
pub mod events;
pub mod faults;
pub mod premium;
pub mod query;
pub mod ratelimit;
pub mod routes;
pub mod state;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::oneshot;

pub use faults::{FaultKind, FaultSpec};
pub use ratelimit::Limits;
pub use state::{AppState, EmulatorConfig, KeyInfo, Latency};

/// A running emulator; it stops when dropped or on `stop()`.
pub struct Emulator {
    pub addr: SocketAddr,
    pub state: Arc<AppState>,
    shutdown: Option<oneshot::Sender<()>>,
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
        let app = routes::router(Arc::clone(&state));
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let serve = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = rx.await;
            });
            if let Err(e) = serve.await {
                log::error!("emulator stopped: {e}");
            }
        });
        log::info!("emulator listening on http://{addr}");
        Ok(Emulator {
            addr,
            state,
            shutdown: Some(tx),
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
        self.state.advance(secs);
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
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop();
    }
}

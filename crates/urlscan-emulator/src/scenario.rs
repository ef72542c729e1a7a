//! What a test says the service answers: results planted in the corpus, and
//! submissions that finish as a result the test chose.
//!
//! A planted scan is an ordinary entry whose spec carries the document
//! (`content::planted`): the result, search, screenshot, DOM, events, saved
//! searches and incidents all read it the way they read a generated scan.

use std::sync::Arc;

use serde_json::Value;

use super::content::planted::{self, TaskFacts};
use super::content::{Planted, ScanSpec};
use super::state::AppState;

impl AppState {
    /// Add a result document (with its screenshot and DOM, else the
    /// generator's of its URL) to the corpus as a finished scan of the
    /// emulator's own key: its uuid, or why it cannot be added.
    pub fn plant(
        &self,
        doc: Value,
        screenshot: Option<Vec<u8>>,
        dom: Option<String>,
    ) -> Result<String, String> {
        let facts = planted::task_facts(&doc)?;
        let spec = planted::spec_of(
            &facts,
            Planted {
                doc,
                screenshot,
                dom,
            },
        );
        let (user, team) = self.owner();
        // Finished now, so the notification engine sees it as a new scan.
        let entry = self.entry(spec, Some(user), team, self.now_ms().max(1));
        let mut store = self.store();
        if store.get(&facts.uuid).is_some() {
            return Err(format!(
                "the emulator already holds a scan {}: give the document another task.uuid",
                facts.uuid
            ));
        }
        store.insert(entry);
        Ok(facts.uuid)
    }

    /// The user and team planted scans belong to: those of the emulator's
    /// main key (`Emulator.api_key`).
    fn owner(&self) -> (String, Option<String>) {
        let k = &self.keys[0].1;
        (k.user.clone(), k.team.clone())
    }

    /// What a submission of `spec` finishes as: its spec carrying the
    /// document the test's rule chose, or unchanged.
    pub(crate) fn scripted(&self, mut spec: ScanSpec) -> Result<ScanSpec, String> {
        let Some(rule) = self.on_scan.get() else {
            return Ok(spec);
        };
        let Some(doc) = rule(&spec.url)? else {
            return Ok(spec);
        };
        let facts = TaskFacts {
            uuid: spec.uuid.clone(),
            url: spec.url.clone(),
            time_ms: spec.time_ms,
            visibility: spec.visibility.clone(),
        };
        let doc = planted::with_task(doc, &facts)?;
        // What the rule gave is a result document once the submission's task is in it.
        planted::task_facts(&doc)?;
        spec.planted = Some(Arc::new(Planted {
            doc,
            screenshot: None,
            dom: None,
        }));
        Ok(spec)
    }
}

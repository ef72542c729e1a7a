//! Walking search pages with `search_after`, per the interface's rules:
//! the next page starts after the last hit's `sort`; `total` is exact only up
//! to 10,000, beyond which `has_more` is true.
use crate::core::api::SearchParams;
use crate::core::client::Client;
use crate::core::error::Result;
use crate::core::models::{Doc, SearchPageHead};

pub const EXACT_TOTAL_CAP: u64 = 10_000;

#[derive(Debug, Clone)]
pub struct SearchCursor {
    client: Client,
    params: SearchParams,
    /// The cursor to resume from: after the last hit handed out.
    pub search_after: Option<String>,
    pub total: Option<u64>,
    pub has_more: Option<bool>,
    pub fetched: u64,
    pub pages: u64,
    largest_page: u64,
    done: bool,
}

impl SearchCursor {
    pub fn new(client: Client, params: SearchParams) -> Result<SearchCursor> {
        let params = params.validated()?;
        Ok(SearchCursor {
            client,
            search_after: params.search_after.clone(),
            params,
            total: None,
            has_more: None,
            fetched: 0,
            pages: 0,
            largest_page: 0,
            done: false,
        })
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The next page, or `None` once every hit was handed out.
    pub async fn next_page(&mut self) -> Result<Option<Doc<SearchPageHead>>> {
        if self.done {
            return Ok(None);
        }
        let mut size = self.params.size;
        if let Some(limit) = self.params.limit {
            size = size.min(limit.saturating_sub(self.fetched)).max(1);
        }
        let doc = self
            .client
            .search_page(&self.params, size, self.search_after.as_deref())
            .await?;
        let n = doc.head.results.len() as u64;
        self.pages += 1;
        self.total = doc.head.total.or(self.total);
        self.has_more = doc.head.has_more.or(self.has_more);
        self.fetched += n;
        if let Some(c) = doc.head.results.last().and_then(|h| h.cursor()) {
            self.search_after = Some(c);
        }
        self.done = self.is_last(n, size);
        self.largest_page = self.largest_page.max(n);
        if n == 0 {
            return Ok(None);
        }
        Ok(Some(doc))
    }

    fn is_last(&self, n: u64, asked: u64) -> bool {
        if n == 0 || self.params.limit.is_some_and(|l| self.fetched >= l) {
            return true;
        }
        if self.search_after.is_none() {
            return true; // hits without sort values cannot be paged further
        }
        let capped = self.has_more == Some(true) || self.total.is_none_or(|t| t >= EXACT_TOTAL_CAP);
        if !capped {
            // total is exact; resuming from a cursor counts fewer than total,
            // so a short page also ends the walk.
            return self.fetched >= self.total.unwrap_or(0);
        }
        // The service may clamp the page size; a page shorter than both what
        // was asked and the largest page seen is the last one.
        self.largest_page > 0 && n < asked.min(self.largest_page)
    }

    /// The number of hits (a `size=0` request); a floor of 10,000 when
    /// `has_more` is true.
    pub async fn count(&mut self) -> Result<(u64, bool)> {
        let doc = self
            .client
            .search_page(&self.params, 0, self.params.search_after.as_deref())
            .await?;
        let total = doc.head.total.unwrap_or(0);
        let has_more = doc.head.has_more.unwrap_or(total >= EXACT_TOTAL_CAP);
        if self.total.is_none() {
            self.total = Some(total);
            self.has_more = Some(has_more);
        }
        Ok((total, has_more))
    }
}

//! The search request the search endpoints share (`/api/v1/search`,
//! similar scans, the phish feed, a saved search's results): its
//! parameters, its query and the page answered.
// Checks return the finished error answer; boxing every one buys nothing here.
#![allow(clippy::result_large_err)]
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;

use super::answer::{err, validation, Params};
use super::query::Query;
use super::state::{AppState, Caller, Entry};

/// The largest search page of a plan (`limits.maxSearchResults` of the user):
/// the service's largest for a paid plan; a free plan's is the emulator's
/// choice (its README).
pub(crate) fn max_search_results(premium: bool) -> i64 {
    if premium {
        urlscan_rules::SEARCH_SIZE_MAX
    } else {
        100
    }
}

/// Fields a free or anonymous caller may not search.
fn premium_field(f: &str) -> bool {
    f.starts_with("verdicts") || f.starts_with("brand")
}

pub(crate) struct SearchArgs {
    pub q: String,
    pub size: usize,
    pub after: Option<(i64, String)>,
    pub datasource: String,
    pub collapse: Option<String>,
}

pub(crate) fn search_args(c: &Caller, raw: Option<String>) -> Result<SearchArgs, Response> {
    let params = Params::parse(raw);
    let pairs = params.all();
    let get = |k: &str| params.get(k);
    if pairs.iter().any(|(k, _)| k == "sort") {
        return Err(err(
            StatusCode::FORBIDDEN,
            "You are not allowed to use a custom sort value",
            None,
        ));
    }
    if pairs.iter().any(|(k, _)| k.starts_with("search_after["))
        || pairs.iter().filter(|(k, _)| k == "search_after").count() > 1
    {
        return Err(validation("\"search_after\" must be a string"));
    }
    let max = max_search_results(c.premium()) as usize;
    let size = match get("size") {
        None => 100,
        Some(s) => match s.trim().parse::<i64>() {
            Ok(n) if n >= 0 => (n as usize).min(max),
            _ => return Err(validation("\"size\" must be a non-negative integer")),
        },
    };
    let datasource = get("datasource").unwrap_or_else(|| "scans".into());
    if !urlscan_rules::SEARCH_DATASOURCES.contains(&datasource.as_str()) {
        return Err(validation(&format!(
            "\"datasource\" must be one of [{}]",
            urlscan_rules::SEARCH_DATASOURCES.join(", ")
        )));
    }
    if datasource != "scans" && !c.premium() {
        return Err(err(
            StatusCode::FORBIDDEN,
            &format!("The datasource '{datasource}' requires a premium account"),
            None,
        ));
    }
    // Scan cursors name a scan uuid; the other data sources' ids are theirs.
    let after = match get("search_after") {
        None => None,
        Some(s) if datasource == "scans" => Some(parse_search_after(&s).ok_or_else(|| {
            err(
                StatusCode::BAD_REQUEST,
                &format!("\"search_after\" with value \"{s}\" fails to match the required pattern: /^\\d{{13}},[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[89ab][0-9a-f]{{3}}-[0-9a-f]{{12}}$/"),
                None,
            )
        })?),
        Some(s) => Some(parse_any_after(&s).ok_or_else(|| {
            err(
                StatusCode::BAD_REQUEST,
                &format!("\"search_after\" with value \"{s}\" fails to match the required pattern: /^\\d{{1,18}},[^,]+$/"),
                None,
            )
        })?),
    };
    Ok(SearchArgs {
        q: get("q").unwrap_or_default(),
        size,
        after,
        datasource,
        collapse: get("collapse").filter(|s| !s.is_empty()),
    })
}

fn parse_search_after(s: &str) -> Option<(i64, String)> {
    let (ms, id) = s.split_once(',')?;
    let ok_ms = ms.len() == 13 && ms.bytes().all(|b| b.is_ascii_digit());
    let b = id.as_bytes();
    let ok_id = id.len() == 36
        && id.char_indices().all(|(i, ch)| match i {
            8 | 13 | 18 | 23 => ch == '-',
            _ => ch.is_ascii_digit() || ('a'..='f').contains(&ch),
        })
        && matches!(b[19], b'8' | b'9' | b'a' | b'b');
    (ok_ms && ok_id)
        .then(|| (ms.parse().ok(), id.to_string()))
        .and_then(|(t, id)| Some((t?, id)))
}

/// `<epoch ms>,<id>` with any non-empty id without a comma.
fn parse_any_after(s: &str) -> Option<(i64, String)> {
    let (ms, id) = s.split_once(',')?;
    let ok_ms = (1..=18).contains(&ms.len()) && ms.bytes().all(|b| b.is_ascii_digit());
    (ok_ms && !id.is_empty() && !id.contains(','))
        .then(|| Some((ms.parse().ok()?, id.to_string())))
        .flatten()
}

pub(crate) fn parse_query(c: &Caller, q: &str) -> Result<Query, Response> {
    let query = Query::parse(q).map_err(|e| {
        err(
            StatusCode::BAD_REQUEST,
            &format!("Failed to parse query: {}", e.message),
            Some(q),
        )
    })?;
    if !c.premium() {
        if let Some(f) = query.fields().into_iter().find(|f| premium_field(f)) {
            return Err(err(
                StatusCode::FORBIDDEN,
                &format!("Your current plan does not allow you to search field '{f}'"),
                None,
            ));
        }
    }
    Ok(query)
}

pub(crate) fn page_response(
    st: &AppState,
    c: &Caller,
    a: &SearchArgs,
    query: &Query,
    extra: &dyn Fn(&Entry) -> bool,
) -> Response {
    let started = std::time::Instant::now();
    // Incidents scan on the clock: bring them (and their scans) up to now.
    super::premium_model::tick(st, st.now_ms());
    let page = if a.datasource == "scans" {
        // The caller's saved searches, as they stand now: their matches show
        // in the hits (`usertags`, `meta`).
        let saved = super::premium_model::saved_matches(st, c);
        st.search(
            c,
            query,
            extra,
            a.size,
            a.after.clone(),
            a.collapse.as_deref(),
            &saved,
        )
    } else {
        super::datasources::page(st, c, &a.datasource, query, a.size, a.after.as_ref())
    };
    // Hits are stored serialized; the page is assembled as text.
    let mut body = String::with_capacity(page.hits.iter().map(|h| h.len() + 1).sum::<usize>() + 64);
    body.push_str("{\"results\":[");
    for (i, h) in page.hits.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        body.push_str(h);
    }
    body.push_str(&format!(
        "],\"total\":{},\"took\":{},\"has_more\":{}}}",
        page.total,
        started.elapsed().as_millis(),
        page.has_more
    ));
    let mut resp =
        super::answer::json_bytes(StatusCode::OK, super::json_form::indent(body.as_bytes()));
    resp.headers_mut().insert(
        "x-rate-limit-concurrency-limit",
        HeaderValue::from_static("4"),
    );
    resp
}

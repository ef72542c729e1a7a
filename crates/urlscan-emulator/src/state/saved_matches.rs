//! What a caller's saved searches add to the scans answered to them. The
//! service records matches of a user's Saved Searches on each scan: result
//! documents carry `usertags` (the saved searches' user tags) and
//! `metatags`, search hits `usertags` and `meta`, "the same as metatags"
//! (docs.urlscan.io changelog, January 8, 2024: System Labels, User Tags,
//! Meta Hits); scripts search the matches as `meta:searchhit.search.<id>`.
//! They depend on who asks, so they are computed for each answer, never
//! stored.
use serde_json::{Map, Value};

use crate::query::Query;

/// The hit fields that depend on the caller, as stored hits hold them (empty,
/// first; see `content::search_hit`).
const EMPTY_HIT_TAGS: &str = r#"{"usertags":[],"meta":[],"#;

/// Query fields answered from the caller's saved searches.
const FIELDS: [&str; 2] = ["usertags", "meta"];

/// One saved search over scans.
#[derive(Debug)]
struct Saved {
    id: String,
    user_tags: Vec<String>,
    query: Query,
}

/// The saved searches over scans a caller sees (none for a caller without
/// a key; see `premium_model::saved_matches`).
#[derive(Debug, Default)]
pub struct SavedMatches {
    searches: Vec<Saved>,
}

/// What a scan shows a caller of their saved searches.
#[derive(Debug, Default, PartialEq)]
pub struct Tags {
    /// User tags of the matching saved searches, each once.
    pub usertags: Vec<String>,
    /// `searchhit.search.<id>` of each matching saved search.
    pub meta: Vec<String>,
}

impl SavedMatches {
    /// From (id, userTags, query) of each saved search.
    pub fn new(searches: impl IntoIterator<Item = (String, Vec<String>, Query)>) -> SavedMatches {
        SavedMatches {
            searches: searches
                .into_iter()
                .map(|(id, user_tags, query)| Saved {
                    id,
                    user_tags,
                    query,
                })
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.searches.is_empty()
    }

    /// The tags of a scan, by its index document. The saved queries see the
    /// document alone (not each other's matches).
    pub fn tags(&self, doc: &Value, now_ms: i64) -> Tags {
        let mut t = Tags::default();
        for s in self
            .searches
            .iter()
            .filter(|s| s.query.matches(doc, now_ms))
        {
            for u in &s.user_tags {
                if !t.usertags.contains(u) {
                    t.usertags.push(u.clone());
                }
            }
            t.meta.push(format!("searchhit.search.{}", s.id));
        }
        t
    }

    /// Whether matching `query` needs the caller's tags (it names `meta` or
    /// `usertags`): only then is `query_fields` worth computing.
    pub fn needed_by(query: &Query) -> bool {
        query.fields().iter().any(|f| FIELDS.contains(&f.as_str()))
    }

    /// The top-level fields a query matches in place of the index
    /// document's (see `Query::matches_with`).
    pub fn query_fields(&self, doc: &Value, now_ms: i64) -> Map<String, Value> {
        let t = self.tags(doc, now_ms);
        let mut m = Map::new();
        m.insert("usertags".into(), t.usertags.into());
        m.insert("meta".into(), t.meta.into());
        m
    }

    /// A stored hit (serialized) as this caller sees it: its empty
    /// `usertags` and `meta` replaced. Without saved searches, or when none
    /// matches, the hit as stored.
    pub fn hit(&self, hit: &str, doc: &Value, now_ms: i64) -> String {
        if self.is_empty() {
            return hit.to_string();
        }
        let t = self.tags(doc, now_ms);
        if t.meta.is_empty() {
            return hit.to_string();
        }
        let Some(rest) = hit
            .strip_prefix(EMPTY_HIT_TAGS)
            .or_else(|| hit.strip_prefix('{'))
        else {
            return hit.to_string();
        };
        let fields = serde_json::json!({"usertags": t.usertags, "meta": t.meta}).to_string();
        // `fields` is `{...}`: its members, then the hit's.
        let mut out = String::with_capacity(hit.len() + fields.len());
        out.push_str(&fields[..fields.len() - 1]);
        if rest != "}" {
            out.push(',');
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn saved() -> SavedMatches {
        let q = |s: &str| Query::parse(s).unwrap();
        SavedMatches::new([
            (
                "a1".to_string(),
                vec!["private.x".to_string()],
                q("page.domain:a.test"),
            ),
            (
                "b2".to_string(),
                vec!["private.x".to_string(), "team.y".to_string()],
                q("page.status:200"),
            ),
            ("c3".to_string(), vec![], q("page.domain:other.test")),
        ])
    }

    #[test]
    fn a_hit_shows_the_searches_it_matches() {
        let doc = json!({"page": {"domain": "a.test", "status": "200"}});
        let hit = r#"{"usertags":[],"meta":[],"task":{"uuid":"u"}}"#;
        let seen: Value = serde_json::from_str(&saved().hit(hit, &doc, 0)).unwrap();
        assert_eq!(
            seen,
            json!({
                "usertags": ["private.x", "team.y"],
                "meta": ["searchhit.search.a1", "searchhit.search.b2"],
                "task": {"uuid": "u"},
            })
        );
        // Keys in order: the caller's fields where the stored ones were.
        let keys: Vec<&String> = seen.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["usertags", "meta", "task"]);
        // A hit stored without them gets them first.
        let bare: Value = serde_json::from_str(&saved().hit("{}", &doc, 0)).unwrap();
        assert_eq!(bare["meta"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn without_a_match_the_hit_is_as_stored() {
        let doc = json!({"page": {"domain": "z.test", "status": "404"}});
        let hit = r#"{"usertags":[],"meta":[],"task":{}}"#;
        assert_eq!(saved().hit(hit, &doc, 0), hit);
        assert_eq!(SavedMatches::default().hit(hit, &doc, 0), hit);
        assert_eq!(saved().tags(&doc, 0), Tags::default());
    }

    #[test]
    fn only_queries_naming_the_fields_need_them() {
        for (q, need) in [
            ("meta:searchhit.search.a1", true),
            ("usertags:private.x AND page.domain:a.test", true),
            ("_exists_:meta", true),
            ("page.domain:a.test", false),
            ("searchhit.search.a1", false),
        ] {
            assert_eq!(
                SavedMatches::needed_by(&Query::parse(q).unwrap()),
                need,
                "{q}"
            );
        }
        let doc = json!({"page": {"domain": "a.test"}, "meta": ["stored"]});
        let q = Query::parse("meta:searchhit.search.a1 AND usertags:PRIVATE.X").unwrap();
        assert!(q.matches_with(&doc, &saved().query_fields(&doc, 0), 0));
        assert!(!q.matches(&doc, 0));
    }
}

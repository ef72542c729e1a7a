//! One document of a search data source other than scans, shared by the
//! data sources and the premium features that make such documents.
use serde_json::{json, Value};

/// One document of a data source: `doc` holds its fields and `_id`; `ms`
/// is the time it sorts by.
#[derive(Debug, Clone)]
pub struct Doc {
    pub ms: i64,
    pub id: String,
    pub doc: Value,
}

impl Doc {
    pub(crate) fn hit(self) -> Value {
        let mut d = self.doc;
        d["_id"] = json!(self.id);
        d["sort"] = json!([self.ms, self.id]);
        d
    }
}

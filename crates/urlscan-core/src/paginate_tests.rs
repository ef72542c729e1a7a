//! The tests of `paginate` (in a file of their own, beside it).
use super::*;

/// An export's state keeps the fingerprint: the query as given, then the
/// options in the row's order whatever order they were given in.
#[test]
fn the_fingerprint_is_the_query_as_given_and_the_options_in_the_rows_order() {
    let given = serde_json::json!({"collapse": "page.domain", "datasource": " Hostnames ",
                                   "q": " a ", "search_after": "1700000000000,x"});
    let p = SearchParams::from_options("search", given.as_object().unwrap()).unwrap();
    let cfg = crate::Config::new(Some("k".into()), Some("http://127.0.0.1:9".into())).unwrap();
    let walk = SearchCursor::new(Client::new(cfg).unwrap(), p).unwrap();
    assert_eq!(
        walk.fingerprint(),
        r#"search q=" a " datasource="hostnames" collapse="page.domain" search_after="1700000000000,x""#
    );
}

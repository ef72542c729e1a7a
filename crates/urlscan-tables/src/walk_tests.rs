//! The tests of `walk` (in a file of their own, beside it).
use super::*;
use crate::schema::SCANS;
use arrow_array::cast::AsArray;
use urlscan_core::Error;

/// Pages of uuids, each with the cursor after it; a page `None` fails.
struct Script {
    pages: VecDeque<Option<Vec<&'static str>>>,
    resumable: bool,
}

impl Pages for Script {
    type Error = Error;
    fn read_into(
        &mut self,
        b: &mut TableBuilder,
        max: usize,
    ) -> Result<Option<(usize, Option<String>)>> {
        let Some(page) = self.pages.pop_front() else {
            return Ok(None);
        };
        let page = page.ok_or_else(|| Error::Transport("the page failed".into()))?;
        let n = page.len().min(max);
        for (i, id) in page.iter().take(n).enumerate() {
            b.append(
                format!(r#"{{"_id":"{id}"}}"#).as_bytes(),
                None,
                &Item("results", i),
            )?;
        }
        Ok(Some((n, page[..n].last().map(|id| format!("after {id}")))))
    }
    fn resumable(&self) -> bool {
        self.resumable
    }
}

fn walk(pages: Vec<Option<Vec<&'static str>>>, limit: Option<u64>) -> Walk<Script> {
    let b = TableBuilder::new(&SCANS, Some(&["uuid".to_string()])).unwrap();
    let script = Script {
        pages: pages.into(),
        resumable: true,
    };
    Walk::new(b, Some(script), limit)
}

fn ids(b: &RecordBatch) -> Vec<String> {
    let c = b.column(0).as_string::<i32>();
    (0..b.num_rows()).map(|i| c.value(i).to_string()).collect()
}

#[test]
fn a_batch_spans_pages_and_is_cut_at_its_rows() {
    let mut w = walk(
        vec![Some(vec!["a", "b"]), Some(vec!["c"]), Some(vec!["d", "e"])],
        None,
    );
    w.batch_rows = 3;
    let first = w.next().unwrap().unwrap();
    assert_eq!(ids(&first), ["a", "b", "c"]);
    assert_eq!(w.cursor.lock().unwrap().as_deref(), Some("after c"));
    let second = w.next().unwrap().unwrap();
    assert_eq!(ids(&second), ["d", "e"]);
    assert_eq!(w.cursor.lock().unwrap().as_deref(), Some("after e"));
    assert!(w.next().unwrap().is_none());
    assert_eq!((w.rows, w.read), (5, 5));
}

#[test]
fn the_limit_stops_the_walk_within_a_page() {
    let mut w = walk(
        vec![Some(vec!["a", "b"]), Some(vec!["c", "d"]), Some(vec!["e"])],
        Some(3),
    );
    let all = w.read_all().unwrap();
    let got: Vec<String> = all.iter().flat_map(ids).collect();
    assert_eq!(got, ["a", "b", "c"]);
    assert_eq!(w.cursor.lock().unwrap().as_deref(), Some("after c"));
}

#[test]
fn the_rows_before_a_failed_page_come_out_first() {
    let mut w = walk(vec![Some(vec!["a", "b"]), None, Some(vec!["c"])], None);
    let first = w.next().unwrap().unwrap();
    assert_eq!(ids(&first), ["a", "b"]);
    // Their cursor is the one to resume from.
    assert_eq!(w.cursor.lock().unwrap().as_deref(), Some("after b"));
    assert!(matches!(w.next(), Err(Error::Transport(_))));
}

#[test]
fn a_first_page_that_fails_is_the_error() {
    let mut w = walk(vec![None], None);
    assert!(matches!(w.next(), Err(Error::Transport(_))));
}

#[test]
fn progress_is_told_after_each_page_and_its_failure_ends_the_walk() {
    let told = Arc::new(Mutex::new(Vec::new()));
    let mut w = walk(
        vec![Some(vec!["a"]), Some(vec!["b", "c"]), Some(vec!["d"])],
        None,
    );
    let seen = Arc::clone(&told);
    w.on_progress(Box::new(move |n| {
        seen.lock().unwrap().push(n);
        if n >= 3 {
            return Err(Error::Validation("stop".into()));
        }
        Ok(())
    }));
    // The rows read before the callback failed are handed out, then its error.
    let first = w.next().unwrap().unwrap();
    assert_eq!(ids(&first), ["a", "b", "c"]);
    assert!(matches!(w.next(), Err(Error::Validation(_))));
    assert_eq!(*told.lock().unwrap(), [1, 3]);
}

#[test]
fn no_row_at_all_is_one_empty_batch_of_the_schema() {
    let mut w = walk(vec![Some(vec![])], None);
    let all = w.read_all().unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].num_rows(), 0);
    assert_eq!(all[0].schema().field(0).name(), "uuid");
}

#[test]
fn rows_given_before_any_page_are_dropped_with_a_first_page_that_fails() {
    // They have no cursor after them: a resume could not start after them.
    let mut w = walk(vec![None], None);
    w.builder
        .append(br#"{"_id":"given"}"#, None, &Item("results", 0))
        .unwrap();
    assert!(matches!(w.next(), Err(Error::Transport(_))));
    // A source that is not resumable hands them out first.
    let b = TableBuilder::new(&SCANS, Some(&["uuid".to_string()])).unwrap();
    let script = Script {
        pages: vec![None].into(),
        resumable: false,
    };
    let mut w = Walk::new(b, Some(script), None);
    w.builder
        .append(br#"{"_id":"given"}"#, None, &Item("results", 0))
        .unwrap();
    assert_eq!(ids(&w.next().unwrap().unwrap()), ["given"]);
    assert!(w.next().is_err());
}

//! The form of the service's JSON answers: indented by two spaces, one
//! member per line (the layout of `JSON.stringify(value, null, 2)` in the
//! recorded submit, search and result bodies; numbers stay as serde writes
//! them), sent as `application/json; charset=utf-8`.
//! Tools that read the line holding `"uuid"` depend on it.
//!
//! Compact JSON (what serde writes, or the emulator's stored hits joined
//! into a page) is re-indented in one pass over its bytes, so a page of
//! 10,000 stored hits is not parsed again to be printed.

/// The `Content-Type` of every JSON answer.
pub const CONTENT_TYPE: &str = "application/json; charset=utf-8";

/// `compact` (valid JSON without whitespace outside strings, as serde
/// writes it) indented by two spaces; empty arrays and objects stay `[]`
/// and `{}`, as `JSON.stringify` writes them.
pub fn indent(compact: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(compact.len() + compact.len() / 3 + 16);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.resize(out.len() + 2 * depth, b' ');
    };
    let mut i = 0;
    while i < compact.len() {
        let b = compact[i];
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                out.push(b);
            }
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                let next = compact[i + 1..]
                    .iter()
                    .position(|c| !c.is_ascii_whitespace())
                    .map(|p| i + 1 + p);
                if next.is_some_and(|n| compact[n] == close) {
                    out.push(b);
                    out.push(close);
                    i = next.unwrap_or(i) + 1;
                    continue;
                }
                out.push(b);
                depth += 1;
                newline(&mut out, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b);
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            b if b.is_ascii_whitespace() => {}
            _ => out.push(b),
        }
        i += 1;
    }
    out
}

/// JSON on one line: whitespace outside strings dropped (the emulator's
/// `compact_json` setting, for measuring a client on both layouts).
pub fn compact(json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        if in_string {
            // An escaped character (after a lone `\`) never ends the string.
            let after_backslash = escaped;
            escaped = !after_backslash && b == b'\\';
            in_string = after_backslash || b != b'"';
            out.push(b);
        } else if !b.is_ascii_whitespace() {
            in_string = b == b'"';
            out.push(b);
        }
    }
    out
}

/// A JSON value in the service's form.
pub fn render(v: &serde_json::Value) -> Vec<u8> {
    indent(&serde_json::to_vec(v).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_form_is_serde_pretty_printing_with_two_spaces() {
        let samples = [
            json!({"message": "Submission successful", "uuid": "8e9c", "tags": [], "options": {},
                   "n": -1.5e3, "s": "a \"quoted\" {brace}, [bracket]: colon\\ and \u{e9}", "z": null}),
            json!([]),
            json!({}),
            json!([[], {}, [1, [2, {"a": [{}]}]], "x"]),
            json!({"results": [{"_id": "a", "sort": [1, "b"]}], "total": 1, "has_more": false}),
        ];
        for v in samples {
            let want = serde_json::to_string_pretty(&v).unwrap();
            assert_eq!(String::from_utf8(render(&v)).unwrap(), want);
        }
    }

    #[test]
    fn compact_undoes_indent() {
        let v = json!({"a": [1, {"b": "x \\\" y\n, : {"}, []], "c": {}});
        assert_eq!(compact(&render(&v)), serde_json::to_vec(&v).unwrap());
    }

    #[test]
    fn a_deep_document_keeps_its_value() {
        let mut v = json!({"leaf": "\\\"", "n": [0.5, -1, 1e300]});
        for i in 0..40 {
            v = json!({"level": i, "inner": [v.clone(), {}, []], "s": format!("{{[{i}]}}, : \"")});
        }
        let out = render(&v);
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
        let back: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, v);
    }
}

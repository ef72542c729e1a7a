//! The emulator's modules form layers: none reaches back into a module that
//! reaches it. This reads the crate's sources, builds the graph of `crate::`
//! and `super::` paths between top-level modules (a folder is one module)
//! and fails naming a cycle when there is one.
//!
//! The crate root (`lib.rs`) is no node: it starts the emulator from all the
//! modules, and tests reach the running emulator through it.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Other,
}

/// The tokens that matter for paths; comments, strings and character
/// literals are skipped, so that a path in them does not count.
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    // The index after the string literal whose opening quote is at `i`
    // (`hashes` > 0 or `raw`: a raw string, without escapes).
    let string_end = |mut i: usize, raw: bool, hashes: usize| {
        i += 1;
        while i < c.len() {
            if !raw && c[i] == '\\' {
                i += 2;
            } else if c[i] == '"' && (0..hashes).all(|k| at(i + 1 + k) == '#') {
                return i + 1 + hashes;
            } else {
                i += 1;
            }
        }
        i
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = string_end(i, false, 0);
            out.push(Tok::Other);
        } else if ch == '\'' {
            // A character literal, or the quote of a lifetime or label.
            if at(i + 1) == '\\' {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
            out.push(Tok::Other);
        } else if ident_char(ch) {
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let hashes = (i..).take_while(|&k| at(k) == '#').count();
            match word.as_str() {
                "r" | "br" | "cr" if at(i + hashes) == '"' => {
                    i = string_end(i + hashes, true, hashes);
                    out.push(Tok::Other);
                }
                // A raw identifier: `r#name`.
                "r" if hashes == 1 && ident_char(at(i + 1)) => {
                    let start = i + 1;
                    i = start;
                    while i < c.len() && ident_char(c[i]) {
                        i += 1;
                    }
                    out.push(Tok::Ident(c[start..i].iter().collect()));
                }
                "b" | "c" if at(i) == '"' => {
                    i = string_end(i, false, 0);
                    out.push(Tok::Other);
                }
                "b" if at(i) == '\'' => {
                    // A byte literal: the quote is handled next round as a character's.
                }
                _ if ch.is_ascii_digit() => out.push(Tok::Other),
                _ => out.push(Tok::Ident(word)),
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok::Colons);
            i += 2;
        } else {
            match ch {
                '{' => out.push(Tok::Open),
                '}' => out.push(Tok::Close),
                ',' => out.push(Tok::Comma),
                _ if ch.is_whitespace() => {}
                _ => out.push(Tok::Other),
            }
            i += 1;
        }
    }
    out
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The modules a file refers to by `crate::`, `super::` and `self::`
/// paths, as absolute module paths (`["state", "Entry"]`). `module` is the
/// file's own path (`["premium", "files"]` for `premium/files.rs`); inline
/// `mod x { ... }` blocks extend it.
fn references(src: &str, module: &[String]) -> Vec<Vec<String>> {
    let t = tokens(src);
    let mut out = Vec::new();
    // Inline modules open at a brace depth.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < t.len() {
        match &t[i] {
            Tok::Open => depth += 1,
            Tok::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            Tok::Ident(m) if m == "mod" => {
                if let (Some(name), Some(Tok::Open)) = (ident(t.get(i + 1)), t.get(i + 2)) {
                    inline.push((name.to_string(), depth + 1));
                }
            }
            Tok::Ident(head)
                if matches!(head.as_str(), "crate" | "super" | "self")
                    && t.get(i + 1) == Some(&Tok::Colons)
                    && (i == 0 || t[i - 1] != Tok::Colons) =>
            {
                let mut base: Vec<String> = if head == "crate" {
                    vec![]
                } else {
                    let mut here = module.to_vec();
                    here.extend(inline.iter().map(|(n, _)| n.clone()));
                    if head == "super" {
                        here.pop();
                    }
                    here
                };
                i += 2;
                while ident(t.get(i)) == Some("super") && t.get(i + 1) == Some(&Tok::Colons) {
                    base.pop();
                    i += 2;
                }
                let mut names = Vec::new();
                match t.get(i) {
                    Some(Tok::Ident(n)) => names.push(n.clone()),
                    // A group: the first name of each of its paths.
                    Some(Tok::Open) => {
                        let mut d = 0;
                        let mut first = true;
                        for tok in &t[i..] {
                            match tok {
                                Tok::Open => d += 1,
                                Tok::Close => d -= 1,
                                Tok::Comma if d == 1 => first = true,
                                Tok::Ident(n) if d == 1 && first => {
                                    names.push(n.clone());
                                    first = false;
                                }
                                _ => first = false,
                            }
                            if d == 0 {
                                break;
                            }
                        }
                    }
                    _ => {}
                }
                if names.is_empty() {
                    names.push("self".into());
                }
                for n in names {
                    let mut path = base.clone();
                    if n != "self" {
                        path.push(n);
                    }
                    out.push(path);
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The graph of references between the top-level `modules` over the
/// files (`(path under src/, text)`).
fn graph(files: &[(String, String)], modules: &BTreeSet<String>) -> Graph {
    let mut g = Graph::new();
    for (path, src) in files {
        let mut module: Vec<String> = path
            .trim_end_matches(".rs")
            .split('/')
            .map(String::from)
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let Some(own) = module.first().filter(|m| modules.contains(*m)) else {
            continue;
        };
        for r in references(src, &module) {
            if let Some(to) = r.first().filter(|m| modules.contains(*m) && *m != own) {
                g.entry(own.clone()).or_default().insert(to.clone());
            }
        }
    }
    g
}

/// A cycle of `g` (its first module repeated at the end), if it has one.
fn cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(g: &Graph, m: &str, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> bool {
        if let Some(at) = path.iter().position(|p| p == m) {
            path.drain(..at);
            path.push(m.to_string());
            return true;
        }
        if done.contains(m) {
            return false;
        }
        path.push(m.to_string());
        for next in g.get(m).into_iter().flatten() {
            if visit(g, next, path, done) {
                return true;
            }
        }
        path.pop();
        done.insert(m.to_string());
        false
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        let mut path = Vec::new();
        if visit(g, m, &mut path, &mut done) {
            return Some(path);
        }
    }
    None
}

/// Every `.rs` file under `dir`, with its path under `root`.
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("read the source folder") {
        let p = entry.expect("a folder entry").path();
        if p.is_dir() {
            sources(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).expect("under src/");
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((
                rel,
                std::fs::read_to_string(&p).expect("read a source file"),
            ));
        }
    }
}

/// The modules `lib.rs` declares (`mod x;`, whatever its visibility).
fn declared(lib: &str) -> BTreeSet<String> {
    let t = tokens(lib);
    t.windows(3)
        .filter(|w| ident(w.first()) == Some("mod") && w[2] == Tok::Other)
        .filter_map(|w| ident(w.get(1)).map(String::from))
        .collect()
}

fn show(g: &Graph) -> String {
    g.iter()
        .map(|(m, to)| {
            format!(
                "  {m} -> {}",
                to.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_modules_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let lib = &files.iter().find(|(p, _)| p == "lib.rs").expect("lib.rs").1;
    let modules = declared(lib);
    assert!(
        modules.contains("state") && modules.contains("premium"),
        "{modules:?}"
    );
    let g = graph(&files, &modules);
    // The reading finds references at all: the routes answer from the state.
    assert!(
        g.get("routes").is_some_and(|to| to.contains("state")),
        "{}",
        show(&g)
    );
    if let Some(c) = cycle(&g) {
        panic!(
            "the emulator's modules form a cycle: {}\nthe module graph:\n{}",
            c.join(" -> "),
            show(&g)
        );
    }
}

#[test]
fn a_cycle_is_found_and_named() {
    let modules: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let file = |p: &str, s: &str| (p.to_string(), s.to_string());
    let files = [
        file(
            "a.rs",
            "use crate::b::X; // crate::c::Y\nconst S: &str = \"crate::c\"; mod t { use super::super::c; }",
        ),
        file("b/mod.rs", "mod d;\npub use self::d::*;\nuse super::{self as root};"),
        // Only what follows the literals counts: b -> c.
        file(
            "b/d.rs",
            "fn f<'x>(_: &'x u8) -> char { let _ = (r#\"super::a\"#, b'\\''); '\"' }\n\
             fn g() { super::super::c::h() }",
        ),
        file("c.rs", "fn f() { super::b::d::g(); }"),
    ];
    let g = graph(&files, &modules);
    let edges: Vec<(&str, &str)> = g
        .iter()
        .flat_map(|(m, to)| to.iter().map(move |t| (m.as_str(), t.as_str())))
        .collect();
    assert_eq!(edges, [("a", "b"), ("a", "c"), ("b", "c"), ("c", "b")]);
    assert_eq!(
        cycle(&g).map(|c| c.join(" -> ")),
        Some("b -> c -> b".into())
    );
    let acyclic: Graph =
        [("a", "b"), ("b", "c"), ("a", "c")]
            .into_iter()
            .fold(Graph::new(), |mut g, (m, t)| {
                g.entry(m.into()).or_default().insert(t.into());
                g
            });
    assert_eq!(cycle(&acyclic), None);
}

//! Parser and matcher for the Elasticsearch query-string subset that
//! urlscan.io search accepts.
//!
//! The service runs `query_string` in filter mode over lowercase-indexed
//! documents, so matching here is boolean and case-insensitive. Field types
//! are approximated from the field name: domain fields match sub-domains,
//! a few free-text fields match single words, everything else is a keyword
//! compared against the whole value.

use std::fmt;

use chrono::{DateTime, Datelike, Months, NaiveDate, NaiveDateTime, Timelike};
use pest::error::{Error as PestError, ErrorVariant};
use pest::iterators::Pair;
use pest::{Parser, Position, Span};
use serde_json::{Map, Value};

mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "query.pest"]
    pub struct QueryParser;
}

use grammar::{QueryParser, Rule};

/// Fields searched by a term without a field name.
const DEFAULT_FIELDS: &[&str] = &[
    "page.domain",
    "page.url",
    "page.title",
    "task.url",
    "page.ip",
    "domain",
    "ip",
    "hash",
];

/// Fields indexed so that every parent domain is a token of its own.
const DOMAIN_FIELDS: &[&str] = &[
    "domain",
    "page.domain",
    "task.domain",
    "hostname",
    "page.apexDomain",
    "task.apexDomain",
    "apexDomain",
];

/// Fields that are analysed text on the service, so single words match.
const TEXT_FIELDS: &[&str] = &[
    "page.title",
    "title",
    "page.asnname",
    "asnname",
    "page.tlsIssuer",
    "page.server",
    "server",
];

/// Bracket nesting beyond this is refused before parsing, because the
/// recursive-descent parser would otherwise exhaust the stack.
const MAX_DEPTH: usize = 64;

/// A parse failure; `message` is pest's rendering with line, column and what
/// was expected.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryError {
    pub message: String,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

impl From<PestError<Rule>> for QueryError {
    fn from(e: PestError<Rule>) -> Self {
        QueryError {
            message: e.renamed_rules(rule_label).to_string(),
        }
    }
}

/// Human names for grammar rules in "expected ..." messages.
fn rule_label(rule: &Rule) -> String {
    match rule {
        Rule::EOI => "end of query",
        Rule::query | Rule::or_expr | Rule::and_expr | Rule::unary | Rule::primary => "clause",
        Rule::group => "`(`",
        Rule::close_paren => "`)`",
        Rule::field_clause => "field:value",
        Rule::colon => "`:`",
        Rule::field_name => "field name",
        Rule::and_op => "AND",
        Rule::or_op => "OR",
        Rule::not_op => "NOT",
        Rule::plus_op => "`+`",
        Rule::keyword => "operator",
        Rule::comparison => "comparison (>, >=, <, <=)",
        Rule::cmp_op => "comparison operator",
        Rule::cmp_word | Rule::range_word => "value",
        Rule::range => "range",
        Rule::range_open => "`[` or `{`",
        Rule::range_close => "`]` or `}`",
        Rule::to_kw => "TO",
        Rule::phrase => "quoted phrase",
        Rule::phrase_text => "phrase text",
        Rule::close_quote => "closing `\"`",
        Rule::escaped => "escaped character",
        Rule::term => "term",
        Rule::boost => "boost",
        Rule::fuzzy => "fuzziness",
        Rule::number => "number",
        // Silent rules never appear in messages.
        other => return format!("{other:?}"),
    }
    .to_string()
}

/// A parsed query.
#[derive(Debug, Clone)]
pub struct Query {
    root: Node,
    fields: Vec<String>,
}

impl Query {
    /// Parse a query string. "" or whitespace-only parses to match-all.
    pub fn parse(q: &str) -> Result<Query, QueryError> {
        check_depth(q)?;
        let mut pairs = QueryParser::parse(Rule::query, q)?;
        let top = pairs.next().expect("the query rule always yields one pair");
        let mut builder = Builder { fields: Vec::new() };
        let mut root = Node::All;
        for pair in top.into_inner() {
            if pair.as_rule() == Rule::or_expr {
                root = builder.expr(pair, &Scope::Default)?;
            }
        }
        Ok(Query {
            root,
            fields: builder.fields,
        })
    }

    /// Does the document match? `now_ms` = current emulator time (epoch ms)
    /// for date math.
    pub fn matches(&self, doc: &Value, now_ms: i64) -> bool {
        self.root.eval(
            Doc {
                base: doc,
                top: None,
            },
            now_ms,
        )
    }

    /// `matches` over `doc` with the top-level fields of `top` in place of
    /// its own (fields that depend on who asks), without copying `doc`.
    pub fn matches_with(&self, doc: &Value, top: &Map<String, Value>, now_ms: i64) -> bool {
        self.root.eval(
            Doc {
                base: doc,
                top: Some(top),
            },
            now_ms,
        )
    }

    /// Field names used in the query (for plan checks), deduplicated, in
    /// order of appearance.
    pub fn fields(&self) -> Vec<String> {
        self.fields.clone()
    }

    /// The first characters (lowercase hex) a matching document's `task.uuid`
    /// must start with, when the query says so (`... AND task.uuid:(0* OR 1*)`,
    /// the shards of a large export): the search then passes over the other
    /// scans on their uuid alone, before the query is evaluated on them.
    pub fn uuid_heads(&self) -> Option<Vec<char>> {
        self.root.uuid_heads()
    }
}

impl Node {
    fn uuid_heads(&self) -> Option<Vec<char>> {
        match self {
            Node::Match {
                fields,
                pred: Pred::Wildcard(toks),
            } if fields.len() == 1 && fields[0].segments == ["task", "uuid"] => {
                match toks.first() {
                    Some(WTok::Lit(c)) if c.is_ascii_hexdigit() => {
                        Some(vec![c.to_ascii_lowercase()])
                    }
                    _ => None,
                }
            }
            Node::Or(nodes) => nodes.iter().try_fold(Vec::new(), |mut all, n| {
                all.extend(n.uuid_heads()?);
                Some(all)
            }),
            // Any part of a conjunction that bounds the uuid bounds the whole.
            Node::And(nodes) => nodes
                .iter()
                .filter_map(Node::uuid_heads)
                .reduce(|a, b| a.into_iter().filter(|c| b.contains(c)).collect()),
            _ => None,
        }
    }
}

/// Rejects over-deep bracket nesting with a pest-style message.
fn check_depth(q: &str) -> Result<(), QueryError> {
    let mut depth = 0usize;
    let mut in_quotes = false;
    let mut chars = q.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => in_quotes = !in_quotes,
            '(' if !in_quotes => {
                depth += 1;
                if depth > MAX_DEPTH {
                    let pos = Position::new(q, i).expect("char_indices yields boundaries");
                    let err = PestError::<Rule>::new_from_pos(
                        ErrorVariant::CustomError {
                            message: format!("brackets nested deeper than {MAX_DEPTH} levels"),
                        },
                        pos,
                    );
                    return Err(err.into());
                }
            }
            ')' if !in_quotes => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn custom_error(message: &str, span: Span<'_>) -> PestError<Rule> {
    PestError::new_from_span(
        ErrorVariant::CustomError {
            message: message.to_string(),
        },
        span,
    )
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum FieldKind {
    Domain,
    Text,
    Keyword,
}

#[derive(Debug, Clone)]
struct FieldRef {
    segments: Vec<String>,
    kind: FieldKind,
}

impl FieldRef {
    fn new(name: &str) -> FieldRef {
        let kind = if DOMAIN_FIELDS.contains(&name) {
            FieldKind::Domain
        } else if TEXT_FIELDS.contains(&name) {
            FieldKind::Text
        } else {
            FieldKind::Keyword
        };
        FieldRef {
            segments: name.split('.').map(str::to_string).collect(),
            kind,
        }
    }

    /// All non-null leaf values at this path, arrays flattened.
    fn values<'v>(&self, doc: Doc<'v>) -> Vec<&'v Value> {
        let mut out = Vec::new();
        match doc.top {
            None => collect(doc.base, &self.segments, &mut out),
            Some(top) => {
                for i in 1..=self.segments.len() {
                    let key = self.segments[..i].join(".");
                    if let Some(child) = top.get(&key).or_else(|| doc.base.get(&key)) {
                        collect(child, &self.segments[i..], &mut out);
                    }
                }
            }
        }
        out
    }
}

/// A document to match: `base`, with the top-level fields of `top` (when
/// given) in place of its own.
#[derive(Clone, Copy)]
struct Doc<'d> {
    base: &'d Value,
    top: Option<&'d Map<String, Value>>,
}

/// Walks a dotted path. At each object every split of the remaining path is
/// tried as a key, so both nested objects and literal dotted keys
/// (`{"page.domain": ...}`) resolve.
fn collect<'v>(v: &'v Value, segments: &[String], out: &mut Vec<&'v Value>) {
    match v {
        Value::Array(items) => {
            for item in items {
                collect(item, segments, out);
            }
        }
        Value::Null => {}
        _ if segments.is_empty() => out.push(v),
        Value::Object(map) => {
            for i in 1..=segments.len() {
                let key = segments[..i].join(".");
                if let Some(child) = map.get(&key) {
                    collect(child, &segments[i..], out);
                }
            }
        }
        _ => {}
    }
}

/// Which fields a clause without an explicit field name applies to.
enum Scope {
    Default,
    Field(String),
}

impl Scope {
    fn field_refs(&self) -> Vec<FieldRef> {
        match self {
            Scope::Default => DEFAULT_FIELDS.iter().map(|f| FieldRef::new(f)).collect(),
            Scope::Field(name) => vec![FieldRef::new(name)],
        }
    }
}

#[derive(Debug, Clone)]
enum Node {
    All,
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
    Exists(FieldRef),
    Match { fields: Vec<FieldRef>, pred: Pred },
}

impl Node {
    fn eval(&self, doc: Doc<'_>, now_ms: i64) -> bool {
        match self {
            Node::All => true,
            Node::And(nodes) => nodes.iter().all(|n| n.eval(doc, now_ms)),
            Node::Or(nodes) => nodes.iter().any(|n| n.eval(doc, now_ms)),
            Node::Not(node) => !node.eval(doc, now_ms),
            Node::Exists(field) => !field.values(doc).is_empty(),
            Node::Match { fields, pred } => fields.iter().any(|f| {
                f.values(doc)
                    .into_iter()
                    .any(|v| pred.test(v, f.kind, now_ms))
            }),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum WTok {
    Lit(char),
    Any,
    One,
}

#[derive(Debug, Clone)]
struct Bound {
    raw: String,
    inclusive: bool,
}

#[derive(Debug, Clone)]
enum Pred {
    /// A term without wildcards or a phrase. `raw` keeps the original case
    /// because date math units are case-sensitive (`M` month, `m` minute).
    Exact {
        raw: String,
        lower: String,
        slop: u32,
    },
    Wildcard(Vec<WTok>),
    Fuzzy {
        lower: String,
        distance: usize,
    },
    Range {
        lower: Option<Bound>,
        upper: Option<Bound>,
    },
}

struct Builder {
    fields: Vec<String>,
}

impl Builder {
    fn note_field(&mut self, name: &str) {
        if !self.fields.iter().any(|f| f == name) {
            self.fields.push(name.to_string());
        }
    }

    fn expr(&mut self, pair: Pair<'_, Rule>, scope: &Scope) -> Result<Node, PestError<Rule>> {
        match pair.as_rule() {
            Rule::or_expr => {
                let mut parts = Vec::new();
                for p in pair.into_inner().filter(|p| p.as_rule() == Rule::and_expr) {
                    parts.push(self.expr(p, scope)?);
                }
                Ok(combine(parts, Node::Or))
            }
            Rule::and_expr => {
                let mut parts = Vec::new();
                for p in pair.into_inner().filter(|p| p.as_rule() == Rule::unary) {
                    parts.push(self.expr(p, scope)?);
                }
                Ok(combine(parts, Node::And))
            }
            Rule::unary => {
                let mut negations = 0usize;
                let mut node = Node::All;
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::not_op => negations += 1,
                        Rule::primary => node = self.primary(p, scope)?,
                        _ => {}
                    }
                }
                // Parity only: a run of negations must not build a deep tree.
                Ok(if negations % 2 == 1 {
                    Node::Not(Box::new(node))
                } else {
                    node
                })
            }
            _ => self.value(pair, scope, None),
        }
    }

    fn primary(&mut self, pair: Pair<'_, Rule>, scope: &Scope) -> Result<Node, PestError<Rule>> {
        let mut inner = pair.into_inner();
        let atom = inner.next().expect("primary starts with an atom");
        // None: no `~`; Some(None): `~` alone; Some(Some(n)): `~n`.
        let mut fuzzy: Option<Option<u32>> = None;
        for m in inner {
            if m.as_rule() == Rule::fuzzy {
                let n = m
                    .into_inner()
                    .next()
                    .map(|n| n.as_str().parse::<f64>().unwrap_or(0.0).clamp(0.0, 1e6) as u32);
                fuzzy = Some(n);
            }
        }
        if atom.as_rule() == Rule::field_clause {
            self.field_clause(atom, fuzzy)
        } else {
            self.value(atom, scope, fuzzy)
        }
    }

    fn field_clause(
        &mut self,
        pair: Pair<'_, Rule>,
        fuzzy: Option<Option<u32>>,
    ) -> Result<Node, PestError<Rule>> {
        let mut inner = pair.into_inner();
        let name_pair = inner.next().expect("field clause has a name");
        let target = inner
            .find(|p| p.as_rule() != Rule::colon)
            .expect("field clause has a value");
        let name = name_pair.as_str();
        if name == "*" && target.as_rule() == Rule::term && target.as_str() == "*" {
            return Ok(Node::All);
        }
        if name.contains(['*', '?']) {
            return Err(custom_error(
                "field name wildcards are not allowed",
                name_pair.as_span(),
            ));
        }
        if name == "_exists_" {
            if target.as_rule() != Rule::term {
                return Err(custom_error(
                    "_exists_ needs a single field name",
                    target.as_span(),
                ));
            }
            let field = unescape(target.as_str());
            if field.contains(['*', '?']) {
                return Err(custom_error(
                    "field name wildcards are not allowed",
                    target.as_span(),
                ));
            }
            self.note_field(&field);
            return Ok(Node::Exists(FieldRef::new(&field)));
        }
        self.note_field(name);
        self.value(target, &Scope::Field(name.to_string()), fuzzy)
    }

    fn value(
        &mut self,
        pair: Pair<'_, Rule>,
        scope: &Scope,
        fuzzy: Option<Option<u32>>,
    ) -> Result<Node, PestError<Rule>> {
        let pred = match pair.as_rule() {
            Rule::group => {
                let inner = pair
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::or_expr)
                    .expect("group holds an expression");
                return self.expr(inner, scope);
            }
            Rule::field_clause => return self.field_clause(pair, fuzzy),
            Rule::comparison => {
                let mut inner = pair.into_inner();
                let op = inner.next().expect("comparison has an operator").as_str();
                let raw = bound_text(inner.next().expect("comparison has a value"));
                let bound = |inclusive| Some(Bound { raw, inclusive });
                match op {
                    ">" => Pred::Range {
                        lower: bound(false),
                        upper: None,
                    },
                    ">=" => Pred::Range {
                        lower: bound(true),
                        upper: None,
                    },
                    "<" => Pred::Range {
                        lower: None,
                        upper: bound(false),
                    },
                    _ => Pred::Range {
                        lower: None,
                        upper: bound(true),
                    },
                }
            }
            Rule::range => {
                let parts: Vec<Pair<'_, Rule>> = pair.into_inner().collect();
                let [open, low, _to, high, close] = <[Pair<'_, Rule>; 5]>::try_from(parts)
                    .expect("range has open, bound, TO, bound, close");
                let end = |p: Pair<'_, Rule>, inclusive: bool| {
                    if p.as_rule() == Rule::range_word && p.as_str() == "*" {
                        None
                    } else {
                        Some(Bound {
                            raw: bound_text(p),
                            inclusive,
                        })
                    }
                };
                Pred::Range {
                    lower: end(low, open.as_str() == "["),
                    upper: end(high, close.as_str() == "]"),
                }
            }
            Rule::phrase => {
                let raw = bound_text(pair);
                let slop = fuzzy.flatten().unwrap_or(0);
                Pred::Exact {
                    lower: raw.to_lowercase(),
                    raw,
                    slop,
                }
            }
            Rule::term => {
                let pattern = wildcard_pattern(pair.as_str());
                if pattern.iter().all(|t| *t == WTok::Any) {
                    return Ok(match scope {
                        Scope::Default => Node::All,
                        Scope::Field(name) => Node::Exists(FieldRef::new(name)),
                    });
                }
                if pattern.iter().any(|t| !matches!(t, WTok::Lit(_))) {
                    Pred::Wildcard(pattern)
                } else {
                    let raw = unescape(pair.as_str());
                    let lower = raw.to_lowercase();
                    match fuzzy {
                        Some(n) => {
                            let auto = match lower.chars().count() {
                                0..=2 => 0,
                                3..=5 => 1,
                                _ => 2,
                            };
                            // Lucene caps edit distance at 2.
                            let distance = n.map_or(auto, |n| n.min(2) as usize);
                            Pred::Fuzzy { lower, distance }
                        }
                        None => Pred::Exact {
                            raw,
                            lower,
                            slop: 0,
                        },
                    }
                }
            }
            _ => unreachable!("unexpected rule {:?} in value position", pair.as_rule()),
        };
        Ok(Node::Match {
            fields: scope.field_refs(),
            pred,
        })
    }
}

fn combine(mut parts: Vec<Node>, wrap: fn(Vec<Node>) -> Node) -> Node {
    if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        wrap(parts)
    }
}

/// The text of a phrase, a range bound or a comparison value, unescaped.
fn bound_text(pair: Pair<'_, Rule>) -> String {
    if pair.as_rule() == Rule::phrase {
        pair.into_inner()
            .find(|p| p.as_rule() == Rule::phrase_text)
            .map(|p| unescape(p.as_str()))
            .unwrap_or_default()
    } else {
        unescape(pair.as_str())
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Lowercased glob tokens; an escaped `*` or `?` stays literal.
fn wildcard_pattern(raw: &str) -> Vec<WTok> {
    let mut out = Vec::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    out.extend(next.to_lowercase().map(WTok::Lit));
                }
            }
            '*' => out.push(WTok::Any),
            '?' => out.push(WTok::One),
            _ => out.extend(c.to_lowercase().map(WTok::Lit)),
        }
    }
    out
}

/// Whole-string glob match, linear backtracking on the last `*`.
fn glob(pattern: &[WTok], text: &str) -> bool {
    let s: Vec<char> = text.chars().collect();
    let (mut p, mut i) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while i < s.len() {
        if p < pattern.len() {
            match pattern[p] {
                WTok::Any => {
                    star = Some((p, i));
                    p += 1;
                    continue;
                }
                WTok::One => {
                    p += 1;
                    i += 1;
                    continue;
                }
                WTok::Lit(c) if c == s[i] => {
                    p += 1;
                    i += 1;
                    continue;
                }
                WTok::Lit(_) => {}
            }
        }
        match star {
            Some((sp, si)) => {
                p = sp + 1;
                i = si + 1;
                star = Some((sp, si + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|t| *t == WTok::Any)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// `www.google.com` yields itself, `google.com` and `com`, mirroring the
/// service's per-parent-domain tokens.
fn domain_suffixes(d: &str) -> impl Iterator<Item = &str> {
    std::iter::once(d)
        .chain(d.match_indices('.').map(move |(i, _)| &d[i + 1..]))
        .filter(|s| !s.is_empty())
}

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// String forms a value is matched against for a field kind.
fn candidates(lower: &str, kind: FieldKind) -> Vec<&str> {
    match kind {
        FieldKind::Domain => domain_suffixes(lower).collect(),
        FieldKind::Text => std::iter::once(lower).chain(words(lower)).collect(),
        FieldKind::Keyword => vec![lower],
    }
}

impl Pred {
    fn test(&self, v: &Value, kind: FieldKind, now_ms: i64) -> bool {
        match self {
            Pred::Exact { raw, lower, slop } => match v {
                Value::String(s) => exact_string(s, raw, lower, *slop, kind, now_ms),
                Value::Number(n) => match (n.as_f64(), parse_num(lower)) {
                    (Some(a), Some(b)) => a == b,
                    _ => false,
                },
                Value::Bool(b) => lower == if *b { "true" } else { "false" },
                _ => false,
            },
            Pred::Wildcard(pattern) => match scalar_text(v) {
                Some(text) => candidates(&text, kind).iter().any(|c| glob(pattern, c)),
                None => false,
            },
            Pred::Fuzzy { lower, distance } => match scalar_text(v) {
                Some(text) => candidates(&text, kind)
                    .iter()
                    .any(|c| levenshtein(c, lower) <= *distance),
                None => false,
            },
            Pred::Range { lower, upper } => range_test(v, lower.as_ref(), upper.as_ref(), now_ms),
        }
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.to_lowercase()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn exact_string(s: &str, raw: &str, lower: &str, slop: u32, kind: FieldKind, now_ms: i64) -> bool {
    let d = s.to_lowercase();
    if d == lower {
        return true;
    }
    match kind {
        FieldKind::Domain => {
            if domain_suffixes(&d).any(|c| c == lower) {
                return true;
            }
        }
        FieldKind::Text => {
            // A term or phrase is analysed into words; they must appear in
            // order (or, with a proximity slop, anywhere).
            let want: Vec<&str> = words(lower).collect();
            if !want.is_empty() {
                let have: Vec<&str> = words(&d).collect();
                let found = if slop == 0 {
                    have.windows(want.len()).any(|w| w == want.as_slice())
                } else {
                    want.iter().all(|w| have.contains(w))
                };
                if found {
                    return true;
                }
            }
        }
        FieldKind::Keyword => {}
    }
    if let (Some(a), Some(b)) = (parse_num(&d), parse_num(lower)) {
        return a == b;
    }
    // A date term covers its whole precision: `2020-01-01` is that day.
    if let (Some(ms), Some((lo, hi))) = (doc_date_ms(s), date_interval(raw, now_ms)) {
        return lo <= ms && ms <= hi;
    }
    false
}

/// A finite number in plain decimal or exponent notation; `f64::from_str`
/// alone would also accept "inf" and "nan".
fn parse_num(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty()
        || !s.bytes().any(|b| b.is_ascii_digit())
        || !s
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Which side of a range a bound sits on, as ES rounds dates per side.
#[derive(Clone, Copy)]
enum Side {
    Lower,
    Upper,
}

fn range_test(v: &Value, lower: Option<&Bound>, upper: Option<&Bound>, now_ms: i64) -> bool {
    // Each comparison mode applies only when every given bound converts;
    // otherwise the next, looser mode is tried.
    let dates = |raw: &str| date_interval(raw, now_ms);
    match v {
        Value::Number(n) => {
            let Some(x) = n.as_f64() else { return false };
            let numeric = both(lower, upper, parse_num, |y, inc, side| {
                cmp_ord(x, y, inc, side)
            });
            // Numbers compared with a date are epoch milliseconds.
            numeric
                .or_else(|| {
                    both(lower, upper, dates, |iv, inc, side| {
                        cmp_date(x as i64, iv, inc, side)
                    })
                })
                .unwrap_or(false)
        }
        Value::String(s) => {
            let as_date = doc_date_ms(s).and_then(|ms| {
                both(lower, upper, dates, |iv, inc, side| {
                    cmp_date(ms, iv, inc, side)
                })
            });
            let as_number = || {
                parse_num(s).and_then(|x| {
                    both(lower, upper, parse_num, |y, inc, side| {
                        cmp_ord(x, y, inc, side)
                    })
                })
            };
            let as_text = || {
                let d = s.to_lowercase();
                both(
                    lower,
                    upper,
                    |raw| Some(raw.to_lowercase()),
                    |y, inc, side| cmp_ord(d.as_str(), y.as_str(), inc, side),
                )
            };
            as_date.or_else(as_number).or_else(as_text).unwrap_or(false)
        }
        _ => false,
    }
}

/// Converts both bounds with `conv` and checks them with `cmp`; `None` when
/// a given bound does not convert. A missing bound is unbounded.
fn both<T>(
    lower: Option<&Bound>,
    upper: Option<&Bound>,
    conv: impl Fn(&str) -> Option<T>,
    cmp: impl Fn(T, bool, Side) -> bool,
) -> Option<bool> {
    let mut ok = true;
    for (bound, side) in [(lower, Side::Lower), (upper, Side::Upper)] {
        if let Some(b) = bound {
            ok &= cmp(conv(&b.raw)?, b.inclusive, side);
        }
    }
    Some(ok)
}

fn cmp_ord<T: PartialOrd>(x: T, y: T, inclusive: bool, side: Side) -> bool {
    match (side, inclusive) {
        (Side::Lower, true) => x >= y,
        (Side::Lower, false) => x > y,
        (Side::Upper, true) => x <= y,
        (Side::Upper, false) => x < y,
    }
}

/// `iv` is the interval a date bound covers at its precision; like ES, `gt`
/// and `lte` use its end, `gte` and `lt` its start.
fn cmp_date(ms: i64, (start, end): (i64, i64), inclusive: bool, side: Side) -> bool {
    match (side, inclusive) {
        (Side::Lower, true) => ms >= start,
        (Side::Lower, false) => ms > end,
        (Side::Upper, true) => ms <= end,
        (Side::Upper, false) => ms < start,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
}

impl Unit {
    fn from_char(c: char) -> Option<Unit> {
        Some(match c {
            'y' | 'Y' => Unit::Year,
            'M' => Unit::Month,
            'w' => Unit::Week,
            'd' => Unit::Day,
            'h' | 'H' => Unit::Hour,
            'm' => Unit::Minute,
            's' => Unit::Second,
            _ => return None,
        })
    }

    fn fixed_ms(self) -> Option<i64> {
        match self {
            Unit::Week => Some(7 * 86_400_000),
            Unit::Day => Some(86_400_000),
            Unit::Hour => Some(3_600_000),
            Unit::Minute => Some(60_000),
            Unit::Second => Some(1_000),
            Unit::Milli => Some(1),
            Unit::Year | Unit::Month => None,
        }
    }
}

fn to_naive(ms: i64) -> Option<NaiveDateTime> {
    DateTime::from_timestamp_millis(ms).map(|d| d.naive_utc())
}

fn add_units(ms: i64, unit: Unit, n: i64) -> Option<i64> {
    if let Some(step) = unit.fixed_ms() {
        return step.checked_mul(n).and_then(|d| ms.checked_add(d));
    }
    let months = match unit {
        Unit::Year => n.checked_mul(12)?,
        _ => n,
    };
    let months_u32 = u32::try_from(months.unsigned_abs()).ok()?;
    let t = to_naive(ms)?;
    let t = if months >= 0 {
        t.checked_add_months(Months::new(months_u32))?
    } else {
        t.checked_sub_months(Months::new(months_u32))?
    };
    Some(t.and_utc().timestamp_millis())
}

fn floor_to(ms: i64, unit: Unit) -> Option<i64> {
    let t = to_naive(ms)?;
    let day = t.date();
    let floored = match unit {
        Unit::Year => NaiveDate::from_ymd_opt(day.year(), 1, 1)?.and_hms_opt(0, 0, 0)?,
        Unit::Month => NaiveDate::from_ymd_opt(day.year(), day.month(), 1)?.and_hms_opt(0, 0, 0)?,
        Unit::Week => {
            let back = i64::from(day.weekday().num_days_from_monday());
            day.checked_sub_days(chrono::Days::new(back as u64))?
                .and_hms_opt(0, 0, 0)?
        }
        Unit::Day => day.and_hms_opt(0, 0, 0)?,
        Unit::Hour => day.and_hms_opt(t.hour(), 0, 0)?,
        Unit::Minute => day.and_hms_opt(t.hour(), t.minute(), 0)?,
        Unit::Second => day.and_hms_opt(t.hour(), t.minute(), t.second())?,
        Unit::Milli => return Some(ms),
    };
    Some(floored.and_utc().timestamp_millis())
}

/// Last millisecond of the `unit` containing `ms`.
fn ceil_to(ms: i64, unit: Unit) -> Option<i64> {
    add_units(floor_to(ms, unit)?, unit, 1)?.checked_sub(1)
}

/// The interval `[start, end]` (epoch ms, inclusive) a date expression
/// covers: an instant for `now` or a full timestamp, a whole day for
/// `2020-01-01`, a rounded unit for `now/d`. Supports ES date math:
/// `now-7d`, `now+1h/h`, `2020-01-01||+1M`.
fn date_interval(raw: &str, now_ms: i64) -> Option<(i64, i64)> {
    let raw = raw.trim();
    let (mut start, mut end, math) = if raw.get(..3).is_some_and(|h| h.eq_ignore_ascii_case("now"))
    {
        (now_ms, now_ms, &raw[3..])
    } else {
        let (anchor, math) = match raw.find("||") {
            Some(i) => (&raw[..i], &raw[i + 2..]),
            None => (raw, ""),
        };
        if anchor.len() > 4 && anchor.bytes().all(|b| b.is_ascii_digit()) {
            let ms: i64 = anchor.parse().ok()?;
            (ms, ms, math)
        } else {
            let (t, unit) = parse_date(anchor)?;
            let ms = t.and_utc().timestamp_millis();
            let end = if unit == Unit::Milli {
                ms
            } else {
                add_units(ms, unit, 1)?.checked_sub(1)?
            };
            (ms, end, math)
        }
    };
    let mut chars = math.chars().peekable();
    while let Some(op) = chars.next() {
        match op {
            '+' | '-' => {
                let mut digits = String::new();
                while let Some(c) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(c);
                    chars.next();
                }
                // `now+d` means one day, as in ES.
                let n: i64 = if digits.is_empty() {
                    1
                } else {
                    digits.parse().ok()?
                };
                let n = if op == '-' { -n } else { n };
                let unit = Unit::from_char(chars.next()?)?;
                start = add_units(start, unit, n)?;
                end = add_units(end, unit, n)?;
            }
            '/' => {
                let unit = Unit::from_char(chars.next()?)?;
                start = floor_to(start, unit)?;
                end = ceil_to(end, unit)?;
            }
            _ => return None,
        }
    }
    Some((start, end))
}

/// A document value counts as a date when it is at least `YYYY-MM-DD`.
fn doc_date_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    parse_date(s).map(|(t, _)| t.and_utc().timestamp_millis())
}

/// Reads `digits` ASCII digits from the front of `s`.
fn take_digits(s: &mut &str, n: usize) -> Option<u32> {
    let head = s.get(..n)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    *s = &s[n..];
    head.parse().ok()
}

/// ISO 8601 date or date-time, possibly partial (`2020`, `2020-01`,
/// `2020-01-01T10:30`), with an optional `Z` or numeric offset. Returns the
/// UTC start and the precision given.
fn parse_date(input: &str) -> Option<(NaiveDateTime, Unit)> {
    // Each field after the year: its separator and the precision it gives.
    // A field is read only when the one before it is there.
    const FIELDS: [(&[char], Unit); 5] = [
        (&['-'], Unit::Month),
        (&['-'], Unit::Day),
        (&['T', 't', ' '], Unit::Hour),
        (&[':'], Unit::Minute),
        (&[':'], Unit::Second),
    ];
    let mut s = input;
    let year = take_digits(&mut s, 4)?;
    // month, day, hour, minute, second
    let mut parts = [1, 1, 0, 0, 0];
    let mut milli = 0;
    let mut unit = Unit::Year;
    for (value, (separators, precision)) in parts.iter_mut().zip(FIELDS) {
        let Some(rest) = s.strip_prefix(separators) else {
            break;
        };
        s = rest;
        *value = take_digits(&mut s, 2)?;
        unit = precision;
    }
    if unit == Unit::Second {
        if let Some(rest) = s.strip_prefix(['.', ',']) {
            let len = rest.bytes().take_while(u8::is_ascii_digit).count();
            if len == 0 || len > 9 {
                return None;
            }
            // Keep millisecond precision; finer digits are dropped.
            let frac = &rest[..len.min(3)];
            milli = frac.parse::<u32>().ok()? * 10u32.pow(3 - frac.len() as u32);
            s = &rest[len..];
            unit = Unit::Milli;
        }
    }
    let mut offset_min: i64 = 0;
    // Only a time of day takes a zone.
    if matches!(unit, Unit::Hour | Unit::Minute | Unit::Second | Unit::Milli) {
        if let Some(rest) = s.strip_prefix(['Z', 'z']) {
            s = rest;
        } else if let Some(sign) = s.chars().next().filter(|c| *c == '+' || *c == '-') {
            s = &s[1..];
            let oh = i64::from(take_digits(&mut s, 2)?);
            let om = if let Some(rest) = s.strip_prefix(':') {
                s = rest;
                i64::from(take_digits(&mut s, 2)?)
            } else if s.is_empty() {
                0
            } else {
                i64::from(take_digits(&mut s, 2)?)
            };
            if oh > 23 || om > 59 {
                return None;
            }
            offset_min = (oh * 60 + om) * if sign == '-' { -1 } else { 1 };
        }
    }
    if !s.is_empty() {
        return None;
    }
    let [month, day, hour, minute, second] = parts;
    let local = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?
        .and_hms_milli_opt(hour, minute, second, milli)?;
    let utc = local.checked_sub_signed(chrono::TimeDelta::try_minutes(offset_min)?)?;
    Some((utc, unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// 2026-11-20T13:45:01.123Z
    const NOW: i64 = 1_795_182_301_123;

    fn doc() -> Value {
        json!({
            "task": {"time": "2026-11-20T13:45:01.123Z", "method": "api",
                     "url": "https://www.google.com/x", "domain": "www.google.com",
                     "apexDomain": "google.com", "visibility": "public", "tags": ["phishing"]},
            "page": {"domain": "www.google.com", "ip": "142.250.1.1", "asn": "AS15169",
                     "country": "US", "server": "gws", "title": "Google Search", "status": "200"},
            "domain": ["www.google.com", "fonts.gstatic.com"],
            "ip": ["142.250.1.1"],
            "hash": ["e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
            "asn": ["AS15169"],
            "country": ["us"],
            "date": "2026-11-20T13:45:01.123Z",
            "verdicts": {"malicious": false, "score": 0}
        })
    }

    fn m(q: &str) -> bool {
        m_doc(q, &doc())
    }

    fn m_doc(q: &str, d: &Value) -> bool {
        Query::parse(q)
            .unwrap_or_else(|e| panic!("{q:?} failed to parse:\n{e}"))
            .matches(d, NOW)
    }

    /// Each query, and whether it matches the sample document.
    fn expect_matches(cases: &[(&str, bool)]) {
        expect_matches_in(&doc(), cases);
    }

    /// Each query, and whether it matches `d`.
    fn expect_matches_in(d: &Value, cases: &[(&str, bool)]) {
        for &(q, want) in cases {
            assert_eq!(m_doc(q, d), want, "{q:?}");
        }
    }

    fn err(q: &str) -> QueryError {
        match Query::parse(q) {
            Ok(parsed) => panic!("{q:?} parsed unexpectedly: {parsed:?}"),
            Err(e) => e,
        }
    }

    /// The error for `q`, which must mention each of `needles`.
    fn err_with(q: &str, needles: &[&str]) -> QueryError {
        let e = err(q);
        for needle in needles {
            assert!(e.message.contains(needle), "{q}: {e}");
        }
        e
    }

    fn dated(date: &str) -> Value {
        json!({ "date": date })
    }

    #[test]
    fn top_fields_replace_the_documents_own() {
        let mut d = doc();
        d["meta"] = json!(["stored"]);
        d["labels"] = json!(["visual.brandai"]);
        d["visible"] = json!({"brandname": "PayPal"});
        let top = json!({"meta": ["searchhit.search.abc"], "usertags": ["private.x"]});
        let top = top.as_object().unwrap();
        let with = |q: &str| Query::parse(q).unwrap().matches_with(&d, top, NOW);
        assert!(with("meta:searchhit.search.abc"));
        assert!(!with("meta:stored"));
        assert!(with("usertags:PRIVATE.X AND page.domain:google.com"));
        assert!(with("_exists_:usertags AND labels:visual.brandai"));
        assert!(with("visible.brandname:paypal"));
        assert!(!with("usertags:private.y"));
        // Keyword fields: the whole value, any case.
        expect_matches_in(
            &d,
            &[
                ("labels:visual.brandai", true),
                ("labels:VISUAL.BRANDAI", true),
                ("labels:visual", false),
                ("visible.brandname:paypal", true),
                ("visible.brandname:\"PayPal\"", true),
                ("visible.brandname:pay*", true),
                ("visible.brandname:microsoft", false),
                ("meta:stored", true),
            ],
        );
    }

    #[test]
    fn now_constant_is_the_sample_time() {
        assert_eq!(doc_date_ms("2026-11-20T13:45:01.123Z"), Some(NOW));
    }

    #[test]
    fn empty_query_matches_everything() {
        for q in ["", "   ", "\t\n"] {
            let parsed = Query::parse(q).unwrap();
            assert!(parsed.matches(&doc(), NOW));
            assert!(parsed.matches(&json!({}), NOW));
            assert!(parsed.fields().is_empty());
        }
    }

    #[test]
    fn bare_terms_use_default_fields() {
        expect_matches(&[
            ("google.com", true),
            ("www.google.com", true),
            ("142.250.1.1", true),
            ("search", true),
            (
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                true,
            ),
            ("gstatic.com", true),
            // Not a default field.
            ("gws", false),
            ("phishing", false),
            ("yahoo.com", false),
        ]);
    }

    #[test]
    fn field_value_and_case_insensitivity() {
        expect_matches(&[
            ("page.server:gws", true),
            ("page.server:GWS", true),
            ("page.country:us", true),
            ("country:US", true),
            ("task.method:api", true),
            ("task.tags:phishing", true),
            ("asn:AS15169", true),
            ("asn:15169", false),
            ("task.method:manual", false),
            ("page.nonexistent:x", false),
        ]);
    }

    #[test]
    fn field_names_are_case_sensitive() {
        expect_matches(&[
            ("Page.domain:google.com", false),
            ("page.Domain:google.com", false),
            ("page.domain:GOOGLE.COM", true),
        ]);
    }

    #[test]
    fn keyword_fields_match_whole_value() {
        expect_matches(&[
            ("task.url:https\\:\\/\\/www.google.com\\/x", true),
            ("task.url:\"https://www.google.com/x\"", true),
            ("task.url:google", false),
            ("task.visibility:pub", false),
            ("page.asn:AS1516", false),
        ]);
    }

    #[test]
    fn text_fields_match_words() {
        expect_matches(&[
            ("page.title:google", true),
            ("page.title:Search", true),
            ("page.title:\"google search\"", true),
            ("page.title:\"Google Search\"", true),
            ("page.title:\"search google\"", false),
            ("page.title:\"search google\"~2", true),
            ("page.title:goo", false),
            ("page.title:goo*", true),
        ]);
        let d = json!({"page": {"title": "Sign-in | Example, Inc."}});
        expect_matches_in(
            &d,
            &[
                ("page.title:sign", true),
                ("page.title:inc", true),
                ("page.title:sign-in", true),
                ("page.title:\"sign-in | example, inc.\"", true),
                ("page.title:signin", false),
            ],
        );
    }

    #[test]
    fn boolean_operators() {
        expect_matches(&[
            ("page.server:gws AND task.method:api", true),
            ("page.server:gws AND task.method:manual", false),
            ("page.server:gws OR task.method:manual", true),
            ("page.server:nginx OR task.method:manual", false),
            ("NOT task.method:manual", true),
            ("NOT task.method:api", false),
            ("page.server:gws && task.method:api", true),
            ("page.server:nginx || task.method:api", true),
            ("!task.method:manual", true),
            ("!task.method:api", false),
            ("-task.method:manual", true),
            ("-task.method:api", false),
            ("page.server:gws -task.method:manual", true),
            ("page.server:gws -task.method:api", false),
            ("page.server:gws NOT task.method:manual", true),
            ("page.server:gws AND NOT task.method:manual", true),
            ("NOT NOT task.method:api", true),
            ("+task.method:api", true),
            // Lowercase words are terms, not operators.
            ("google.com and yahoo.com", false),
        ]);
    }

    #[test]
    fn implicit_and() {
        expect_matches(&[
            ("page.server:gws task.method:api", true),
            ("page.server:gws task.method:manual", false),
            ("google.com search", true),
            ("google.com yahoo", false),
        ]);
    }

    #[test]
    fn precedence_and_binds_tighter_than_or() {
        // a OR (b AND c)
        expect_matches(&[
            (
                "page.server:gws OR task.method:manual AND page.country:de",
                true,
            ),
            (
                "page.server:nginx OR task.method:manual AND page.country:us",
                false,
            ),
            (
                "page.server:nginx OR task.method:api AND page.country:us",
                true,
            ),
            // (a OR b) AND c with brackets
            (
                "(page.server:gws OR task.method:manual) AND page.country:de",
                false,
            ),
            // (a b) OR c with implicit AND
            ("page.server:nginx task.method:api OR page.country:us", true),
            // NOT binds to the next clause only.
            ("NOT page.server:nginx AND page.country:us", true),
        ]);
    }

    #[test]
    fn brackets() {
        expect_matches(&[
            ("(google.com)", true),
            (
                "((page.server:gws OR page.server:nginx) AND (task.method:api))",
                true,
            ),
            ("NOT (page.server:gws OR page.server:nginx)", false),
            ("-(page.server:apache OR page.server:nginx)", true),
            (" ( page.server : gws ) ", true),
        ]);
    }

    #[test]
    fn field_grouping() {
        expect_matches(&[
            ("page.domain:(yahoo.com OR google.com)", true),
            ("page.domain:(yahoo.com OR bing.com)", false),
            ("page.domain:(www.google.com AND yahoo.com)", false),
            ("page.domain:(www.google.com AND google.com)", true),
            ("page.domain:(google.com -yahoo.com)", true),
            ("page.domain:(google.com NOT yahoo.com)", true),
            ("page.domain:((yahoo.com OR bing.com) OR google.com)", true),
            // An explicit field inside the group takes precedence.
            ("page.domain:(yahoo.com OR page.server:gws)", true),
            ("page.domain:(*)", true),
            ("page.missing:(*)", false),
            // The group's field does not leak out.
            ("page.domain:(google.com) search", true),
        ]);
        assert_eq!(
            Query::parse("page.domain:(a OR b) page.server:x page.domain:c")
                .unwrap()
                .fields(),
            vec!["page.domain", "page.server"]
        );
    }

    #[test]
    fn phrases() {
        expect_matches(&[
            ("\"google search\"", true),
            ("page.server:\"gws\"", true),
            ("page.server:\"gw*\"", false),
        ]);
        let d = json!({"page": {"title": "say \"hi\" now", "server": "a*b"}});
        expect_matches_in(
            &d,
            &[
                ("page.title:\"say \\\"hi\\\" now\"", true),
                ("page.server:\"a*b\"", true),
                ("page.server:a\\*b", true),
                ("page.server:a\\*c", false),
            ],
        );
        // Phrases with reserved characters need no escaping.
        assert!(m("task.url:\"https://www.google.com/x\""));
        assert!(!m("page.title:\"\""));
    }

    #[test]
    fn wildcards() {
        expect_matches(&[
            ("page.server:g*", true),
            ("page.server:*s", true),
            ("page.server:g?s", true),
            ("page.server:g?", false),
            ("page.server:*", true),
            ("page.server:g*s*", true),
            ("page.server:x*", false),
            ("task.url:https*google*", true),
            ("task.url:google*", false),
            ("task.url:*\\/x", true),
            ("page.ip:142.250.*", true),
            ("ip:142.250.?.1", true),
            ("ip:142.25", false),
            ("domain:*.gstatic.com", true),
            ("domain:goog*", true),
            ("page.domain:*oogle.com", true),
            ("hash:e3b0*", true),
            ("verdicts.score:0*", true),
            ("verdicts.malicious:f*", true),
            ("page.server:G*", true),
        ]);
    }

    #[test]
    fn match_all_and_exists() {
        assert!(m("*"));
        assert!(m_doc("*", &json!({})));
        expect_matches(&[
            ("*:*", true),
            ("_exists_:page.domain", true),
            ("_exists_:task.tags", true),
            ("_exists_:page.missing", false),
            ("NOT _exists_:page.missing", true),
        ]);
        assert!(!m_doc("_exists_:tags", &json!({"tags": []})));
        assert!(!m_doc("_exists_:tags", &json!({"tags": null})));
        assert!(m_doc("_exists_:tags", &json!({"tags": [""]})));
        expect_matches(&[
            ("page.domain:*", true),
            ("page.missing:*", false),
            ("_exists_:verdicts", true),
        ]);
        assert_eq!(
            Query::parse("_exists_:page.ptr").unwrap().fields(),
            vec!["page.ptr"]
        );
    }

    #[test]
    fn escaped_reserved_characters() {
        let d = json!({"page": {"url": "https://a.com/p?q=1&x=(2)", "title": "a:b"}});
        expect_matches_in(
            &d,
            &[
                ("page.url:https\\:\\/\\/a.com\\/p\\?q\\=1&x\\=\\(2\\)", true),
                ("page.url:https\\:\\/\\/a.com\\/p", false),
                ("page.title:a\\:b", true),
            ],
        );
        assert!(m_doc("a\\:b", &json!({"page": {"title": "a:b"}})));
    }

    #[test]
    fn subdomain_rule() {
        expect_matches(&[
            ("page.domain:google.com", true),
            ("page.domain:www.google.com", true),
            ("domain:google.com", true),
            ("domain:gstatic.com", true),
            ("domain:com", true),
            ("task.apexDomain:google.com", true),
        ]);
        let d = json!({"page": {"domain": "notgoogle.com"}, "hostname": "mail.google.com",
                        "apexDomain": "google.com"});
        expect_matches_in(
            &d,
            &[
                ("page.domain:google.com", false),
                ("page.domain:notgoogle.com", true),
                ("hostname:google.com", true),
                ("apexDomain:google.com", true),
                ("hostname:ail.google.com", false),
                ("hostname:mail.google", false),
            ],
        );
        // Not a domain field: whole value only.
        let d = json!({"page": {"ptr": "www.google.com"}});
        assert!(!m_doc("page.ptr:google.com", &d));
        assert!(m_doc("page.ptr:www.google.com", &d));
    }

    #[test]
    fn numbers_and_booleans() {
        expect_matches(&[
            ("verdicts.score:0", true),
            ("verdicts.score:0.0", true),
            ("verdicts.score:1", false),
            ("verdicts.malicious:false", true),
            ("verdicts.malicious:FALSE", true),
            ("verdicts.malicious:true", false),
            ("page.status:200", true),
            ("page.status:200.0", true),
            ("page.status:404", false),
        ]);
    }

    #[test]
    fn numeric_ranges() {
        let d = json!({"stats": {"requests": 10}, "page": {"status": "404"}});
        for (q, want) in [
            ("stats.requests:[10 TO 20]", true),
            ("stats.requests:{10 TO 20]", false),
            ("stats.requests:[1 TO 10]", true),
            ("stats.requests:[1 TO 10}", false),
            ("stats.requests:{9 TO 11}", true),
            ("stats.requests:[* TO 10]", true),
            ("stats.requests:[11 TO *]", false),
            ("stats.requests:[* TO *]", true),
            ("stats.requests:>9", true),
            ("stats.requests:>10", false),
            ("stats.requests:>=10", true),
            ("stats.requests:<10", false),
            ("stats.requests:<=10", true),
            ("stats.requests:<10.5", true),
            ("stats.requests:[-5 TO 5]", false),
            ("stats.requests:(>5 AND <20)", true),
            ("stats.requests:(>=11 OR <=9)", false),
            ("page.status:[400 TO 499]", true),
            ("page.status:[200 TO 299]", false),
            ("page.status:>=400", true),
            ("stats.missing:[* TO *]", false),
        ] {
            assert_eq!(m_doc(q, &d), want, "{q}");
        }
    }

    #[test]
    fn string_ranges_are_lexicographic() {
        let d = json!({"page": {"country": "DE"}});
        expect_matches_in(
            &d,
            &[
                ("page.country:[a TO e]", true),
                ("page.country:[DA TO DZ]", true),
                ("page.country:{de TO dz]", false),
                ("page.country:[de TO dz]", true),
                ("page.country:>=\"de\"", true),
            ],
        );
    }

    #[test]
    fn iso_date_ranges() {
        let d = dated("2020-01-15T10:00:00.000Z");
        expect_matches_in(
            &d,
            &[
                ("date:[2020-01-01 TO 2020-02-01]", true),
                ("date:[2020-02-01 TO 2020-03-01]", false),
                ("date:[2020-01-15 TO 2020-01-15]", true),
                ("date:{2020-01-15 TO 2020-01-16]", false),
                ("date:[2020-01-14 TO 2020-01-15}", false),
                ("date:[2020-01-15T10:00:00Z TO *]", true),
                ("date:{2020-01-15T10:00:00Z TO *]", false),
                (
                    "date:[2020-01-15T10:00:00.000Z TO 2020-01-15T10:00:00.000Z]",
                    true,
                ),
                ("date:[\"2020-01-15 10:00\" TO \"2020-01-15 10:00\"]", true),
                (
                    "date:[2020-01-15T11:00:00+01:00 TO 2020-01-15T11:00:00+01:00]",
                    true,
                ),
                (
                    "date:[2020-01-15T05:00-05:00 TO 2020-01-15T05:00-0500]",
                    true,
                ),
                ("date:[2020 TO 2020]", true),
                ("date:[2020-01 TO 2020-01]", true),
                ("date:[2020-02 TO *]", false),
                ("date:>2020-01-14", true),
                ("date:>2020-01-15", false),
                ("date:>=2020-01-15", true),
                ("date:<2020-01-15", false),
                ("date:<=2020-01-15", true),
                ("date:<2020-01-15T10:00:00.001Z", true),
                ("date:>2020-01-15T09:59:59Z", true),
                ("date:>2020-01-15T09\\:59\\:59Z", true),
                ("date:[1579082400000 TO 1579082400000]", true),
                ("date:2020-01-15", true),
                ("date:2020-01-16", false),
                ("date:[2020-01-01||+14d TO 2020-01-01||+1M]", true),
                ("date:[2020-01-01||+15d TO *]", false),
                ("date:[2020-01-15T10:30||/d TO 2020-01-15T09:30||/d]", true),
            ],
        );
    }

    #[test]
    fn date_math() {
        let ago = |ms: i64| {
            dated(
                &DateTime::from_timestamp_millis(NOW - ms)
                    .unwrap()
                    .to_rfc3339(),
            )
        };
        let hour = 3_600_000;
        let day = 24 * hour;
        assert!(m_doc("date:>now-7d", &ago(6 * day)));
        assert!(!m_doc("date:>now-7d", &ago(8 * day)));
        assert!(m_doc("date:>now-1h", &ago(hour - 1)));
        assert!(!m_doc("date:>now-1h", &ago(hour + 1)));
        assert!(!m_doc("date:>now-1h", &ago(hour)));
        assert!(m_doc("date:>=now-1h", &ago(hour)));
        assert!(m_doc("date:>now-30m", &ago(29 * 60_000)));
        assert!(!m_doc("date:>now-30m", &ago(31 * 60_000)));
        assert!(m_doc("date:>now-1w", &ago(6 * day)));
        assert!(!m_doc("date:>now-1w", &ago(8 * day)));
        assert!(m_doc("date:>now-1M", &ago(29 * day)));
        assert!(!m_doc("date:>now-1M", &ago(32 * day)));
        assert!(m_doc("date:>now-1y", &ago(364 * day)));
        assert!(!m_doc("date:>now-1y", &ago(366 * day)));
        assert!(m_doc("date:<now", &ago(1)));
        assert!(!m_doc("date:<now", &ago(-1)));
        assert!(m_doc("date:<=now", &ago(0)));
        assert!(m_doc("date:[now-1d TO now]", &ago(hour)));
        assert!(m_doc("date:[now-1d TO now+1d]", &ago(-hour)));
        assert!(!m_doc("date:[now-1d TO now]", &ago(-hour)));
        // `M` is month, `m` minute.
        assert!(m_doc("date:>now-2m", &ago(60_000)));
        assert!(!m_doc("date:>now-2m", &ago(3 * 60_000)));
        assert!(m_doc("date:>now-2M", &ago(3 * 60_000)));
        // The sample document is dated exactly now.
        expect_matches(&[
            ("date:>now-7d", true),
            ("date:[now-1h TO now]", true),
            ("date:<now-1h", false),
            ("task.time:>now-1d", true),
        ]);
    }

    #[test]
    fn date_math_rounding() {
        // NOW is 2026-11-20T13:45:01.123Z, a Friday.
        let start_of_day = dated("2026-11-20T00:00:00.000Z");
        let end_of_day = dated("2026-11-20T23:59:59.999Z");
        let yesterday = dated("2026-11-19T23:59:59.999Z");
        assert!(m_doc("date:>=now/d", &start_of_day));
        assert!(!m_doc("date:>=now/d", &yesterday));
        assert!(m_doc("date:<=now/d", &end_of_day));
        assert!(!m_doc("date:<now/d", &start_of_day));
        assert!(m_doc("date:<now/d", &yesterday));
        assert!(!m_doc("date:>now/d", &end_of_day));
        assert!(m_doc("date:>now/d", &dated("2026-11-21T00:00:00.000Z")));
        assert!(m_doc("date:[now-1d/d TO now/d]", &yesterday));
        assert!(!m_doc("date:[now/d TO now/d]", &yesterday));
        assert!(m_doc("date:>=now/w", &dated("2026-11-16T00:00:00Z")));
        assert!(!m_doc("date:>=now/w", &dated("2026-11-15T23:59:59Z")));
        assert!(m_doc("date:>=now/M", &dated("2026-11-01T00:00:00Z")));
        assert!(m_doc("date:>=now/y", &dated("2026-01-01T00:00:00Z")));
        assert!(!m_doc("date:>=now/y", &dated("2025-12-31T23:59:59Z")));
        assert!(m_doc("date:>=now/h", &dated("2026-11-20T13:00:00Z")));
        assert!(m_doc("date:>=now-1h/h", &dated("2026-11-20T12:00:00Z")));
        assert!(!m_doc("date:>=now/m", &dated("2026-11-20T13:44:59Z")));
    }

    #[test]
    fn date_interval_units() {
        assert_eq!(date_interval("now", NOW), Some((NOW, NOW)));
        assert_eq!(
            date_interval("now-1d", NOW),
            Some((NOW - 86_400_000, NOW - 86_400_000))
        );
        let (lo, hi) = date_interval("2020-01-01", 0).unwrap();
        assert_eq!(hi - lo, 86_400_000 - 1);
        let (lo, hi) = date_interval("2020-02", 0).unwrap();
        assert_eq!(hi - lo + 1, 29 * 86_400_000);
        // Month arithmetic clamps to the month's last day.
        let (lo, _) = date_interval("2020-01-31||+1M", 0).unwrap();
        assert_eq!(Some(lo), doc_date_ms("2020-02-29T00:00:00Z"));
        assert!(date_interval("now-1x", NOW).is_none());
        assert!(date_interval("now-", NOW).is_none());
        assert!(date_interval("2020-13-01", NOW).is_none());
        assert!(date_interval("2020-01-01T25:00", NOW).is_none());
        assert!(date_interval("yesterday", NOW).is_none());
        assert!(date_interval("now-99999999999999999999d", NOW).is_none());
        assert!(date_interval("now+999999999y", NOW).is_none());
    }

    #[test]
    fn paths_arrays_and_dotted_keys() {
        let d = json!({
            "requests": [{"response": {"asn": "AS1"}}, {"response": {"asn": ["AS2", "AS3"]}}],
            "page.domain": "flat.example.com",
            "nested": [[{"x": "deep"}]]
        });
        expect_matches_in(
            &d,
            &[
                ("requests.response.asn:AS1", true),
                ("requests.response.asn:as3", true),
                ("requests.response.asn:AS4", false),
                ("page.domain:example.com", true),
                ("nested.x:deep", true),
                ("example.com", true),
            ],
        );
    }

    #[test]
    fn fuzzy_and_boost() {
        expect_matches(&[
            ("page.server:gws^2", true),
            ("page.server:gws^1.5 AND task.method:api", true),
            ("(page.server:gws)^2", true),
            ("page.title:gogle~", true),
            ("page.title:gogle~1", true),
            ("page.title:gogle~0", false),
            ("page.title:gxxgle~1", false),
            ("page.title:gxxgle~2", true),
            ("page.domain:gogle.com~1", true),
        ]);
    }

    #[test]
    fn fields_in_order_deduplicated() {
        let q = Query::parse(
            "page.domain:x AND (task.method:api OR page.domain:y) NOT verdicts.score:>5 _exists_:page.ptr date:[now-1d TO now] bare",
        )
        .unwrap();
        assert_eq!(
            q.fields(),
            vec![
                "page.domain",
                "task.method",
                "verdicts.score",
                "page.ptr",
                "date"
            ]
        );
        assert!(Query::parse("google.com").unwrap().fields().is_empty());
    }

    #[test]
    fn field_name_wildcards_are_errors() {
        for q in [
            "page.*:x",
            "*:x",
            "pa?e.domain:x",
            "_exists_:page.*",
            "a AND p*:x",
        ] {
            err_with(q, &["wildcard", "1:"]);
        }
    }

    #[test]
    fn malformed_queries() {
        for q in [
            "page.domain:(",
            "AND",
            "OR",
            "NOT",
            "\"unterminated",
            "page.title:\"unterminated",
            "a:[1 TO",
            "a:[1 TO 5",
            "a:[1 5]",
            "a:[1 TO 5) ",
            "a AND",
            "a OR OR b",
            "(a",
            "a)",
            "page.domain:",
            "page.url:https://x",
            "-",
            "a ^",
            "trailing\\",
            ":x",
            "_exists_:(a OR b)",
            "a:b:c",
        ] {
            let e = err_with(q, &["-->"]);
            assert!(!e.message.is_empty());
        }
        err_with("page.domain:(", &["1:14"]);
        err_with("\"unterminated", &["closing `\"`"]);
        err_with("a:[1 TO", &["expected"]);
        err_with("AND", &["1:1"]);
    }

    #[test]
    fn query_can_be_shared_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Query>();
        assert_send_sync::<QueryError>();
    }

    #[test]
    fn error_type_traits() {
        let e = err("(");
        assert_eq!(e.to_string(), e.message);
        let boxed: Box<dyn std::error::Error> = Box::new(e.clone());
        assert_eq!(boxed.to_string(), e.message);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(err(&deep).message.contains("nested"));
        for open in ["(", "a:(", "NOT -a:("] {
            let ok = format!("{}a{}", open.repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
            assert!(Query::parse(&ok).is_ok(), "{open}");
            assert!(Query::parse(&open.repeat(MAX_DEPTH)).is_err(), "{open}");
        }
        // Brackets inside phrases and escapes do not count.
        let quoted = format!("\"{}\"", "(".repeat(1000));
        assert!(Query::parse(&quoted).is_ok());
        let escaped = "\\(".repeat(1000);
        assert!(Query::parse(&escaped).is_ok());
        let nots = "NOT ".repeat(10_000) + "a";
        assert!(Query::parse(&nots).unwrap().matches(&doc(), NOW) == m("NOT NOT a"));
    }

    /// Every query the Python package's builder renders for its tests (values with spaces,
    /// quotes, `/`, `:`, unicode, keywords): the grammar takes each one.
    #[test]
    fn the_python_query_builder_renders_only_what_parses() {
        let file = include_str!("../tests/rendered_queries.txt");
        let mut n = 0;
        for line in file.lines() {
            let mut q = String::new();
            let mut chars = line.chars();
            while let Some(c) = chars.next() {
                match (c, c == '\\') {
                    (_, true) => match chars.next() {
                        Some('n') => q.push('\n'),
                        Some(other) => q.push(other),
                        None => panic!("a line ends in an escape: {line:?}"),
                    },
                    (c, false) => q.push(c),
                }
            }
            if let Err(e) = Query::parse(&q) {
                panic!("{q:?} is refused: {e:?}");
            }
            n += 1;
        }
        assert!(n > 100, "only {n} rendered queries");
    }

    #[test]
    fn parse_never_panics_on_random_input() {
        const ALPHABET: &[&str] = &[
            "a",
            "b",
            "7",
            ".",
            "*",
            "?",
            ":",
            "\\",
            "/",
            "\"",
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            " ",
            " ",
            "-",
            "+",
            "!",
            "^",
            "~",
            ">",
            "<",
            "=",
            "&",
            "|",
            "AND",
            "OR",
            "NOT",
            "TO",
            "now",
            "now-7d",
            "2020-01-01",
            "page.domain",
            "_exists_",
            "é",
            "\u{3000}",
            "&&",
            "||",
            "\t",
            "1",
            "||+1M/d",
            "T10:00:00Z",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let sample = doc();
        let mut parsed = 0;
        for _ in 0..5000 {
            let len = (next() % 16) as usize;
            let q: String = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            if let Ok(query) = Query::parse(&q) {
                parsed += 1;
                query.matches(&sample, NOW);
                query.fields();
            }
        }
        // Enough valid queries were produced to exercise matching too.
        assert!(parsed > 100, "only {parsed} parsed");
    }

    #[test]
    fn shard_queries_name_the_uuid_heads() {
        let heads = |q: &str| Query::parse(q).unwrap().uuid_heads();
        assert_eq!(heads("task.uuid:(0* OR 1*)"), Some(vec!['0', '1']));
        assert_eq!(
            heads("page.domain:x.com AND task.uuid:(A* OR b*)"),
            Some(vec!['a', 'b'])
        );
        assert_eq!(
            heads("(task.uuid:(0* OR 1*)) AND task.uuid:1*"),
            Some(vec!['1'])
        );
        assert_eq!(heads("page.domain:x.com OR task.uuid:0*"), None);
        assert_eq!(heads("task.uuid:*0"), None);
        assert_eq!(heads("NOT task.uuid:0*"), None);
        assert_eq!(heads("page.url:0*"), None);
        assert_eq!(heads(""), None);
    }
}

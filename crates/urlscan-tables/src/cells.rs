//! Values and cells: how a JSON value is read for a column of each type
//! (the models' rules: missing and null read as null, numbers may come as
//! strings, date-times as epoch milliseconds), and the column builders they
//! are written into.
use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, ListBuilder,
    StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::ArrayRef;
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime};
use urlscan_core::models::index::{
    parsed_array_members, parsed_array_spans, parsed_member, parsed_object_index,
};
use urlscan_core::models::json::span;
use urlscan_core::{Error, Result};

use crate::schema::Ty;

/// Where a row is in its answer (`results[3]`), for error messages; made
/// into text only when a value is wrong.
pub trait At {
    fn path(&self) -> String;
}

/// Element `i` of the list under a key (`results[3]`), or the answer itself (`key` "").
pub struct Item<'a>(pub &'a str, pub usize);

impl At for Item<'_> {
    fn path(&self) -> String {
        if self.0.is_empty() {
            String::new()
        } else {
            format!("{}[{}]", self.0, self.1)
        }
    }
}

impl At for String {
    fn path(&self) -> String {
        self.to_string()
    }
}

pub(crate) fn join(base: &str, rest: &str) -> String {
    match (base.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => base.to_string(),
        _ => format!("{base}.{rest}"),
    }
}

pub(crate) fn wrong(path: String, what: &str, v: &[u8]) -> Error {
    let path = if path.is_empty() {
        "(document)".into()
    } else {
        path
    };
    Error::Decode(format!("{path}: expected {what}, found {}", span::found(v)))
}

pub(crate) fn is_null(v: &[u8]) -> bool {
    v == b"null"
}

/// A number, or a numeric string (as the models' `_int` and `_float` read them).
pub(crate) fn number(v: &[u8]) -> Option<f64> {
    match v.first()? {
        b'"' => span::text(v)?.trim().parse::<f64>().ok(),
        b'-' | b'0'..=b'9' => std::str::from_utf8(v).ok()?.parse::<f64>().ok(),
        _ => None,
    }
}

pub(crate) fn int(v: &[u8]) -> Option<i64> {
    if let Some(i) = std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
    {
        return Some(i);
    }
    let f = number(v)?;
    // Truncated like Python's int(float): finite values only.
    (f.is_finite() && f.abs() < 9.2e18).then_some(f as i64)
}

/// The service's own layout, `"YYYY-MM-DDTHH:MM:SS.mmmZ"` (quotes
/// included), as microseconds since the epoch, read without a general
/// parser; None for anything else (the general rules then apply).
pub(crate) fn service_time(v: &[u8]) -> Option<i64> {
    let &[b'"', y0, y1, y2, y3, b'-', mo0, mo1, b'-', d0, d1, b'T', h0, h1, b':', mi0, mi1, b':', s0, s1, b'.', f0, f1, f2, b'Z', b'"'] =
        v
    else {
        return None;
    };
    let n = |ds: &[u8]| -> Option<i64> {
        ds.iter().try_fold(0i64, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
        })
    };
    let (year, month, day) = (n(&[y0, y1, y2, y3])?, n(&[mo0, mo1])?, n(&[d0, d1])?);
    let (hour, minute, second) = (n(&[h0, h1])?, n(&[mi0, mi1])?, n(&[s0, s1])?);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // chrono checks the day against its month (and leap years).
    let date = NaiveDate::from_ymd_opt(year as i32, month as u32, day as u32)?;
    let days = i64::from(date.num_days_from_ce()) - 719_163;
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second;
    Some(secs * 1_000_000 + n(&[f0, f1, f2])? * 1000)
}

/// An ISO 8601 date-time (`...Z`, an offset, or none for UTC; a day alone
/// is its midnight) or epoch milliseconds, as microseconds since the epoch.
pub(crate) fn micros(v: &[u8]) -> Option<Option<i64>> {
    if let Some(us) = service_time(v) {
        return Some(Some(us));
    }
    if v.first() == Some(&b'"') {
        let s = span::text(v)?;
        let s = s.trim();
        if s.is_empty() {
            return Some(None);
        }
        if let Ok(d) = DateTime::parse_from_rfc3339(s) {
            return Some(Some(d.timestamp_micros()));
        }
        for f in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
            if let Ok(d) = NaiveDateTime::parse_from_str(s, f) {
                return Some(Some(d.and_utc().timestamp_micros()));
            }
        }
        if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
            return Some(Some(d.and_hms_opt(0, 0, 0)?.and_utc().timestamp_micros()));
        }
        return None;
    }
    let ms = number(v)?;
    let us = ms * 1000.0;
    (us.is_finite() && us.abs() < 9.2e18).then_some(Some(us as i64))
}

/// A day (`YYYY-MM-DD`, or the day of a date-time) as days since the epoch.
pub(crate) fn days(v: &[u8]) -> Option<Option<i32>> {
    let s = span::text(v)?;
    let s = s.trim();
    if s.is_empty() {
        return Some(None);
    }
    let day = NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d").ok()?;
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1)?;
    Some(Some(i32::try_from((day - epoch).num_days()).ok()?))
}

/// A column's builder.
pub(crate) enum Cells {
    Str(StringBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    Time(TimestampMicrosecondBuilder),
    Date(Date32Builder),
    List(ListBuilder<StringBuilder>),
    /// An inferred column's values until its type is decided: the JSON text
    /// of each (None for missing or null).
    Raw(Vec<Option<String>>),
}

impl Cells {
    pub(crate) fn new(ty: Ty, cap: usize) -> Cells {
        match ty {
            Ty::Str | Ty::Json | Ty::Report => {
                Cells::Str(StringBuilder::with_capacity(cap, cap * 16))
            }
            Ty::Int | Ty::Count => Cells::Int(Int64Builder::with_capacity(cap)),
            Ty::Float => Cells::Float(Float64Builder::with_capacity(cap)),
            Ty::Bool => Cells::Bool(BooleanBuilder::with_capacity(cap)),
            Ty::Time => {
                Cells::Time(TimestampMicrosecondBuilder::with_capacity(cap).with_timezone("UTC"))
            }
            Ty::Date => Cells::Date(Date32Builder::with_capacity(cap)),
            Ty::StrList => Cells::List(ListBuilder::new(StringBuilder::new())),
            Ty::Infer => Cells::Raw(Vec::with_capacity(cap)),
        }
    }

    /// A builder of `ty` with room for a batch like the one `sizes` measured.
    pub(crate) fn sized(ty: Ty, (rows, bytes, items): (usize, usize, usize)) -> Cells {
        match ty {
            Ty::Str | Ty::Json | Ty::Report => {
                Cells::Str(StringBuilder::with_capacity(rows, bytes))
            }
            Ty::StrList => Cells::List(ListBuilder::with_capacity(
                StringBuilder::with_capacity(items, bytes),
                rows,
            )),
            _ => Cells::new(ty, rows),
        }
    }

    /// Rows, bytes of text and list items held (what `sized` reserves).
    pub(crate) fn sizes(&self) -> (usize, usize, usize) {
        match self {
            Cells::Str(b) => (b.len(), b.values_slice().len(), 0),
            Cells::List(b) => (
                b.len(),
                b.values_ref().values_slice().len(),
                b.values_ref().len(),
            ),
            Cells::Int(b) => (b.len(), 0, 0),
            Cells::Float(b) => (b.len(), 0, 0),
            Cells::Bool(b) => (b.len(), 0, 0),
            Cells::Time(b) => (b.len(), 0, 0),
            Cells::Date(b) => (b.len(), 0, 0),
            Cells::Raw(v) => (v.len(), 0, 0),
        }
    }

    pub(crate) fn null(&mut self) {
        match self {
            Cells::Str(b) => b.append_null(),
            Cells::Int(b) => b.append_null(),
            Cells::Float(b) => b.append_null(),
            Cells::Bool(b) => b.append_null(),
            Cells::Time(b) => b.append_null(),
            Cells::Date(b) => b.append_null(),
            Cells::List(b) => b.append_null(),
            Cells::Raw(v) => v.push(None),
        }
    }

    pub(crate) fn finish(&mut self) -> ArrayRef {
        match self {
            Cells::Str(b) => Arc::new(b.finish()),
            Cells::Int(b) => Arc::new(b.finish()),
            Cells::Float(b) => Arc::new(b.finish()),
            Cells::Bool(b) => Arc::new(b.finish()),
            Cells::Time(b) => Arc::new(b.finish()),
            Cells::Date(b) => Arc::new(b.finish()),
            Cells::List(b) => Arc::new(b.finish()),
            Cells::Raw(_) => unreachable!("an inferred column is typed before it is finished"),
        }
    }
}

/// A column's cells with its type, for `put` (inferred columns being typed).
pub(crate) struct CellsRef<'a> {
    cells: &'a mut Cells,
    ty: Ty,
    exact: bool,
}

pub(crate) fn c_ref(cells: &mut Cells, ty: Ty, exact: bool) -> CellsRef<'_> {
    CellsRef { cells, ty, exact }
}

/// The type an inferred column takes from its first values: strings,
/// booleans, whole numbers or numbers when all are; JSON text otherwise (or
/// strings when all are null). The flag: whole numbers, read exactly.
pub(crate) fn infer(values: &[Option<String>]) -> (Ty, bool) {
    let mut kinds = values.iter().flatten().map(|v| match v.as_bytes()[0] {
        b'"' => 0u8,
        b't' | b'f' => 1,
        b'{' | b'[' => 4,
        _ if v.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) => 3,
        _ => 2,
    });
    let Some(first) = kinds.next() else {
        return (Ty::Str, false);
    };
    let mut kind = first;
    for k in kinds {
        kind = match (kind, k) {
            (a, b) if a == b => a,
            (2 | 3, 2 | 3) => 3,
            _ => 4,
        };
    }
    match kind {
        0 => (Ty::Str, false),
        1 => (Ty::Bool, false),
        2 => (Ty::Int, true),
        3 => (Ty::Float, false),
        _ => (Ty::Json, false),
    }
}

/// The elements of the list `v` (`{}` reads as an empty list, as the models read it).
pub(crate) fn list_items(v: &[u8], path: &dyn Fn() -> String) -> Result<Vec<(usize, usize)>> {
    match v.first() {
        Some(b'[') => parsed_array_spans(v).ok_or_else(|| wrong(path(), "a list", v)),
        Some(b'{') if parsed_object_index(v).is_some_and(|i| i.is_empty()) => Ok(Vec::new()),
        _ => Err(wrong(path(), "a list", v)),
    }
}

/// `path[i].k1.k2` for element `i` of a list and the keys read in it.
pub(crate) fn element_path(path: &dyn Fn() -> String, i: usize, keys: &[String]) -> String {
    let mut p = format!("{}[{i}]", path());
    for k in keys {
        p.push('.');
        p.push_str(k);
    }
    p
}

/// The value at `keys` in each element of the list `v` into a list cell:
/// a string as its text, another value as its JSON text, missing or null as
/// null. A list given as `{}` is empty; an element (or a value on the way)
/// that is not an object where a key is read is an error naming its path.
/// The bytes appended.
pub(crate) fn put_each(
    b: &mut ListBuilder<StringBuilder>,
    keys: &[String],
    v: &[u8],
    path: &dyn Fn() -> String,
) -> Result<usize> {
    // The first key is found as the list is walked (the elements' bytes crossed once).
    let items = match keys.first() {
        Some(first) if v.first() == Some(&b'[') => {
            parsed_array_members(v, first).ok_or_else(|| wrong(path(), "a list", v))?
        }
        _ => list_items(v, path)?
            .into_iter()
            .map(|s| (s, None))
            .collect(),
    };
    let mut bytes = 0;
    for (i, ((x, y), first)) in items.into_iter().enumerate() {
        let mut item = &v[x..y];
        for (depth, key) in keys.iter().enumerate() {
            if is_null(item) {
                break;
            }
            let here = || element_path(path, i, &keys[..depth]);
            if item.first() != Some(&b'{') {
                return Err(wrong(here(), "an object", item));
            }
            let found = match first {
                Some(found) if depth == 0 => Some(found),
                _ => parsed_member(item, key),
            };
            item = match found {
                Some(Some((s, e))) => &item[s..e],
                Some(None) => b"null",
                None => return Err(wrong(here(), "an object", item)),
            };
        }
        if is_null(item) {
            b.values().append_null();
            continue;
        }
        let text = if item.first() == Some(&b'"') {
            // (None: an escape that is no text, a lone surrogate.)
            span::text(item).ok_or_else(|| wrong(element_path(path, i, keys), "a string", item))?
        } else {
            Cow::Borrowed(std::str::from_utf8(item).map_err(|_| wrong(path(), "JSON", item))?)
        };
        bytes += text.len();
        b.values().append_value(text);
    }
    b.append(true);
    Ok(bytes)
}

/// Decode one present, non-null value into a column.
pub(crate) fn put(col: &mut CellsRef<'_>, v: &[u8], path: &dyn Fn() -> String) -> Result<()> {
    let exact = col.exact;
    match (&mut *col.cells, col.ty) {
        (Cells::Str(b), Ty::Str) => {
            let s = (v.first() == Some(&b'"'))
                .then(|| span::text(v))
                .flatten()
                .ok_or_else(|| wrong(path(), "a string", v))?;
            b.append_value(s);
        }
        (Cells::Str(b), Ty::Report) => {
            let s = (v.first() == Some(&b'"'))
                .then(|| span::text(v))
                .flatten()
                .ok_or_else(|| wrong(path(), "a string", v))?;
            // The report page's link, written into the builder (no string a row).
            const API: &str = "/api/v1/result/";
            match s.find(API) {
                Some(i) => {
                    use std::fmt::Write;
                    for piece in [&s[..i], "/result/", &s[i + API.len()..]] {
                        b.write_str(piece).expect("a builder takes text");
                    }
                    b.append_value("");
                }
                None => b.append_value(s),
            }
        }
        (Cells::Str(b), _) => {
            // JSON text, as sent (valid JSON: the answer was parsed).
            b.append_value(std::str::from_utf8(v).map_err(|_| wrong(path(), "JSON", v))?);
        }
        (Cells::Int(b), Ty::Count) => b.append_value(list_items(v, path)?.len() as i64),
        (Cells::Int(b), _) => {
            if v.first() == Some(&b't') || v.first() == Some(&b'f') {
                return Err(wrong(path(), "a number", v));
            }
            let n = if exact {
                std::str::from_utf8(v)
                    .ok()
                    .and_then(|s| s.parse::<i64>().ok())
            } else {
                int(v)
            };
            let what = if exact {
                "a whole number (the column's type, from its first values)"
            } else {
                "a number"
            };
            b.append_value(n.ok_or_else(|| wrong(path(), what, v))?);
        }
        (Cells::Float(b), _) => {
            b.append_value(number(v).ok_or_else(|| wrong(path(), "a number", v))?);
        }
        (Cells::Bool(b), _) => match v {
            b"true" => b.append_value(true),
            b"false" => b.append_value(false),
            _ => return Err(wrong(path(), "a boolean", v)),
        },
        (Cells::Time(b), _) => {
            if !matches!(v.first(), Some(b'"' | b'-' | b'0'..=b'9')) {
                return Err(wrong(path(), "a date-time", v));
            }
            match micros(v).ok_or_else(|| wrong(path(), "a date-time", v))? {
                Some(us) => b.append_value(us),
                None => b.append_null(),
            }
        }
        (Cells::Date(b), _) => {
            if v.first() != Some(&b'"') {
                return Err(wrong(path(), "a date", v));
            }
            match days(v).ok_or_else(|| wrong(path(), "a date", v))? {
                Some(d) => b.append_value(d),
                None => b.append_null(),
            }
        }
        (Cells::List(b), _) => {
            for (i, (x, y)) in list_items(v, path)?.into_iter().enumerate() {
                let item = &v[x..y];
                if is_null(item) {
                    b.values().append_null();
                    continue;
                }
                let s = (item.first() == Some(&b'"'))
                    .then(|| span::text(item))
                    .flatten()
                    .ok_or_else(|| wrong(element_path(path, i, &[]), "a string", item))?;
                b.values().append_value(s);
            }
            b.append(true);
        }
        (Cells::Raw(values), _) => values.push(Some(String::from_utf8_lossy(v).into_owned())),
    }
    Ok(())
}

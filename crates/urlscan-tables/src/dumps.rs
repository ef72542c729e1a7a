//! Data-dump files read as they are served, without unpacking them to disk.
//!
//! `search` and `api` files are gzipped newline-delimited JSON (a search hit
//! or a result per line); `screenshots` and `dom` files are gzipped tar
//! archives of `{uuid}.png` / `{uuid}.html`. A file may be several gzip
//! members one after the other (flate2's `MultiGzDecoder` reads them as one
//! stream), and a tar stream may be several archives (zero blocks between
//! them are skipped).
//!
//! Memory is bounded by the reader's limits, not by the file: a line longer
//! than `max_line_bytes` or an archive member larger than
//! `max_member_bytes` is a `Decode` error naming the file and the line or
//! member, raised before more than the limit is held.
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver};

use flate2::read::MultiGzDecoder;
use urlscan_core::{Error, Result};

/// What a dump file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Search,
    Api,
    Screenshots,
    Dom,
}

impl Kind {
    pub const NAMES: [&'static str; 4] = ["search", "api", "screenshots", "dom"];

    pub fn named(name: &str) -> Option<Kind> {
        Some(match name {
            "search" => Kind::Search,
            "api" => Kind::Api,
            "screenshots" => Kind::Screenshots,
            "dom" => Kind::Dom,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Search => "search",
            Kind::Api => "api",
            Kind::Screenshots => "screenshots",
            Kind::Dom => "dom",
        }
    }

    /// The kind a dump path names (`hours/search/20261120/20261120-13.gz`):
    /// the first folder that is a kind's name.
    pub fn of_path(path: &Path) -> Option<Kind> {
        path.iter().filter_map(|p| p.to_str()).find_map(Kind::named)
    }

    /// Whether the file holds JSON lines (else a tar archive).
    pub fn is_lines(self) -> bool {
        matches!(self, Kind::Search | Kind::Api)
    }

    /// The kind a file's content shows (a file renamed or downloaded out of
    /// its dump folder): a tar archive of `.png` or `.html` members, or JSON
    /// lines of search hits (`_id`, `sort`) or results (`data`, `lists`).
    /// None when the start of the file does not tell.
    pub fn sniff(path: &Path) -> Result<Option<Kind>> {
        // Enough for a tar header, or a result line's top-level keys.
        const HEAD: u64 = 1 << 20;
        let mut head = Vec::new();
        open(path)?
            .take(HEAD)
            .read_to_end(&mut head)
            .map_err(|e| broken(path, e))?;
        if head.len() >= 512 && &head[257..262] == b"ustar" {
            let name = String::from_utf8_lossy(&head[..100]);
            let name = name.trim_end_matches('\0');
            return Ok(if name.ends_with(".png") {
                Some(Kind::Screenshots)
            } else if name.ends_with(".html") || name.ends_with(".htm") {
                Some(Kind::Dom)
            } else {
                None
            });
        }
        let first = head
            .split(|b| *b == b'\n')
            .find(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
            .unwrap_or(&[]);
        let text = String::from_utf8_lossy(first);
        let has = |key: &str| text.contains(&format!("\"{key}\":"));
        // A result of a few megabytes may not reach its `lists` in the first
        // megabyte: its first member (`data`, holding `requests`) tells too.
        let opens_with_data = text
            .trim_start()
            .strip_prefix('{')
            .map(str::trim_start)
            .is_some_and(|t| t.starts_with("\"data\""));
        Ok(if has("_id") && has("sort") {
            Some(Kind::Search)
        } else if opens_with_data || (has("data") && (has("lists") || has("verdicts"))) {
            Some(Kind::Api)
        } else {
            None
        })
    }
}

/// Limits on what one read holds in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest line of a `search` or `api` file (a result of the
    /// service is up to a few megabytes).
    pub max_line_bytes: usize,
    /// The largest member of a `screenshots` or `dom` archive.
    pub max_member_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_line_bytes: 64 << 20,
            max_member_bytes: 64 << 20,
        }
    }
}

fn open(path: &Path) -> Result<MultiGzDecoder<BufReader<File>>> {
    let file = File::open(path)
        .map_err(|e| Error::Validation(format!("cannot read {}: {e}", path.display())))?;
    Ok(MultiGzDecoder::new(BufReader::with_capacity(1 << 16, file)))
}

fn broken(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Decode(format!("data dump {}: {e}", path.display()))
}

/// The lines of a `search` or `api` dump.
pub struct Lines {
    path: std::path::PathBuf,
    reader: BufReader<MultiGzDecoder<BufReader<File>>>,
    /// Lines read so far (1-based numbers in errors).
    line: u64,
    max_line: usize,
}

impl Lines {
    pub fn open(path: &Path, limits: Limits) -> Result<Lines> {
        Ok(Lines {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 16, open(path)?),
            line: 0,
            max_line: limits.max_line_bytes,
        })
    }

    /// The next line into `buf` (newline included): the bytes taken, 0 at
    /// the end. A line past `max_line` is an error before it is held whole.
    fn read_line(&mut self, buf: &mut Vec<u8>) -> Result<usize> {
        let mut taken = 0;
        loop {
            let chunk = self.reader.fill_buf().map_err(|e| broken(&self.path, e))?;
            if chunk.is_empty() {
                return Ok(taken);
            }
            let (used, ends) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let content = buf.len() + used - usize::from(ends);
            if content > self.max_line {
                return Err(Error::Decode(format!(
                    "data dump {} line {}: longer than max_line_bytes ({} bytes); give a larger max_line_bytes to read it",
                    self.path.display(),
                    self.line + 1,
                    self.max_line
                )));
            }
            buf.extend_from_slice(&chunk[..used]);
            self.reader.consume(used);
            taken += used;
            if ends {
                return Ok(taken);
            }
        }
    }

    /// Up to `max` lines that are not blank: (line number, bytes without the
    /// newline), fewer once they hold `max_bytes` (at least one line, so a
    /// batch of full results stays bounded however big each is). Empty at
    /// the end.
    pub fn next_batch(&mut self, max: usize, max_bytes: usize) -> Result<Vec<(u64, Vec<u8>)>> {
        let mut out = Vec::with_capacity(max.min(4096));
        let mut bytes = 0;
        while out.len() < max && bytes < max_bytes {
            let mut buf = Vec::new();
            let n = self.read_line(&mut buf)?;
            if n == 0 {
                break;
            }
            self.line += 1;
            while buf.last().is_some_and(|b| b.is_ascii_whitespace()) {
                buf.pop();
            }
            if !buf.is_empty() {
                bytes += buf.len();
                out.push((self.line, buf));
            }
        }
        Ok(out)
    }
}

/// The members of a `screenshots` or `dom` dump: (name, bytes), read on a
/// thread of their own and handed over a few at a time (memory stays
/// bounded by the largest member, not the archive).
pub struct Members {
    rx: Receiver<Result<(String, Vec<u8>)>>,
}

impl Members {
    pub fn open(path: &Path, limits: Limits) -> Result<Members> {
        let gz = open(path)?;
        let max = limits.max_member_bytes;
        let path = path.to_path_buf();
        let (tx, rx) = sync_channel(4);
        std::thread::Builder::new()
            .name("urlscan-dump".into())
            .spawn(move || {
                let mut archive = tar::Archive::new(gz);
                // Several archives one after the other read as one.
                archive.set_ignore_zeros(true);
                let entries = match archive.entries() {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = tx.send(Err(broken(&path, e)));
                        return;
                    }
                };
                for entry in entries {
                    let item = entry.map_err(|e| broken(&path, e)).and_then(|mut e| {
                        let name = e
                            .path()
                            .map_err(|x| broken(&path, x))?
                            .to_string_lossy()
                            .into_owned();
                        if e.size() > max {
                            return Err(broken(
                                &path,
                                format!(
                                    "member {name} is {} bytes, more than max_member_bytes ({max}); give a larger max_member_bytes to read it",
                                    e.size()
                                ),
                            ));
                        }
                        let mut data = Vec::with_capacity(e.size() as usize);
                        // The header's size bounds the read; `take` holds it there whatever follows.
                        (&mut e).take(max).read_to_end(&mut data).map_err(|x| broken(&path, x))?;
                        Ok((name, data))
                    });
                    let failed = item.is_err();
                    // The reader went away (dropped): stop.
                    if tx.send(item).is_err() || failed {
                        return;
                    }
                }
            })
            .map_err(|e| Error::Internal(format!("cannot start a reader thread: {e}")))?;
        Ok(Members { rx })
    }

    /// The next member (directories and other entries without data skipped
    /// by the caller), or None at the end.
    pub fn next_member(&mut self) -> Result<Option<(String, Vec<u8>)>> {
        match self.rx.recv() {
            Ok(item) => item.map(Some),
            Err(_) => Ok(None),
        }
    }
}

/// The uuid a member's name gives (`a/b/{uuid}.png` -> `{uuid}`).
pub fn uuid_of(name: &str) -> &str {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.split('.').next().unwrap_or(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gz(parts: &[&[u8]]) -> Vec<u8> {
        // Each part its own gzip member, as a file written in pieces would be.
        let mut out = Vec::new();
        for p in parts {
            let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(p).unwrap();
            out.extend(e.finish().unwrap());
        }
        out
    }

    fn tar_of(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, data) in members {
            let mut h = tar::Header::new_ustar();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, name, *data).unwrap();
        }
        b.into_inner().unwrap()
    }

    fn temp(name: &str, data: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("urlscan-dumps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, data).unwrap();
        p
    }

    #[test]
    fn lines_of_several_gzip_members() {
        let p = temp(
            "lines.gz",
            &gz(&[b"{\"a\":1}\n\n{\"a\":2}\n", b"{\"a\":3}"]),
        );
        let mut l = Lines::open(&p, Limits::default()).unwrap();
        let got = l.next_batch(2, usize::MAX).unwrap();
        assert_eq!(
            got,
            vec![(1, b"{\"a\":1}".to_vec()), (3, b"{\"a\":2}".to_vec())]
        );
        assert_eq!(
            l.next_batch(10, 1).unwrap(),
            vec![(4, b"{\"a\":3}".to_vec())]
        );
        assert!(l.next_batch(10, 1).unwrap().is_empty());
        // A batch ends once it holds the bytes asked for (a line is never split).
        assert_eq!(
            Lines::open(&p, Limits::default())
                .unwrap()
                .next_batch(10, 7)
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            Lines::open(&p, Limits::default())
                .unwrap()
                .next_batch(10, 8)
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn members_of_a_tar_split_over_gzip_members_and_archives() {
        let one = tar_of(&[("x/u1.png", b"png1"), ("u2.png", b"")]);
        let two = tar_of(&[("u3.png", b"png3")]);
        let p = temp("shots.tar.gz", &gz(&[&one[..700], &one[700..], &two]));
        let mut m = Members::open(&p, Limits::default()).unwrap();
        let mut names = Vec::new();
        while let Some((name, data)) = m.next_member().unwrap() {
            names.push((uuid_of(&name).to_string(), data));
        }
        assert_eq!(
            names,
            vec![
                ("u1".to_string(), b"png1".to_vec()),
                ("u2".to_string(), vec![]),
                ("u3".to_string(), b"png3".to_vec())
            ]
        );
        assert_eq!(
            Kind::of_path(Path::new("hours/screenshots/20261120/x.tar.gz")),
            Some(Kind::Screenshots)
        );
    }

    #[test]
    fn a_line_or_member_past_its_limit_is_an_error_naming_it() {
        let small = Limits {
            max_line_bytes: 10,
            max_member_bytes: 4,
        };
        let p = temp("long.gz", &gz(&[b"{\"a\":1}\n{\"a\":\"0123456789\"}\n"]));
        let mut l = Lines::open(&p, small).unwrap();
        let e = l.next_batch(1, usize::MAX).unwrap();
        assert_eq!(e.len(), 1);
        let e = l.next_batch(5, usize::MAX).unwrap_err().to_string();
        assert!(
            e.contains("long.gz line 2: longer than max_line_bytes (10 bytes)"),
            "{e}"
        );
        // Exactly the limit is taken; the newline does not count.
        let p = temp("exact.gz", &gz(&[b"0123456789\n0123456789"]));
        assert_eq!(
            Lines::open(&p, small)
                .unwrap()
                .next_batch(5, usize::MAX)
                .unwrap()
                .len(),
            2
        );
        let p = temp(
            "big.tar.gz",
            &gz(&[&tar_of(&[("u1.png", b"png"), ("u2.png", b"12345")])]),
        );
        let mut m = Members::open(&p, small).unwrap();
        assert_eq!(m.next_member().unwrap().unwrap().1, b"png");
        let e = m.next_member().unwrap_err().to_string();
        assert!(
            e.contains("member u2.png is 5 bytes, more than max_member_bytes (4)"),
            "{e}"
        );
    }

    #[test]
    fn the_kind_is_read_from_the_content() {
        let cases: [(&str, Vec<u8>, Option<Kind>); 6] = [
            (
                "s.gz",
                gz(&[b"\n{\"_id\":\"a\",\"sort\":[1],\"page\":{}}\n"]),
                Some(Kind::Search),
            ),
            (
                "r.gz",
                gz(&[b"{\"data\":{},\"lists\":{},\"task\":{}}\n"]),
                Some(Kind::Api),
            ),
            // A first result larger than the megabyte read: its first member says.
            (
                "big.gz",
                gz(&[format!(
                    "{{\"data\":{{\"requests\":[\"{}\"]}},\"lists\":{{}}}}\n",
                    "x".repeat(2 << 20)
                )
                .as_bytes()]),
                Some(Kind::Api),
            ),
            (
                "p.gz",
                gz(&[&tar_of(&[("x/u1.png", b"png")])]),
                Some(Kind::Screenshots),
            ),
            (
                "d.gz",
                gz(&[&tar_of(&[("u1.html", b"<html>")])]),
                Some(Kind::Dom),
            ),
            ("o.gz", gz(&[b"{\"other\":1}\n"]), None),
        ];
        for (name, data, want) in cases {
            assert_eq!(Kind::sniff(&temp(name, &data)).unwrap(), want, "{name}");
        }
    }

    #[test]
    fn a_broken_file_is_an_error() {
        let p = temp("broken.gz", b"not gzip at all");
        assert!(Lines::open(&p, Limits::default())
            .unwrap()
            .next_batch(5, usize::MAX)
            .is_err());
        assert!(Members::open(&p, Limits::default())
            .unwrap()
            .next_member()
            .is_err());
    }
}

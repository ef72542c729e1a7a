//! Files the package writes, by one rule: every file stays under the folder
//! the user gave, and appears whole or not at all.
//!
//! A relative path that came from elsewhere (a data-dump listing, a partition
//! value) is checked with [`contained`] before anything is opened: absolute
//! paths, `..`, and the names the package keeps for itself are refused, and
//! the deepest folder that already exists is resolved (symlinks followed) and
//! must still be under the root. Data is written to a temporary file created
//! exclusively in the target's folder ([`Staged`]: `O_CREAT | O_EXCL`, so a
//! link planted at a predictable name is never followed), then renamed into
//! place; a temporary file not renamed is removed when dropped.
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Longest relative path taken from elsewhere, in bytes.
pub const MAX_RELATIVE_PATH: usize = 1000;

/// Suffixes of the package's own temporary files.
const RESERVED_SUFFIXES: &[&str] = &[".part", ".tmp"];

/// An I/O failure on `path`, as the error Python raises as `OSError` (with its
/// errno, so a full disk reads as one and a closed pipe as `BrokenPipeError`).
pub fn io_error(what: &str, path: &Path, e: &std::io::Error) -> Error {
    Error::Io {
        errno: e.raw_os_error(),
        message: format!("cannot {what}: {}", plain_io_text(e)),
        path: path.display().to_string(),
    }
}

/// The OS's text of an error without Rust's " (os error N)" tail.
fn plain_io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// Why `segment` may not be part of a path taken from elsewhere, if it may not.
fn bad_segment(segment: &str) -> Option<&'static str> {
    if segment.is_empty() {
        return Some("an empty segment");
    }
    if segment == "." || segment == ".." {
        return Some("a . or .. segment");
    }
    if segment.starts_with('.') {
        // The package's state and part files are hidden names (".urlscan-datadumps.sqlite3").
        return Some("a hidden name (the package keeps those for its own files)");
    }
    // Compared without case: on the file systems that ignore it, `X.PART` is `x.part`.
    let lower = segment.to_ascii_lowercase();
    if RESERVED_SUFFIXES.iter().any(|s| lower.ends_with(s)) {
        return Some("a name ending in .part or .tmp (the package's temporary files)");
    }
    if lower.starts_with("_urlscan") {
        return Some("a name starting with _urlscan (the package's state files)");
    }
    if segment.ends_with(['.', ' ']) {
        // Windows drops them: `x.gz.` is `x.gz` there.
        return Some("a name ending in a dot or a space");
    }
    let stem = lower.split('.').next().unwrap_or_default();
    let device = matches!(stem, "con" | "prn" | "aux" | "nul")
        || (stem.len() == 4
            && (stem.starts_with("com") || stem.starts_with("lpt"))
            && stem.as_bytes()[3].is_ascii_digit());
    if device {
        return Some("a device name on Windows (CON, NUL, COM1, ...)");
    }
    if segment
        .chars()
        .any(|c| c.is_control() || matches!(c, '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|'))
    {
        return Some("a character a file name cannot hold everywhere");
    }
    None
}

/// `rel` (a path from a listing or another answer, `/`-separated) under
/// `root`, or a `Validation` error saying why it may not be written there.
/// The deepest existing folder on the way is resolved, so a symlink inside
/// `root` that leads out of it is refused too.
pub fn contained(root: &Path, rel: &str) -> Result<PathBuf> {
    let refuse = |why: &str| {
        Err(Error::Validation(format!(
            "{:?} may not be written under {}: {why}",
            crate::validate::shown(rel, 120),
            root.display()
        )))
    };
    if rel.is_empty() || rel.len() > MAX_RELATIVE_PATH {
        return refuse(&format!("not 1 to {MAX_RELATIVE_PATH} bytes long"));
    }
    if rel.starts_with('/') || Path::new(rel).is_absolute() || Path::new(rel).has_root() {
        return refuse("an absolute path");
    }
    for segment in rel.split('/') {
        if let Some(why) = bad_segment(segment) {
            return refuse(why);
        }
    }
    let target = root.join(rel);
    match check_within(root, &target) {
        Ok(()) => Ok(target),
        Err(why) => refuse(&why),
    }
}

/// Whether the deepest existing ancestor of `target` (symlinks resolved) is
/// under `root` (resolved); the reason when it is not.
fn check_within(root: &Path, target: &Path) -> std::result::Result<(), String> {
    let Ok(root) = std::fs::canonicalize(root) else {
        // The root does not exist yet: nothing under it can lead elsewhere.
        return Ok(());
    };
    let mut probe = target.parent();
    while let Some(dir) = probe {
        match std::fs::canonicalize(dir) {
            Ok(real) if real.starts_with(&root) => return Ok(()),
            Ok(real) => {
                return Err(format!(
                    "{} leads to {}, outside the folder",
                    dir.display(),
                    real.display()
                ))
            }
            Err(_) => probe = dir.parent(),
        }
    }
    Ok(())
}

/// A file being written: a temporary file created exclusively beside its
/// final path, renamed there by [`Staged::commit`]; removed if dropped first.
pub struct Staged {
    file: Option<std::fs::File>,
    temp: tempfile::TempPath,
    dest: PathBuf,
}

impl Staged {
    /// Start writing `dest` (its folder is created).
    pub fn new(dest: &Path) -> Result<Staged> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(|e| io_error("create the folder", &dir, &e))?;
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The final name is in the temporary one, so a user who sees it knows
        // what it was; at most 80 bytes of it, so the name stays in NAME_MAX.
        let mut short = String::new();
        for c in name.chars() {
            if short.len() + c.len_utf8() > 80 {
                break;
            }
            short.push(c);
        }
        let prefix = format!(".{short}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".part");
        // As any file the user's umask lets the process create, not tempfile's 0600.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let (file, temp) = builder
            .tempfile_in(&dir)
            .map_err(|e| io_error("create a temporary file in", &dir, &e))?
            .into_parts();
        Ok(Staged {
            file: Some(file),
            temp,
            dest: dest.to_path_buf(),
        })
    }

    /// The open file (taken by an async writer with `take_file`).
    pub fn file(&mut self) -> &mut std::fs::File {
        self.file
            .as_mut()
            .expect("the file of a Staged is only taken once")
    }

    /// Hand the open file to another writer (the temporary path stays here).
    pub fn take_file(&mut self) -> std::fs::File {
        self.file
            .take()
            .expect("the file of a Staged is only taken once")
    }

    /// The temporary file's path.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flush to disk and rename into place (replacing what was there).
    pub fn commit(mut self) -> Result<PathBuf> {
        if let Some(f) = self.file.take() {
            f.sync_all()
                .map_err(|e| io_error("write", &self.temp, &e))?;
        }
        let dest = self.dest.clone();
        self.temp
            .persist(&dest)
            .map_err(|e| io_error("write", &dest, &e.error))?;
        Ok(dest)
    }
}

/// Write `data` to `dest` whole: to a staged temporary file, then renamed.
pub fn write_whole(dest: &Path, data: &[u8]) -> Result<PathBuf> {
    use std::io::Write;
    let mut staged = Staged::new(dest)?;
    staged
        .file()
        .write_all(data)
        .map_err(|e| io_error("write", dest, &e))?;
    staged.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn a_plain_relative_path_stays_under_the_root() {
        let r = root();
        let p = contained(r.path(), "hours/search/20261120/20261120-13.gz").unwrap();
        assert_eq!(p, r.path().join("hours/search/20261120/20261120-13.gz"));
    }

    #[test]
    fn paths_that_leave_or_take_the_package_names_are_refused() {
        let r = root();
        for bad in [
            "/home/user/.ssh/authorized_keys",
            "../x.gz",
            "a/../../x.gz",
            "a//b.gz",
            "./a.gz",
            ".urlscan-datadumps.sqlite3",
            "hours/.bashrc",
            "a/.x.gz.part",
            "a/b.gz.tmp",
            "a/B.GZ.PART",
            "_urlscan_export.json",
            "_URLSCAN_export.json",
            "a/x.gz.",
            "a/x.gz ",
            "CON",
            "a/nul.gz",
            "a/com1.txt",
            "LPT9",
            "a\\..\\b",
            "C:/x",
            "a/b\0c",
            "",
        ] {
            let e = contained(r.path(), bad).unwrap_err();
            assert!(matches!(e, Error::Validation(_)), "{bad:?}: {e}");
        }
        assert!(contained(r.path(), &"a/".repeat(600)).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_inside_the_root_that_leads_out_is_refused() {
        let r = root();
        let outside = root();
        std::os::unix::fs::symlink(outside.path(), r.path().join("hours")).unwrap();
        let e = contained(r.path(), "hours/search/x.gz").unwrap_err();
        assert!(e.to_string().contains("outside the folder"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_a_temporary_name_is_not_followed() {
        let r = root();
        let victim = r.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        // Every name the old scheme would have used: none is taken now.
        for name in [".x.gz.part", "x.gz.tmp", ".x.gz.tmp"] {
            std::os::unix::fs::symlink(&victim, r.path().join(name)).unwrap();
        }
        let dest = r.path().join("x.gz");
        write_whole(&dest, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&dest).unwrap(), b"new");
    }

    #[cfg(unix)]
    #[test]
    fn a_written_file_has_the_umask_s_mode_not_0600() {
        use std::os::unix::fs::PermissionsExt;
        let r = root();
        let dest = write_whole(&r.path().join("f"), b"x").unwrap();
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        // 0644 under the usual umask of 022: readable by other users, as files written in place are.
        let umask = {
            let probe = r.path().join("probe");
            std::fs::write(&probe, b"").unwrap();
            0o666 & !(std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777)
        };
        assert_eq!(mode, 0o666 & !umask);
        // A long name of four-byte characters still gives a temporary name within NAME_MAX.
        let long = r.path().join("𝔘".repeat(60));
        assert!(Staged::new(&long).is_ok());
    }

    #[test]
    fn a_staged_file_dropped_leaves_nothing() {
        let r = root();
        let dest = r.path().join("sub/out.bin");
        let mut s = Staged::new(&dest).unwrap();
        std::io::Write::write_all(s.file(), b"half").unwrap();
        let temp = s.temp_path().to_path_buf();
        assert!(temp.exists());
        drop(s);
        assert!(!temp.exists() && !dest.exists());
    }

    #[test]
    fn an_io_error_names_the_path_and_keeps_the_errno() {
        let e = std::io::Error::from_raw_os_error(28);
        match io_error("write", Path::new("/x/y"), &e) {
            Error::Io {
                errno,
                message,
                path,
            } => {
                assert_eq!(errno, Some(28));
                assert_eq!(path, "/x/y");
                assert!(message.starts_with("cannot write: "), "{message}");
                assert!(!message.contains("os error"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}

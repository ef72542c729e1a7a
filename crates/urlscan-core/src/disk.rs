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
//!
//! What may be at a target ([`checked_target`], for every writer: before the
//! first byte and again just before the rename): nothing, or a regular file,
//! which is replaced whole. Anything else is refused, naming the path and
//! what it is, and is left as it was: a named pipe, a device or a socket
//! (writing "into" one is not writing a file, and renaming over it would drop
//! what someone set up, `/dev/null` included) and a symbolic link (not
//! followed, not replaced: where it leads is not this folder's to decide) with
//! a `Validation` error (Python's `ValidationError`); a folder with the I/O
//! error `open()` gives for one (`IsADirectoryError`, EISDIR).
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
        errno: os_errno(e),
        message: format!("cannot {what}: {}", plain_io_text(e)),
        path: path.display().to_string(),
    }
}

/// The OS's error number of `e`, or of the error it wraps; else that of its
/// kind. tempfile adds the path to the OS's error, which then has no number
/// of its own, and hides it from `source()`: its kind is what is left (the
/// numbers below are the same on Linux, the BSDs and macOS).
fn os_errno(e: &std::io::Error) -> Option<i32> {
    use std::io::ErrorKind as K;
    let mut cause: Option<&(dyn std::error::Error + 'static)> = e.get_ref().map(|r| r as _);
    let mut found = e.raw_os_error();
    while let (None, Some(c)) = (found, cause) {
        found = c
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::raw_os_error);
        cause = c.source();
    }
    found.or(match e.kind() {
        K::NotFound => Some(2),
        K::PermissionDenied => Some(13),
        K::AlreadyExists => Some(17),
        K::NotADirectory => Some(20),
        K::IsADirectory => Some(EISDIR),
        K::FileTooLarge => Some(27),
        K::StorageFull => Some(28),
        K::ReadOnlyFilesystem => Some(30),
        _ => None,
    })
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
    if windows_device(&lower) {
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

/// What a file type is, in words, when it is not a regular file.
pub(crate) fn kind_of(ft: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if ft.is_char_device() {
            return Some("a character device");
        }
        if ft.is_block_device() {
            return Some("a block device");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
    }
    if ft.is_symlink() {
        Some("a symbolic link")
    } else if ft.is_dir() {
        Some("a folder")
    } else if ft.is_file() {
        None
    } else {
        Some("not a regular file")
    }
}

/// EISDIR, the same number on every system Python runs on.
const EISDIR: i32 = 21;

/// The refusal of `dest`, which is `kind`.
fn refusal(dest: &Path, kind: &str) -> Error {
    if kind == "a folder" {
        return Error::Io {
            errno: Some(EISDIR),
            message: "cannot write: it is a folder (give the path of a file in it)".into(),
            path: dest.display().to_string(),
        };
    }
    let what_to_do = match kind {
        "a symbolic link" => {
            "it is not followed: give the path it leads to (or - for standard output where the call takes one)"
        }
        _ => "give the path of a regular file (or - for standard output where the call takes one)",
    };
    Error::Validation(format!(
        "{} may not be written: it is {kind}, and only a new or regular file is written (nothing else is written into or replaced); {what_to_do}",
        dest.display()
    ))
}

/// The one rule for what may be at a file's final path, not following a link
/// there: `Ok(false)` when nothing is, `Ok(true)` for a regular file (it
/// will be replaced whole), else a `Validation` error naming the path and
/// what is there (a named pipe, a device, a socket, a symbolic link), or an
/// `Io` error (EISDIR) for a folder; what is there is never written into nor
/// replaced.
pub fn checked_target(dest: &Path) -> Result<bool> {
    match std::fs::symlink_metadata(dest) {
        Ok(m) => match kind_of(&m.file_type()) {
            None => Ok(true),
            Some(kind) => Err(refusal(dest, kind)),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error("write", dest, &e)),
    }
}

/// The rule for a folder the user names as a target (a partitioned export):
/// nothing yet, or a folder (a link to one is followed: the user named it);
/// anything else is refused as [`checked_target`] refuses it.
pub fn checked_folder(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(Error::Validation(format!(
            "{} may not be written: it is {}, not a folder (a partitioned export is written in a folder of its own); give a new folder or one of an earlier export",
            dir.display(),
            kind_of(&m.file_type()).unwrap_or("a regular file")
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::symlink_metadata(dir)
        {
            // A link that leads nowhere: nothing to write through.
            Ok(m) if m.file_type().is_symlink() => Err(refusal(dir, "a symbolic link")),
            _ => Ok(()),
        },
        Err(e) => Err(io_error("write", dir, &e)),
    }
}

/// The bytes of a small file the package keeps (a state), `None` when there
/// is none; at most `max` bytes. A link, pipe, device or socket at `path` is
/// refused by [`checked_target`]'s rule (and a pipe is never opened so that
/// a read could wait on it).
pub fn read_regular(path: &Path, max: u64) -> Result<Option<Vec<u8>>> {
    use std::io::Read;
    if !checked_target(path)? {
        return Ok(None);
    }
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(target_os = "linux")]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let file = match open.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error("read", path, &e)),
    };
    // What was opened, not what the name held a moment before.
    let meta = file.metadata().map_err(|e| io_error("read", path, &e))?;
    if let Some(kind) = kind_of(&meta.file_type()) {
        return Err(refusal(path, kind));
    }
    let mut data = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| io_error("read", path, &e))?;
    if data.len() as u64 > max {
        return Err(Error::Validation(format!(
            "{} is larger than the {max} bytes a file of this package's is",
            path.display()
        )));
    }
    Ok(Some(data))
}

/// A file being written: a temporary file created exclusively beside its
/// final path, renamed there by [`Staged::commit`]; removed if dropped first.
pub struct Staged {
    file: Option<std::fs::File>,
    temp: tempfile::TempPath,
    dest: PathBuf,
}

impl Staged {
    /// Start writing `dest` (its folder is created), if [`checked_target`]
    /// allows it.
    pub fn new(dest: &Path) -> Result<Staged> {
        checked_target(dest)?;
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

    /// Flush to disk and rename into place, replacing a regular file there;
    /// anything else at `dest` by then is refused ([`checked_target`]) and
    /// the temporary file removed. The check is made just before the rename;
    /// when the name was free, the rename does not replace what may have
    /// appeared since (`RENAME_NOREPLACE`), and what did is checked again.
    pub fn commit(mut self) -> Result<PathBuf> {
        if let Some(f) = self.file.take() {
            f.sync_all()
                .map_err(|e| io_error("write", &self.temp, &e))?;
        }
        let Staged { temp, dest, .. } = self;
        let persisted = if checked_target(&dest)? {
            temp.persist(&dest)
        } else {
            match temp.persist_noclobber(&dest) {
                Ok(()) => Ok(()),
                // Taken since the check, or a file system without that rename: checked again.
                Err(e) => {
                    checked_target(&dest)?;
                    e.path.persist(&dest)
                }
            }
        };
        persisted.map_err(|e| io_error("write", &dest, &e.error))?;
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

/// Whether a (lower-cased) name's stem is a device on Windows: CON, PRN,
/// AUX, NUL, COM0-9, LPT0-9 (`nul.txt` is the device too).
pub(crate) fn windows_device(lower: &str) -> bool {
    let stem = lower.split('.').next().unwrap_or_default();
    matches!(stem, "con" | "prn" | "aux" | "nul")
        || (stem.len() == 4
            && (stem.starts_with("com") || stem.starts_with("lpt"))
            && stem.as_bytes()[3].is_ascii_digit())
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

    /// A named pipe at `path` (no reader: a writer opening it would wait).
    #[cfg(target_os = "linux")]
    fn fifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[cfg(unix)]
    fn is_fifo(path: &Path) -> bool {
        use std::os::unix::fs::FileTypeExt;
        std::fs::symlink_metadata(path)
            .unwrap()
            .file_type()
            .is_fifo()
    }

    /// Only the named files are in the folder (no temporary file left).
    fn only(dir: &Path, names: &[&str]) {
        let mut found: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        found.sort();
        assert_eq!(found, names, "in {}", dir.display());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_named_pipe_at_the_target_is_refused_and_never_replaced() {
        let r = root();
        let dest = r.path().join("out.csv");
        fifo(&dest);
        let e = write_whole(&dest, b"rows").unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, Error::Validation(_)), "{e:?}");
        assert!(
            text.contains("out.csv") && text.contains("a named pipe (FIFO)"),
            "{text}"
        );
        assert!(is_fifo(&dest));
        only(r.path(), &["out.csv"]);
        assert!(read_regular(&dest, 100).is_err());
        assert!(checked_folder(&dest).is_err());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pipe_that_appears_while_a_file_is_written_is_refused_at_the_rename() {
        let r = root();
        for existing in [false, true] {
            let dest = r.path().join("late.csv");
            if existing {
                std::fs::write(&dest, b"old").unwrap();
            }
            let mut s = Staged::new(&dest).unwrap();
            std::io::Write::write_all(s.file(), b"new").unwrap();
            let _ = std::fs::remove_file(&dest);
            fifo(&dest);
            let e = s.commit().unwrap_err();
            assert!(e.to_string().contains("a named pipe"), "{e}");
            assert!(is_fifo(&dest));
            only(r.path(), &["late.csv"]);
            std::fs::remove_file(&dest).unwrap();
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_socket_a_folder_and_a_link_at_the_target_are_refused() {
        let r = root();
        let outside = root();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let sock = r.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        std::fs::create_dir(r.path().join("dir")).unwrap();
        std::os::unix::fs::symlink(&victim, r.path().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("nothing"), r.path().join("dangling"))
            .unwrap();
        for (name, kind) in [
            ("sock", "a socket"),
            ("link", "a symbolic link"),
            ("dangling", "a symbolic link"),
        ] {
            let e = write_whole(&r.path().join(name), b"new").unwrap_err();
            assert!(matches!(e, Error::Validation(_)), "{name}: {e:?}");
            assert!(e.to_string().contains(kind), "{name}: {e}");
        }
        // A folder: the error open() gives (Python's IsADirectoryError).
        match write_whole(&r.path().join("dir"), b"new").unwrap_err() {
            Error::Io { errno, message, .. } => {
                assert_eq!(errno, Some(21));
                assert!(message.contains("it is a folder"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(!outside.path().join("nothing").exists());
        only(r.path(), &["dangling", "dir", "link", "sock"]);
        assert!(std::fs::symlink_metadata(r.path().join("link"))
            .unwrap()
            .file_type()
            .is_symlink());
        // A folder named by the user may be a link to one (followed); a file or a socket may not.
        std::os::unix::fs::symlink(outside.path(), r.path().join("lake")).unwrap();
        checked_folder(&r.path().join("lake")).unwrap();
        checked_folder(&r.path().join("new")).unwrap();
        assert!(checked_folder(&sock).is_err() && checked_folder(&victim).is_err());
        assert!(checked_folder(&r.path().join("dangling")).is_err());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_device_node_at_the_target_is_refused() {
        let r = root();
        let dev = r.path().join("null");
        let c = std::ffi::CString::new(dev.as_os_str().as_encoded_bytes()).unwrap();
        // A private node like /dev/null (1, 3); only where this process may make one.
        if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 3)) } != 0 {
            return;
        }
        let e = write_whole(&dev, b"x").unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&dev)
            .unwrap()
            .file_type()
            .is_char_device());
    }

    #[test]
    fn a_regular_file_at_the_target_is_replaced_whole() {
        let r = root();
        let dest = r.path().join("out.csv");
        std::fs::write(&dest, b"an older and longer file").unwrap();
        assert!(checked_target(&dest).unwrap());
        write_whole(&dest, b"new").unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"new");
        only(r.path(), &["out.csv"]);
        assert!(!checked_target(&r.path().join("none")).unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn a_state_is_read_only_from_a_regular_file() {
        let r = root();
        let state = r.path().join("state.json");
        assert_eq!(read_regular(&state, 10).unwrap(), None);
        std::fs::write(&state, b"{}").unwrap();
        assert_eq!(read_regular(&state, 10).unwrap().unwrap(), b"{}");
        assert!(read_regular(&state, 1).is_err());
        let link = r.path().join("link.json");
        std::os::unix::fs::symlink(&state, &link).unwrap();
        let e = read_regular(&link, 10).unwrap_err();
        assert!(e.to_string().contains("a symbolic link"), "{e}");
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

    #[cfg(unix)]
    #[test]
    fn a_read_only_folder_keeps_the_errno() {
        use std::os::unix::fs::PermissionsExt;
        let r = root();
        std::fs::set_permissions(r.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
        let probe = r.path().join("probe");
        let denied = std::fs::write(&probe, b"").is_err(); // root may write anyway
        if denied {
            match write_whole(&r.path().join("f"), b"x").unwrap_err() {
                Error::Io { errno, .. } => assert_eq!(errno, Some(13)),
                other => panic!("{other:?}"),
            }
        }
        std::fs::set_permissions(r.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        // The number is found under a wrapping of the OS's error, or from the kind left.
        let wrapped = std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            std::io::Error::from_raw_os_error(13),
        );
        assert_eq!(os_errno(&wrapped), Some(13));
        let bare = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied at a path");
        assert_eq!(os_errno(&bare), Some(13));
        let full = std::io::Error::new(std::io::ErrorKind::StorageFull, "full");
        assert_eq!(os_errno(&full), Some(28));
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

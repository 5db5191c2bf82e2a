//! Bounded reading of everything mcp-drift takes from the outside: snapshot files, standard input,
//! configuration, baselines and locks.
//!
//! Promises: only regular files are opened (a FIFO, a character or block device or a socket is an
//! [`Error::Usage`] decided from metadata, before anything is opened, so a FIFO without a writer never
//! blocks); a file larger than its cap is refused from its metadata before it is read; and every read
//! goes through `take(cap + 1)`, so a file that grows or changes type between the check and the read
//! still costs at most `cap + 1` bytes of memory.

use std::io::Read;
use std::path::Path;

use crate::error::Error;

/// The default cap on one snapshot file, standard input or git blob (`--max-input-bytes`).
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 << 20;
/// The default cap on all snapshot files of one side together (`--max-total-bytes`): a directory of
/// many links to one large file, or a tree of many entries of one blob, is bounded as a whole, at no
/// more than one file may hold (a 1 GiB total of small tools drove `diff` past 16 GB: attack 7.3 of
/// the #33 pass).
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 256 << 20;
/// The limit named in messages about the total.
pub const TOTAL_LIMIT: &str = "--max-total-bytes";
/// The cap on `mcp-drift.toml` and baseline files: configuration, not data.
pub const MAX_SETTINGS_BYTES: u64 = 16 << 20;

/// How much one run may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes read from one snapshot file, standard input, git blob or lock file.
    pub max_input_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_input_bytes: DEFAULT_MAX_INPUT_BYTES }
    }
}

/// What kind of thing a path is, for messages ("a FIFO", "a character device", ...).
fn kind(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        return "a directory";
    }
    if file_type.is_symlink() {
        return "a symbolic link";
    }
    "not a regular file"
}

#[must_use]
pub fn not_regular(name: &str, file_type: std::fs::FileType) -> Error {
    Error::Usage(format!("{name}: is {}; mcp-drift reads only regular files and directories", kind(file_type)))
}

/// The error for input over its cap.
#[must_use]
pub fn too_large(name: &str, size: Option<u64>, cap: u64, what: &str) -> Error {
    let size = size.map_or_else(String::new, |s| format!("{s} bytes, "));
    Error::Usage(format!("{name}: is {size}over the {what} limit of {cap} bytes"))
}

/// The limit named in messages about snapshot input.
pub const INPUT_LIMIT: &str = "--max-input-bytes";

/// Reads the regular file at `path`, at most `cap` bytes. `what` names the limit in the message
/// (`--max-input-bytes`, or the fixed configuration limit).
///
/// # Errors
/// A path that is missing or unreadable ([`Error::Io`]), not a regular file, or over `cap`
/// ([`Error::Usage`]).
pub fn file(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, Error> {
    let name = path.display().to_string();
    let io = |e: &std::io::Error| Error::Io { path: name.clone(), message: e.to_string() };
    // Decided before opening: opening a FIFO without a writer blocks.
    let meta = std::fs::metadata(path).map_err(|e| io(&e))?;
    if !meta.is_file() {
        return Err(not_regular(&name, meta.file_type()));
    }
    if meta.len() > cap {
        return Err(too_large(&name, Some(meta.len()), cap, what));
    }
    let file = open(path).map_err(|e| io(&e))?;
    // The path may name something else by now: check what was opened.
    let opened = file.metadata().map_err(|e| io(&e))?;
    if !opened.is_file() {
        return Err(not_regular(&name, opened.file_type()));
    }
    let size = usize::try_from(opened.len()).unwrap_or(0);
    #[cfg(unix)]
    if size >= SPLIT_READ && opened.len() <= cap {
        return split(file, &name, cap, size, what);
    }
    bounded(file, &name, cap, size, what)
}

/// Files at least this large are read in two halves at once ([`split`]).
#[cfg(unix)]
const SPLIT_READ: usize = 8 << 20;

/// Reads a regular file of `size` bytes (at most `cap`) in two halves at once: copying from the page
/// cache is most of reading, and one file (`lock`, `lint`) would leave the second core idle. Then
/// reads on from `size` through the same `take(cap + 1)` bound as [`bounded`], so a file that grew
/// since its metadata was read costs at most `cap + 1` bytes; a file that shrank is read again whole.
#[cfg(unix)]
fn split(mut file: std::fs::File, name: &str, cap: u64, size: usize, what: &str) -> Result<Vec<u8>, Error> {
    use std::io::{Seek as _, SeekFrom};
    use std::os::unix::fs::FileExt as _;
    let io = |e: std::io::Error| Error::Io { path: name.to_owned(), message: e.to_string() };
    let mut bytes = vec![0u8; size];
    let half = size / 2;
    let (first, second) = bytes.split_at_mut(half);
    let (a, b) = rayon::join(|| file.read_exact_at(first, 0), || file.read_exact_at(second, half as u64));
    if let Err(e) = a.and(b) {
        if e.kind() != std::io::ErrorKind::UnexpectedEof {
            return Err(io(e));
        }
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        return bounded(file, name, cap, size, what);
    }
    file.seek(SeekFrom::Start(size as u64)).map_err(io)?;
    file.take(cap.saturating_add(1) - size as u64).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(name, None, cap, what));
    }
    Ok(bytes)
}

/// Opens `path` for reading without blocking: if it became a FIFO after its metadata was checked,
/// the open returns at once (and the check of the opened file refuses it). Reads of a regular file
/// are unaffected by `O_NONBLOCK`.
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Reads standard input, at most `cap` bytes.
///
/// # Errors
/// A read error, or more than `cap` bytes.
pub fn stdin(cap: u64) -> Result<Vec<u8>, Error> {
    let name = "<stdin>";
    let hint = regular_stdin_len();
    if let Some(len) = hint
        && len > cap
    {
        return Err(too_large(name, Some(len), cap, INPUT_LIMIT));
    }
    let size = hint.and_then(|l| usize::try_from(l).ok()).unwrap_or(0);
    bounded(std::io::stdin().lock(), name, cap, size, INPUT_LIMIT)
}

/// The length of standard input when it is a regular file (a redirect), to refuse a large one before
/// reading it.
fn regular_stdin_len() -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd as _;
        let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
        let meta = std::fs::File::from(fd).metadata().ok()?;
        meta.is_file().then_some(meta.len())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Reads at most `cap` bytes of `reader`; one byte more is an error.
fn bounded(reader: impl Read, name: &str, cap: u64, size_hint: usize, what: &str) -> Result<Vec<u8>, Error> {
    let capacity = size_hint.min(usize::try_from(cap).unwrap_or(usize::MAX)).saturating_add(1);
    let mut bytes = Vec::with_capacity(capacity);
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Io { path: name.to_owned(), message: e.to_string() })?;
    if bytes.len() as u64 > cap {
        return Err(too_large(name, None, cap, what));
    }
    Ok(bytes)
}

/// Parses a byte count: `1000`, `64KiB`, `64MiB`, `1GiB` (also `K`, `M`, `G`, `KB`, `MB`, `GB`, all
/// powers of 1024).
///
/// # Errors
/// Anything else, or a count that does not fit in 64 bits.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(format!("`{s}` is not a size (write e.g. 1000, 64KiB, 64MiB or 1GiB)")),
    };
    let n: u64 = number.parse().map_err(|_| format!("`{s}` is not a size (write e.g. 1000, 64KiB, 64MiB or 1GiB)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("`{s}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("64KiB"), Ok(64 << 10));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert!(parse_size("").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("1 TiB").is_err());
        assert!(parse_size("99999999999999999999GiB").is_err());
    }

    /// A large file is read in two halves: every byte in its place, whatever the size's parity, and
    /// the cap still holds (a file at the cap is read, one byte over is refused).
    #[cfg(unix)]
    #[test]
    fn a_large_file_read_in_halves_is_whole() {
        let dir = tempfile::tempdir().unwrap();
        for size in [SPLIT_READ, SPLIT_READ + 7] {
            let path = dir.path().join(format!("{size}.json"));
            let want: Vec<u8> = (0..size).map(|i| u8::try_from(i * 31 % 251).unwrap()).collect();
            std::fs::write(&path, &want).unwrap();
            assert!(file(&path, size as u64, "a snapshot").unwrap() == want, "{size}");
            assert!(file(&path, size as u64 - 1, "a snapshot").is_err(), "{size}");
        }
    }

    /// A path that turns into a FIFO after the metadata check cannot block the open: the open itself
    /// returns, and what it opened is seen not to be a regular file.
    #[cfg(unix)]
    #[test]
    fn opening_a_fifo_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.json");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(open(&fifo).and_then(|f| f.metadata()).map(|m| m.is_file()));
        });
        let opened = rx.recv_timeout(std::time::Duration::from_secs(5)).expect("the open returned");
        assert!(!opened.unwrap(), "a FIFO is not a regular file");
    }

    #[test]
    fn caps_hold() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.json");
        std::fs::write(&p, "0123456789").unwrap();
        assert_eq!(file(&p, 10, INPUT_LIMIT).unwrap().len(), 10);
        let e = file(&p, 9, INPUT_LIMIT).unwrap_err().to_string();
        assert!(e.contains("10 bytes") && e.contains("--max-input-bytes"), "{e}");
        assert!(bounded(&b"0123456789"[..], "x", 9, 100, INPUT_LIMIT).is_err());
        assert!(matches!(file(dir.path(), 10, INPUT_LIMIT), Err(Error::Usage(m)) if m.contains("a directory")));
    }
}

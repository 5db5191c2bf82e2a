//! Atomic writes (lock files, `--output` reports, baselines, `capture -o` and `--per-tool`): a
//! temporary file beside the target, then a rename, so a reader never sees half a file.
//!
//! Promises: files are created with the user's umask (0644 for the usual 022), as any other program
//! writes them, not the temporary file's 0600, and a file replaced keeps its own permission bits; and SIGINT or SIGTERM during a write removes the
//! temporary file before the process ends as the signal would have ended it (a thread of its own
//! receives the signals, started at the first write; SIGHUP and SIGQUIT too), so an interrupted run leaves the old file
//! and nothing beside it.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// A `tempfile` builder for a directory created with the umask's permissions (0755 for the usual 022).
#[must_use]
pub fn temp_dir_builder() -> tempfile::Builder<'static, 'static> {
    temp_builder(0o777)
}

/// A `tempfile` builder whose file or directory is created with `mode`, less the umask.
pub(crate) fn temp_builder(mode: u32) -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    builder
}

/// Temporary paths being written, removed if a signal ends the run first.
static PENDING: std::sync::Mutex<Vec<(u64, PathBuf)>> = std::sync::Mutex::new(Vec::new());

/// A temporary file or directory registered for removal on SIGINT/SIGTERM while it lives.
pub struct Pending(u64);

impl Pending {
    /// Creates a temporary path (a file, or a directory removed with what it holds) with `make` and
    /// registers it until the value is dropped, with the signal thread already listening and kept
    /// from removing anything until the path is registered: a signal that arrives while the path is
    /// created still removes it (registered after the creation, a signal in between left it behind).
    ///
    /// # Errors
    /// `make`'s.
    pub fn create<T>(
        make: impl FnOnce() -> std::io::Result<T>,
        path_of: impl FnOnce(&T) -> &Path,
    ) -> std::io::Result<(T, Pending)> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        listen();
        let mut pending = PENDING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let created = make()?;
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        pending.push((id, path_of(&created).to_path_buf()));
        Ok((created, Pending(id)))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = PENDING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        pending.retain(|(id, _)| *id != self.0);
    }
}

/// Removes every pending temporary path and keeps the list locked until the process ends, so no write
/// registers or finishes meanwhile. For a signal handler that ends the process itself (see
/// [`signals_handled_elsewhere`]).
pub fn remove_pending() {
    let pending = PENDING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for (_, path) in pending.iter() {
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
            remove_dir_being_written(path);
        } else {
            let _ = std::fs::remove_file(path);
        }
    }
    std::mem::forget(pending);
}

/// Removes a directory that another thread may still be writing files into (`capture --per-tool`):
/// renamed first, so no file can be created in it by its old path, then removed with what it holds.
/// Removed in place, a file written between the listing and the last removal left the directory
/// and part of its files behind (attack B6 of the second #33 pass).
fn remove_dir_being_written(path: &Path) {
    let mut gone = path.as_os_str().to_owned();
    gone.push(".removing");
    let target = if std::fs::rename(path, &gone).is_ok() { PathBuf::from(gone) } else { path.to_path_buf() };
    for _ in 0..5 {
        if std::fs::remove_dir_all(&target).is_ok() || std::fs::symlink_metadata(&target).is_err() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Set once the thread below has started, or once a caller took the signals ([`signals_handled_elsewhere`]).
static STARTED: std::sync::Once = std::sync::Once::new();

/// The caller installed a handler of its own that calls [`remove_pending`] before the process ends
/// (`capture` and `guard`, which also stop their servers): this module starts no second one, so
/// there is no race between two handlers over which one ends the process.
pub fn signals_handled_elsewhere() {
    STARTED.call_once(|| {});
}

/// Starts, once, the thread that receives SIGINT, SIGTERM, SIGHUP and SIGQUIT: it removes the
/// pending paths, then lets the signal's default action end the process.
fn listen() {
    #[cfg(unix)]
    {
        STARTED.call_once(|| {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT]) else {
                return;
            };
            let spawned = std::thread::Builder::new().name("mcp-drift-signals".into()).spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    remove_pending();
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            });
            drop(spawned);
        });
    }
}

/// Writes `contents` to `path` atomically: a temporary file in the same directory, then a rename, so a
/// reader never sees half a file and an interrupted run leaves the old file intact.
///
/// # Errors
/// When the directory is not writable.
pub fn write_atomically(path: &Path, contents: &str) -> Result<(), Error> {
    write_atomically_with(path, |w| w.write_all(contents.as_bytes()))
}

/// [`write_atomically`] of what `write` writes, streamed (buffered) into the temporary file. A long
/// write is flushed to the disk as it goes (every [`SYNC_STEP`] bytes, on a thread of its own,
/// started at the first step), so the final `fsync` waits for the last step only, not for the whole
/// file; a short one is written as it always was.
///
/// # Errors
/// When the directory is not writable, or `write` fails, or the disk refuses the data.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    use std::io::Write as _;
    let io = |e: std::io::Error| Error::Io { path: path.display().to_string(), message: e.to_string() };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let (mut tmp, _pending) =
        Pending::create(|| temp_builder(0o666).tempfile_in(dir), tempfile::NamedTempFile::path).map_err(io)?;
    std::thread::scope(|scope| {
        let mut out = Syncing { file: tmp.as_file_mut(), since: 0, early: None, scope };
        let written = {
            let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut out);
            write(&mut buffered).and_then(|()| buffered.flush())
        };
        written.and(out.finish())
    })
    .map_err(io)?;
    keep_mode(tmp.as_file(), path).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// A file replaced keeps its permission bits (a lock the operator made 0600 stays 0600, as an editor
/// or `cp` over it would leave it); a new file keeps the umask's.
fn keep_mode(tmp: &std::fs::File, target: &Path) -> std::io::Result<()> {
    match std::fs::metadata(target) {
        Ok(old) if old.is_file() => tmp.set_permissions(old.permissions()),
        _ => Ok(()),
    }
}

/// Bytes written between two early flushes of [`write_atomically_with`].
const SYNC_STEP: usize = 8 << 20;

/// A file that asks for an early flush every [`SYNC_STEP`] bytes (none when one is under way), from
/// a thread it starts at the first step.
struct Syncing<'f, 'scope, 'env> {
    file: &'f mut std::fs::File,
    since: usize,
    /// The flushing thread, once started, and how to ask it for a flush.
    early: Option<(std::sync::mpsc::SyncSender<()>, std::thread::ScopedJoinHandle<'scope, std::io::Result<()>>)>,
    scope: &'scope std::thread::Scope<'scope, 'env>,
}

impl Syncing<'_, '_, '_> {
    /// Waits for the flush under way. An error of any early flush is the file's error: a later
    /// `fsync` may not report it again.
    fn finish(self) -> std::io::Result<()> {
        let Some((kick, flusher)) = self.early else { return Ok(()) };
        drop(kick);
        flusher.join().unwrap_or_else(|_| Err(std::io::Error::other("the disk flush stopped")))
    }
}

impl std::io::Write for Syncing<'_, '_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.since += n;
        if self.since >= SYNC_STEP {
            self.since = 0;
            if self.early.is_none() {
                let file = self.file.try_clone()?;
                let (kick, kicks) = std::sync::mpsc::sync_channel::<()>(1);
                let flusher = self.scope.spawn(move || kicks.iter().try_for_each(|()| file.sync_data()));
                self.early = Some((kick, flusher));
            }
            if let Some((kick, _)) = &self.early {
                // Full: a flush is under way, and the next one (or the final `fsync`) takes these bytes.
                // Gone: a flush failed, and `finish` returns its error.
                let _ = kick.try_send(());
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

//! The process groups of the servers this process started (`capture`'s and `guard`'s stdio servers
//! run in groups of their own, so a terminal's Ctrl-C does not reach them), and a handler that ends
//! them when this process is told to end.
//!
//! Takes the group ids as servers start and stop ([`register`], [`unregister`]); [`stop_on_signals`]
//! installs the handler once. Promises: on SIGINT, SIGTERM, SIGHUP or SIGQUIT, every registered group gets
//! SIGTERM, then SIGKILL once `grace` has passed while any is left, and the process exits with 128 +
//! the signal; a server that ignores both the end of its input and SIGTERM is not left running.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Set when the handler starts: the run is ending by a signal, whatever its own result.
static SIGNALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called as `capture` or `guard` is about to end the process: when a signal is being handled, waits
/// for the handler to end the process with the signal's status (`128 + signal`), so that a server
/// the handler just stopped does not end the run first with its own exit code, nor the run end
/// while the handler still stops the group.
pub fn wait_if_signalled() {
    if SIGNALLED.load(std::sync::atomic::Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// A server started in a process group of its own (its pid is the group's id).
pub fn register(pid: u32) {
    GROUPS.lock().unwrap_or_else(PoisonError::into_inner).push(pid);
}

/// That server was stopped.
pub fn unregister(pid: u32) {
    GROUPS.lock().unwrap_or_else(PoisonError::into_inner).retain(|p| *p != pid);
}

/// Installs the handler (see the module's promises); `before_exit` runs first (it removes the
/// temporary files being written, which must not wait for the grace period).
///
/// # Errors
/// When the handler cannot be installed.
#[cfg(unix)]
pub fn stop_on_signals(grace: Duration, before_exit: fn()) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT])?;
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            SIGNALLED.store(true, std::sync::atomic::Ordering::SeqCst);
            before_exit();
            stop_all(grace);
            std::process::exit(128 + signal);
        }
    })?;
    Ok(())
}

#[cfg(not(unix))]
pub fn stop_on_signals(_: Duration, _: fn()) -> std::io::Result<()> {
    Ok(())
}

/// SIGTERM to every registered group, SIGKILL to those left after `grace`.
#[cfg(unix)]
fn stop_all(grace: Duration) {
    use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};
    let groups: Vec<Pid> = GROUPS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter_map(|p| i32::try_from(*p).ok().and_then(Pid::from_raw))
        .collect();
    for g in &groups {
        let _ = kill_process_group(*g, Signal::TERM);
    }
    let until = Instant::now() + grace;
    while Instant::now() < until && groups.iter().any(|g| test_kill_process_group(*g).is_ok()) {
        std::thread::sleep(Duration::from_millis(20));
    }
    for g in &groups {
        let _ = kill_process_group(*g, Signal::KILL);
    }
}

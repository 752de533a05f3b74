//! Crash points for the tests that prove a kill at any moment loses nothing: with
//! `CTXC_FAILPOINT=NAME` (or `NAME:N`, the N-th time it is reached) a debug build aborts at the
//! point of that name, as abruptly as a `kill -9` (no destructor runs, no temporary file is
//! cleaned). Release builds have none.

/// Aborts the process when `CTXC_FAILPOINT` names this point (debug builds only).
pub fn hit(name: &str) {
    #[cfg(debug_assertions)]
    {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static REACHED: AtomicUsize = AtomicUsize::new(0);
        let Some(wanted) = std::env::var_os("CTXC_FAILPOINT") else {
            return;
        };
        let wanted = wanted.to_string_lossy();
        let (point, nth) = match wanted.split_once(':') {
            Some((point, n)) => (point, n.parse().unwrap_or(1)),
            None => (&*wanted, 1),
        };
        if point == name && REACHED.fetch_add(1, Ordering::SeqCst) + 1 == nth {
            eprintln!("ctxc: failpoint {name}: aborting");
            std::process::abort();
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = name;
}

/// Waits at the point of this name when `CTXC_PAUSE=NAME:DIR` (debug builds only): creates
/// `DIR/paused`, then goes on once `DIR/go` exists (or after two minutes), so that a test can
/// act at exactly this moment — change an object between its read and its replacement, say.
pub fn pause(name: &str) {
    #[cfg(debug_assertions)]
    {
        let Some(wanted) = std::env::var_os("CTXC_PAUSE") else {
            return;
        };
        let wanted = wanted.to_string_lossy();
        let Some((point, dir)) = wanted.split_once(':') else {
            return;
        };
        if point != name {
            return;
        }
        let dir = std::path::Path::new(dir);
        let _ = std::fs::write(dir.join("paused"), name);
        let started = std::time::Instant::now();
        while !dir.join("go").exists() && started.elapsed().as_secs() < 120 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = name;
}

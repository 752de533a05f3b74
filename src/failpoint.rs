//! Crash points for the tests that prove a kill at any moment loses nothing: with
//! `CTXC_FAILPOINT=NAME` a debug build aborts at the point of that name, as abruptly as a
//! `kill -9` (no destructor runs, no temporary file is cleaned). Release builds have none.

/// Aborts the process when `CTXC_FAILPOINT` names this point (debug builds only).
pub fn hit(name: &str) {
    #[cfg(debug_assertions)]
    if std::env::var_os("CTXC_FAILPOINT").is_some_and(|v| v == name) {
        eprintln!("ctxc: failpoint {name}: aborting");
        std::process::abort();
    }
    #[cfg(not(debug_assertions))]
    let _ = name;
}

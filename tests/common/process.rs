//! What a finished `ctxc` process printed, as text, for assertions and their messages. One
//! definition for every test binary, each including it with `#[path]`.
// Each test binary uses part of it.
#![allow(dead_code)]

/// The text of stdout.
pub fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The text of stderr.
pub fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

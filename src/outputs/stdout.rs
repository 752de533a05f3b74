//! Data on standard output, where a failed write is an output error: exit 1 with a message,
//! never the usage code 2 and never a silent 0.
//!
//! When descriptor 1 is closed (`ctxc … >&-`), the Rust runtime opens `/dev/null` read-write
//! in its place, so writes "succeed" and a transcript written with `-o -` would be lost with
//! exit 0; so the binary looks at the descriptor before the runtime starts
//! ([`note_stdout_at_start`]). A `/dev/null` given by the caller (`> /dev/null`, Python's
//! `subprocess.DEVNULL`, which is read-write too) is written to as any file. A reader that
//! stops early (`| head`) is still not an error: the broken pipe goes up unchanged,
//! [`is_broken_pipe`] tells it from a failure wherever it is caught, and the binary exits 0
//! on it.

use anyhow::{Context, Result};
use std::fmt;
use std::io::Write;
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether descriptor 1 was closed when the process started.
static STDOUT_CLOSED_AT_START: AtomicBool = AtomicBool::new(false);

/// Records whether descriptor 1 is open. The binary calls it before the Rust runtime starts,
/// which is the only time a closed standard output can be told from `/dev/null`.
pub fn note_stdout_at_start() {
    let closed = rustix::io::fcntl_getfd(rustix::stdio::stdout()).is_err();
    STDOUT_CLOSED_AT_START.store(closed, Ordering::Relaxed);
}

/// Marks an error as a failure to write results (exit 1) rather than a usage error.
#[derive(Debug, Clone, Copy)]
pub struct OutputFailed;

impl fmt::Display for OutputFailed {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("writing to standard output")
    }
}

/// Why a transcript was not written to standard output: its reader closed it early. Not a
/// failure of ctxc (the run ends with exit 0), so a command stops writing and says nothing.
#[derive(Debug, Clone, Copy)]
pub struct ReaderGone;

impl fmt::Display for ReaderGone {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for ReaderGone {}

/// Whether `err` comes from a reader that closed standard output early: a broken pipe
/// anywhere in its chain, or [`ReaderGone`].
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<ReaderGone>().is_some()
            || cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Standard output as a writer: each write goes through [`write_stdout`] (for a report
/// streamed in pieces; wrap it in a `BufWriter`).
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        write_stdout(buf).map_err(|e| match e.root_cause().downcast_ref::<std::io::Error>() {
            Some(io) if io.kind() == std::io::ErrorKind::BrokenPipe => {
                std::io::Error::from(std::io::ErrorKind::BrokenPipe)
            }
            _ => std::io::Error::other(format!("{e:#}")),
        })?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes `bytes` to standard output and flushes them.
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let stdout = std::io::stdout();
    if stdout.as_fd().try_clone_to_owned().is_err()
        || STDOUT_CLOSED_AT_START.load(Ordering::Relaxed)
    {
        return Err(anyhow::anyhow!("standard output is closed")).context(OutputFailed);
    }
    let mut out = stdout.lock();
    out.write_all(bytes)
        .and_then(|_| out.flush())
        .context(OutputFailed)
}

/// Whether `err` is a failure to write results.
pub fn is_output_error(err: &anyhow::Error) -> bool {
    err.downcast_ref::<OutputFailed>().is_some()
}

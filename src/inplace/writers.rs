//! Other processes that hold a file open for writing, kept out across the rename.
//!
//! An agent that keeps its transcript open — Codex's rollout recorder appends through one
//! descriptor for the whole session — goes on writing to the inode it opened: once
//! `--in-place` has renamed the compacted file over the name, what it writes lands in the old,
//! unlinked inode and is lost, with no error on either side. So a file someone else holds open
//! for writing is never replaced:
//! - on Linux, a read lease (`fcntl F_SETLEASE F_RDLCK`) on ctxc's own read-only descriptor is
//!   granted only while no descriptor anywhere has the file open for writing, and while it is
//!   held an `open` for writing (or a truncate) waits for ctxc to let go and marks the lease as
//!   being broken ([`Lease::broken`]), which ctxc looks at after the rename. Readers do not
//!   touch a read lease, so they never block a compaction;
//! - where no lease can be taken (not the file's owner and no `CAP_LEASE`, leases turned off,
//!   a filesystem without them) the descriptors in `/proc/*/fd` are looked at instead, just
//!   before the rename;
//! - the writers are named from `/proc/PID/fd`, `fdinfo` (the access mode) and `comm`.
//!
//! A lease break signals the holder (SIGIO, whose default action ends the process), so a
//! handler is installed before the first lease; without one no lease is taken. Elsewhere
//! (macOS, the BSDs) nothing here detects a writer.

// Off Linux no writer is ever found, and what names one goes unused.
#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

use crate::human::Shown;
use std::path::Path;

/// A process that holds the file open for writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// Its command name (`/proc/PID/comm`), `?` when unreadable.
    pub command: String,
}

/// What ctxc found out about writers just before a rename.
pub enum Exclusion {
    /// No one else has the file open for writing, and an `open` for writing from now on waits
    /// for this lease and is seen.
    #[cfg(target_os = "linux")]
    Lease(Lease),
    /// No lease could be taken, and no writer was seen where that can be seen.
    Unseen,
    /// Others hold it open for writing: these, or unnamed ones when the list is empty.
    Held(Vec<Holder>),
}

/// The refusal for a file that `holders` hold open for writing.
pub fn held(path: &Path, holders: &[Holder]) -> anyhow::Error {
    let who = if holders.is_empty() {
        "another process (which one ctxc cannot see)".to_string()
    } else {
        let named: Vec<String> = holders
            .iter()
            .map(|h| format!("{} (pid {})", h.command, h.pid))
            .collect();
        named.join(", ")
    };
    anyhow::anyhow!(
        "{} is open for writing by {who}: a live session, which would go on writing to the replaced file; left as it is, nothing lost (close it, then run again)",
        path.shown()
    )
}

/// The refusal for a file that a process opened for writing while ctxc replaced it.
pub fn opened_meanwhile(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{} was opened for writing while ctxc replaced it (a live session?): the original is back in place, left as it is, nothing lost",
        path.shown()
    )
}

#[cfg(target_os = "linux")]
pub use linux::{Lease, exchange, exclude, probe};

#[cfg(not(target_os = "linux"))]
/// Elsewhere no writer can be seen.
pub fn exclude(_file: &std::fs::File) -> Exclusion {
    Exclusion::Unseen
}

#[cfg(not(target_os = "linux"))]
/// Elsewhere no writer can be seen.
pub fn probe(_file: &std::fs::File) -> Option<Vec<Holder>> {
    None
}

#[cfg(target_os = "linux")]
mod linux {
    use super::{Exclusion, Holder};
    use std::fs::File;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    /// A read lease on ctxc's open file (held through a duplicate of its descriptor, which
    /// shares the lease), given up when dropped.
    pub struct Lease {
        file: File,
    }

    impl Lease {
        /// Whether a process has opened the file for writing (or truncated it) since the lease
        /// was taken: its `open` is waiting for the lease to be given up.
        pub fn broken(&self) -> bool {
            fcntl(&self.file, libc::F_GETLEASE, 0).map_or(true, |t| t != libc::F_RDLCK)
        }
    }

    impl Drop for Lease {
        fn drop(&mut self) {
            let _ = fcntl(&self.file, libc::F_SETLEASE, libc::F_UNLCK);
        }
    }

    /// Takes a lease on `file` (opened read-only) or names who holds it open for writing;
    /// looks at `/proc` where no lease can be had.
    pub fn exclude(file: &File) -> Exclusion {
        match lease(file) {
            Ok(lease) => Exclusion::Lease(lease),
            Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => Exclusion::Held(holders(file)),
            Err(_) => match holders(file) {
                found if found.is_empty() => Exclusion::Unseen,
                found => Exclusion::Held(found),
            },
        }
    }

    /// Who holds `file` open for writing, when a lease can tell at no cost; `None` when no one
    /// does or no lease can be had (then [`exclude`] looks at `/proc` before the rename).
    pub fn probe(file: &File) -> Option<Vec<Holder>> {
        match lease(file) {
            Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => Some(holders(file)),
            _ => None,
        }
    }

    /// Swaps the names of `a` and `b` in one step (`renameat2` with `RENAME_EXCHANGE`).
    pub fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(std::io::Error::from)
    }

    fn lease(file: &File) -> std::io::Result<Lease> {
        if !lease_signal_handled() {
            return Err(std::io::Error::from(std::io::ErrorKind::Unsupported));
        }
        let file = file.try_clone()?;
        fcntl(&file, libc::F_SETLEASE, libc::F_RDLCK)?;
        Ok(Lease { file })
    }

    /// Installs (once) a handler for SIGIO, the signal a lease break sends: the default
    /// action would end ctxc. Whether it is in place.
    fn lease_signal_handled() -> bool {
        static HANDLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *HANDLED.get_or_init(|| {
            let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            signal_hook::flag::register(signal_hook::consts::SIGIO, seen).is_ok()
        })
    }

    #[allow(unsafe_code)]
    fn fcntl(file: &File, command: libc::c_int, arg: libc::c_int) -> std::io::Result<libc::c_int> {
        // SAFETY: F_SETLEASE and F_GETLEASE take an int argument (or none), never a pointer,
        // and the descriptor is borrowed from a File that outlives the call.
        let result = unsafe { libc::fcntl(file.as_raw_fd(), command, arg) };
        if result == -1 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(result)
        }
    }

    /// The other processes with a descriptor of `file`'s inode open for writing (O_WRONLY or
    /// O_RDWR, appending or not), among those whose `/proc/PID/fd` ctxc may read. ctxc's own
    /// descriptors are not counted.
    fn holders(file: &File) -> Vec<Holder> {
        let Ok(meta) = file.metadata() else {
            return Vec::new();
        };
        let me = std::process::id();
        let Ok(processes) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for process in processes.flatten() {
            let Some(pid) = process
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if pid == me {
                continue;
            }
            let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
                continue;
            };
            let writes = fds.flatten().any(|fd| {
                // The link leads to the open file, even one whose name is gone.
                std::fs::metadata(fd.path())
                    .is_ok_and(|m| (m.dev(), m.ino()) == (meta.dev(), meta.ino()))
                    && writable(&process.path().join("fdinfo").join(fd.file_name()))
            });
            if writes {
                let command = std::fs::read_to_string(process.path().join("comm"))
                    .map(|c| c.trim_end().to_string())
                    .unwrap_or_else(|_| "?".into());
                found.push(Holder { pid, command });
            }
        }
        found.sort_by_key(|h| h.pid);
        found
    }

    /// Whether the descriptor an `fdinfo` file describes was opened for writing; unknown counts
    /// as writing.
    fn writable(fdinfo: &Path) -> bool {
        let Ok(text) = std::fs::read_to_string(fdinfo) else {
            return true;
        };
        let flags = text
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok());
        flags.is_none_or(|f| f & libc::O_ACCMODE as u32 != libc::O_RDONLY as u32)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::fs::{File, OpenOptions};
    use std::time::{Duration, Instant};

    #[test]
    fn writers_are_named_readers_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "one\n").unwrap();
        let mine = File::open(&path).unwrap();
        let reader = std::process::Command::new("sleep")
            .arg("30")
            .stdin(File::open(&path).unwrap())
            .spawn()
            .unwrap();
        let mut reader = Guard(reader);
        assert!(
            matches!(exclude(&mine), Exclusion::Lease(_)),
            "a reader is no writer"
        );
        assert_eq!(probe(&mine), None);
        let writer = std::process::Command::new("sleep")
            .arg("30")
            .stdout(OpenOptions::new().append(true).open(&path).unwrap())
            .spawn()
            .unwrap();
        let mut writer = Guard(writer);
        let expected = vec![Holder {
            pid: writer.0.id(),
            command: "sleep".into(),
        }];
        match exclude(&mine) {
            Exclusion::Held(holders) => assert_eq!(holders, expected),
            _ => panic!("the writer is not seen"),
        }
        assert_eq!(probe(&mine), Some(expected));
        writer.0.kill().unwrap();
        writer.0.wait().unwrap();
        reader.0.kill().unwrap();
        assert!(matches!(exclude(&mine), Exclusion::Lease(_)));
    }

    #[test]
    fn an_open_for_writing_breaks_the_lease_and_waits_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "one\n").unwrap();
        let mine = File::open(&path).unwrap();
        let Exclusion::Lease(lease) = exclude(&mine) else {
            panic!("no lease");
        };
        assert!(!lease.broken());
        let _read = File::open(&path).unwrap();
        assert!(!lease.broken(), "a reader does not break it");
        let opener = {
            let path = path.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                OpenOptions::new().append(true).open(&path).unwrap();
                started.elapsed()
            })
        };
        let started = Instant::now();
        while !lease.broken() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(lease.broken());
        std::thread::sleep(Duration::from_millis(100));
        drop(lease);
        assert!(
            opener.join().unwrap() >= Duration::from_millis(100),
            "the open waited"
        );
    }

    /// Kills a still running child when a failed assertion unwinds.
    struct Guard(std::process::Child);

    impl Drop for Guard {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

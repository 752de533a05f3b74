//! `--in-place` never loses a transcript: backups are never overwritten, overlapping runs and
//! live appends are refused, owner, mode and symlinks are kept, a signal leaves no temporary
//! file, and one hostile file never stops a batch. Real processes throughout.

use crate::stderr_of;
use crate::{ctxc, fixture, shared, stdout_of};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const TRAJ: &str = "examples/swe-agent.traj";
/// A real 2.9 MB Claude Code session: long enough to read and compact that runs overlap.
const BIG: &str = "corpus/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";
/// One of its subagents' sessions (126 KB), which `--force` compacts.
const SMALL: &str =
    "corpus/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl";

fn copy(from: &Path, dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::write(&to, std::fs::read(from).unwrap()).unwrap();
    to
}

fn in_place(path: &Path, extra: &[&str]) -> Output {
    ctxc()
        .args(["compact", "-q", "--force", "--in-place"])
        .args(extra)
        .arg(path)
        .output()
        .unwrap()
}

/// The binary as a plain process (to run several at once, to redirect its output), with no
/// user settings file.
fn bin() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("ctxc"));
    cmd.env(
        "XDG_CONFIG_HOME",
        crate::root().join("target/no-user-config"),
    );
    cmd
}

fn spawn_in_place(path: &Path, extra: &[&str]) -> std::process::Child {
    bin()
        .args(["compact", "-q", "--force", "--in-place"])
        .args(extra)
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn a_second_run_never_overwrites_the_backup() {
    let dir = tempfile::tempdir().unwrap();
    let input = copy(&fixture(TRAJ), dir.path(), "t.traj");
    let original = std::fs::read(&input).unwrap();
    let first = in_place(&input, &["--backup"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let once = std::fs::read(&input).unwrap();
    let second = in_place(&input, &["--backup", "--target-ratio", "0.5"]);
    assert_eq!(second.status.code(), Some(1));
    assert!(
        stderr_of(&second).contains("t.traj.bak exists: ctxc never overwrites a backup"),
        "{}",
        stderr_of(&second)
    );
    assert_eq!(
        std::fs::read(dir.path().join("t.traj.bak")).unwrap(),
        original
    );
    assert_eq!(
        std::fs::read(&input).unwrap(),
        once,
        "the file is left as it was"
    );
}

/// A Ctrl-C after the backup was written: the next run takes the backup, which holds exactly
/// the file, as its own (and says so); one that differs is still refused.
#[test]
fn a_backup_identical_to_the_file_is_kept_one_that_differs_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = copy(&fixture(TRAJ), dir.path(), "t.traj");
    let original = std::fs::read(&input).unwrap();
    let backup = dir.path().join("t.traj.bak");
    std::fs::write(&backup, &original).unwrap();
    let out = ctxc()
        .args(["compact", "--force", "--in-place", "--backup"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let said = format!("{}{}", stdout_of(&out), stderr_of(&out));
    assert!(said.contains("t.traj.bak was there already"), "{said}");
    assert_ne!(std::fs::read(&input).unwrap(), original, "compacted");
    assert_eq!(std::fs::read(&backup).unwrap(), original);
    let compacted = std::fs::read(&input).unwrap();
    std::fs::write(&input, &original).unwrap();
    std::fs::write(&backup, &compacted).unwrap();
    let out = in_place(&input, &["--backup"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("t.traj.bak exists: ctxc never overwrites a backup"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(std::fs::read(&input).unwrap(), original);
    assert_eq!(std::fs::read(&backup).unwrap(), compacted);
}

/// A run killed with SIGKILL leaves its temporary file: the next run that writes into that
/// directory, in place or not, removes it; never one a live run holds locked.
#[test]
fn temporary_files_of_dead_runs_are_removed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let input = copy(&shared(SMALL), dir.path(), "s.jsonl");
    let left_long_ago = |dir: &Path, name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, "partial output").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        path
    };
    let dead = left_long_ago(dir.path(), ".ctxc-De4dRn.tmp");
    let live = left_long_ago(dir.path(), ".ctxc-L1veRn.tmp");
    let lock = std::fs::File::open(&live).unwrap();
    fs4::FileExt::try_lock(&lock).unwrap();
    let out = in_place(&input, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(!dead.exists(), "removed by the in-place run");
    assert!(live.exists(), "its run holds the lock");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let dead = left_long_ago(&out_dir, ".ctxc-Ag41nX.tmp");
    let out = ctxc()
        .args(["compact", "-q", "--force", "--out-dir"])
        .arg(&out_dir)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(!dead.exists(), "removed by the output's write");
    assert_eq!(leftovers(&out_dir), Vec::<String>::new());
    assert_eq!(leftovers(dir.path()), vec![".ctxc-L1veRn.tmp".to_string()]);
}

#[test]
fn an_empty_backup_suffix_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = copy(&fixture(TRAJ), dir.path(), "t.traj");
    let original = std::fs::read(&input).unwrap();
    let out = in_place(&input, &["--backup="]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("the suffix must be non-empty"));
    assert_eq!(std::fs::read(&input).unwrap(), original);
}

#[test]
fn a_file_locked_by_another_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = copy(&fixture(TRAJ), dir.path(), "t.traj");
    let original = std::fs::read(&input).unwrap();
    let held = std::fs::File::open(&input).unwrap();
    fs4::FileExt::try_lock(&held).unwrap();
    let out = in_place(&input, &["--backup"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("holds the file's lock"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(std::fs::read(&input).unwrap(), original);
    assert!(!dir.path().join("t.traj.bak").exists());
}

/// Kills a child process still running when a test ends, passed or failed.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn sleeper(stdin: Stdio, stdout: Stdio) -> Reaped {
    Reaped(
        Command::new("sleep")
            .arg("30")
            .stdin(stdin)
            .stdout(stdout)
            .spawn()
            .unwrap(),
    )
}

/// A writer that keeps its descriptor open (Codex's rollout recorder does) would go on writing
/// to the replaced inode and lose it all: the file is refused, naming the writers, and what
/// they write reaches the file. Once they are gone it is compacted; a reader never blocks it.
#[cfg(target_os = "linux")]
#[test]
fn a_file_held_open_for_writing_is_refused_naming_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let input = copy(&shared(SMALL), dir.path(), "rollout.jsonl");
    let original = std::fs::read_to_string(&input).unwrap();
    let record = original.lines().last().unwrap().to_string();
    let mut writer = std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap();
    let child = sleeper(Stdio::null(), Stdio::from(writer.try_clone().unwrap()));
    let out = in_place(&input, &["--backup"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let stderr = stderr_of(&out);
    let me = std::fs::read_to_string("/proc/self/comm").unwrap();
    for holder in [
        format!("sleep (pid {})", child.0.id()),
        format!("{} (pid {})", me.trim_end(), std::process::id()),
    ] {
        assert!(stderr.contains(&holder), "{holder} not named: {stderr}");
    }
    assert!(
        stderr.contains("rollout.jsonl is open for writing by ")
            && stderr.contains("left as it is, nothing lost"),
        "{stderr}"
    );
    assert!(!dir.path().join("rollout.jsonl.bak").exists());
    // Each appended copy gets a uuid of its own, as each record Claude Code writes has.
    let uuid = serde_json::from_str::<serde_json::Value>(&record).unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let mut written = original.clone();
    for k in 0..5 {
        let line = appended_copy(&record, &uuid, k);
        writeln!(writer, "{line}").unwrap();
        written.push_str(&format!("{line}\n"));
    }
    assert_eq!(std::fs::read_to_string(&input).unwrap(), written);
    drop((child, writer));
    let reader = std::fs::File::open(&input).unwrap();
    let _child = sleeper(
        Stdio::from(std::fs::File::open(&input).unwrap()),
        Stdio::null(),
    );
    let out = in_place(&input, &["--backup"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_ne!(std::fs::read_to_string(&input).unwrap(), written);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("rollout.jsonl.bak")).unwrap(),
        written
    );
    drop(reader);
    assert!(leftovers(dir.path()).is_empty());
}

/// Two runs started 0.1–0.3 s apart: whichever way they interleave, the backup holds the
/// original and the file is compacted exactly once.
#[test]
fn overlapping_runs_compact_once_and_keep_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let reference = copy(&shared(BIG), dir.path(), "reference.jsonl");
    let once = in_place(&reference, &[]);
    assert_eq!(once.status.code(), Some(0), "{}", stderr_of(&once));
    let compacted_once = std::fs::read(&reference).unwrap();
    for delay in [100, 200, 300] {
        let input = copy(&shared(BIG), dir.path(), &format!("s{delay}.jsonl"));
        let original = std::fs::read(&input).unwrap();
        let first = spawn_in_place(&input, &["--backup"]);
        std::thread::sleep(Duration::from_millis(delay));
        let second = spawn_in_place(&input, &["--backup"]);
        let codes: Vec<Option<i32>> = [first, second]
            .into_iter()
            .map(|c| c.wait_with_output().unwrap().status.code())
            .collect();
        assert!(codes.contains(&Some(0)), "{codes:?}");
        let mut backup = input.clone().into_os_string();
        backup.push(".bak");
        assert_eq!(std::fs::read(&backup).unwrap(), original, "delay {delay}");
        assert_eq!(
            std::fs::read(&input).unwrap(),
            compacted_once,
            "delay {delay}"
        );
    }
}

/// A live session: records appended while ctxc works are never lost.
#[test]
fn records_appended_during_a_run_are_never_lost() {
    let dir = tempfile::tempdir().unwrap();
    let input = copy(&shared(BIG), dir.path(), "live.jsonl");
    let record = String::from_utf8(std::fs::read(&input).unwrap())
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    // Each appended copy gets a uuid of its own, as each record Claude Code writes has.
    let uuid = serde_json::from_str::<serde_json::Value>(&record).unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let original_lines = record_count(&input);
    let run = spawn_in_place(&input, &[]);
    // The "agent": appends a record every 20 ms, opening the file each time as Claude Code does.
    let mut appended = 0;
    let started = Instant::now();
    let mut run = Some(run);
    let mut output = None;
    while started.elapsed() < Duration::from_secs(60) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&input)
            .unwrap();
        writeln!(f, "{}", appended_copy(&record, &uuid, appended)).unwrap();
        appended += 1;
        drop(f);
        std::thread::sleep(Duration::from_millis(20));
        if let Some(child) = run.as_mut() {
            if child.try_wait().unwrap().is_some() {
                output = Some(run.take().unwrap().wait_with_output().unwrap());
                break;
            }
        }
    }
    let out = output.expect("ctxc finished");
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("changed while"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(
        record_count(&input),
        original_lines + appended,
        "{appended} appended"
    );
    assert!(leftovers(dir.path()).is_empty());
}

fn record_count(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}

#[test]
fn owner_mode_and_symlinks_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let real = copy(&fixture(TRAJ), dir.path(), "real.traj");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let root = std::fs::metadata(&real).unwrap().uid() == 0;
    let nobody = 65534;
    if root {
        std::os::unix::fs::chown(&real, Some(nobody), Some(nobody)).unwrap();
    }
    let link = dir.path().join("link.traj");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let original = std::fs::read(&real).unwrap();
    let out = in_place(&link, &["--backup"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    let after = std::fs::metadata(&real).unwrap();
    assert!(
        after.len() < original.len() as u64,
        "the target was compacted"
    );
    assert_eq!(after.mode() & 0o7777, 0o640);
    assert_eq!(
        std::fs::read(dir.path().join("real.traj.bak")).unwrap(),
        original
    );
    if root {
        assert_eq!((after.uid(), after.gid()), (nobody, nobody));
    }
}

/// SIGTERM, SIGINT or SIGHUP while outputs are written: no temporary file is left.
#[test]
fn a_signal_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    for i in 0..24 {
        copy(&shared(BIG), &inputs, &format!("s{i:02}.jsonl"));
    }
    for signal in ["TERM", "INT", "HUP"] {
        let out_dir = dir.path().join(format!("out-{signal}"));
        let mut child = bin()
            .args([
                "compact",
                "-q",
                "--force",
                "--strategy",
                "strip-payloads",
                "--out-dir",
            ])
            .arg(&out_dir)
            .arg(&inputs)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait until a temporary file exists, then signal.
        let started = Instant::now();
        let writing = || out_dir.exists() && !leftovers(&out_dir).is_empty();
        while started.elapsed() < Duration::from_secs(60) && child.try_wait().unwrap().is_none() {
            if writing() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "{signal}: {status:?}");
        if out_dir.exists() {
            assert_eq!(leftovers(&out_dir), Vec::<String>::new(), "{signal}");
        }
    }
}

/// `[[[…]]]` nested 30,000 deep among good files: it fails with a clear error, the others
/// are written, and so is the report.
#[test]
fn a_hostile_file_never_stops_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    copy(&fixture(TRAJ), &inputs, "a.traj");
    std::fs::write(
        inputs.join("deep.json"),
        format!("{}{}", "[".repeat(30_000), "]".repeat(30_000)),
    )
    .unwrap();
    copy(&fixture(TRAJ), &inputs, "z.traj");
    let out_dir = dir.path().join("out");
    let report = dir.path().join("report.json");
    let out = ctxc()
        .args([
            "compact", "-q", "--force", "--glob", "*.traj", "--glob", "*.json",
        ])
        .arg("--out-dir")
        .arg(&out_dir)
        .arg("--report")
        .arg(&report)
        .arg(&inputs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains(
            "deep.json: cannot tell the format: the file is an array nested 30000 levels deep"
        ),
        "{}",
        stderr_of(&out)
    );
    assert!(out_dir.join("a.traj").is_file() && out_dir.join("z.traj").is_file());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let deep = &report["files"][1];
    assert_eq!(deep["status"], "failed");
    assert_eq!(deep["failedStep"], "parse");
}

/// Output errors are exit 1 with a message: a full disk, a closed standard output.
#[test]
fn output_errors_exit_1() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = bin()
        .args(["stats"])
        .arg(fixture(TRAJ))
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("No space left on device"),
        "{}",
        stderr_of(&out)
    );
    let closed = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' compact -q --force -o - '{}' >&-",
            assert_cmd::cargo::cargo_bin("ctxc").display(),
            fixture(TRAJ).display()
        ))
        .output()
        .unwrap();
    assert_eq!(closed.status.code(), Some(1));
    assert!(
        stderr_of(&closed).contains("standard output is closed"),
        "{}",
        stderr_of(&closed)
    );
}

/// A `/dev/null` opened read-write by the caller (Python's `subprocess.DEVNULL`, as a job
/// runner discarding the report passes it) is written to as any file: only a descriptor 1
/// closed before the process started is "standard output is closed".
#[test]
fn a_read_write_dev_null_is_not_a_closed_stdout() {
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .unwrap();
    let out = bin()
        .args(["compact", "-q", "--force", "-o", "-"])
        .arg(fixture(TRAJ))
        .stdout(null)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

/// A copy of `record` as the `k`th record a client appends after it: a uuid and a time of its
/// own (the same content at the same time would be replayed history, which `check` names).
fn appended_copy(record: &str, uuid: &str, k: usize) -> String {
    let mut value: serde_json::Value = serde_json::from_str(record).unwrap();
    value["timestamp"] = format!("2099-01-01T00:00:{:02}.{:03}Z", k / 1000 % 60, k % 1000).into();
    serde_json::to_string(&value)
        .unwrap()
        .replace(uuid, &format!("{uuid}-{k}"))
}

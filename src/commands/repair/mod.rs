//! `ctxc repair`: fix what stops each session from resuming ([`crate::repair`]), verify the
//! result as `check` would, and write it with what `compact` guarantees: an archive from which
//! `restore` gives back the damaged original, atomic writes, and with `--in-place` the lock,
//! backup and live-append checks of [`crate::inplace`]. A clean session is never rewritten.
//! One input that fails never stops the others; the exit status is chosen at the end.

mod render;
mod rows;

use crate::ExitStatus;
use crate::archive::{self, RepairJob};
use crate::cli::RepairArgs;
use crate::dataset::{self, Sniffed};
use crate::discover::{self, Input};
use crate::human::Shown;
use crate::inplace::{self, Claim};
use crate::outputs::Destination;
use crate::repair::{self, Repair, Repaired, oversize};
use crate::transcript::{self, Finding, ReadOptions};
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// What became of one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Faults were found and every one repaired.
    Repaired,
    /// Nothing to repair: the input is as it was.
    Clean,
    /// Repairs were made, but `check` still finds faults no repair fixes.
    Incomplete,
    /// The input could not be read, repaired or written.
    Failed,
}

/// The report on one input.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRepair {
    /// The input as named.
    pub path: String,
    /// The format it was read as.
    pub format: Option<String>,
    /// What became of it.
    pub status: Status,
    /// Where the repaired session was written (none for a dry run or a clean input).
    pub output: Option<String>,
    /// The archive written.
    pub archive: Option<String>,
    /// Bytes of the input.
    pub bytes_before: usize,
    /// Bytes of the repaired session.
    pub bytes_after: usize,
    /// Every repair, as `line: what was wrong → what was done`.
    pub repairs: Vec<Repair>,
    /// What `check` still finds in the repaired session.
    pub not_repaired: Vec<Finding>,
    /// An oversized session's size and context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<oversize::Size>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The line the error is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_line: Option<usize>,
    /// Remarks (a backup written, nothing written for a clean input).
    pub notes: Vec<String>,
    /// The command that resumes a session repaired in its client's store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
}

impl FileRepair {
    fn new(path: String) -> Self {
        FileRepair {
            path,
            format: None,
            status: Status::Failed,
            output: None,
            archive: None,
            bytes_before: 0,
            bytes_after: 0,
            repairs: Vec::new(),
            not_repaired: Vec::new(),
            size: None,
            error: None,
            error_line: None,
            notes: Vec::new(),
            resume: None,
        }
    }

    fn fail(mut self, line: usize, error: impl Into<String>) -> Self {
        self.status = Status::Failed;
        self.error = Some(error.into());
        self.error_line = (line > 0).then_some(line);
        self
    }
}

/// Runs `ctxc repair`.
pub fn run(args: &RepairArgs, quiet: bool) -> Result<ExitStatus> {
    let own: Vec<_> = [&args.outputs.out_dir, &args.archive_dir]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let (inputs, errors) =
        discover::discover(&args.input.inputs, &args.input.globs, &own)?.reported(quiet);
    if args.outputs.output.is_some() && inputs.len() + errors.len() > 1 {
        bail!("-o names one output: give one input, or use --out-dir or --in-place");
    }
    let opts = repair::Options {
        read: ReadOptions {
            format: args.input.format,
            messages_path: args.input.messages_path.clone(),
        },
        max_session_bytes: args.max_session_bytes,
        fit: oversize::Fit {
            model: args.model.clone(),
            context_window: args.context_window,
        },
    };
    let mut files: Vec<FileRepair> = errors
        .into_iter()
        .map(|e| FileRepair::new(e.path).fail(0, e.message))
        .collect();
    for input in &inputs {
        for report in repair_input(input, args, &opts) {
            if !quiet {
                if let Some(error) = &report.error {
                    let at = report.error_line.map_or(String::new(), |l| format!(":{l}"));
                    eprintln!("ctxc: {}{at}: {error}", report.path);
                }
            }
            files.push(report);
        }
    }
    let terminal = std::io::stdout().is_terminal();
    let text = render::render(&files, args.report.format(), args.dry_run, terminal)?;
    crate::output::write_stdout(text.as_bytes())?;
    if !quiet && !args.report.json && !args.report.yaml {
        eprintln!("ctxc: {}", render::totals_line(&files, args.dry_run));
    }
    let failed = files
        .iter()
        .any(|f| matches!(f.status, Status::Failed | Status::Incomplete));
    Ok(if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// Repairs one input and writes the result: one report, or one per row of a dataset.
fn repair_input(input: &Input, args: &RepairArgs, opts: &repair::Options) -> Vec<FileRepair> {
    let report = FileRepair::new(input.display());
    let dest = match destination(input, args) {
        Ok(dest) => dest,
        Err(e) => return vec![report.fail(0, format!("{e:#}"))],
    };
    let limit = args.input.limit.max_input_bytes;
    // A dataset is told by its first bytes, never read as text.
    let in_place = matches!(dest, Destination::InPlace(_)) && !args.dry_run;
    let sniffed = match (&dest, in_place) {
        (Destination::InPlace(path), true) => dataset::sniff_head(path),
        _ => dataset::sniff(input, limit),
    };
    let read = match sniffed {
        Ok(Sniffed::Parquet(file)) => return rows::repair(input, file, args, opts, &dest),
        Ok(Sniffed::Other(read)) => read,
        Err(e) => return vec![report.fail(e.line, e.message)],
    };
    vec![repair_text(report, input, args, opts, &dest, read)]
}

/// Repairs an input that is not a dataset (`read`: its bytes, when sniffing read them).
fn repair_text(
    report: FileRepair,
    input: &Input,
    args: &RepairArgs,
    opts: &repair::Options,
    dest: &Destination,
    read: Option<Vec<u8>>,
) -> FileRepair {
    let limit = args.input.limit.max_input_bytes;
    let loaded = match (dest, args.dry_run, read) {
        (Destination::InPlace(path), false, _) => inplace::claim(path, limit)
            .map(|(claim, bytes)| (Some(claim), bytes))
            .map_err(|e| (0, format!("{e:#}"))),
        (_, _, Some(bytes)) => Ok((None, bytes)),
        (_, _, None) => discover::load_bytes(input, limit)
            .map(|bytes| (None, bytes))
            .map_err(|e| (e.line, e.message)),
    };
    let (claim, bytes) = match loaded {
        Ok(loaded) => loaded,
        Err((line, message)) => return report.fail(line, message),
    };
    let text = match discover::utf8(bytes) {
        Ok(text) => text,
        Err(e) => return report.fail(e.line, e.message),
    };
    let repaired = match repair::repair(&text, opts) {
        Ok(repaired) => repaired,
        Err(e) => {
            let first = &e.findings[0];
            return report.fail(first.line, first.message.clone());
        }
    };
    finish(report, input, args, dest, claim.as_ref(), &text, repaired)
}

/// Verifies a repair, writes it (unless it is a dry run or there is nothing to write) and
/// completes the report.
fn finish(
    report: FileRepair,
    input: &Input,
    args: &RepairArgs,
    dest: &Destination,
    claim: Option<&Claim>,
    original: &str,
    repaired: Repaired,
) -> FileRepair {
    let (mut report, output) = assess(report, original, repaired, &args.input.format);
    if report.status == Status::Failed {
        return report;
    }
    let changed = output != original;
    let writes = match dest {
        _ if args.dry_run => false,
        Destination::Stdout => true,
        // A clean session is left alone; one given a destination of its own gets its copy.
        Destination::InPlace(_) => changed,
        Destination::File(_) => {
            changed || args.outputs.output.is_some() || args.outputs.out_dir.is_some()
        }
        Destination::Remote(_) | Destination::Nowhere => false,
    };
    if !writes {
        if !args.dry_run && !changed {
            report
                .notes
                .push("nothing to repair: nothing written".into());
        }
        return report;
    }
    match write(input, args, dest, claim, original, &output, &report) {
        Ok((output, archive)) => {
            report.output = Some(output);
            report.archive = archive;
            if let Some(claim) = claim {
                report.notes.extend(claim.notes());
            }
            if let Destination::InPlace(path) = dest {
                report.resume = crate::sessions::resume_command_of(path);
            }
            report
        }
        Err(e) => report.fail(0, format!("{e:#}")),
    }
}

/// `report` completed from a repair of `original`, with the repaired text: failed when the
/// repair would add a fault the input has not (then nothing may be written).
fn assess(
    mut report: FileRepair,
    original: &str,
    repaired: Repaired,
    format: &Option<transcript::Format>,
) -> (FileRepair, String) {
    report.format = Some(repaired.format.to_string());
    report.bytes_before = original.len();
    report.bytes_after = repaired.output.len();
    report.repairs = repaired.repairs;
    report.size = repaired.size;
    report.not_repaired = repaired.remaining;
    report.status = match (report.repairs.is_empty(), report.not_repaired.is_empty()) {
        (true, true) => Status::Clean,
        (false, true) => Status::Repaired,
        (_, false) => Status::Incomplete,
    };
    if let Some(new) = new_faults(original, &report.not_repaired, format) {
        let report = report.fail(
            new.line,
            format!(
                "the repaired session would have a fault the input has not ({}): nothing written",
                new.message
            ),
        );
        return (report, repaired.output);
    }
    (report, repaired.output)
}

/// A finding of the repaired session that the input does not have (a repair that broke
/// something: never written); `None` when the input could not be read as a transcript.
fn new_faults(
    original: &str,
    remaining: &[Finding],
    format: &Option<transcript::Format>,
) -> Option<Finding> {
    if remaining.is_empty() {
        return None;
    }
    let opts = ReadOptions {
        format: *format,
        messages_path: None,
    };
    let before = transcript::read(original.to_string(), &opts).ok()?;
    let known: HashSet<String> = transcript::check(&before)
        .iter()
        .map(|f| f.problem().to_string())
        .collect();
    remaining
        .iter()
        .find(|f| !known.contains(f.problem()))
        .cloned()
}

/// Where an input's repair goes; refuses a copy beside a session in its client's store,
/// where the client would list it as one more session.
fn destination(input: &Input, args: &RepairArgs) -> Result<Destination> {
    let path = match input {
        Input::File(path) => path,
        Input::Stdin => {
            return match &args.outputs.output {
                Some(out) => output_flag(out),
                None => Ok(Destination::Stdout),
            };
        }
        Input::Remote(_) => bail!("repair reads local files and standard input only"),
    };
    if args.outputs.in_place {
        return Ok(Destination::InPlace(path.clone()));
    }
    if let Some(out) = &args.outputs.output {
        return output_flag(out);
    }
    if let Some(dir) = &args.outputs.out_dir {
        let root = root_of(path, &args.input.inputs);
        return Ok(Destination::File(crate::outputs::mirrored(
            dir,
            path,
            root.as_deref(),
        )));
    }
    if !args.dry_run && crate::sessions::Stores::from_env().contains(path) {
        bail!(
            "a session in its client's store, where a repaired copy beside it would show as one \
             more session: use --in-place (the archive keeps the original; --backup keeps a \
             copy too), -o FILE or --out-dir DIR"
        );
    }
    Ok(Destination::File(crate::outputs::beside_as(
        path,
        crate::outputs::REPAIRED_INFIX,
    )))
}

/// What `-o` names: a file or standard output. An object URL is refused rather than taken
/// for a local path (`s3:/bucket/...` made in the current directory).
fn output_flag(out: &Path) -> Result<Destination> {
    let dest = Destination::of_output(out)?;
    if let Destination::Remote(url) = &dest {
        bail!(
            "repair writes local files and standard output only, and {} is an object: repair              into a file, then copy it",
            url.shown()
        );
    }
    Ok(dest)
}

/// The directory given on the command line that `input` was found under.
fn root_of(input: &Path, given: &[PathBuf]) -> Option<PathBuf> {
    given
        .iter()
        .filter(|g| g.is_dir() && input.starts_with(g))
        .max_by_key(|g| g.as_os_str().len())
        .cloned()
}

/// Writes the repaired session (the archive first, its record pending until the output is in
/// place); returns where the output and the archive went.
fn write(
    input: &Input,
    args: &RepairArgs,
    dest: &Destination,
    claim: Option<&Claim>,
    original: &str,
    output: &str,
    report: &FileRepair,
) -> Result<(String, Option<String>)> {
    let input_path = match input {
        Input::File(path) => Some(path.as_path()),
        _ => None,
    };
    let target = match dest {
        Destination::Stdout => {
            crate::output::write_stdout(output.as_bytes())?;
            return Ok(("-".into(), None));
        }
        Destination::File(path) | Destination::InPlace(path) => path,
        Destination::Remote(_) | Destination::Nowhere => {
            bail!("repair writes local files and standard output only")
        }
    };
    if let Destination::File(path) = dest {
        if let Some(existing) = crate::archive::place::read(path)? {
            if existing == output.as_bytes() {
                return Ok((path.shown(), None));
            }
            if !args.outputs.force_overwrite {
                bail!(
                    "{} exists and differs from this repair: not replacing it (--force-overwrite \
                     replaces it)",
                    path.shown()
                );
            }
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.shown()))?;
        }
    }
    if let (Some(claim), Some(suffix)) = (claim, &args.outputs.backup) {
        claim.backup(suffix, original.as_bytes())?;
    }
    let pending = match args.no_archive || output == original {
        true => None,
        false => Some(archive::begin_repair(RepairJob {
            input: input_path,
            output: target,
            archive_dir: args.archive_dir.as_deref(),
            input_root: input_path
                .and_then(|p| root_of(p, &args.input.inputs))
                .as_deref(),
            original,
            repaired: output,
            format: report.format.as_deref().unwrap_or(""),
            repairs: serde_json::json!({ "command": "repair", "repairs": report.repairs }),
            restore: repair::pieces(original, output),
        })?),
    };
    let written = dest.write(output.as_bytes(), input_path, claim);
    let archive = match (written, pending) {
        (Ok(()), Some(pending)) => Some(pending.commit()?.shown()),
        (Ok(()), None) => None,
        (Err(e), Some(pending)) => {
            pending.roll_back()?;
            return Err(e);
        }
        (Err(e), None) => return Err(e),
    };
    Ok((target.shown(), archive))
}

//! `ctxc convert`: each input read by the adapters, converted ([`crate::convert`]) and
//! written atomically beside it (`NAME.atif.json`, `NAME.openai.jsonl`, ...), under
//! `--out-dir`, or to `-o`. One bad input never stops the others; what did not carry over is
//! said on stderr.
//!
//! A Parquet dataset is converted row by row, as `compact` takes it: each row's conversation
//! read and converted on its own, and written as JSON text in the conversation column of
//! `NAME.FORMAT.parquet`, every other column kept. A row that does not convert is named
//! (`PATH#row=N`) and null in the output, and the input fails; the other rows convert.

use crate::ExitStatus;
use crate::cli::ConvertArgs;
use crate::convert::{self, Converted, Target};
use crate::dataset::{self, Dataset, Row, Sniffed};
use crate::discover::{self, Input};
use crate::human::Shown;
use crate::outputs::Destination;
use crate::transcript::{self, ReadOptions};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What converting one input gave.
struct Done {
    /// Conversations converted.
    conversations: usize,
    /// What did not carry over, if anything.
    note: Option<String>,
    /// Where it went (`-` for stdout).
    written: String,
    /// Rows of a dataset that did not convert, with why: the input fails.
    failed_rows: Vec<String>,
}

/// Runs `ctxc convert`.
pub fn run(args: &ConvertArgs, quiet: bool) -> Result<ExitStatus> {
    let own: Vec<_> = args.out_dir.iter().cloned().collect();
    let (inputs, errors) =
        discover::discover(&args.input.inputs, &args.input.globs, &own)?.reported(quiet);
    if args.output.is_some() && inputs.len() + errors.len() > 1 {
        bail!(
            "-o names one output, and {} inputs were given",
            inputs.len() + errors.len()
        );
    }
    let mut status = ExitStatus::Success;
    for e in &errors {
        status = status.merge(e.report());
    }
    let opts = ReadOptions {
        format: args.input.format,
        messages_path: args.input.messages_path.clone(),
    };
    let root = common_root(&args.input.inputs);
    for input in &inputs {
        let path = input.display();
        match convert_one(args, input, &opts, root.as_deref()) {
            Ok(done) => {
                if let Some(note) = &done.note {
                    eprintln!("ctxc: {path}: {note}");
                }
                for failed in &done.failed_rows {
                    eprintln!("ctxc: {failed}");
                    status = status.merge(ExitStatus::Failure);
                }
                if !quiet && done.written != "-" {
                    eprintln!(
                        "ctxc: {path}: {} → {}",
                        crate::human::plural(done.conversations, "conversation"),
                        done.written
                    );
                }
            }
            // A reader that closed the pipe (`| head`) ends the run quietly, as elsewhere.
            Err(e) if crate::output::is_broken_pipe(&e) => return Err(e),
            Err(e) => {
                eprintln!("ctxc: {path}: {e:#}");
                status = status.merge(ExitStatus::Failure);
            }
        }
    }
    Ok(status)
}

/// The directory given on the command line when there is one and only one, so `--out-dir`
/// mirrors the tree below it.
fn common_root(paths: &[PathBuf]) -> Option<PathBuf> {
    match paths {
        [one] if one.is_dir() => Some(one.clone()),
        _ => None,
    }
}

/// Converts one input and writes it; returns what was converted and where it went.
fn convert_one(
    args: &ConvertArgs,
    input: &Input,
    opts: &ReadOptions,
    root: Option<&Path>,
) -> Result<Done> {
    let limit = args.input.limit.max_input_bytes;
    let text = match dataset::sniff(input, limit) {
        Ok(Sniffed::Parquet(file)) => return convert_dataset(args, input, file, opts, root),
        Ok(Sniffed::Other(Some(bytes))) => discover::utf8(bytes),
        Ok(Sniffed::Other(None)) => discover::load(input, limit),
        Err(e) => Err(e),
    }
    .map_err(|e| match e.line {
        0 => anyhow::anyhow!(e.message),
        line => anyhow::anyhow!("line {line}: {}", e.message),
    })?;
    let name = match input {
        Input::File(path) => path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        Input::Stdin | Input::Remote(_) => "stdin".into(),
    };
    let converted = convert_text(text, opts, args.to, &name)?;
    let ext = if converted.lines { "jsonl" } else { "json" };
    let dest = destination(args, input, root, ext)?;
    if let Destination::File(out) = &dest {
        prepare(args, out)?;
    }
    dest.write(converted.text.as_bytes(), None, None)?;
    Ok(Done {
        conversations: converted.conversations,
        note: converted.note(),
        written: dest.name().map_or_else(|| "-".to_string(), |d| d.shown()),
        failed_rows: Vec::new(),
    })
}

/// A transcript's text read by the adapters and converted.
fn convert_text(text: String, opts: &ReadOptions, to: Target, name: &str) -> Result<Converted> {
    let t = transcript::read(text, opts).map_err(|e| {
        let first = &e.findings[0];
        anyhow::anyhow!("{first}")
    })?;
    convert::convert(&t, to, name)
}

/// Refuses to replace an output unless told to, and makes its directory.
fn prepare(args: &ConvertArgs, out: &Path) -> Result<()> {
    if out.exists() && !args.force_overwrite {
        bail!("{} exists (--force-overwrite replaces it)", out.shown());
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.shown()))?;
    }
    Ok(())
}

/// What converting a dataset's rows gathers: conversations, what did not carry over, and the
/// rows that failed (in row order once sorted).
#[derive(Default)]
struct RowsDone {
    conversations: usize,
    dropped: BTreeMap<String, usize>,
    failed: Vec<(usize, String)>,
}

/// Converts a Parquet dataset row by row into `NAME.FORMAT.parquet` (see the module doc).
fn convert_dataset(
    args: &ConvertArgs,
    input: &Input,
    file: std::fs::File,
    opts: &ReadOptions,
    root: Option<&Path>,
) -> Result<Done> {
    let path = input.display();
    let dataset = Dataset::open(
        file,
        args.input.column.as_deref(),
        args.input.limit.max_input_bytes,
    )?;
    let dest = destination(args, input, root, "parquet")?;
    let gathered = Mutex::new(RowsDone::default());
    let stem = match input {
        Input::File(path) => path.file_stem().unwrap_or_default().to_string_lossy(),
        Input::Stdin | Input::Remote(_) => "stdin".into(),
    };
    let each = |row: Row| {
        let name = dataset::row_path(&stem, row.index);
        let converted = convert_text(row.text.to_string(), opts, args.to, &name)
            .and_then(|c| Ok((one_line(&c.text)?, c)));
        let mut done = gathered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match converted {
            Ok((text, c)) => {
                done.conversations += c.conversations;
                for (field, n) in c.dropped {
                    *done.dropped.entry(field).or_insert(0) += n;
                }
                Some(text)
            }
            Err(e) => {
                done.failed.push((row.index, format!("{e:#}")));
                None
            }
        }
    };
    match &dest {
        Destination::File(out) => {
            prepare(args, out)?;
            crate::outputs::atomic::write_streamed(out, |w| dataset.convert(w, each).map(drop))
                .with_context(|| format!("writing {}", out.shown()))?;
        }
        _ => {
            let mut out = std::io::BufWriter::new(std::io::stdout());
            dataset.convert(&mut out, each)?;
            out.flush()?;
        }
    }
    let mut done = gathered
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    done.failed.sort();
    let note = Converted {
        text: String::new(),
        conversations: done.conversations,
        lines: false,
        dropped: done.dropped,
    }
    .note();
    Ok(Done {
        conversations: done.conversations,
        note,
        written: dest.name().map_or_else(|| "-".to_string(), |d| d.shown()),
        failed_rows: done
            .failed
            .into_iter()
            .map(|(row, why)| format!("{}: {why}", dataset::row_path(&path, row)))
            .collect(),
    })
}

/// A converted conversation's text on one line, as a dataset cell holds JSON.
fn one_line(text: &str) -> Result<String> {
    let value: serde_json::Value = serde_json::from_str(text)?;
    Ok(value.to_string())
}

/// Where an input's conversion goes: `-o` (a file, or `-` for stdout), under `--out-dir`,
/// or beside it as `NAME.FORMAT.EXT` (`json`, `jsonl` for several conversations, `parquet`
/// for a dataset).
fn destination(
    args: &ConvertArgs,
    input: &Input,
    root: Option<&Path>,
    ext: &str,
) -> Result<Destination> {
    if let Some(out) = &args.output {
        // An object URL is refused rather than taken for a local path (`s3:/bucket/...`).
        let dest = Destination::of_output(out)?;
        if let Destination::Remote(url) = &dest {
            bail!(
                "convert writes local files and standard output only, and {} is an object: \
                 convert into a file, then copy it",
                url.shown()
            );
        }
        return Ok(dest);
    }
    let Input::File(path) = input else {
        bail!("standard input and objects are converted to -o only");
    };
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = format!("{stem}.{}.{ext}", args.to.name());
    Ok(Destination::File(match &args.out_dir {
        Some(dir) => crate::outputs::mirrored(dir, path, root).with_file_name(name),
        None => path.with_file_name(name),
    }))
}

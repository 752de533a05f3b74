//! `ctxc convert`: each input read by the adapters, converted ([`crate::convert`]) and
//! written atomically beside it (`NAME.atif.json`, `NAME.openai.jsonl`, ...), under
//! `--out-dir`, or to `-o`. One bad input never stops the others; what did not carry over is
//! said on stderr.

use crate::ExitStatus;
use crate::cli::ConvertArgs;
use crate::convert::{self, Converted};
use crate::discover::{self, Input};
use crate::transcript::{self, ReadOptions};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// Runs `ctxc convert`.
pub fn run(args: &ConvertArgs, quiet: bool) -> Result<ExitStatus> {
    let (inputs, errors) = discover::discover(&args.input.inputs, &args.input.globs)?;
    if args.output.is_some() && inputs.len() + errors.len() > 1 {
        bail!(
            "-o names one output, and {} inputs were given",
            inputs.len() + errors.len()
        );
    }
    let mut status = ExitStatus::Success;
    for e in &errors {
        eprintln!("ctxc: {}: {}", e.path, e.message);
        status = status.merge(if e.unopened {
            ExitStatus::Error
        } else {
            ExitStatus::Failure
        });
    }
    let opts = ReadOptions {
        format: args.input.format,
        messages_path: args.input.messages_path.clone(),
    };
    let root = common_root(&args.input.inputs);
    for input in &inputs {
        let path = input.display();
        match convert_one(args, input, &opts, root.as_deref()) {
            Ok((converted, written)) => {
                if let Some(note) = converted.note() {
                    eprintln!("ctxc: {path}: {note}");
                }
                if !quiet && written != "-" {
                    eprintln!(
                        "ctxc: {path}: {} → {written}",
                        crate::human::plural(converted.conversations, "conversation")
                    );
                }
            }
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
) -> Result<(Converted, String)> {
    let text =
        discover::load(input, args.input.limit.max_input_bytes).map_err(|e| match e.line {
            0 => anyhow::anyhow!(e.message),
            line => anyhow::anyhow!("line {line}: {}", e.message),
        })?;
    let t = transcript::read(text, opts).map_err(|e| {
        let first = &e.findings[0];
        anyhow::anyhow!("{first}")
    })?;
    let name = match input {
        Input::File(path) => path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        Input::Stdin | Input::Remote(_) => "stdin".into(),
    };
    let converted = convert::convert(&t, args.to, &name)?;
    let dest = destination(args, input, root, converted.lines)?;
    match &dest {
        None => crate::output::write_stdout(converted.text.as_bytes())?,
        Some(out) => {
            if out.exists() && !args.force_overwrite {
                bail!("{} exists (--force-overwrite replaces it)", out.display());
            }
            if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            crate::outputs::write_atomic(out, converted.text.as_bytes(), None)?;
        }
    }
    let written = dest.map_or_else(|| "-".to_string(), |d| d.display().to_string());
    Ok((converted, written))
}

/// Where an input's conversion goes: `-o` (`None` for stdout), under `--out-dir`, or beside
/// it as `NAME.FORMAT.json` (`.jsonl` for several conversations).
fn destination(
    args: &ConvertArgs,
    input: &Input,
    root: Option<&Path>,
    lines: bool,
) -> Result<Option<PathBuf>> {
    if let Some(out) = &args.output {
        return Ok((out.as_os_str() != "-").then(|| out.clone()));
    }
    let Input::File(path) = input else {
        bail!("standard input and objects are converted to -o only");
    };
    let ext = if lines { "jsonl" } else { "json" };
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = format!("{stem}.{}.{ext}", args.to.name());
    Ok(Some(match &args.out_dir {
        Some(dir) => crate::outputs::mirrored(dir, path, root).with_file_name(name),
        None => path.with_file_name(name),
    }))
}

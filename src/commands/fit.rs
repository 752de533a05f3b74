//! `ctxc fit`: each input read by the adapters, each conversation made into training samples
//! ([`crate::fit`]) and written as JSON Lines beside it (`NAME.fit.jsonl`), under
//! `--out-dir`, or to `-o`. One bad input or conversation never stops the others: it is
//! named on stderr and the run exits 1.

use crate::ExitStatus;
use crate::cli::{FitArgs, FitPolicy};
use crate::discover::{self, Input};
use crate::fit::report::Totals;
use crate::fit::{self, FitOptions, Fitted, Policy, RowReport};
use crate::human::Shown;
use crate::summarizer::Summarizer;
use crate::summarizer::extractive::Extractive;
use crate::tokens::{
    ChatCounter, ChatTemplate, CookbookCounter, Encoding, HfTokenizer, TemplateCounter,
    TokenCounter,
};
use crate::transcript::{self, ReadOptions};
use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Runs `ctxc fit`.
pub fn run(args: &FitArgs, quiet: bool, verbose: u8) -> Result<ExitStatus> {
    let counter = chat_counter(args)?;
    let summarizer = summarizer(args)?;
    let budget_counter = TokenCounter::new(Encoding::O200kBase)?;
    let opts = FitOptions {
        max_len: usize::try_from(args.max_len).unwrap_or(usize::MAX),
        policy: match args.policy {
            FitPolicy::Split => Policy::Split,
            FitPolicy::One => Policy::One,
        },
        train_field: &args.train_field,
        counter: counter.as_ref(),
        summarizer: summarizer.as_ref(),
        budget_counter: &budget_counter,
    };
    let own: Vec<_> = args.out_dir.iter().cloned().collect();
    let (inputs, errors) =
        discover::discover(&args.input.inputs, &args.input.globs, &own)?.reported(quiet);
    // With -o, every input's samples go to that one file, in input order.
    let mut joined = args.output.as_ref().map(|_| String::new());
    let mut status = ExitStatus::Success;
    for e in &errors {
        status = status.merge(e.report());
    }
    let read = ReadOptions {
        format: args.input.format,
        messages_path: args.input.messages_path.clone(),
    };
    let mut rows = Vec::new();
    let mut failed = 0;
    for input in &inputs {
        let path = input.display();
        match fit_input(args, input, &read, &opts, joined.as_mut()) {
            Ok(done) => {
                for (row, why) in &done.failed {
                    eprintln!("ctxc: {row}: {why}");
                }
                if !done.failed.is_empty() {
                    status = status.merge(ExitStatus::Failure);
                }
                failed += done.failed.len();
                if verbose > 0 {
                    for row in &done.rows {
                        eprintln!("ctxc: {}", row_line(row));
                    }
                }
                if !quiet && !args.dry_run && !done.written.is_empty() && done.written != "-" {
                    eprintln!(
                        "ctxc: {path}: {} → {}",
                        crate::human::plural(done.samples, "sample"),
                        done.written
                    );
                }
                rows.extend(done.rows);
            }
            Err(e) if crate::output::is_broken_pipe(&e) => return Err(e),
            Err(e) => {
                eprintln!("ctxc: {path}: {e:#}");
                status = status.merge(ExitStatus::Failure);
            }
        }
    }
    if let (Some(out), Some(text), false) = (&args.output, &joined, args.dry_run) {
        write_out(args, out, text)?;
    }
    let totals = Totals::of(&rows, failed, opts.max_len);
    if !quiet {
        eprintln!("ctxc: counted with {}", counter.name());
        for line in totals.lines(opts.max_len) {
            eprintln!("ctxc: {line}");
        }
    }
    if let Some(path) = &args.report {
        write_report(path, &counter.name(), &opts, &rows, &totals)?;
    }
    Ok(status)
}

/// How samples are counted: the tokenizer file with its chat template, else an encoding.
fn chat_counter(args: &FitArgs) -> Result<Box<dyn ChatCounter>> {
    let Some(file) = &args.tokenizer_file else {
        let encoding = args.encoding.unwrap_or_default();
        return Ok(Box::new(CookbookCounter(TokenCounter::new(encoding)?)));
    };
    let tokenizer = HfTokenizer::from_file(file)?;
    let template_file = match &args.chat_template {
        Some(path) => path.clone(),
        None => {
            let beside = file.with_file_name("tokenizer_config.json");
            if !beside.is_file() {
                bail!(
                    "no chat template: {} has no tokenizer_config.json beside it (give one with --chat-template)",
                    file.shown()
                );
            }
            beside
        }
    };
    let template = ChatTemplate::from_file(&template_file)?;
    Ok(Box::new(TemplateCounter {
        tokenizer,
        template,
    }))
}

/// The summarizer `--summarizer` names.
fn summarizer(args: &FitArgs) -> Result<Box<dyn Summarizer>> {
    use crate::summarizer::llm::{self, LlmSettings, LlmSummarizer, Provider};
    if args.summarizer == "extractive" {
        return Ok(Box::new(Extractive));
    }
    let provider: Provider = args
        .summarizer
        .parse()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let Some(model) = &args.summary_model else {
        bail!("--summarizer {} needs --summary-model", args.summarizer);
    };
    let mut settings = LlmSettings::new(provider, model.clone());
    settings.base_url = args.base_url.clone();
    settings.api_key = llm::api_key_from_env(provider);
    let summarizer = LlmSummarizer::new(settings)?;
    if !args.dry_run {
        eprintln!("ctxc: summaries are written by {}", summarizer.endpoint());
    }
    Ok(Box::new(summarizer))
}

/// What fitting one input gave.
struct Done {
    rows: Vec<RowReport>,
    samples: usize,
    /// Conversations that made no samples, with why.
    failed: Vec<(String, String)>,
    written: String,
}

/// Fits one input's conversations; their samples are appended to `joined` when given (`-o`),
/// else written beside the input or under `--out-dir`.
fn fit_input(
    args: &FitArgs,
    input: &Input,
    read: &ReadOptions,
    opts: &FitOptions,
    joined: Option<&mut String>,
) -> Result<Done> {
    let limit = args.input.limit.max_input_bytes;
    let text = match crate::dataset::sniff(input, limit) {
        Ok(crate::dataset::Sniffed::Parquet(_)) => {
            bail!("fit reads JSON and JSONL transcripts; Parquet datasets are not read by fit yet")
        }
        Ok(crate::dataset::Sniffed::Other(Some(bytes))) => discover::utf8(bytes),
        Ok(crate::dataset::Sniffed::Other(None)) => discover::load(input, limit),
        Err(e) => Err(e),
    }
    .map_err(|e| match e.line {
        0 => anyhow::anyhow!(e.message),
        line => anyhow::anyhow!("line {line}: {}", e.message),
    })?;
    let t = transcript::read(text, read).map_err(|e| anyhow::anyhow!("{}", e.findings[0]))?;
    let name = input.display();
    let fitted: Vec<(String, Result<Fitted>)> = t
        .conversations
        .par_iter()
        .map(|conv| (sample_of(&name, &conv.location), fit::fit(conv, opts)))
        .collect();
    let mut out = String::new();
    let mut done = Done {
        rows: Vec::new(),
        samples: 0,
        failed: Vec::new(),
        written: String::new(),
    };
    for (id, result) in fitted {
        match result {
            Ok(mut f) => {
                f.report.sample_of = id.clone();
                write_samples(&f, &id, &mut out)?;
                done.samples += f.samples.len();
                done.rows.push(f.report);
            }
            Err(e) => done.failed.push((id, format!("{e:#}"))),
        }
    }
    if let Some(joined) = joined {
        joined.push_str(&out);
        return Ok(done);
    }
    if args.dry_run {
        return Ok(done);
    }
    let dest = destination(args, input)?;
    write_out(args, &dest, &out)?;
    done.written = dest.shown();
    Ok(done)
}

/// Writes `text` to `path` (`-`: stdout), atomically.
fn write_out(args: &FitArgs, path: &Path, text: &str) -> Result<()> {
    if path.as_os_str() == "-" {
        return crate::output::write_stdout(text.as_bytes());
    }
    prepare(args, path)?;
    crate::outputs::write_atomic(path, text.as_bytes(), None)
}

/// A trajectory's name: the input and where the conversation sits in it.
fn sample_of(name: &str, location: &str) -> String {
    match location {
        "" => name.to_string(),
        l if l.starts_with('/') => format!("{name}{l}"),
        l => format!("{name}:{l}"),
    }
}

/// One JSON line per sample: messages, tools, which trajectory, which segment.
fn write_samples(f: &Fitted, id: &str, out: &mut String) -> Result<()> {
    for (i, sample) in f.samples.iter().enumerate() {
        let mut line = serde_json::Map::new();
        line.insert("messages".into(), Value::Array(sample.messages.clone()));
        if let Some(tools) = &f.tools {
            line.insert("tools".into(), tools.clone());
        }
        line.insert("sample_of".into(), json!(id));
        line.insert("segment".into(), json!(i));
        out.push_str(&serde_json::to_string(&line)?);
        out.push('\n');
    }
    Ok(())
}

fn row_line(row: &RowReport) -> String {
    format!(
        "{}: {} assistant turns → {} (tokens {}), {} trained, {} cut",
        row.sample_of,
        row.assistant_turns,
        crate::human::plural(row.samples, "sample"),
        row.tokens
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        row.turns_trained,
        row.cuts.len()
    )
}

fn write_report(
    path: &Path,
    counter: &str,
    opts: &FitOptions,
    rows: &[RowReport],
    totals: &Totals,
) -> Result<()> {
    let report = json!({
        "tokenizer": counter,
        "max_len": opts.max_len,
        "rows": rows,
        "totals": totals,
    });
    let text = serde_json::to_string_pretty(&report)? + "\n";
    if path.as_os_str() == "-" {
        return crate::output::write_stdout(text.as_bytes());
    }
    crate::outputs::write_atomic(path, text.as_bytes(), None)
        .with_context(|| format!("writing the report {}", path.shown()))
}

/// Refuses to replace an output unless told to, and makes its directory.
fn prepare(args: &FitArgs, out: &Path) -> Result<()> {
    if out.exists() && !args.force_overwrite {
        bail!("{} exists (--force-overwrite replaces it)", out.shown());
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.shown()))?;
    }
    Ok(())
}

/// Under `--out-dir`, or beside the input as `NAME.fit.jsonl`.
fn destination(args: &FitArgs, input: &Input) -> Result<PathBuf> {
    let Input::File(path) = input else {
        bail!("samples from standard input and objects are written to -o only");
    };
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = format!("{stem}.fit.jsonl");
    Ok(match &args.out_dir {
        Some(dir) => dir.join(name),
        None => path.with_file_name(name),
    })
}

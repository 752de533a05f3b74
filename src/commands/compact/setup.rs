//! What a compaction run sets up before its first file: the `--resume-from` manifest (keyed
//! on everything that decides the outputs) and the summarizer (a remote one announced first).

use super::jobs::{Destination, Job};
use crate::cli::CompactArgs;
use crate::config::CompactConfig;
use crate::manifest::Manifest;
use crate::pipeline::OnFindings;
use crate::summarizer::Summarizer;
use crate::summarizer::extractive::Extractive;
use anyhow::{Result, bail};

/// The `--resume-from` manifest, for a run that writes files (or a dry run).
pub(super) fn open_manifest(
    args: &CompactArgs,
    config: &CompactConfig,
    jobs: &[Job],
) -> Result<Option<Manifest>> {
    let Some(path) = &args.resume_from else {
        return Ok(None);
    };
    if !args.dry_run && jobs.iter().any(|j| j.dest == Destination::Stdout) {
        bail!("--resume-from records files written, and this run writes to standard output");
    }
    // What decides the output besides the settings `config show` lists.
    let flags = format!(
        "{:?}",
        (
            config.strategy.drop_stored,
            config.strategy.step_plans,
            &args.archive_dir,
            args.on_findings() == OnFindings::Allow,
            config.read.format,
            &config.read.messages_path,
            args.outputs.in_place,
            &args.outputs.backup,
            args.dry_run,
        )
    );
    // Only when given: manifests of runs without it keep their digest.
    let flags = match &args.input.column {
        Some(column) => format!("{flags} --column {column}"),
        None => flags,
    };
    let flags = if args.drop_torn_tail {
        format!("{flags} --drop-torn-tail")
    } else {
        flags
    };
    let flags = if args.repair {
        format!("{flags} --repair")
    } else {
        flags
    };
    let flags = match args.on_findings() {
        OnFindings::Refuse => format!("{flags} --on-findings refuse"),
        OnFindings::Keep | OnFindings::Allow => flags,
    };
    let digest =
        crate::manifest::settings_digest(&crate::commands::config::effective_json(config), &flags);
    Manifest::open(path, digest).map(Some)
}

/// The summarizer the settings ask for. A remote one is announced on stderr before any
/// request: which endpoint may receive how much of which files. A dry run never sends
/// anything: it says what would be sent and plans with the offline summarizer.
pub(super) fn summarizer(
    config: &CompactConfig,
    (files, bytes): (usize, u64),
    dry_run: bool,
) -> Result<Box<dyn Summarizer>> {
    use crate::summarizer::llm::{self, LlmSettings, LlmSummarizer, Provider};
    let s = &config.summarizer;
    if s.kind == "extractive" {
        return Ok(Box::new(Extractive));
    }
    let provider: Provider = s.kind.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    let model = s
        .model
        .clone()
        .expect("validated: remote summarizers have a model");
    let mut settings = LlmSettings::new(provider, model);
    settings.base_url = s.base_url.clone();
    settings.api_key = llm::api_key_from_env(provider);
    settings.timeout = std::time::Duration::from_secs_f64(s.timeout);
    settings.concurrency = s.concurrency;
    settings.on_failure = s.on_failure.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    settings.redact = s.redact;
    settings.allow_insecure_http = s.allow_insecure_http;
    // A dry run sends nothing, so it needs no API key: it says what the real run lacks.
    let lacking = if dry_run {
        settings.endpoint_url().err()
    } else {
        None
    };
    if lacking.is_some() && settings.api_key.is_none() {
        settings.api_key = Some(String::new());
    }
    let summarizer = LlmSummarizer::new(settings)?;
    if !s.redact {
        crate::human::warn("--no-redact: secrets in the transcripts are sent as they are");
    }
    let announcement = llm::announcement(summarizer.endpoint(), files, bytes as usize);
    if dry_run {
        eprintln!(
            "{} — but not now: --dry-run sends nothing (summaries in this report are extractive stand-ins)",
            announcement.replace(" will be sent to ", " would be sent to ")
        );
        if let Some(lacking) = lacking {
            crate::human::warn(format_args!("{lacking:#} (the real run needs it)"));
        }
        return Ok(Box::new(Extractive));
    }
    eprintln!("{announcement}");
    Ok(Box::new(summarizer))
}

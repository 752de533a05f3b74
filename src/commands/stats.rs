//! `ctxc stats`: a dry-run token report per file — context tokens, stored-only bytes,
//! breakdowns, provider-reported usage, and which triggers would fire.

use crate::ExitStatus;
use crate::calibrate::{self, Calibration, Prior, Source};
use crate::cli::StatsArgs;
use crate::config::{TokenSettings, trigger_settings};
use crate::count::{Breakdown, count_transcript, stored_only_bytes};
use crate::dataset::{self, Sniffed};
use crate::discover::{self, Input};
use crate::human::thousands;
use crate::progress::Progress;
use crate::report::{self, Columns, OutputFormat, Table};
use crate::tokens::TokenCounter;
use crate::transcript::{self, ReadOptions, Transcript, Usage};
use crate::trigger::{self, Measures, TriggerSettings};
use crate::workers;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::IsTerminal;

/// The whole report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatsReport {
    /// Bumped when a field changes meaning or goes away.
    pub schema_version: u32,
    /// How tokens were counted.
    pub tokenizer: TokenSettings,
    /// The token threshold the token trigger uses, if on.
    pub trigger_threshold: Option<usize>,
    /// One entry per input, in input order.
    pub files: Vec<FileStats>,
    /// Sums over all files.
    pub totals: Totals,
}

/// Figures of one file (or its error).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStats {
    /// The input's path.
    pub path: String,
    /// Why the file could not be read, if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The line the error is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_line: Option<usize>,
    /// Detected (or forced) format.
    pub format: Option<String>,
    /// How the messages are stored.
    pub container: Option<String>,
    /// Figures summed over the file's conversations.
    #[serde(flatten)]
    pub figures: Figures,
}

/// Figures that add up over conversations and files.
#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    /// The one number: what the token trigger compares and `stats -q` prints. Provider tokens
    /// where the file records usage (`calibratedContextTokens`), else ctxc's own count
    /// (`contextTokens`); `tokensSource` says which.
    pub tokens: usize,
    /// Whose count `tokens` is.
    pub tokens_source: TokensSource,
    /// Conversations.
    pub conversations: usize,
    /// Logical messages in the live context.
    pub messages: usize,
    /// Bytes of the file.
    pub bytes: usize,
    /// Tokens the model would be sent (summed over conversations), as ctxc counts them.
    pub context_tokens: usize,
    /// The largest conversation's context tokens.
    pub max_conversation_tokens: usize,
    /// Bytes stored that never reach the model.
    pub stored_only_bytes: usize,
    /// Context tokens by role, kind and tool.
    #[serde(flatten)]
    pub breakdown: Breakdown,
    /// Usage the provider reported in the transcript, kept apart from ctxc's counts.
    pub provider_usage: Option<ProviderUsage>,
    /// Context tokens as the provider would count them, fitted on the usage the file records
    /// (absent when it records none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_context_tokens: Option<usize>,
    /// How provider tokens were obtained: fitted on the file's calls, or the documented
    /// default for a model with no public tokenizer (an estimate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<CalibrationStats>,
    /// Trigger name → number of conversations where it would fire.
    pub triggers: BTreeMap<String, usize>,
}

/// Whose count a figure is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TokensSource {
    /// ctxc's own count (the file records no usage to calibrate on).
    #[default]
    Ctxc,
    /// Provider tokens, calibrated on the usage the file records.
    Provider,
}

/// Provider-reported usage summed over a file's messages.
#[derive(Debug, Default, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderUsage {
    /// Messages that carried usage.
    pub messages: usize,
    /// Input tokens (uncached).
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// The prompt size of the last reported call (input + cache creation + cache read): the
    /// provider's own view of the context, to compare with `contextTokens`.
    pub last_context_tokens: u64,
}

/// How a file's provider tokens were obtained (its largest conversation's calibration).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CalibrationStats {
    /// `usage` (fitted on the file's calls) or `default` (an estimate).
    pub source: Source,
    /// Whether the figure is an estimate (no usage in the file).
    pub estimate: bool,
    /// Calls with usage the fit used.
    pub calls: usize,
    /// Tokens the provider adds to every request (not stored in the file).
    pub overhead: u64,
    /// Provider tokens per counted token.
    pub ratio: f64,
    /// Median relative error of the fit on the file's own calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit_error: Option<f64>,
    /// Context tokens as the provider would count them (summed over conversations).
    pub context_tokens: usize,
    /// Their share of the context window (the largest conversation's).
    pub window_share: f64,
}

/// Sums over all files.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Inputs.
    pub files: usize,
    /// Inputs that could not be read.
    pub failed: usize,
    /// Summed figures.
    #[serde(flatten)]
    pub figures: Figures,
}

/// Runs `ctxc stats`.
pub fn run(args: &StatsArgs, quiet: bool) -> anyhow::Result<ExitStatus> {
    let tokens = TokenSettings::from_args(&args.tokens)?;
    let triggers = trigger_settings(&args.triggers, &tokens, false)?;
    // The tokenizer builds while the inputs are found.
    let (counter, found) = rayon::join(
        || tokens.counter(),
        || discover::discover(&args.input.inputs, &args.input.globs, &[]),
    );
    let counter = counter?;
    let (inputs, errors) = found?.reported(quiet);
    let opts = ReadOptions {
        format: args.input.format,
        messages_path: args.input.messages_path.clone(),
    };
    discover::read_ahead(&inputs, args.input.limit.max_input_bytes);
    let limit = args.input.limit.max_input_bytes;
    let progress = Progress::new(inputs.len(), quiet);
    // Paths that could not be opened: I/O errors, which exit 2 as ripgrep's do.
    let unopened = errors.iter().filter(|e| e.unopened).count();
    let mut files: Vec<FileStats> = errors
        .into_iter()
        .map(|e| FileStats {
            path: e.path,
            error: Some(e.message),
            ..Default::default()
        })
        .collect();
    let measure = |input: &Input| {
        let model = tokens.model.as_deref();
        let stats = match dataset::sniff(input, limit) {
            Ok(Sniffed::Parquet(file)) => {
                let column = args.input.column.as_deref();
                dataset_stats(
                    input,
                    file,
                    (column, limit),
                    &opts,
                    &counter,
                    &triggers,
                    model,
                )
            }
            Ok(Sniffed::Other(bytes)) => {
                vec![file_stats(
                    input, bytes, &opts, &counter, &triggers, model, limit,
                )]
            }
            Err(e) => vec![failed(input.display(), e.line, e.message)],
        };
        progress.advance();
        stats
    };
    let panicked = |input: &Input, why: String| {
        progress.advance();
        vec![failed(input.display(), 0, why)]
    };
    let measured = workers::in_order(&inputs, measure, panicked);
    files.extend(measured.into_iter().flatten());
    // Unusable paths among the others, all in path order (a dataset's rows in row order).
    files.sort_by(|a, b| dataset::report_order(&a.path, &b.path));
    progress.finish();
    for error in files.iter().filter_map(FileStats::error_message) {
        progress.warn(&error);
    }
    let report = StatsReport {
        schema_version: 1,
        tokenizer: tokens,
        trigger_threshold: triggers.token_threshold(),
        totals: totals(&files),
        files,
    };
    // Nothing could be opened: the errors above are all there is to say.
    if !(inputs.is_empty() && unopened > 0) {
        print(&report, args.output.format(), quiet)?;
    }
    Ok(if unopened > 0 {
        ExitStatus::Error
    } else if report.totals.failed == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

fn print(report: &StatsReport, format: OutputFormat, quiet: bool) -> anyhow::Result<()> {
    let text = if quiet && format == OutputFormat::Table {
        // The provider's view when the files record usage: what "how full is it" means.
        format!("{}\n", report.totals.figures.tokens)
    } else {
        let mut table = table(report, Columns::of(format));
        if format == OutputFormat::Table && std::io::stdout().is_terminal() {
            report::fit_terminal(&mut table, 0);
        }
        report::render(format, report, &table)?
    };
    crate::output::write_stdout(text.as_bytes())
}

/// Reads and measures one input (whose bytes, for standard input, were already read); a
/// failure is recorded, not raised.
pub fn file_stats(
    input: &Input,
    read: Option<Vec<u8>>,
    opts: &ReadOptions,
    counter: &TokenCounter,
    triggers: &TriggerSettings,
    model: Option<&str>,
    limit: u64,
) -> FileStats {
    let text = match read {
        Some(bytes) => discover::utf8(bytes),
        None => discover::load(input, limit),
    };
    match text {
        Ok(text) => text_stats(input.display(), text, opts, counter, triggers, model),
        Err(e) => failed(input.display(), e.line, e.message),
    }
}

/// Measures each row of a dataset as a file holding its conversation; a dataset that cannot
/// be read is one failed entry.
fn dataset_stats(
    input: &Input,
    file: std::fs::File,
    (column, limit): (Option<&str>, u64),
    opts: &ReadOptions,
    counter: &TokenCounter,
    triggers: &TriggerSettings,
    model: Option<&str>,
) -> Vec<FileStats> {
    let path = input.display();
    let measured = dataset::Dataset::open(file, column, limit).and_then(|d| {
        d.read(|row| {
            let path = dataset::row_path(&path, row.index);
            text_stats(path, row.text.into(), opts, counter, triggers, model)
        })
    });
    measured.unwrap_or_else(|e| vec![failed(path, 0, format!("{e:#}"))])
}

/// A file that could not be measured: why, and the line it is about (0: none).
fn failed(path: String, line: usize, error: String) -> FileStats {
    FileStats {
        path,
        error: Some(error),
        error_line: (line > 0).then_some(line),
        ..Default::default()
    }
}

/// Measures one transcript's text.
fn text_stats(
    path: String,
    text: String,
    opts: &ReadOptions,
    counter: &TokenCounter,
    triggers: &TriggerSettings,
    model: Option<&str>,
) -> FileStats {
    match transcript::read(text, opts) {
        Ok(t) => {
            let figures = measure(&t, counter, triggers, model);
            let nothing =
                transcript::named_format_found_nothing(t.format, &t.source, opts, figures.messages);
            if let Some(warning) = nothing {
                crate::human::warn(format!("{path}: {warning}"));
            }
            FileStats {
                path,
                error: None,
                error_line: None,
                format: Some(t.format.to_string()),
                container: Some(t.container.clone()),
                figures,
            }
        }
        Err(e) => {
            let first = &e.findings[0];
            failed(path, first.line, first.message.clone())
        }
    }
}

impl FileStats {
    /// `path:line: error` (or `path: error`) for a file that could not be read, as `check`
    /// prints findings and `compact` its failures.
    pub fn error_message(&self) -> Option<String> {
        let error = self.error.as_deref()?;
        Some(match self.error_line {
            Some(line) => format!("{}:{line}: {error}", self.path),
            None => format!("{}: {error}", self.path),
        })
    }
}

/// Every figure of a transcript; `model` is the model named on the command line, if any.
pub fn measure(
    t: &Transcript,
    counter: &TokenCounter,
    triggers: &TriggerSettings,
    model: Option<&str>,
) -> Figures {
    let prior = Prior::for_transcript(t.format, model);
    let mut calibrated = Calibrated::default();
    let counts = count_transcript(counter, t);
    let mut figures = Figures {
        conversations: t.conversations.len(),
        bytes: t.source.len(),
        provider_usage: provider_usage(t),
        ..Default::default()
    };
    // Bytes outside the message lists (trajectory copies, metadata) never reach the model.
    let listed: usize = t.conversations.iter().map(|c| c.span.len()).sum();
    figures.stored_only_bytes = t.source.len().saturating_sub(listed);
    // The window of the largest conversation: the one the transcript records, unless given.
    let mut window = triggers.context_window;
    for (conv, tokens) in t.conversations.iter().zip(&counts.conversations) {
        let total = tokens.total();
        let triggers = triggers.for_conversation(conv);
        if total >= figures.max_conversation_tokens {
            window = triggers.context_window;
        }
        let calibration =
            calibrate::conversation(counter, conv, &tokens.items, tokens.preamble, prior);
        // Triggers compare a fit on usage, never the default estimate (as `compact` does).
        let provider = calibration
            .filter(|c| !c.is_estimate())
            .map(|c| c.predict(total));
        match calibration {
            Some(c) => calibrated.add(c, c.predict(total)),
            None => calibrated.raw += total,
        }
        let measures = Measures::of(conv, total).with_provider(provider);
        figures.messages += measures.events;
        figures.context_tokens += total;
        figures.max_conversation_tokens = figures.max_conversation_tokens.max(total);
        figures.stored_only_bytes += stored_only_bytes(conv);
        figures.breakdown.add(counter, conv, tokens);
        for fired in trigger::fired(&triggers, &measures) {
            *figures.triggers.entry(fired.name().into()).or_default() += 1;
        }
    }
    calibrated.finish(&mut figures, window);
    figures.settle();
    figures
}

/// Provider tokens summed over a file's conversations, and the calibration of its largest.
#[derive(Default)]
struct Calibrated {
    /// Provider tokens of conversations with a calibration.
    tokens: usize,
    /// ctxc's counts of the others (a fit says nothing about them).
    raw: usize,
    /// The calibration with the most calls (then the largest context), and its figure.
    main: Option<(Calibration, usize)>,
}

impl Calibrated {
    fn add(&mut self, c: Calibration, provider: usize) {
        self.tokens += provider;
        let better = self
            .main
            .is_none_or(|(m, p)| (c.calls, provider) > (m.calls, p));
        if better {
            self.main = Some((c, provider));
        }
    }

    fn finish(self, figures: &mut Figures, window: usize) {
        let Some((main, largest)) = self.main else {
            return;
        };
        let tokens = self.tokens + self.raw;
        if !main.is_estimate() {
            figures.calibrated_context_tokens = Some(tokens);
        }
        figures.calibration = Some(CalibrationStats {
            source: main.source,
            estimate: main.is_estimate(),
            calls: main.calls,
            overhead: main.overhead.max(0.0).round() as u64,
            ratio: (main.ratio * 1000.0).round() / 1000.0,
            fit_error: main.fit_error.map(|e| (e * 10_000.0).round() / 10_000.0),
            context_tokens: tokens,
            window_share: (largest as f64 / window as f64 * 1000.0).round() / 1000.0,
        });
    }
}

fn provider_usage(t: &Transcript) -> Option<ProviderUsage> {
    let usages: Vec<&Usage> = t
        .conversations
        .iter()
        .flat_map(|c| &c.items)
        .filter_map(|i| i.usage.as_deref())
        .collect();
    let last = usages.last()?;
    let mut sum = ProviderUsage {
        messages: usages.len(),
        last_context_tokens: last.input_tokens
            + last.cache_creation_input_tokens
            + last.cache_read_input_tokens,
        ..Default::default()
    };
    for u in &usages {
        sum.input_tokens += u.input_tokens;
        sum.output_tokens += u.output_tokens;
        sum.cache_creation_input_tokens += u.cache_creation_input_tokens;
        sum.cache_read_input_tokens += u.cache_read_input_tokens;
    }
    Some(sum)
}

impl Figures {
    /// Sets `tokens` from the counts (once they are final).
    fn settle(&mut self) {
        (self.tokens, self.tokens_source) = match self.calibrated_context_tokens {
            Some(provider) => (provider, TokensSource::Provider),
            None => (self.context_tokens, TokensSource::Ctxc),
        };
    }

    fn add(&mut self, other: &Figures) {
        self.conversations += other.conversations;
        self.messages += other.messages;
        self.bytes += other.bytes;
        self.context_tokens += other.context_tokens;
        self.max_conversation_tokens = self
            .max_conversation_tokens
            .max(other.max_conversation_tokens);
        self.stored_only_bytes += other.stored_only_bytes;
        self.breakdown.merge(&other.breakdown);
        // A total in provider tokens: files without usage count as ctxc counts them.
        if self.calibrated_context_tokens.is_some() || other.calibrated_context_tokens.is_some() {
            let mine = self
                .calibrated_context_tokens
                .unwrap_or(self.context_tokens - other.context_tokens);
            let theirs = other
                .calibrated_context_tokens
                .unwrap_or(other.context_tokens);
            self.calibrated_context_tokens = Some(mine + theirs);
        }
        if let Some(theirs) = other.provider_usage {
            let mine = self.provider_usage.get_or_insert_default();
            mine.messages += theirs.messages;
            mine.input_tokens += theirs.input_tokens;
            mine.output_tokens += theirs.output_tokens;
            mine.cache_creation_input_tokens += theirs.cache_creation_input_tokens;
            mine.cache_read_input_tokens += theirs.cache_read_input_tokens;
            mine.last_context_tokens += theirs.last_context_tokens;
        }
        for (name, n) in &other.triggers {
            *self.triggers.entry(name.clone()).or_default() += n;
        }
    }
}

fn totals(files: &[FileStats]) -> Totals {
    let mut totals = Totals {
        files: files.len(),
        failed: files.iter().filter(|f| f.error.is_some()).count(),
        ..Default::default()
    };
    for file in files {
        totals.figures.add(&file.figures);
    }
    totals.figures.settle();
    totals
}

fn table(report: &StatsReport, columns: Columns) -> Table {
    let estimated = if report.tokenizer.exact {
        ""
    } else {
        " (est.)"
    };
    let headers: Vec<String> = match columns {
        Columns::Narrow => vec![
            "FILE".into(),
            "FORMAT".into(),
            "CONV".into(),
            "MSGS".into(),
            "BYTES".into(),
            // The figure the trigger uses and `stats -q` prints: the provider's where recorded.
            "TOKENS (WINDOW)".into(),
            format!("CTXC{estimated}"),
            "STORED-ONLY".into(),
            "TRIGGERS".into(),
        ],
        Columns::Wide => vec![
            "FILE".into(),
            "FORMAT".into(),
            "CONV".into(),
            "MSGS".into(),
            "BYTES".into(),
            "PROVIDER TOKENS (WINDOW)".into(),
            format!("CTXC TOKENS{estimated}"),
            "STORED-ONLY BYTES".into(),
            "PROVIDER CONTEXT".into(),
            "TRIGGERS".into(),
        ],
    };
    let width = headers.len();
    let rows = report
        .files
        .iter()
        .map(|f| match &f.error {
            Some(_) => {
                let mut cells = vec![f.path.clone(), "failed".into()];
                cells.resize(width, "-".into());
                cells
            }
            None => row(
                f.path.clone(),
                f.format.clone().unwrap_or_default(),
                &f.figures,
                columns,
                false,
            ),
        })
        .collect();
    let t = &report.totals;
    let files = if t.files == 1 { "file" } else { "files" };
    let failed = if t.failed > 0 {
        format!(", {} failed", t.failed)
    } else {
        String::new()
    };
    let total_label = format!("TOTAL ({} {files}{failed})", t.files);
    let mut numeric = vec![false, false, true, true, true, true, true, true];
    numeric.resize(width, false);
    if columns == Columns::Wide {
        numeric[8] = true;
    }
    Table {
        numeric,
        headers,
        rows,
        total: Some(row(
            total_label,
            String::new(),
            &report.totals.figures,
            columns,
            true,
        )),
        notes: notes(report, columns),
    }
}

/// One file's cells, or the `total`'s: no window share nor last prompt size there (each
/// file's is its own session's; a sum would mean nothing).
fn row(label: String, format: String, f: &Figures, columns: Columns, total: bool) -> Vec<String> {
    let triggers: Vec<String> = f.triggers.iter().map(|(k, n)| format!("{k}×{n}")).collect();
    let triggers = if triggers.is_empty() {
        "-".into()
    } else {
        triggers.join(" ")
    };
    match columns {
        Columns::Narrow => vec![
            label,
            format,
            thousands(f.conversations as u64),
            thousands(f.messages as u64),
            crate::human::bytes(f.bytes as u64),
            tokens_cell(f, total),
            thousands(f.context_tokens as u64),
            crate::human::bytes(f.stored_only_bytes as u64),
            triggers,
        ],
        Columns::Wide => vec![
            label,
            format,
            thousands(f.conversations as u64),
            thousands(f.messages as u64),
            thousands(f.bytes as u64),
            if total {
                f.calibrated_context_tokens
                    .map_or_else(|| "-".into(), |n| thousands(n as u64))
            } else {
                provider_cell(f.calibration.as_ref())
            },
            thousands(f.context_tokens as u64),
            thousands(f.stored_only_bytes as u64),
            match f.provider_usage {
                Some(u) if !total => thousands(u.last_context_tokens),
                _ => "-".into(),
            },
            triggers,
        ],
    }
}

/// `29,733* (15%)`: the one number the token trigger compares, `*` when it is the provider's
/// (fitted on the file's usage, so its window share means something), else ctxc's own count.
fn tokens_cell(f: &Figures, total: bool) -> String {
    match f.tokens_source {
        TokensSource::Provider => {
            let number = format!("{}*", thousands(f.tokens as u64));
            match f.calibration.as_ref() {
                Some(c) if !total => format!("{number} ({:.0}%)", c.window_share * 100.0),
                _ => number,
            }
        }
        TokensSource::Ctxc => thousands(f.tokens as u64),
    }
}

fn provider_cell(c: Option<&CalibrationStats>) -> String {
    let Some(c) = c else { return "-".into() };
    let share = format!("{:.0}%", c.window_share * 100.0);
    if c.estimate {
        format!("~{} ({share}) est.", thousands(c.context_tokens as u64))
    } else {
        format!("{} ({share})", thousands(c.context_tokens as u64))
    }
}

fn notes(report: &StatsReport, columns: Columns) -> Vec<String> {
    let t = &report.tokenizer;
    let exactness = if t.exact { "exact" } else { "estimated" };
    let model = t
        .model
        .as_deref()
        .map(|m| format!("{m}, "))
        .unwrap_or_default();
    let threshold = report
        .trigger_threshold
        .map(|n| format!("token trigger at {} tokens", thousands(n as u64)))
        .unwrap_or_else(|| "token trigger off".into());
    let b = &report.totals.figures.breakdown;
    // Errors are printed once, on stderr (`run`), not again under the table.
    let mut notes = vec![String::new()];
    notes.extend([
        format!(
            "tokens: {model}{} ({exactness}); context window {}; {threshold}",
            t.encoding,
            thousands(t.context_window as u64)
        ),
        format!("by role: {}", breakdown_line(&b.by_role, usize::MAX)),
        format!("by kind: {}", breakdown_line(&b.by_kind, usize::MAX)),
        format!("by tool (top 10): {}", breakdown_line(&b.by_tool, 10)),
    ]);
    notes.push(match columns {
        Columns::Narrow => "TOKENS: what the token trigger compares, the provider's count (*) where the file records usage, else ctxc's (CTXC); STORED-ONLY: bytes the client stores but never sends".into(),
        Columns::Wide => "provider context: the prompt size the provider reported for the last call (input + cache), never mixed into ctxc's counts".into(),
    });
    notes.extend([
        format!(
            "provider tokens: the next prompt as the provider would count it: the last reported prompt plus ratio × what came after it, fitted per file on its calls' usage; est. = no usage, a default for models without a public tokenizer (Claude: ratio {}, overhead {})",
            calibrate::DEFAULT_CLAUDE_RATIO,
            thousands(calibrate::DEFAULT_CLAUDE_OVERHEAD as u64)
        ),
    ]);
    for f in &report.files {
        if let Some(c) = f.figures.calibration.as_ref().filter(|c| !c.estimate) {
            notes.push(format!(
                "{}: calibrated on {}: overhead {}, ratio {:.3}, fit error {:.1}%",
                f.path,
                crate::human::plural(c.calls, "call"),
                thousands(c.overhead),
                c.ratio,
                c.fit_error.unwrap_or(0.0) * 100.0
            ));
        }
    }
    notes
}

/// `a 1,234 · b 567`, largest first, at most `limit` entries.
fn breakdown_line(map: &BTreeMap<String, u64>, limit: usize) -> String {
    let mut entries: Vec<(&String, &u64)> = map.iter().collect();
    entries.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if entries.is_empty() {
        return "-".into();
    }
    let shown: Vec<String> = entries
        .iter()
        .take(limit)
        .map(|(k, v)| format!("{k} {}", thousands(**v)))
        .collect();
    shown.join(" · ")
}

//! `ctxc eval`: what each strategy × target ratio keeps of what an agent needs to carry on.
//! Every input is compacted in memory (nothing is written) with each strategy and ratio, as
//! `ctxc compact --force --strategy S --target-ratio R` would; the probes derived from the
//! original ([`crate::eval`]) are checked against what the model is sent after the output
//! loads, and the facts `retention` counts are reported beside them. A Parquet dataset is
//! evaluated row by row, each row's conversation as a file of its own. With `--judge`, a model
//! answers a sample of the probes from each compacted context and from the original, and
//! scores the answers ([`crate::eval::judge`]).

use crate::ExitStatus;
use crate::cli::{EvalArgs, JudgeArgs};
use crate::config::TokenSettings;
use crate::dataset::{self, Sniffed};
use crate::discover::{self, Input};
use crate::eval::judge::{Assessment, Cache, Dimension, Judge, JudgeSettings, Scores, Spent};
use crate::eval::{self, BySubject, Category, Kept, Probe, Subject, Tallies};
use crate::facts::Facts;
use crate::human::thousands;
use crate::pipeline::{self, Settings, Target};
use crate::progress::Progress;
use crate::report::{self, OutputFormat, Table};
use crate::retention::{Counts, Retention, verbatim_retention_of};
use crate::strategy::{StrategyName, StrategySettings};
use crate::summarizer::extractive::Extractive;
use crate::transcript::{self, ReadOptions, Transcript};
use crate::trigger::TriggerSettings;
use anyhow::{Result, bail};
use rayon::prelude::*;
use serde::Serialize;
use std::io::IsTerminal;

/// The whole report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvalReport {
    /// Bumped when a field changes meaning or goes away.
    pub schema_version: u32,
    /// How tokens were counted.
    pub tokenizer: TokenSettings,
    /// The judge, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeReport>,
    /// One entry per strategy × target ratio, strategies in the order given, ratios within.
    pub runs: Vec<RunReport>,
}

/// Who judged, and what it cost.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeReport {
    /// openai or anthropic.
    pub provider: String,
    /// The model that answered and judged.
    pub model: String,
    /// Where the requests went (any password redacted).
    pub endpoint: String,
    /// Probe questions asked per conversation, at most.
    pub probes_per_conversation: usize,
    /// Where replies are cached, if they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    /// Requests and tokens spent in this run, and replies read from the cache.
    #[serde(flatten)]
    pub spent: Spent,
}

/// Judge scores of one run: the answers from the compacted context and, on the same
/// questions, from the original.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Judged {
    /// Answers given from the compacted context.
    pub compacted: Scores,
    /// Answers given from the original.
    pub original: Scores,
    /// Answers not scored (a failed request or an unreadable reply).
    pub skipped: usize,
}

impl Judged {
    fn is_empty(&self) -> bool {
        *self == Judged::default()
    }
}

impl std::ops::AddAssign for Judged {
    fn add_assign(&mut self, other: Judged) {
        self.compacted += other.compacted;
        self.original += other.original;
        self.skipped += other.skipped;
    }
}

/// One strategy at one target ratio over every input.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    /// The strategy.
    pub strategy: StrategyName,
    /// The target, a share of each conversation's context tokens.
    pub target_ratio: f64,
    /// Sums over the files that could be evaluated.
    #[serde(flatten)]
    pub totals: Figures,
    /// Per input, in input order.
    pub files: Vec<FileEval>,
}

/// Figures that add up over conversations and files.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    /// Context tokens before compaction.
    pub tokens_before: usize,
    /// Context tokens after.
    pub tokens_after: usize,
    /// Probes kept verbatim and asked, `[verbatim, total]`, per category.
    pub probes: Tallies,
    /// Probes kept only in a summary's artifact index, `[index only, total]`, per category.
    pub probes_in_index: Tallies,
    /// Each probe subject's verbatim, index-only and lost probes.
    pub subjects: BySubject,
    /// Facts sent verbatim (artifact indexes not counted), `[kept, total]` per kind.
    pub retention: Counts,
    /// Judge scores (sums), with `--judge`.
    #[serde(skip_serializing_if = "Judged::is_empty")]
    pub judge: Judged,
}

impl std::ops::AddAssign for Figures {
    fn add_assign(&mut self, other: Figures) {
        self.tokens_before += other.tokens_before;
        self.tokens_after += other.tokens_after;
        self.probes += other.probes;
        self.probes_in_index += other.probes_in_index;
        self.subjects += other.subjects;
        let mut retention = Retention::from(self.retention);
        retention += other.retention.into();
        self.retention = retention.into();
        self.judge += other.judge;
    }
}

/// One input under one run.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEval {
    /// The input's path.
    pub path: String,
    /// Why it could not be evaluated, if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The line the error is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_line: Option<usize>,
    /// Its figures (summed over its conversations).
    #[serde(flatten)]
    pub figures: Figures,
    /// The probes not kept verbatim, each with the line of the input it comes from and
    /// whether an artifact index still names it.
    pub missing: Vec<Missing>,
    /// Why the judge scored nothing for a conversation, when it could not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub judge_errors: Vec<String>,
}

/// A probe not kept verbatim.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Missing {
    /// The probe.
    #[serde(flatten)]
    pub probe: Probe,
    /// `index` (only an artifact index names it) or `lost`.
    pub kept: Kept,
}

/// Runs `ctxc eval`.
pub fn run(args: &EvalArgs, quiet: bool, verbose: u8) -> Result<ExitStatus> {
    let tokens = TokenSettings::from_args(&args.tokens)?;
    let counter = tokens.counter()?;
    let runs = runs(args)?;
    let mut strategy = StrategySettings::default();
    if let Some(max) = args.summary_max_tokens {
        strategy.summary_max_tokens = max;
    }
    let read = ReadOptions {
        format: args.input.format,
        messages_path: args.input.messages_path.clone(),
    };
    let (inputs, errors) =
        discover::discover(&args.input.inputs, &args.input.globs, &[])?.reported(quiet);
    let unopened = errors.iter().filter(|e| e.unopened).count();
    let progress = Progress::new(inputs.len(), quiet);
    let summarizer = Extractive;
    let judge = judge(&args.judge, inputs.len())?;
    let settings: Vec<Settings> = runs
        .iter()
        .map(|&(name, ratio)| Settings {
            read: read.clone(),
            triggers: TriggerSettings {
                force: true,
                ..TriggerSettings::default()
            },
            target: Target::Ratio(ratio),
            strategies: vec![name],
            strategy: strategy.clone(),
            summarizer: &summarizer,
            counter: &counter,
        })
        .collect();
    let limit = args.input.limit.max_input_bytes;
    // Per input, one result per run.
    let column = args.input.column.as_deref();
    let mut evaluated: Vec<Vec<FileEval>> = inputs
        .par_iter()
        .flat_map_iter(|input| {
            let results = evaluate_input(input, limit, column, &read, &settings, judge.as_ref());
            progress.advance();
            results
        })
        .collect();
    progress.finish();
    for e in errors {
        let failed = FileEval {
            path: e.path,
            error: Some(e.message),
            ..FileEval::default()
        };
        evaluated.push(vec![failed; runs.len()]);
    }
    // In path order, a dataset's rows in row order.
    evaluated.sort_by(|a, b| dataset::report_order(&a[0].path, &b[0].path));
    let failed: Vec<String> = evaluated
        .iter()
        .filter_map(|results| error_message(&results[0]))
        .collect();
    for message in &failed {
        progress.warn(message);
    }
    let judge_errors: Vec<String> = evaluated
        .iter()
        .flatten()
        .flat_map(|f| {
            f.judge_errors
                .iter()
                .map(move |e| format!("{}: {e}", f.path))
        })
        .collect();
    for message in &judge_errors {
        progress.warn(message);
    }
    if let Some(error) = judge.as_ref().and_then(|j| j.cache_error()) {
        progress.warn(&format!(
            "warning: judge replies not cached (a re-run asks again): {error}"
        ));
    }
    let report = EvalReport {
        schema_version: 2,
        tokenizer: tokens,
        judge: judge.as_ref().map(|j| judge_report(j, &args.judge)),
        runs: runs
            .iter()
            .enumerate()
            .map(|(r, &(strategy, target_ratio))| {
                let files: Vec<FileEval> = evaluated.iter().map(|f| f[r].clone()).collect();
                let mut totals = Figures::default();
                files.iter().for_each(|f| totals += f.figures);
                RunReport {
                    strategy,
                    target_ratio,
                    totals,
                    files,
                }
            })
            .collect(),
    };
    if !(inputs.is_empty() && unopened > 0) {
        let format = args.output.format();
        let text = match format {
            OutputFormat::Table | OutputFormat::Markdown => {
                report::render(format, &report, &table(&report, verbose > 0, format))?
            }
            _ => report::render(format, &report, &Table::default())?,
        };
        crate::output::write_stdout(text.as_bytes())?;
    }
    Ok(if unopened > 0 {
        ExitStatus::Error
    } else if failed.is_empty() && judge_errors.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// Every (strategy, ratio) asked for, strategies in the order given; checks the ratios.
fn runs(args: &EvalArgs) -> Result<Vec<(StrategyName, f64)>> {
    let strategies = if args.strategy.is_empty() {
        vec![StrategyName::Adaptive]
    } else {
        args.strategy.clone()
    };
    for &ratio in &args.target_ratio {
        if !(ratio > 0.0 && ratio <= 1.0) {
            bail!("--target-ratio must be above 0 and at most 1, got {ratio}");
        }
    }
    Ok(strategies
        .iter()
        .flat_map(|&s| args.target_ratio.iter().map(move |&r| (s, r)))
        .collect())
}

/// The judge `args` ask for, announced on stderr before any request.
fn judge(args: &JudgeArgs, files: usize) -> Result<Option<Judge>> {
    use crate::summarizer::llm::{self, LlmSettings, Provider};
    let Some(provider) = &args.judge else {
        return Ok(None);
    };
    let provider: Provider = provider.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    let model = args.judge_model.clone().unwrap_or_default();
    let mut settings = LlmSettings::new(provider, model);
    settings.base_url = args.judge_base_url.clone();
    settings.api_key = llm::api_key_from_env(provider);
    let timeout = args.judge_timeout.unwrap_or(JUDGE_TIMEOUT_SECONDS);
    if !(timeout.is_finite() && timeout > 0.0) {
        bail!("--judge-timeout must be more than 0 seconds, got {timeout}");
    }
    settings.timeout = std::time::Duration::from_secs_f64(timeout);
    if let Some(n) = args.llm_concurrency {
        settings.concurrency = n;
    }
    settings.redact = !args.no_redact;
    settings.allow_insecure_http = args.allow_insecure_http;
    let cache = if args.no_judge_cache {
        None
    } else {
        Some(match &args.judge_cache {
            Some(dir) => dir.clone(),
            None => Cache::default_dir().ok_or_else(|| {
                anyhow::anyhow!(
                    "no user cache directory for the judge cache: pass --judge-cache DIR or --no-judge-cache"
                )
            })?,
        })
    };
    let judge = Judge::new(JudgeSettings {
        llm: settings,
        probes: args.judge_probes.unwrap_or(JUDGE_PROBES),
        cache,
    })?;
    if args.no_redact {
        crate::human::warn("--no-redact: secrets in the transcripts are sent as they are");
    }
    let files = match files {
        1 => "1 file".to_string(),
        n => format!("{} files", thousands(n as u64)),
    };
    eprintln!(
        "ctxc: judge: probe questions with the original and compacted contexts of {files} will be sent to {}",
        judge.endpoint()
    );
    Ok(Some(judge))
}

/// Seconds a judge request may take by default: answering from a whole original
/// conversation takes a local model longer than a summary.
const JUDGE_TIMEOUT_SECONDS: f64 = 120.0;
/// Probe questions asked per conversation by default: three of each category.
const JUDGE_PROBES: usize = 12;

/// The report's judge section.
fn judge_report(judge: &Judge, args: &JudgeArgs) -> JudgeReport {
    let settings = judge.settings();
    JudgeReport {
        provider: settings.provider.to_string(),
        model: settings.model.clone(),
        endpoint: judge.endpoint().to_string(),
        probes_per_conversation: args.judge_probes.unwrap_or(JUDGE_PROBES),
        cache: (!args.no_judge_cache)
            .then(|| args.judge_cache.clone().or_else(Cache::default_dir))
            .flatten()
            .map(|d| d.to_string_lossy().into_owned()),
        spent: judge.spent(),
    }
}

/// `path:line: error` (or `path: error`).
fn error_message(file: &FileEval) -> Option<String> {
    let error = file.error.as_deref()?;
    Some(match file.error_line {
        Some(line) => format!("{}:{line}: {error}", file.path),
        None => format!("{}: {error}", file.path),
    })
}

/// What is asked of one conversation: its probes, the facts retention counts, and with a
/// judge the sample it asks about and how the original answers it.
struct Asked {
    probes: Vec<Probe>,
    facts: Facts,
    judged: Option<(Vec<Probe>, Assessment)>,
}

/// Reads one input and evaluates every run on it: one result per run, or for a Parquet
/// dataset one per run for each row (its conversation), as `stats` and `compact` take them.
fn evaluate_input(
    input: &Input,
    limit: u64,
    column: Option<&str>,
    read: &ReadOptions,
    settings: &[Settings],
    judge: Option<&Judge>,
) -> Vec<Vec<FileEval>> {
    let path = input.display();
    let text = match dataset::sniff(input, limit) {
        Ok(Sniffed::Parquet(file)) => {
            let rows = dataset::Dataset::open(file, column, limit).and_then(|d| {
                d.read(|row| {
                    let path = dataset::row_path(&path, row.index);
                    evaluate_text(path, Ok(row.text.into()), read, settings, judge)
                })
            });
            return rows.unwrap_or_else(|e| {
                vec![vec![failed(&path, 0, format!("{e:#}")); settings.len()]]
            });
        }
        Ok(Sniffed::Other(Some(bytes))) => discover::utf8(bytes),
        Ok(Sniffed::Other(None)) => discover::load(input, limit),
        Err(e) => Err(e),
    };
    vec![evaluate_text(path, text, read, settings, judge)]
}

/// A result that says why the input could not be evaluated (`line` 0: no line).
fn failed(path: &str, line: usize, message: String) -> FileEval {
    FileEval {
        path: path.to_string(),
        error: Some(message),
        error_line: (line > 0).then_some(line),
        ..FileEval::default()
    }
}

/// Reads one transcript's text, derives its probes, and evaluates every run on it.
fn evaluate_text(
    path: String,
    text: Result<String, discover::LoadError>,
    read: &ReadOptions,
    settings: &[Settings],
    judge: Option<&Judge>,
) -> Vec<FileEval> {
    let failed = |line: usize, message: String| failed(&path, line, message);
    let t = match text.map(|text| transcript::read(text, read)) {
        Err(e) => return vec![failed(e.line, e.message); settings.len()],
        Ok(Err(e)) => {
            let first = &e.findings[0];
            return vec![failed(first.line, first.message.clone()); settings.len()];
        }
        Ok(Ok(t)) => t,
    };
    let asked: Vec<Asked> = t
        .conversations
        .iter()
        .map(|c| {
            let probes = eval::derive(c);
            // The original answers the same questions in every run: asked once.
            let judged = judge.map(|j| {
                let sample: Vec<Probe> = j.sample(&probes).into_iter().cloned().collect();
                let original = j.assess(c, &sample.iter().collect::<Vec<_>>());
                (sample, original)
            });
            Asked {
                probes,
                facts: Facts::of(&c.items),
                judged,
            }
        })
        .collect();
    settings
        .iter()
        .map(|s| evaluate_run(&t, &asked, s, judge).unwrap_or_else(|e| failed(0, format!("{e:#}"))))
        .map(|mut f| {
            f.path = path.clone();
            f
        })
        .collect()
}

/// Compacts `t` in memory under `settings` and checks every conversation's probes against
/// the output read back.
fn evaluate_run(
    t: &Transcript,
    asked: &[Asked],
    settings: &Settings,
    judge: Option<&Judge>,
) -> Result<FileEval> {
    let outcome = pipeline::run(t, settings)?;
    let after = transcript::read(outcome.output.into_owned(), &settings.read)
        .map_err(|e| anyhow::anyhow!("the output does not read back: {}", e.findings[0].message))?;
    if after.conversations.len() != t.conversations.len() {
        bail!("the output holds another number of conversations");
    }
    let mut file = FileEval::default();
    let several = asked.len() > 1;
    for (n, ((conv, result), asked)) in after
        .conversations
        .iter()
        .zip(&outcome.conversations)
        .zip(asked)
        .enumerate()
    {
        let probes = &asked.probes;
        let kept = eval::check_kept(probes, conv);
        let is = |want: Kept| -> Vec<bool> { kept.iter().map(|&k| k == want).collect() };
        let mut judged = Judged::default();
        if let (Some(judge), Some((sample, original))) = (judge, &asked.judged) {
            let compacted = judge.assess(conv, &sample.iter().collect::<Vec<_>>());
            judged.compacted = compacted.scores;
            judged.original = original.scores;
            judged.skipped = compacted.skipped + original.skipped;
            let which = if several {
                format!(" (conversation {})", n + 1)
            } else {
                String::new()
            };
            for (context, error) in [
                ("original", &original.error),
                ("compacted", &compacted.error),
            ] {
                if let Some(error) = error {
                    file.judge_errors
                        .push(format!("judge, {context}{which}: {error}"));
                }
            }
        }
        file.figures += Figures {
            tokens_before: result.before.tokens,
            tokens_after: result.tokens_after,
            probes: Tallies::of(probes, &is(Kept::Verbatim)),
            probes_in_index: Tallies::of(probes, &is(Kept::Index)),
            subjects: BySubject::of(probes, &kept),
            retention: verbatim_retention_of(&asked.facts, conv).into(),
            judge: judged,
        };
        file.missing.extend(
            probes
                .iter()
                .zip(&kept)
                .filter(|(_, k)| **k != Kept::Verbatim)
                .map(|(p, &kept)| Missing {
                    probe: p.clone(),
                    kept,
                }),
        );
    }
    Ok(file)
}

/// The table: one row per run; with `verbose`, the failing probes below; on a terminal, a
/// bar chart per category.
fn table(report: &EvalReport, verbose: bool, format: OutputFormat) -> Table {
    let mut headers: Vec<String> = ["strategy", "target", "tokens", "saved"]
        .map(String::from)
        .to_vec();
    headers.extend(Category::ALL.map(|c| c.name().to_string()));
    headers.extend(["paths", "commands", "errors", "requests"].map(String::from));
    let mut table = Table {
        numeric: headers.iter().map(|h| h != "strategy").collect(),
        headers,
        ..Table::default()
    };
    for run in &report.runs {
        let t = &run.totals;
        let mut row = vec![
            run.strategy.to_string(),
            format!("{}", run.target_ratio),
            thousands(t.tokens_after as u64),
            percent([
                t.tokens_before - t.tokens_after.min(t.tokens_before),
                t.tokens_before,
            ]),
        ];
        row.extend(Category::ALL.map(|c| percent(t.probes.get(c))));
        let r = &t.retention;
        row.extend([r.paths, r.commands, r.errors, r.user_requests].map(percent));
        table.rows.push(row);
    }
    if let Some(first) = report.runs.first() {
        let files = first.files.iter().filter(|f| f.error.is_none()).count();
        table.notes.push(format!(
            "{files} file(s), {} context tokens before; shares are probes kept verbatim (artifact … decision) and facts sent verbatim (paths … requests); a name only in a summary's artifact index is not verbatim.",
            thousands(first.totals.tokens_before as u64)
        ));
    }
    table.notes.extend(subject_notes(report, format));
    if let Some(judge) = &report.judge {
        table.notes.extend(judge_notes(report, judge, format));
    }
    // Bars are for a person looking at a terminal; piped, they are noise in the text.
    if format == OutputFormat::Table && !report.runs.is_empty() && std::io::stdout().is_terminal() {
        table.notes.extend(bar_chart(report));
    }
    if verbose {
        table.notes.extend(failing_probes(report));
    }
    table
}

/// Each probe kind, per run: the shares kept verbatim, only in an artifact index, and lost.
fn subject_notes(report: &EvalReport, format: OutputFormat) -> Vec<String> {
    let headers: Vec<String> = [
        "strategy",
        "target",
        "probe",
        "probes",
        "verbatim",
        "index only",
        "lost",
    ]
    .map(String::from)
    .to_vec();
    let mut kinds = Table {
        numeric: headers
            .iter()
            .map(|h| h != "strategy" && h != "probe")
            .collect(),
        headers,
        ..Table::default()
    };
    for run in &report.runs {
        for subject in Subject::ALL {
            let [verbatim, index, total] = run.totals.subjects.get(subject);
            if total == 0 {
                continue;
            }
            kinds.rows.push(vec![
                run.strategy.to_string(),
                format!("{}", run.target_ratio),
                subject.name().to_string(),
                thousands(total as u64),
                percent([verbatim, total]),
                percent([index, total]),
                percent([total - verbatim - index, total]),
            ]);
        }
    }
    if kinds.rows.is_empty() {
        return Vec::new();
    }
    let mut notes = vec![
        String::new(),
        "Probes by kind: kept verbatim, only in an artifact index, lost:".to_string(),
    ];
    if format == OutputFormat::Markdown {
        notes.push(String::new());
    }
    let rendered = report::render(format, &(), &kinds).unwrap_or_default();
    notes.extend(rendered.lines().map(str::to_string));
    notes
}

/// The judge's scores: a table of mean scores per run and dimension, compacted against the
/// original, and what the judge cost.
fn judge_notes(report: &EvalReport, judge: &JudgeReport, format: OutputFormat) -> Vec<String> {
    let mut headers = vec!["strategy".to_string(), "target".to_string()];
    headers.extend(Dimension::ALL.map(|d| d.name().to_string()));
    headers.push("skipped".into());
    let mut scores = Table {
        numeric: headers.iter().map(|h| h != "strategy").collect(),
        headers,
        ..Table::default()
    };
    for run in &report.runs {
        let judged = &run.totals.judge;
        let mut row = vec![run.strategy.to_string(), format!("{}", run.target_ratio)];
        row.extend(Dimension::ALL.map(|d| {
            let mean = |s: &Scores| s.mean(d).map_or("–".into(), |m| format!("{m:.2}"));
            format!("{} / {}", mean(&judged.compacted), mean(&judged.original))
        }));
        row.push(thousands(judged.skipped as u64));
        scores.rows.push(row);
    }
    let spent = &judge.spent;
    let mut notes = vec![
        String::new(),
        format!(
            "Judge {} ({}): mean scores 0-5 of the answers from the compacted context / from the original, at most {} questions per conversation:",
            judge.model, judge.provider, judge.probes_per_conversation
        ),
    ];
    if format == OutputFormat::Markdown {
        notes.push(String::new());
    }
    let rendered = report::render(format, &(), &scores).unwrap_or_default();
    notes.extend(rendered.lines().map(str::to_string));
    notes.push(format!(
        "Judge cost: {} request(s), {} prompt and {} completion tokens; {} reply(ies) from the cache{}.",
        thousands(spent.cost.calls as u64),
        thousands(spent.cost.prompt_tokens),
        thousands(spent.cost.completion_tokens),
        thousands(spent.cached_replies as u64),
        judge
            .cache
            .as_deref()
            .map_or(String::new(), |dir| format!(" ({dir})"))
    ));
    notes
}

/// `kept/total` as a percentage with one decimal, `–` when there was nothing to keep.
fn percent([kept, total]: [usize; 2]) -> String {
    if total == 0 {
        return "–".into();
    }
    format!("{:.1}%", kept as f64 * 100.0 / total as f64)
}

/// Bars this many characters wide stand for 100%.
const BAR_WIDTH: usize = 30;

/// One block per category, one bar per run: strategies are compared by looking.
fn bar_chart(report: &EvalReport) -> Vec<String> {
    let labels: Vec<String> = report
        .runs
        .iter()
        .map(|r| format!("{} @ {}", r.strategy, r.target_ratio))
        .collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let mut lines = Vec::new();
    for category in Category::ALL {
        // A kind no run asked about has nothing to draw.
        if report
            .runs
            .iter()
            .all(|r| r.totals.probes.get(category)[1] == 0)
        {
            continue;
        }
        lines.push(String::new());
        lines.push(format!("{} probes kept verbatim", category.name()));
        for (run, label) in report.runs.iter().zip(&labels) {
            let [kept, total] = run.totals.probes.get(category);
            let share = if total == 0 {
                1.0
            } else {
                kept as f64 / total as f64
            };
            let full = (share * BAR_WIDTH as f64).round() as usize;
            lines.push(format!(
                "  {label:<width$}  {}{}  {}",
                "█".repeat(full),
                "░".repeat(BAR_WIDTH - full),
                percent([kept, total])
            ));
        }
    }
    lines
}

/// Longest answer shown for a failing probe.
const SHOWN_ANSWER_CHARS: usize = 100;

/// `path:line: strategy@ratio category/subject: answer`, for every failing probe.
fn failing_probes(report: &EvalReport) -> Vec<String> {
    let mut lines = vec![String::new(), "Probes not kept verbatim:".to_string()];
    for run in &report.runs {
        for file in &run.files {
            for Missing { probe, kept } in &file.missing {
                let index = if *kept == Kept::Index {
                    " (index only)"
                } else {
                    ""
                };
                let subject = serde_json::to_value(probe.subject)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                lines.push(format!(
                    "{}:{}: {} @ {} {}/{subject}{index}: {}",
                    file.path,
                    probe.line,
                    run.strategy,
                    run.target_ratio,
                    probe.category().name(),
                    crate::facts::clip(&probe.answer, SHOWN_ANSWER_CHARS)
                ));
            }
        }
    }
    if lines.len() == 2 {
        lines.push("(none)".into());
    }
    lines
}

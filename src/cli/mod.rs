//! The command line, as clap derive definitions. Doc comments here are the `--help` text, the
//! man page and the shell completions; nothing below `run` sees clap types.

use crate::convert::Target as ConvertTarget;
use crate::pipeline::OnFindings;
use crate::shard::ShardSpec;
use crate::strategy::StrategyName;
use crate::tokens::Encoding;
use crate::transcript::Format;
use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub use eval::{EvalArgs, JudgeArgs};
pub use fit::{FitArgs, FitPolicy};

// Headings that group the options in `--help` and the man pages.
const GLOBAL: &str = "Global options";
const INPUT: &str = "Input";
const TOKENS: &str = "Token counting";
const TRIGGERS: &str = "Triggers (0 switches one off)";
const COMPACTION: &str = "Compaction";
const SUMMARIZER: &str = "Summarizer";
const JUDGE: &str = "Judge";
const OUTPUTS: &str = "Output files";
const ARCHIVE: &str = "Archive";
const REPORT: &str = "Report format";
const SETTINGS: &str = "Settings file";

/// Compact stored LLM agent transcripts offline, in their own format.
///
/// ctxc reads OpenAI chat, Anthropic messages, Claude Code sessions, Codex rollouts, ShareGPT
/// files and OpenHands event streams (JSON or JSONL), counts what the model would be sent, and
/// validates them.
#[derive(Debug, Parser)]
#[command(name = "ctxc", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,

    /// Print nothing but data and errors.
    #[arg(short, long, global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    pub quiet: bool,

    /// Log what is done on stderr (-v: per file, -vv: per step).
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = GLOBAL)]
    pub verbose: u8,

    /// Worker threads (default: one per core).
    #[arg(short, long, global = true, value_name = "N", help_heading = GLOBAL)]
    pub jobs: Option<usize>,

    /// When to colour what ctxc writes (help and errors; reports and progress have none):
    /// auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is.
    #[arg(
        long,
        global = true,
        value_name = "WHEN",
        default_value = "auto",
        help_heading = GLOBAL
    )]
    pub color: ColorChoice,
}

/// When to colour output (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is).
    #[default]
    Auto,
    /// Always, even into a pipe or file.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// The choice `--color` makes in `args` (the last one given, as clap takes it), read before
    /// parsing so that help and parse errors are coloured as asked too.
    pub fn from_args<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> ColorChoice {
        let mut choice = ColorChoice::Auto;
        let mut words = args.iter().map(|a| a.as_ref().to_string_lossy());
        while let Some(word) = words.next() {
            if word == "--" {
                break;
            }
            let value = match word.strip_prefix("--color") {
                Some("") => words.next().map(|w| w.into_owned()),
                Some(rest) => rest.strip_prefix('=').map(str::to_string),
                None => None,
            };
            if let Some(c) = value.and_then(|v| ColorChoice::from_str(&v, true).ok()) {
                choice = c;
            }
        }
        choice
    }

    /// clap's choice, for help and errors (clap's `auto` reads NO_COLOR and CLICOLOR_FORCE).
    pub fn clap(self) -> clap::ColorChoice {
        match self {
            ColorChoice::Auto => clap::ColorChoice::Auto,
            ColorChoice::Always => clap::ColorChoice::Always,
            ColorChoice::Never => clap::ColorChoice::Never,
        }
    }
}

/// ctxc's commands, listed in help in the order of use (`display_order`): find sessions,
/// measure, check, compact, repair, restore, then the tools around them.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate transcripts: parsing, tool call/result pairing, role order, chain links.
    ///
    /// Findings print as `path:line: message`. Exit status: 0 all valid, 1 findings, 2 usage.
    #[command(display_order = 3)]
    Check(CheckArgs),

    /// Compact transcripts: write each in its own format, smaller, and report what was done.
    ///
    /// A file is compacted when a trigger fires (or with --force), with the adaptive chain of
    /// strategies unless --strategy names others, until its context tokens reach the target.
    /// Outputs go beside their input as NAME.compact.EXT; the input is never modified.
    #[command(display_order = 4)]
    Compact(Box<CompactArgs>),

    /// Convert transcripts between formats whose meaning maps cleanly: OpenAI chat and ATIF.
    ///
    /// Each conversation becomes one ATIF trajectory (--to atif), or one {"messages": [...]}
    /// (--to openai, with `tools` from the agent's tool_definitions). OpenAI members ATIF has no
    /// field for (the developer role, a tool message's name, a null content, argument text) go
    /// to the step's extra.openai, so converting back gives the same messages. ATIF fields
    /// OpenAI chat has no place for are not carried over, and a note on stderr names them:
    /// session_id, agent, notes, final_metrics, extra; each step's timestamp, model_name,
    /// reasoning_effort, metrics and extra; subagent references and image content parts.
    /// Results that answer no call become user messages. Outputs go beside their input as
    /// NAME.atif.json or NAME.openai.json (.jsonl for several conversations, one per line).
    /// A Parquet dataset is converted row by row into NAME.atif.parquet or
    /// NAME.openai.parquet: each row's conversation as JSON text in the same column (--column),
    /// every other column as it was; a row that does not convert is named and left null.
    /// Claude Code, Codex, Gemini CLI, Qwen Code and pi sessions convert one way, to either:
    /// what the client sends on resuming (pi: the branch it resumes, its latest compaction's
    /// summary first; an assistant turn the client stored as several records is one message),
    /// their reasoning and images named as not carried over.
    #[command(display_order = 8)]
    Convert(ConvertArgs),

    /// Make agent trajectories into training samples that fit --max-len tokens of the trained
    /// model's tokenizer and chat template.
    ///
    /// Each sample is what the agent sees at inference after a compaction: the system prompt
    /// and tools, the task (the first user message), a ctxc summary of every turn before the
    /// segment (none in the first), then whole turns verbatim; a tool call is never parted
    /// from its results. --policy split (the default) makes the fewest samples that train
    /// every assistant turn once; --policy one makes one sample per trajectory, the longest
    /// tail that fits after a summary of the rest. Every message carries the train flag
    /// (--train-field, default weight: 1 for the segment's assistant turns, 0 for the task,
    /// the summary and every other message). A turn that alone is over --max-len is cut with
    /// a visible marker and reported. Lengths are exact: each sample is rendered with the
    /// chat template (--chat-template, default the tokenizer_config.json beside
    /// --tokenizer-file) and tokenized with the tokenizer.json; without --tokenizer-file,
    /// counted in --encoding with the OpenAI chat overhead. Inputs are any format ctxc reads;
    /// the output is JSON Lines, one {"messages", "tools", "sample_of", "segment"} per sample,
    /// beside the input as NAME.fit.jsonl. Per-conversation lines (-v) and totals on stderr;
    /// --report writes them as JSON; --dry-run writes no samples.
    #[command(display_order = 8)]
    Fit(Box<FitArgs>),

    /// Fix what stops a session from resuming, naming every repair as `path:line: what was
    /// wrong → what was done`.
    ///
    /// Unanswered tool calls get the result the client writes for an interrupted call
    /// (Claude Code's "[Request interrupted by user for tool use]", Codex's "aborted"); results
    /// that answer no open call are dropped; parentUuids that name no record are re-linked to
    /// the nearest earlier record on the live path and loops are broken at their latest link;
    /// replayed history (records repeated with their uuids, or their content and timestamp)
    /// is dropped; a torn last line and lines of invalid JSON go to the archive; a session
    /// above --max-session-bytes loses its stored-only payloads. OpenAI chat and Anthropic
    /// message lists (JSON arrays, JSONL of messages or conversations, tau-bench runs) get the
    /// same call and result repairs, an unanswered call an answer saying it was interrupted.
    /// A session `check` finds clean is left as it is. Outputs go beside their input as NAME.repaired.EXT, with an archive
    /// (NAME.ctxc-archive.json) from which `ctxc restore` gives back the damaged original.
    /// A Parquet dataset is repaired row by row, each row named as PATH#row=N and every other
    /// column kept; a row that fails keeps its value, and the archive gives every row back.
    /// Exit status: 0 repaired or clean, 1 a file could not be read or still has faults.
    #[command(display_order = 5)]
    Repair(Box<RepairArgs>),

    /// Rebuild the original transcript, byte for byte, from a compaction archive.
    ///
    /// The archive is the NAME.ctxc-archive.json that `ctxc compact --archive` wrote. Refuses
    /// when the compacted file no longer matches the archive, unless --force.
    #[command(display_order = 6)]
    Restore(RestoreArgs),

    /// Inspect compaction archives.
    #[command(subcommand)]
    #[command(display_order = 7)]
    Archive(ArchiveCommand),

    /// Show the effective configuration and where each value comes from.
    #[command(subcommand)]
    #[command(display_order = 11)]
    Config(ConfigCommand),

    /// Work with compaction reports.
    #[command(subcommand)]
    #[command(display_order = 10)]
    Report(ReportCommand),

    /// List the Claude Code, Codex and pi sessions of this directory's project (or all of them).
    ///
    /// Newest first: id, project, title, last activity, bytes, context tokens and their share
    /// of the window. Any command takes a session reference where it takes a path: `@ID`, a
    /// unique prefix `@0c1f`, or `@` (also `@latest`) for the latest session of this
    /// directory's project. Claude Code sessions are read from $CLAUDE_CONFIG_DIR/projects
    /// (default ~/.claude/projects), Codex sessions from $CODEX_HOME/sessions (default
    /// ~/.codex/sessions), pi sessions from $PI_CODING_AGENT_DIR/sessions (default
    /// ~/.pi/agent/sessions); the first two variables may be an object-storage URL
    /// (s3://bucket/alice/.claude) for stores gathered into a bucket.
    #[command(display_order = 1)]
    Sessions(SessionsArgs),

    /// Print a shell's completion script for ctxc (bash, zsh, fish, elvish, powershell).
    ///
    /// Install it where the shell looks, e.g. `ctxc completions bash >
    /// ~/.local/share/bash-completion/completions/ctxc`, `ctxc completions zsh >
    /// ~/.zfunc/_ctxc`, `ctxc completions fish > ~/.config/fish/completions/ctxc.fish`.
    #[command(display_order = 12)]
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },

    /// Print ctxc's man page, or a command's (`ctxc man compact`, `ctxc man report merge`).
    ///
    /// With --dir, writes every page (ctxc.1, ctxc-compact.1, ctxc-report-merge.1, ...) there
    /// instead, e.g. `ctxc man --dir ~/.local/share/man/man1`.
    #[command(display_order = 13)]
    Man {
        /// The command whose page to print.
        #[arg(value_name = "COMMAND", conflicts_with = "dir")]
        command: Vec<String>,

        /// Write every page into this directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },

    /// Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire.
    ///
    /// Context tokens are what the model would be sent: after the latest compact boundary,
    /// without records that never reach it (reported as stored-only bytes). Provider tokens
    /// are the next prompt as the provider would count it, calibrated on the usage the file
    /// records (an estimate marked est. for Claude without usage). With -q, prints the total
    /// alone: provider tokens when the files record usage, else context tokens.
    #[command(display_order = 2)]
    Stats(StatsArgs),

    /// Measure what each strategy keeps: probes an agent must still answer after compaction.
    ///
    /// Derives probes from each original conversation (artifact: every file touched and its
    /// last action; recall: commands, error lines, identifiers and numbers the user gave;
    /// continuation: the task, the latest request, the next step; decision: what was chosen
    /// or rejected), compacts in memory with each strategy at each target ratio (as `compact
    /// --force` would; nothing is written), and checks every probe against what the model is
    /// sent after the output loads. Prints a row per strategy × ratio: tokens, saved share,
    /// probes kept verbatim per category and facts sent verbatim (a name only in a summary's
    /// artifact index is not), then each probe kind kept verbatim, only in an index, or lost;
    /// -v lists each probe not kept verbatim as path:line.
    #[command(display_order = 9)]
    Eval(EvalArgs),
}

/// Arguments of `ctxc sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// List the sessions of every project, not only this directory's.
    #[arg(short, long)]
    pub all: bool,

    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,

    /// Token counting.
    #[command(flatten)]
    pub tokens: TokenArgs,

    /// How much of a session file is read.
    #[command(flatten)]
    pub limit: LimitArgs,
}

/// How much of one input ctxc reads.
#[derive(Debug, Args, Clone, Copy)]
pub struct LimitArgs {
    /// Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024);
    /// standard input and named pipes are read up to it.
    #[arg(help_heading = INPUT, long, value_name = "SIZE", default_value = "4G", value_parser = parse_size)]
    pub max_input_bytes: u64,
}

/// Where transcripts come from and how to read them.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Transcript files, directories (searched recursively), `-` for standard input, session
    /// references (`@ID`, `@PREFIX` of an id, `@` for this directory's latest session), or
    /// objects and prefixes in object storage: `s3://`, `gs://`, `az://`, `https://`.
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<PathBuf>,

    /// File-name patterns to pick in directories (repeatable).
    #[arg(help_heading = INPUT, long = "glob", value_name = "PATTERN", default_values = ["*.json", "*.jsonl", "*.traj", "*.parquet"])]
    pub globs: Vec<String>,

    /// Read every input as this format instead of detecting it.
    #[arg(help_heading = INPUT, long, value_name = "FORMAT")]
    pub format: Option<Format>,

    /// JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`).
    #[arg(help_heading = INPUT, long, value_name = "POINTER")]
    pub messages_path: Option<String>,

    /// How much of an input is read.
    #[command(flatten)]
    pub limit: LimitArgs,

    /// The conversation column of a Parquet dataset [default: the first of messages,
    /// conversations, conversation, trajectory, history, traj, chat, session]: a list of
    /// structs, a string of JSON, or an agent's session file as text.
    #[arg(help_heading = INPUT, long, value_name = "NAME")]
    pub column: Option<String>,
}

/// Arguments of `ctxc check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Inputs and how to read them.
    #[command(flatten)]
    pub input: InputArgs,

    /// Print findings as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ctxc convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The format to write: atif or openai.
    #[arg(long, value_name = "FORMAT")]
    pub to: ConvertTarget,

    /// Inputs and how to read them.
    #[command(flatten)]
    pub input: InputArgs,

    /// Write the output here instead of beside the input (one input only; `-` for stdout).
    #[arg(help_heading = OUTPUTS, short, long, value_name = "FILE", conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,

    /// Write outputs under this directory, mirroring the inputs' tree.
    #[arg(help_heading = OUTPUTS, long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Replace an existing output file.
    #[arg(help_heading = OUTPUTS, long)]
    pub force_overwrite: bool,
}

/// How tokens are counted and how big the context window is.
#[derive(Debug, Args, Clone, Default)]
pub struct TokenArgs {
    /// Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5).
    /// Models without a public tokenizer are counted with o200k_base and marked estimated.
    #[arg(help_heading = TOKENS, long, value_name = "NAME")]
    pub model: Option<String>,

    /// Context window in tokens (default: the model's, else the one the transcript records or
    /// its model's, else 200000).
    #[arg(help_heading = TOKENS, long, value_name = "TOKENS")]
    pub context_window: Option<usize>,

    /// Tokenizer.
    #[arg(help_heading = TOKENS, long, value_name = "ENCODING", ignore_case = true)]
    pub encoding: Option<Encoding>,

    /// Tokenize every text, even text seen before (for measurements).
    #[arg(long, hide = true)]
    pub no_cache: bool,
}

/// When compaction is due; 0 switches a trigger off.
#[derive(Debug, Args, Clone, Default)]
pub struct TriggerArgs {
    /// Fire when context tokens reach this share of the window [default: 0.8].
    #[arg(help_heading = TRIGGERS, long, value_name = "RATIO")]
    pub trigger_ratio: Option<f64>,

    /// Fire when less than this share of the window remains (seed 000: 0.25); the same as
    /// --trigger-ratio 1-RATIO.
    #[arg(help_heading = TRIGGERS, long, value_name = "RATIO", conflicts_with = "trigger_ratio")]
    pub trigger_remaining: Option<f64>,

    /// Fire when a conversation has this many user turns [default: 200].
    #[arg(help_heading = TRIGGERS, long, value_name = "N")]
    pub turn_threshold: Option<usize>,

    /// Fire when a conversation has this many messages [default: 700].
    #[arg(help_heading = TRIGGERS, long, value_name = "N")]
    pub max_events: Option<usize>,

    /// Ignore the !!!SUMMARY!!! marker in the last assistant message.
    #[arg(help_heading = TRIGGERS, long)]
    pub no_marker: bool,

    /// Compare ctxc's own count with the token trigger and --target-tokens even when the
    /// transcript records provider usage (by default the provider's calibrated figure).
    #[arg(help_heading = TRIGGERS, long)]
    pub raw_tokens: bool,
}

/// How a report is printed.
#[derive(Debug, Args, Clone, Default)]
#[group(multiple = false)]
pub struct OutputArgs {
    /// Print the report as JSON (camelCase, with schemaVersion).
    #[arg(help_heading = REPORT, long)]
    pub json: bool,

    /// Print the report as YAML.
    #[arg(help_heading = REPORT, long)]
    pub yaml: bool,

    /// Print the report as a markdown table.
    #[arg(help_heading = REPORT, long)]
    pub markdown: bool,
}

impl OutputArgs {
    /// The chosen format (a table by default).
    pub fn format(&self) -> crate::report::OutputFormat {
        use crate::report::OutputFormat;
        if self.json {
            OutputFormat::Json
        } else if self.yaml {
            OutputFormat::Yaml
        } else if self.markdown {
            OutputFormat::Markdown
        } else {
            OutputFormat::Table
        }
    }
}

/// Arguments of `ctxc stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Inputs and how to read them.
    #[command(flatten)]
    pub input: InputArgs,

    /// Token counting.
    #[command(flatten)]
    pub tokens: TokenArgs,

    /// Triggers to evaluate.
    #[command(flatten)]
    pub triggers: TriggerArgs,

    /// Report format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Arguments of `ctxc compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Inputs and how to read them.
    #[command(flatten)]
    pub input: InputArgs,

    /// Token counting.
    #[command(flatten)]
    pub tokens: TokenArgs,

    /// Triggers.
    #[command(flatten)]
    pub triggers: TriggerArgs,

    /// Compact even when no trigger fires. A file already under its target still gets the
    /// first step that changes something (as the marker, turn and event triggers ask), and
    /// the report says so: --target-ratio or --target-tokens says how far to go.
    #[arg(help_heading = COMPACTION, long)]
    pub force: bool,

    /// Strategies to run in order, comma-separated [default: adaptive]: adaptive,
    /// strip-payloads, dedup, trim-outputs, trim-calls, sliding-window, importance,
    /// key-events, incremental, selective, observation-masking, full-summary, truncate,
    /// drop-stored.
    #[arg(help_heading = COMPACTION, long, value_name = "NAME[,NAME...]", value_delimiter = ',', hide_possible_values = true)]
    pub strategy: Vec<StrategyName>,

    /// Compact each conversation to at most this many context tokens [default: the trigger
    /// threshold]. Given here, it compacts whether or not a trigger fires (a target in the
    /// settings file only says how far once one does).
    #[arg(help_heading = COMPACTION, long, value_name = "TOKENS", conflicts_with = "target_ratio")]
    pub target_tokens: Option<usize>,

    /// Compact each conversation to at most this share of its context tokens (e.g. 0.5).
    /// Given here, it compacts whether or not a trigger fires.
    #[arg(help_heading = COMPACTION, long, value_name = "RATIO")]
    pub target_ratio: Option<f64>,

    /// Token budget of each summary [default: 1000].
    #[arg(help_heading = COMPACTION, long, value_name = "TOKENS")]
    pub summary_max_tokens: Option<usize>,

    /// Do not strip stored payloads (progress records, toolUseResult copies, base64 media)
    /// in the adaptive chain.
    #[arg(help_heading = COMPACTION, long)]
    pub keep_payloads: bool,

    /// Also drop what is stored but never sent, whether or not a trigger fires: Claude Code
    /// records before the latest compact boundary, progress and snapshot records, and
    /// toolUseResult copies. What the model is sent does not change; with --archive, `ctxc
    /// restore` brings it all back.
    #[arg(help_heading = COMPACTION, long)]
    pub drop_stored: bool,

    /// Summaries and the model that writes them.
    #[command(flatten)]
    pub summarizer: SummarizerArgs,

    /// Where outputs go.
    #[command(flatten)]
    pub outputs: OutputPathArgs,

    /// Do everything but write: report what would happen, create or change no file but the
    /// report asked for with --report. A file the real run would refuse fails here too (an
    /// output that exists and differs, a backup that differs, a directory it cannot write in,
    /// a lock another run holds).
    #[arg(long)]
    pub dry_run: bool,

    /// What a conversation that already fails `ctxc check` does [default: keep]. keep: in a
    /// file of many conversations (a dataset, tau-bench runs, resolver output, Parquet rows)
    /// it is left byte-for-byte as it was and reported (PATH:LINE and the finding), the others
    /// are compacted and the file succeeds with a warning; a file that is one conversation or
    /// one session (Claude Code, Codex) is refused. refuse: the whole file is refused. allow:
    /// it is compacted anyway, and the output never has findings the input did not.
    #[arg(long, value_name = "keep|refuse|allow", hide_possible_values = true)]
    pub on_findings: Option<OnFindings>,

    /// The same as --on-findings allow.
    #[arg(long, conflicts_with = "on_findings")]
    pub allow_findings: bool,

    /// Compact a JSON Lines file whose last line is torn (not valid JSON, no newline after it:
    /// a client stopped mid-write) without that line, refused by default. With --archive the
    /// line is kept in the archive, so `ctxc restore` gives the file back as it was.
    #[arg(long)]
    pub drop_torn_tail: bool,

    /// Repair each input first, as `ctxc repair` does (an unanswered call answered as
    /// interrupted, a stray result dropped, a broken chain re-linked, replayed history, torn
    /// and garbage lines left out), then compact the repaired transcript: a file refused for
    /// what `check` finds is compacted instead. The report names every repair; the archive
    /// of a repaired file (written for it even without --archive) keeps a repair record and
    /// a compaction record, so `ctxc restore` gives back the damaged original byte for byte.
    /// A Parquet dataset's rows are repaired one by one, and the dataset is archived.
    #[arg(long, conflicts_with = "drop_torn_tail")]
    pub repair: bool,

    /// Ask before writing each file (only at a terminal).
    #[arg(long)]
    pub confirm: bool,

    /// Stop at the first file that fails (files already written stay written).
    #[arg(long)]
    pub fail_fast: bool,

    /// Process only share K of N of the inputs (stable, by path): 1/4, 2/4, ... `auto` takes
    /// K (and N) from the job runner: Slurm arrays, Kubernetes Indexed Jobs
    /// (JOB_COMPLETION_INDEX) and AWS Batch array jobs, which give no count: `auto/N`.
    #[arg(long, value_name = "K/N|auto[/N]", value_parser = crate::shard::parse)]
    pub shard: Option<ShardSpec>,

    /// Record each finished file in this manifest (JSON lines; a file, or an object URL whose
    /// entries go below URL.parts/ until the run ends), and skip the files it records
    /// as finished with these settings: a re-run after a crash, kill or preemption redoes only
    /// what was not finished, and ends as an uninterrupted run would.
    #[arg(long, value_name = "MANIFEST")]
    pub resume_from: Option<PathBuf>,

    /// Keep everything compaction removed in NAME.ctxc-archive.json beside each output, so
    /// `ctxc restore` can rebuild the original.
    #[arg(help_heading = ARCHIVE, long)]
    pub archive: bool,

    /// Write archives to this directory or object prefix instead (mirroring the inputs, like
    /// --out-dir).
    #[arg(help_heading = ARCHIVE, long, value_name = "DIR", requires = "archive")]
    pub archive_dir: Option<PathBuf>,

    /// Settings file and report formats.
    #[command(flatten)]
    pub config: ConfigArgs,

    /// Report format.
    #[command(flatten)]
    pub report: OutputArgs,

    /// Also write the report to this file or object URL (format from its extension: .json,
    /// .yaml or .yml, .md; anything else a table).
    #[arg(help_heading = REPORT, long = "report", value_name = "FILE")]
    pub report_file: Option<PathBuf>,
}

impl CompactArgs {
    /// What a conversation that fails `check` does: `--on-findings`, `--allow-findings`, or
    /// keep.
    pub fn on_findings(&self) -> OnFindings {
        match (self.on_findings, self.allow_findings) {
            (Some(choice), _) => choice,
            (None, true) => OnFindings::Allow,
            (None, false) => OnFindings::Keep,
        }
    }
}

/// Where outputs are written: `compact` and `repair` share these flags (one definition, so
/// they cannot drift apart). Each output's [`crate::outputs::Destination`] is decided from them.
#[derive(Debug, Args, Clone, Default)]
pub struct OutputPathArgs {
    /// Write the output here instead of beside the input (one input only; `-` for stdout;
    /// for compact, an object URL such as s3://bucket/key).
    #[arg(help_heading = OUTPUTS, short, long, value_name = "FILE", conflicts_with_all = ["out_dir", "in_place"])]
    pub output: Option<PathBuf>,

    /// Write outputs under this directory (for compact, or object prefix: s3://bucket/out/),
    /// mirroring the inputs' tree.
    #[arg(help_heading = OUTPUTS, long, value_name = "DIR", conflicts_with = "in_place")]
    pub out_dir: Option<PathBuf>,

    /// Replace each input with its new version (atomically). The file is locked while ctxc
    /// works on it, and left alone if it changes meanwhile or another process holds it open
    /// for writing (a live session); a symlink's target is replaced, owner and mode kept. An
    /// input the run leaves unchanged is not rewritten.
    #[arg(help_heading = OUTPUTS, long)]
    pub in_place: bool,

    /// With --in-place, first keep the original as NAME.EXT + SUFFIX [default: .bak]. An
    /// existing backup is never overwritten: that file is refused instead, unless the backup
    /// holds exactly the file (left by an interrupted run), which is kept as its backup.
    #[arg(
        help_heading = OUTPUTS,
        long,
        value_name = "SUFFIX",
        requires = "in_place",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = ".bak",
        value_parser = parse_suffix
    )]
    pub backup: Option<String>,

    /// Replace an existing output file. Without it an output that is there already is left
    /// alone: done when it holds exactly this run's result (so the same command can run
    /// again), refused when it differs.
    #[arg(help_heading = OUTPUTS, long)]
    pub force_overwrite: bool,
}

/// Which summarizer writes summaries, and how it reaches its model.
#[derive(Debug, Args, Clone, Default)]
pub struct SummarizerArgs {
    /// extractive (offline, default), openai (any OpenAI-compatible /chat/completions) or
    /// anthropic (/messages). The API key comes only from OPENAI_API_KEY, ANTHROPIC_API_KEY
    /// or CTXC_API_KEY.
    #[arg(
        help_heading = SUMMARIZER,
        long,
        value_name = "NAME",
        hide_possible_values = true,
        value_parser = PossibleValuesParser::new(["extractive", "openai", "anthropic"])
    )]
    pub summarizer: Option<String>,

    /// The model that writes summaries (required with openai and anthropic).
    #[arg(help_heading = SUMMARIZER, long, value_name = "MODEL")]
    pub summary_model: Option<String>,

    /// The API's base URL [default: https://api.openai.com/v1, https://api.anthropic.com/v1].
    #[arg(help_heading = SUMMARIZER, long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Seconds a summary request may take, connect and response [default: 30].
    #[arg(help_heading = SUMMARIZER, long, value_name = "SECONDS")]
    pub summary_timeout: Option<f64>,

    /// Summary requests in flight at once, whatever --jobs is [default: 4].
    #[arg(help_heading = SUMMARIZER, long, value_name = "N")]
    pub llm_concurrency: Option<usize>,

    /// What to do when a summary request finally fails: extractive (default), truncate or
    /// fail.
    #[arg(
        help_heading = SUMMARIZER,
        long,
        value_name = "FALLBACK",
        hide_possible_values = true,
        value_parser = PossibleValuesParser::new(["extractive", "truncate", "fail"])
    )]
    pub on_summary_failure: Option<String>,

    /// Send transcripts without redacting secrets (API keys, tokens, passwords) first.
    #[arg(help_heading = SUMMARIZER, long)]
    pub no_redact: bool,

    /// Allow plain http:// to a host that is not this machine.
    #[arg(help_heading = SUMMARIZER, long)]
    pub allow_insecure_http: bool,
}

/// The settings file.
#[derive(Debug, Args, Clone, Default)]
pub struct ConfigArgs {
    /// Read settings from this YAML file [default: ./ctxc.yaml, else the user config dir's
    /// ctxc/ctxc.yaml].
    #[arg(help_heading = SETTINGS, long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Read no settings file (environment and flags only).
    #[arg(help_heading = SETTINGS, long)]
    pub no_config: bool,
}

/// A backup suffix: an empty one would name the input itself.
fn parse_suffix(s: &str) -> Result<String, String> {
    if s.is_empty() || s.contains('/') {
        return Err("the suffix must be non-empty and hold no '/' (e.g. --backup=.bak)".into());
    }
    Ok(s.to_string())
}

/// A size in bytes: a whole number, optionally followed by K, M, G or T (powers of 1024,
/// any case, `B` or `iB` allowed after them: `512M`, `2GiB`).
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let bad = || format!("'{s}' is not a size (e.g. 4294967296, 512M, 2G)");
    let number: u64 = number.parse().map_err(|_| bad())?;
    let unit = unit.trim_start().to_ascii_uppercase();
    let unit = unit
        .strip_suffix("IB")
        .or_else(|| unit.strip_suffix('B'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(bad()),
    };
    let bytes = number
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("'{s}' is too large"))?;
    if bytes == 0 {
        return Err("the size must be at least 1 byte".into());
    }
    Ok(bytes)
}

/// Arguments of `ctxc repair`.
#[derive(Debug, Args)]
pub struct RepairArgs {
    /// Inputs and how to read them.
    #[command(flatten)]
    pub input: InputArgs,

    /// Where repaired sessions are written.
    #[command(flatten)]
    pub outputs: OutputPathArgs,

    /// List the repairs without writing anything.
    #[arg(long)]
    pub dry_run: bool,

    /// Write no archive. By default NAME.ctxc-archive.json beside the output keeps every
    /// record and line the repair removed or changed, so that `ctxc restore` gives back the
    /// damaged original byte for byte.
    #[arg(help_heading = ARCHIVE, long)]
    pub no_archive: bool,

    /// Write the archive under this directory instead of beside the output.
    #[arg(help_heading = ARCHIVE, long, value_name = "DIR", conflicts_with = "no_archive")]
    pub archive_dir: Option<PathBuf>,

    /// A session larger than this loses its stored-only payloads (progress records,
    /// snapshots, history above the latest compact boundary, toolUseResult copies), which
    /// changes nothing the model is sent; the report says whether it then fits the model's
    /// window (K, M, G: powers of 1024).
    #[arg(long, value_name = "SIZE", default_value = "20M", value_parser = parse_size)]
    pub max_session_bytes: u64,

    /// Model name, for the window an oversized session must fit (e.g. claude-sonnet-4-5).
    #[arg(help_heading = TOKENS, long, value_name = "NAME")]
    pub model: Option<String>,

    /// Context window in tokens, for an oversized session (default: the model's, else the
    /// one the session records or its model's, else 200000).
    #[arg(help_heading = TOKENS, long, value_name = "TOKENS")]
    pub context_window: Option<usize>,

    /// How the report is printed.
    #[command(flatten)]
    pub report: OutputArgs,
}

/// Arguments of `ctxc restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The archive (NAME.ctxc-archive.json), the compacted file it is beside (a Parquet
    /// dataset too), or a session reference (`@ID`) for the archive beside a session
    /// compacted in place with --archive; an archive or compacted file may be an object URL
    /// (s3://bucket/out/NAME.ctxc-archive.json).
    #[arg(value_name = "ARCHIVE")]
    pub archive: PathBuf,

    /// Write the restored transcript here (a file, `-`, or an object URL) [default: the
    /// original's path or URL, when it is free or is the compacted file itself, and is in the
    /// compacted file's directory (an archive does not choose where restore writes): a file
    /// compacted in place is restored over itself, kept first as NAME.EXT.compacted].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Undo only the last N compactions, across generations [default: all].
    #[arg(long, value_name = "N", conflicts_with_all = ["generation", "original"])]
    pub steps: Option<usize>,

    /// Restore the file as generation N began: before its first compaction. A file changed
    /// since its last compaction (a resumed client appended to it) starts a new generation
    /// when compacted again; `ctxc archive show` lists them.
    #[arg(long, value_name = "N", conflicts_with = "original")]
    pub generation: Option<u32>,

    /// Restore the first original, before any compaction (the default).
    #[arg(long)]
    pub original: bool,

    /// Restore even if the compacted file no longer matches the archive.
    #[arg(long)]
    pub force: bool,

    /// Replace an existing output file.
    #[arg(long)]
    pub force_overwrite: bool,
}

/// `ctxc archive ...`.
#[derive(Debug, Subcommand)]
pub enum ArchiveCommand {
    /// What each compaction of an archive dropped or summarized.
    Show {
        /// The archive (NAME.ctxc-archive.json), the compacted file it is beside (a Parquet
        /// dataset too), or a session reference (`@ID`) for the archive beside a session
        /// compacted in place with --archive.
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,

        /// Print as JSON.
        #[arg(long)]
        json: bool,

        /// One line per compaction (when, what it read and wrote, tokens and messages before
        /// and after, edits by kind) instead of every edit.
        #[arg(long, conflicts_with = "json")]
        summary: bool,
    },
}

/// `ctxc config ...`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective settings of `ctxc compact` and where each comes from.
    ///
    /// Takes any flag of `ctxc compact` after its own, to preview what the settings resolve to
    /// with it: `ctxc config show --model claude-sonnet-4-5 --trigger-ratio 0.7`.
    Show {
        /// The settings file.
        #[command(flatten)]
        config: ConfigArgs,

        /// Print as JSON.
        #[arg(long)]
        json: bool,

        /// Flags of `ctxc compact` (e.g. --model NAME, --trigger-ratio RATIO, --strategy
        /// NAME), as that command takes them.
        #[arg(
            value_name = "COMPACT_FLAGS",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        flags: Vec<String>,
    },
}

/// `ctxc report ...`.
#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Combine JSON reports of `ctxc compact` (from shards or machines) into one.
    Merge {
        /// JSON reports written with --json or --report FILE.json (`-` for standard input).
        #[arg(value_name = "REPORT", required = true)]
        reports: Vec<PathBuf>,

        /// Report format.
        #[command(flatten)]
        output: OutputArgs,
    },
}

/// The clap command, for man pages, completions and tests.
pub fn command() -> clap::Command {
    help::with_examples(<Cli as clap::CommandFactory>::command())
}

/// Parses the command line, coloured as `--color` asks (help and errors included).
pub fn parse() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let color = ColorChoice::from_args(&args);
    let matches = command().color(color.clap()).get_matches_from(args);
    <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// Every man page: `(file name, roff)`, ctxc.1 and one per command and nested command
/// (ctxc-report-merge.1), as the pages' SEE ALSO and SUBCOMMANDS sections name them.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let mut pages = Vec::new();
    let mut cmd = command();
    cmd.build();
    collect_pages(&cmd, &mut vec!["ctxc"], &mut pages);
    pages
}

/// The page of `cmd` (at `path`: `["ctxc", "report", "merge"]`) and of its subcommands.
fn collect_pages<'a>(
    cmd: &'a clap::Command,
    path: &mut Vec<&'a str>,
    pages: &mut Vec<(String, Vec<u8>)>,
) {
    let name = path.join("-");
    pages.push((format!("{name}.1"), help::man_page(cmd, &name, &path[1..])));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        path.push(sub.get_name());
        collect_pages(sub, path, pages);
        path.pop();
    }
}

/// The shells `ctxc completions` writes for, with the file each script is kept in under
/// `completions/`.
pub const SHELLS: [(clap_complete::Shell, &str); 5] = [
    (clap_complete::Shell::Bash, "ctxc.bash"),
    (clap_complete::Shell::Zsh, "_ctxc"),
    (clap_complete::Shell::Fish, "ctxc.fish"),
    (clap_complete::Shell::Elvish, "ctxc.elv"),
    (clap_complete::Shell::PowerShell, "_ctxc.ps1"),
];

/// The completion script of `shell`.
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut command(), "ctxc", &mut buf);
    buf
}

mod eval;
mod fit;
mod help;
mod values;

#[cfg(test)]
mod tests;

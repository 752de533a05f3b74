//! The command line, as clap derive definitions. Doc comments here are the `--help` text, the
//! man page and the shell completions; nothing below `run` sees clap types.

use crate::transcript::Format;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Compact stored LLM agent transcripts offline, in their own format.
///
/// ctxc reads OpenAI chat, Anthropic messages, Claude Code sessions, Codex rollouts and
/// ShareGPT files (JSON or JSONL), counts what the model would be sent, and validates them.
#[derive(Debug, Parser)]
#[command(name = "ctxc", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,

    /// Print nothing but data and errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Worker threads (default: one per core).
    #[arg(short, long, global = true, value_name = "N")]
    pub jobs: Option<usize>,
}

/// ctxc's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate transcripts: parsing, tool call/result pairing, role order, chain links.
    ///
    /// Findings print as `path:line: message`. Exit status: 0 all valid, 1 findings, 2 usage.
    Check(CheckArgs),

    /// Compact transcripts: write each in its own format, smaller, and report what was done.
    ///
    /// A file is compacted when a trigger fires (or with --force), with the adaptive chain of
    /// strategies unless --strategy names others, until its context tokens reach the target.
    /// Outputs go beside their input as NAME.compact.EXT; the input is never modified.
    Compact(CompactArgs),

    /// Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire.
    ///
    /// Context tokens are what the model would be sent: after the latest compact boundary,
    /// without records that never reach it (reported as stored-only bytes).
    Stats(StatsArgs),
}

/// Where transcripts come from and how to read them.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Transcript files, directories (searched recursively) or `-` for standard input.
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<PathBuf>,

    /// File-name patterns to pick in directories (repeatable).
    #[arg(long = "glob", value_name = "PATTERN", default_values = ["*.json", "*.jsonl", "*.traj"])]
    pub globs: Vec<String>,

    /// Read every input as this format instead of detecting it.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<Format>,

    /// JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`).
    #[arg(long, value_name = "POINTER")]
    pub messages_path: Option<String>,
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

/// How tokens are counted and how big the context window is.
#[derive(Debug, Args, Clone, Default)]
pub struct TokenArgs {
    /// Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5).
    /// Models without a public tokenizer are counted with o200k_base and marked estimated.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// Context window in tokens (default: the model's, else 200000).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<usize>,

    /// Tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base or estimate.
    #[arg(long, value_name = "ENCODING")]
    pub encoding: Option<crate::tokens::Encoding>,

    /// Tokenize every text, even text seen before (for measurements).
    #[arg(long, hide = true)]
    pub no_cache: bool,
}

/// When compaction is due; 0 switches a trigger off.
#[derive(Debug, Args, Clone, Default)]
pub struct TriggerArgs {
    /// Fire when context tokens reach this share of the window [default: 0.8].
    #[arg(long, value_name = "RATIO")]
    pub trigger_ratio: Option<f64>,

    /// Fire when a conversation has this many user turns [default: 200].
    #[arg(long, value_name = "N")]
    pub turn_threshold: Option<usize>,

    /// Fire when a conversation has this many messages [default: 700].
    #[arg(long, value_name = "N")]
    pub max_events: Option<usize>,

    /// Ignore the !!!SUMMARY!!! marker in the last assistant message.
    #[arg(long)]
    pub no_marker: bool,
}

/// How a report is printed.
#[derive(Debug, Args, Clone, Default)]
#[group(multiple = false)]
pub struct OutputArgs {
    /// Print the report as JSON (camelCase, with schemaVersion).
    #[arg(long)]
    pub json: bool,

    /// Print the report as YAML.
    #[arg(long)]
    pub yaml: bool,

    /// Print the report as a markdown table.
    #[arg(long)]
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

    /// Compact even when no trigger fires.
    #[arg(long)]
    pub force: bool,

    /// Strategies to run in order, comma-separated [default: adaptive]: adaptive,
    /// strip-payloads, sliding-window, importance, key-events, incremental, selective,
    /// observation-masking, full-summary, truncate.
    #[arg(long, value_name = "NAME[,NAME...]", value_delimiter = ',', value_parser = parse_strategy)]
    pub strategy: Vec<crate::strategy::StrategyName>,

    /// Compact each conversation to at most this many context tokens [default: the trigger
    /// threshold].
    #[arg(long, value_name = "TOKENS", conflicts_with = "target_ratio")]
    pub target_tokens: Option<usize>,

    /// Compact each conversation to at most this share of its context tokens (e.g. 0.5).
    #[arg(long, value_name = "RATIO")]
    pub target_ratio: Option<f64>,

    /// Token budget of each summary [default: 1000].
    #[arg(long, value_name = "TOKENS")]
    pub summary_max_tokens: Option<usize>,

    /// Do not strip stored payloads (progress records, toolUseResult copies, base64 media)
    /// in the adaptive chain.
    #[arg(long)]
    pub keep_payloads: bool,

    /// Write the output here instead of beside the input (one input only; `-` for stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Replace an existing output file.
    #[arg(long)]
    pub force_overwrite: bool,

    /// Do everything but write: report what would happen.
    #[arg(long)]
    pub dry_run: bool,

    /// Report format.
    #[command(flatten)]
    pub report: OutputArgs,
}

fn parse_strategy(s: &str) -> Result<crate::strategy::StrategyName, String> {
    s.parse()
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

/// The clap command, for man pages, completions and tests.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_definition_is_consistent() {
        super::command().debug_assert();
    }
}

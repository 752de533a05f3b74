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

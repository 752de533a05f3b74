//! `ctxc fit`'s arguments.

use super::*;

/// How `ctxc fit` makes a trajectory into samples (`--policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum FitPolicy {
    /// The fewest samples that together train every assistant turn once.
    #[default]
    Split,
    /// One sample per trajectory: the longest tail that fits, the rest summarized.
    One,
}

/// Arguments of `ctxc fit`.
#[derive(Debug, Args)]
pub struct FitArgs {
    /// Inputs and how to read them.
    #[command(flatten)]
    pub input: InputArgs,

    /// The longest sample, in tokens of the trained model's tokenizer and chat template.
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(64..))]
    pub max_len: u64,

    /// The trained model's Hugging Face tokenizer.json.
    #[arg(help_heading = TOKENS, long, value_name = "FILE")]
    pub tokenizer_file: Option<PathBuf>,

    /// The chat template: a tokenizer_config.json, a chat_template.json or a Jinja file
    /// [default: the tokenizer_config.json beside --tokenizer-file].
    #[arg(help_heading = TOKENS, long, value_name = "FILE", requires = "tokenizer_file")]
    pub chat_template: Option<PathBuf>,

    /// Without --tokenizer-file: the encoding to count in, with the OpenAI chat overhead.
    #[arg(help_heading = TOKENS, long, value_name = "ENCODING", ignore_case = true, conflicts_with = "tokenizer_file")]
    pub encoding: Option<Encoding>,

    /// split: the fewest samples training every assistant turn once; one: one sample per
    /// trajectory.
    #[arg(long, value_name = "POLICY", default_value = "split")]
    pub policy: FitPolicy,

    /// The per-message train flag (1 trained, 0 context): `weight` for axolotl's
    /// message_field_training, or any name a trainer reads.
    #[arg(long, value_name = "NAME", default_value = "weight")]
    pub train_field: String,

    /// Who writes the summaries: extractive (offline, the default), openai or anthropic.
    #[arg(help_heading = SUMMARIZER, long, value_name = "NAME", default_value = "extractive",
          value_parser = PossibleValuesParser::new(["extractive", "openai", "anthropic"]))]
    pub summarizer: String,

    /// The summary model (openai and anthropic).
    #[arg(help_heading = SUMMARIZER, long, value_name = "MODEL")]
    pub summary_model: Option<String>,

    /// The summarizer's API base URL [default: the provider's].
    #[arg(help_heading = SUMMARIZER, long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Write every input's samples to this one file, in input order (`-` for stdout).
    #[arg(help_heading = OUTPUTS, short, long, value_name = "FILE", conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,

    /// Write each input's samples under this directory as NAME.fit.jsonl.
    #[arg(help_heading = OUTPUTS, long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Replace an existing output file.
    #[arg(help_heading = OUTPUTS, long)]
    pub force_overwrite: bool,

    /// Write the report (per conversation and in total) as JSON to this file (`-`: stdout).
    #[arg(help_heading = OUTPUTS, long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Make the samples and report them, but write no samples.
    #[arg(long)]
    pub dry_run: bool,
}

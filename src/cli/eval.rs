//! `ctxc eval`'s arguments, the judge's among them.

use super::*;

/// Arguments of `ctxc eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Inputs and how to read them.
    #[command(flatten)]
    pub input: InputArgs,

    /// Token counting.
    #[command(flatten)]
    pub tokens: TokenArgs,

    /// Strategies to compare, comma-separated [default: adaptive]; each runs alone (see
    /// `ctxc compact --strategy`).
    #[arg(help_heading = COMPACTION, long, value_name = "NAME[,NAME...]", value_delimiter = ',', hide_possible_values = true)]
    pub strategy: Vec<StrategyName>,

    /// Target shares of each conversation's context tokens to compare, comma-separated.
    #[arg(help_heading = COMPACTION, long, value_name = "RATIO[,RATIO...]", value_delimiter = ',', default_value = "0.5")]
    pub target_ratio: Vec<f64>,

    /// Token budget of each summary [default: 1000].
    #[arg(help_heading = COMPACTION, long, value_name = "TOKENS")]
    pub summary_max_tokens: Option<usize>,

    /// An LLM judge of the compacted contexts.
    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Report format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The LLM judge of `ctxc eval`: a model answers probe questions from the compacted context
/// and from the original, and scores the answers.
#[derive(Debug, Args, Clone, Default)]
pub struct JudgeArgs {
    /// Also have a model answer a sample of probe questions from each compacted context and
    /// from the original, and score the answers 0-5 on accuracy, context awareness, artifact
    /// trail, completeness, continuity and instruction following: openai (any
    /// OpenAI-compatible /chat/completions) or anthropic (/messages). The API key comes only
    /// from OPENAI_API_KEY, ANTHROPIC_API_KEY or CTXC_API_KEY.
    #[arg(
        help_heading = JUDGE,
        long,
        value_name = "PROVIDER",
        hide_possible_values = true,
        value_parser = PossibleValuesParser::new(["openai", "anthropic"]),
        requires = "judge_model"
    )]
    pub judge: Option<String>,

    /// The model that answers and judges (required with --judge).
    #[arg(help_heading = JUDGE, long, value_name = "MODEL", requires = "judge")]
    pub judge_model: Option<String>,

    /// The judge API's base URL [default: https://api.openai.com/v1,
    /// https://api.anthropic.com/v1].
    #[arg(help_heading = JUDGE, long, value_name = "URL", requires = "judge")]
    pub judge_base_url: Option<String>,

    /// Probe questions asked per conversation, taken from the four categories in turn
    /// [default: 12].
    #[arg(help_heading = JUDGE, long, value_name = "N", requires = "judge")]
    pub judge_probes: Option<usize>,

    /// Seconds a judge request may take, connect and response [default: 120].
    #[arg(help_heading = JUDGE, long, value_name = "SECONDS", requires = "judge")]
    pub judge_timeout: Option<f64>,

    /// Judge requests in flight at once, whatever --jobs is [default: 4].
    #[arg(help_heading = JUDGE, long, value_name = "N", requires = "judge")]
    pub llm_concurrency: Option<usize>,

    /// Where replies are cached by the digest of their request, so a re-run costs nothing
    /// [default: ctxc/judge in the user's cache directory, ~/.cache/ctxc/judge on Linux];
    /// delete it to clear the cache.
    #[arg(help_heading = JUDGE, long, value_name = "DIR", requires = "judge", conflicts_with = "no_judge_cache")]
    pub judge_cache: Option<PathBuf>,

    /// Neither read nor write the judge cache.
    #[arg(help_heading = JUDGE, long, requires = "judge")]
    pub no_judge_cache: bool,

    /// Send transcripts to the judge without redacting secrets (API keys, tokens, passwords)
    /// first.
    #[arg(help_heading = JUDGE, long, requires = "judge")]
    pub no_redact: bool,

    /// Allow plain http:// to a judge host that is not this machine.
    #[arg(help_heading = JUDGE, long, requires = "judge")]
    pub allow_insecure_http: bool,
}

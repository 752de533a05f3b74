//! Settings: command-line flags over `CTXC_*` environment variables over a YAML file over
//! defaults, resolved once into validated values that nothing below `run` needs clap for.
//!
//! The file is `--config FILE`, else `./ctxc.yaml`, else `ctxc/ctxc.yaml` in the user's
//! config directory (`--no-config` reads none). Keys follow the seeds (`trigger_ratio`,
//! `keep_recent_rounds`, `sliding_window_size`, ...); each has an environment variable of the
//! same name upper-cased after `CTXC_` (`CTXC_TRIGGER_RATIO=0.7`). Unknown keys and bad values
//! are errors naming the key and where it came from. `ctxc config show` prints every setting
//! with its source.

use crate::cli::{CompactArgs, ConfigArgs, TokenArgs, TriggerArgs};
use crate::human::Shown;
use crate::pipeline::{Settings, Target};
use crate::strategy::{Rule, StrategyName, StrategySettings};
use crate::summarizer::Summarizer;
use crate::tokens::{DEFAULT_CONTEXT_WINDOW, Encoding, TokenCounter, model_info};
use crate::trigger::TriggerSettings;
use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How tokens are counted, resolved from the model, encoding and context window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenSettings {
    /// The model named, if any.
    pub model: Option<String>,
    /// The encoding counted with.
    pub encoding: Encoding,
    /// The context window in tokens.
    pub context_window: usize,
    /// False when counts only estimate the model's tokens (no public tokenizer, or `estimate`).
    pub exact: bool,
    /// Whether repeated text is counted once (always, outside measurements).
    #[serde(skip, default = "yes")]
    pub cache: bool,
    /// Whether `context_window` was given (a window or a model, by flag or config file);
    /// otherwise a transcript that records its window uses that (DESIGN: token trigger).
    #[serde(skip)]
    pub window_given: bool,
}

impl TokenSettings {
    /// Resolves the token flags alone (no file, no environment).
    pub fn from_args(args: &TokenArgs) -> Result<Self> {
        let layer = Layer {
            model: args.model.clone(),
            context_window: args.context_window,
            encoding: args.encoding,
            ..Layer::default()
        };
        let mut settings =
            token_settings(&layer).map_err(|(key, e)| anyhow!("{e}: {}", flag_of(key)))?;
        settings.cache = !args.no_cache;
        Ok(settings)
    }

    /// Builds the one counter of a run.
    pub fn counter(&self) -> Result<TokenCounter> {
        if self.cache {
            TokenCounter::new(self.encoding)
        } else {
            TokenCounter::without_cache(self.encoding)
        }
    }
}

fn yes() -> bool {
    true
}

/// The token settings of `layer`; an error names the key that is wrong.
fn token_settings(layer: &Layer) -> Result<TokenSettings, KeyError> {
    let model = match &layer.model {
        Some(name) => Some(model_info(name).ok_or_else(|| {
            (
                "model",
                format!("unknown model '{name}': name a known model, or give an encoding and a context window"),
            )
        })?),
        None => None,
    };
    let encoding = layer
        .encoding
        .or(model.map(|m| m.encoding))
        .unwrap_or_default();
    let context_window = layer
        .context_window
        .or(model.map(|m| m.context_window))
        .unwrap_or(DEFAULT_CONTEXT_WINDOW);
    if context_window == 0 {
        return Err(("context_window", "context_window must be at least 1".into()));
    }
    // A model without a public tokenizer is estimated whatever encoding stands in for it.
    let exact = encoding != Encoding::Estimate && model.is_none_or(|m| m.exact);
    Ok(TokenSettings {
        model: layer.model.clone(),
        encoding,
        context_window,
        exact,
        cache: true,
        window_given: layer.context_window.is_some() || model.is_some(),
    })
}

/// Resolves the trigger flags alone against the context window (for `ctxc stats`).
pub fn trigger_settings(
    args: &TriggerArgs,
    tokens: &TokenSettings,
    force: bool,
) -> Result<TriggerSettings> {
    let mut layer = Layer::default();
    layer.add_triggers(args);
    let mut triggers = triggers_of(&layer, tokens, force)?;
    triggers.raw_tokens = args.raw_tokens;
    Ok(triggers)
}

fn triggers_of(layer: &Layer, tokens: &TokenSettings, force: bool) -> Result<TriggerSettings> {
    let defaults = TriggerSettings::default();
    let trigger_ratio = match (layer.trigger_ratio, layer.trigger_remaining_ratio) {
        (Some(_), Some(_)) => bail!("set trigger_ratio or trigger_remaining_ratio, not both"),
        (Some(r), None) => r,
        (None, Some(remaining)) => {
            check_share("trigger_remaining_ratio", remaining)?;
            1.0 - remaining
        }
        (None, None) => defaults.trigger_ratio,
    };
    check_share("trigger_ratio", trigger_ratio)?;
    Ok(TriggerSettings {
        context_window: tokens.context_window,
        trigger_ratio,
        turn_threshold: layer
            .conversation_turn_threshold
            .unwrap_or(defaults.turn_threshold),
        max_events: layer.max_events.unwrap_or(defaults.max_events),
        marker: layer.summary_marker.unwrap_or(true),
        force,
        target: false,
        raw_tokens: false,
        window_given: tokens.window_given,
    })
}

fn check_share(key: &str, value: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&value) {
        bail!("{key} must be between 0 and 1, got {value}");
    }
    Ok(())
}

/// One source of settings: every key optional. Keys are the seeds' names.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    /// Model name (sets encoding and context window).
    pub model: Option<String>,
    /// Context window in tokens.
    pub context_window: Option<usize>,
    /// Tokenizer encoding.
    pub encoding: Option<Encoding>,
    /// Token trigger: share of the window.
    pub trigger_ratio: Option<f64>,
    /// Token trigger as the share of the window left (seed 000).
    pub trigger_remaining_ratio: Option<f64>,
    /// Turn trigger (seed 000).
    pub conversation_turn_threshold: Option<usize>,
    /// Event trigger (seed 003).
    pub max_events: Option<usize>,
    /// Whether `!!!SUMMARY!!!` triggers (seed 000).
    pub summary_marker: Option<bool>,
    /// Strategies, in order.
    pub strategy: Option<StrategyList>,
    /// Target tokens per conversation.
    pub target_tokens: Option<usize>,
    /// Target as a share of each conversation's tokens.
    pub target_ratio: Option<f64>,
    /// The sliding window keeps at least this many user/tool messages (seed 001).
    pub keep_recent_rounds: Option<usize>,
    /// Messages the sliding window keeps (seed 000: 9 = 4 user/tool + 5 assistant).
    pub sliding_window_size: Option<usize>,
    /// Importance threshold (seed 000).
    pub importance_score_threshold: Option<f64>,
    /// Low-scoring units importance keeps anyway.
    pub importance_keep_recent: Option<usize>,
    /// Non-key units key-events keeps anyway.
    pub key_events_keep_recent: Option<usize>,
    /// Turns per incremental chunk (seed 000).
    pub incremental_summary_chunk_size: Option<usize>,
    /// Tool outputs observation masking leaves whole.
    pub observation_masking_keep_recent: Option<usize>,
    /// Messages truncate keeps (seed 004 keepRecentCount).
    pub keep_recent_count: Option<usize>,
    /// Summary budget (seed 004 summaryMaxTokens).
    pub summary_max_tokens: Option<usize>,
    /// Skip strip-payloads in the adaptive chain.
    pub keep_payloads: Option<bool>,
    /// Selective rule table (seed 002).
    pub selective: Option<Vec<Rule>>,
    /// extractive, openai or anthropic.
    pub summarizer: Option<String>,
    /// Summary model (seed 004 summaryModel).
    pub summary_model: Option<String>,
    /// LLM API base URL.
    pub base_url: Option<String>,
    /// Seconds per summary request (seed 004 summaryTimeout).
    pub summary_timeout: Option<f64>,
    /// Summary requests in flight at once.
    pub llm_concurrency: Option<usize>,
    /// extractive, truncate or fail.
    pub on_summary_failure: Option<String>,
    /// Redact secrets before sending.
    pub redact: Option<bool>,
    /// Allow plain http:// beyond loopback.
    pub allow_insecure_http: Option<bool>,
}

/// Strategy names, from a YAML list or a comma-separated string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "Vec<String>")]
pub struct StrategyList(pub Vec<StrategyName>);

impl From<StrategyList> for Vec<String> {
    fn from(list: StrategyList) -> Self {
        list.0.iter().map(|s| s.name().to_string()).collect()
    }
}

impl<'de> Deserialize<'de> for StrategyList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(String),
            Many(Vec<String>),
        }
        let names = match Raw::deserialize(d)? {
            Raw::One(s) => s.split(',').map(|n| n.trim().to_string()).collect(),
            Raw::Many(v) => v,
        };
        names
            .iter()
            .map(|n| n.parse().map_err(serde::de::Error::custom))
            .collect::<Result<_, _>>()
            .map(StrategyList)
    }
}

/// The names of every key, in the file's order.
pub const KEYS: [&str; 31] = [
    "model",
    "context_window",
    "encoding",
    "trigger_ratio",
    "trigger_remaining_ratio",
    "conversation_turn_threshold",
    "max_events",
    "summary_marker",
    "strategy",
    "target_tokens",
    "target_ratio",
    "keep_recent_rounds",
    "sliding_window_size",
    "importance_score_threshold",
    "importance_keep_recent",
    "key_events_keep_recent",
    "incremental_summary_chunk_size",
    "observation_masking_keep_recent",
    "keep_recent_count",
    "summary_max_tokens",
    "keep_payloads",
    "selective",
    "summarizer",
    "summary_model",
    "base_url",
    "summary_timeout",
    "llm_concurrency",
    "on_summary_failure",
    "redact",
    "allow_insecure_http",
    "force",
];

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// Built in.
    Default,
    /// The settings file.
    File(PathBuf),
    /// An environment variable.
    Env(String),
    /// A command-line flag.
    Flag,
    /// An argument of a library call ([`crate::api`], the Python package).
    Argument,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(p) => write!(f, "file {}", p.shown()),
            Source::Env(v) => write!(f, "env {v}"),
            Source::Flag => f.write_str("flag"),
            Source::Argument => f.write_str("argument"),
        }
    }
}

impl Layer {
    fn add_triggers(&mut self, t: &TriggerArgs) {
        self.trigger_ratio = t.trigger_ratio;
        self.trigger_remaining_ratio = t.trigger_remaining;
        self.conversation_turn_threshold = t.turn_threshold;
        self.max_events = t.max_events;
        self.summary_marker = t.no_marker.then_some(false);
    }

    /// The settings the flags of `ctxc compact` give.
    pub fn from_flags(a: &CompactArgs) -> Layer {
        let s = &a.summarizer;
        let mut layer = Layer {
            model: a.tokens.model.clone(),
            context_window: a.tokens.context_window,
            encoding: a.tokens.encoding,
            strategy: (!a.strategy.is_empty()).then(|| StrategyList(a.strategy.clone())),
            target_tokens: a.target_tokens,
            target_ratio: a.target_ratio,
            summary_max_tokens: a.summary_max_tokens,
            keep_payloads: a.keep_payloads.then_some(true),
            summarizer: s.summarizer.clone(),
            summary_model: s.summary_model.clone(),
            base_url: s.base_url.clone(),
            summary_timeout: s.summary_timeout,
            llm_concurrency: s.llm_concurrency,
            on_summary_failure: s.on_summary_failure.clone(),
            redact: s.no_redact.then_some(false),
            allow_insecure_http: s.allow_insecure_http.then_some(true),
            ..Layer::default()
        };
        layer.add_triggers(&a.triggers);
        layer
    }

    /// The settings `CTXC_*` variables give (read through `var`, for tests).
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<(Layer, Vec<String>)> {
        let mut map = serde_yaml::Mapping::new();
        let mut names = Vec::new();
        for key in KEYS.iter().filter(|k| **k != "force") {
            let name = format!("CTXC_{}", key.to_ascii_uppercase());
            let Some(raw) = var(&name) else { continue };
            let value: serde_yaml::Value = match *key {
                // Free text: never let YAML turn it into a number or a bool.
                "model" | "summarizer" | "summary_model" | "base_url" | "on_summary_failure"
                | "strategy" => serde_yaml::Value::String(raw),
                _ => serde_yaml::from_str(&raw)
                    .with_context(|| format!("environment variable {name}: cannot read '{raw}'"))?,
            };
            map.insert(serde_yaml::Value::String(key.to_string()), value);
            names.push(name);
        }
        let layer: Layer = serde_yaml::from_value(serde_yaml::Value::Mapping(map))
            .map_err(|e| anyhow!("environment variable {}: {e}", names.join(", ")))?;
        Ok((layer, names))
    }

    /// The settings of a YAML file.
    pub fn from_file(path: &Path) -> Result<Layer> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the settings file {}", path.shown()))?;
        if text.trim().is_empty() {
            return Ok(Layer::default());
        }
        serde_yaml::from_str(&text).map_err(|e| anyhow!("settings file {}", at_place(path, &e)))
    }

    /// Which keys this layer sets.
    fn set_keys(&self) -> Vec<&'static str> {
        let value = serde_json::to_value(self).expect("a layer serializes");
        KEYS.iter()
            .copied()
            .filter(|k| value.get(k).is_some_and(|v| !v.is_null()))
            .collect()
    }

    /// `self` with every key `over` sets taken from `over`.
    fn overlaid(&self, over: &Layer) -> Layer {
        let mut base = serde_json::to_value(self).expect("a layer serializes");
        let top = serde_json::to_value(over).expect("a layer serializes");
        for (k, v) in top.as_object().expect("an object") {
            if !v.is_null() {
                base[k] = v.clone();
            }
        }
        serde_json::from_value(base).expect("a merged layer deserializes")
    }
}

/// `path:line:column: message` for an error in a settings file, the place taken out of the
/// message (where the parser knows it; a mapping's first key is at 1:1, which the message
/// leaves out); `path: message` where it does not.
fn at_place(path: &Path, e: &serde_yaml::Error) -> String {
    let message = e.to_string();
    match e.location() {
        Some(at) => {
            let (line, column) = (at.line(), at.column());
            let message = message.replacen(&format!(" at line {line} column {column}"), "", 1);
            format!("{}:{line}:{column}: {message}", path.shown())
        }
        None => format!("{}: {message}", path.shown()),
    }
}

/// The settings file to read, if any: `--config`, else `./ctxc.yaml`, else the user's.
pub fn settings_file(args: &ConfigArgs) -> Result<Option<PathBuf>> {
    if args.no_config {
        return Ok(None);
    }
    if let Some(path) = &args.config {
        if !path.is_file() {
            bail!("the settings file {} does not exist", path.shown());
        }
        return Ok(Some(path.clone()));
    }
    let local = PathBuf::from("ctxc.yaml");
    if local.is_file() {
        return Ok(Some(local));
    }
    Ok(dirs::config_dir()
        .map(|d| d.join("ctxc").join("ctxc.yaml"))
        .filter(|p| p.is_file()))
}

/// Every setting of `ctxc compact`, resolved and validated.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactConfig {
    /// How tokens are counted.
    pub tokens: TokenSettings,
    /// When compaction is due.
    pub triggers: TriggerSettings,
    /// How far to compact.
    pub target: Target,
    /// The strategies to run.
    pub strategies: Vec<StrategyName>,
    /// Strategy settings.
    pub strategy: StrategySettings,
    /// Who writes summaries.
    pub summarizer: SummarizerSettings,
    /// How inputs are read (`--format`, `--messages-path`): flags of a run, not settings keys.
    #[serde(skip)]
    pub read: crate::transcript::ReadOptions,
    /// Every key's value as merged, for `config show` and archives.
    #[serde(skip)]
    pub merged: Layer,
    /// Where each key's value came from.
    #[serde(skip)]
    pub sources: BTreeMap<&'static str, Source>,
}

/// Summarizer settings (the LLM ones apply to `openai` and `anthropic`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummarizerSettings {
    /// extractive, openai or anthropic.
    pub kind: String,
    /// The summary model.
    pub model: Option<String>,
    /// The API base URL.
    pub base_url: Option<String>,
    /// Seconds per request.
    pub timeout: f64,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// extractive, truncate or fail.
    pub on_failure: String,
    /// Redact secrets before sending.
    pub redact: bool,
    /// Allow plain http:// beyond loopback.
    pub allow_insecure_http: bool,
}

impl CompactConfig {
    /// Resolves flags over the environment over the settings file over defaults.
    pub fn resolve(args: &CompactArgs) -> Result<CompactConfig> {
        let file = settings_file(&args.config)?;
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Self::resolve_from(args, file.as_deref(), env)
    }

    /// [`CompactConfig::resolve`] with the file and environment given (for tests).
    pub fn resolve_from(
        args: &CompactArgs,
        file: Option<&Path>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<CompactConfig> {
        let file_layer = match file {
            Some(path) => Layer::from_file(path)?,
            None => Layer::default(),
        };
        let (env_layer, env_names) = Layer::from_env(env)?;
        let flag_layer = Layer::from_flags(args);
        let mut sources: BTreeMap<&'static str, Source> =
            KEYS.iter().map(|k| (*k, Source::Default)).collect();
        for key in file_layer.set_keys() {
            sources.insert(key, Source::File(file.expect("a file layer").to_path_buf()));
        }
        for key in env_layer.set_keys() {
            let name = env_names
                .iter()
                .find(|n| n.eq_ignore_ascii_case(&format!("CTXC_{key}")))
                .cloned()
                .unwrap_or_default();
            sources.insert(key, Source::Env(name));
        }
        for key in flag_layer.set_keys() {
            sources.insert(key, Source::Flag);
        }
        if args.force {
            sources.insert("force", Source::Flag);
        }
        let merged = file_layer.overlaid(&env_layer).overlaid(&flag_layer);
        let mut config = Self::of_merged(merged, sources, args.force, args.triggers.raw_tokens)?;
        config.take_run_flags(args);
        Ok(config)
    }

    /// The flags of a run that steer it beside the settings keys, so that commands read one
    /// resolved value: how inputs are read, `--drop-stored`, and whether each step's plan is
    /// kept (only an archive records what each step did).
    fn take_run_flags(&mut self, args: &CompactArgs) {
        self.read = crate::transcript::ReadOptions {
            format: args.input.format,
            messages_path: args.input.messages_path.clone(),
        };
        self.strategy.drop_stored = args.drop_stored;
        self.strategy.step_plans = args.archive;
        // A target on the command line asks for that size now (DESIGN "Strategies"); one in
        // the settings file or the environment only says how far once a trigger fires.
        self.triggers.target = args.target_ratio.is_some() || args.target_tokens.is_some();
    }

    /// The settings a library caller gives ([`crate::api`]): `layer` over the defaults, with
    /// no settings file and no environment, so that a call means the same on every machine.
    pub fn from_layer(layer: Layer, force: bool) -> Result<CompactConfig> {
        let mut sources: BTreeMap<&'static str, Source> =
            KEYS.iter().map(|k| (*k, Source::Default)).collect();
        for key in layer.set_keys() {
            sources.insert(key, Source::Argument);
        }
        if force {
            sources.insert("force", Source::Argument);
        }
        Self::of_merged(layer, sources, force, false)
    }

    /// The pipeline's settings for these settings, summarizing with `summarizer` and counting
    /// with `counter`: one place that knows how the one becomes the other (the CLI, the
    /// library and `repair` all compact through it).
    pub fn pipeline<'a>(
        &self,
        summarizer: &'a dyn Summarizer,
        counter: &'a TokenCounter,
    ) -> Settings<'a> {
        Settings {
            read: self.read.clone(),
            triggers: self.triggers.clone(),
            target: self.target,
            strategies: self.strategies.clone(),
            strategy: self.strategy.clone(),
            summarizer,
            counter,
        }
    }

    /// Validates the merged settings; `sources` names where each came from in errors.
    fn of_merged(
        merged: Layer,
        sources: BTreeMap<&'static str, Source>,
        force: bool,
        raw_tokens: bool,
    ) -> Result<CompactConfig> {
        let blame = |key: &str| match sources.get(key).unwrap_or(&Source::Default) {
            Source::Flag => flag_of(key),
            source => format!("{key} (from {source})"),
        };
        let tokens = token_settings(&merged).map_err(|(key, e)| anyhow!("{e}: {}", blame(key)))?;
        let mut triggers =
            triggers_of(&merged, &tokens, force).with_context(|| blame("trigger_ratio"))?;
        triggers.raw_tokens = raw_tokens;
        let target = match (merged.target_tokens, merged.target_ratio) {
            (Some(_), Some(_)) => bail!(
                "set target_tokens or target_ratio, not both: {} and {}",
                blame("target_tokens"),
                blame("target_ratio")
            ),
            (Some(n), None) => Target::Tokens(n),
            (None, Some(r)) if r > 0.0 && r <= 1.0 => Target::Ratio(r),
            (None, Some(r)) => bail!(
                "target_ratio must be above 0 and at most 1, got {r}: {}",
                blame("target_ratio")
            ),
            (None, None) => Target::Threshold,
        };
        let strategies = merged
            .strategy
            .clone()
            .map(|l| l.0)
            .filter(|l| !l.is_empty())
            .unwrap_or_else(|| vec![StrategyName::Adaptive]);
        let strategy =
            strategy_settings(&merged).map_err(|(key, e)| anyhow!("{e}: {}", blame(key)))?;
        let summarizer =
            summarizer_settings(&merged).map_err(|(key, e)| anyhow!("{e}: {}", blame(key)))?;
        Ok(CompactConfig {
            tokens,
            triggers,
            target,
            strategies,
            strategy,
            summarizer,
            read: Default::default(),
            merged,
            sources,
        })
    }
}

/// The command-line flag that sets settings key `key`, for errors that blame a flag.
pub fn flag_of(key: &str) -> String {
    match key {
        "trigger_remaining_ratio" => "--trigger-remaining".into(),
        "conversation_turn_threshold" => "--turn-threshold".into(),
        "summary_marker" => "--no-marker".into(),
        "redact" => "--no-redact".into(),
        key => format!("--{}", key.replace('_', "-")),
    }
}

type KeyError = (&'static str, String);

fn strategy_settings(l: &Layer) -> Result<StrategySettings, KeyError> {
    let d = StrategySettings::default();
    let positive =
        |key: &'static str, v: Option<usize>, default: usize| -> Result<usize, KeyError> {
            match v {
                Some(0) => Err((key, format!("{key} must be at least 1"))),
                Some(n) => Ok(n),
                None => Ok(default),
            }
        };
    let window = positive(
        "sliding_window_size",
        l.sliding_window_size,
        d.window_user_messages + d.window_assistant_messages,
    )?;
    let users = (window / 2).max(l.keep_recent_rounds.unwrap_or(0));
    let threshold = l
        .importance_score_threshold
        .unwrap_or(d.importance_threshold);
    if !threshold.is_finite() {
        return Err((
            "importance_score_threshold",
            "importance_score_threshold must be a number".into(),
        ));
    }
    Ok(StrategySettings {
        window_user_messages: users,
        window_assistant_messages: window - window / 2,
        importance_threshold: threshold,
        importance_keep_recent: l.importance_keep_recent.unwrap_or(d.importance_keep_recent),
        key_events_keep_recent: l.key_events_keep_recent.unwrap_or(d.key_events_keep_recent),
        incremental_chunk_turns: positive(
            "incremental_summary_chunk_size",
            l.incremental_summary_chunk_size,
            d.incremental_chunk_turns,
        )?,
        masking_keep_recent: l
            .observation_masking_keep_recent
            .unwrap_or(d.masking_keep_recent),
        truncate_keep_recent: l.keep_recent_count.unwrap_or(d.truncate_keep_recent),
        summary_max_tokens: positive(
            "summary_max_tokens",
            l.summary_max_tokens,
            d.summary_max_tokens,
        )?,
        selective_rules: l.selective.clone().unwrap_or(d.selective_rules),
        keep_payloads: l.keep_payloads.unwrap_or(false),
        // A flag of `compact` alone (it changes bytes, never tokens): not a settings key.
        drop_stored: false,
        step_plans: d.step_plans,
    })
}

/// The summarizer names `--summarizer` takes.
pub const SUMMARIZERS: [&str; 3] = ["extractive", "openai", "anthropic"];
/// The fallbacks `--on-summary-failure` takes.
pub const FALLBACKS: [&str; 3] = ["extractive", "truncate", "fail"];

fn summarizer_settings(l: &Layer) -> Result<SummarizerSettings, KeyError> {
    let kind = l.summarizer.clone().unwrap_or_else(|| "extractive".into());
    if !SUMMARIZERS.contains(&kind.as_str()) {
        return Err((
            "summarizer",
            format!(
                "unknown summarizer '{kind}' (expected one of: {})",
                SUMMARIZERS.join(", ")
            ),
        ));
    }
    if kind != "extractive" && l.summary_model.is_none() {
        return Err((
            "summary_model",
            format!(
                "the {kind} summarizer needs a summary model (--summary-model or summary_model): ctxc never guesses which model to pay for"
            ),
        ));
    }
    let on_failure = l
        .on_summary_failure
        .clone()
        .unwrap_or_else(|| "extractive".into());
    if !FALLBACKS.contains(&on_failure.as_str()) {
        return Err((
            "on_summary_failure",
            format!(
                "unknown fallback '{on_failure}' (expected one of: {})",
                FALLBACKS.join(", ")
            ),
        ));
    }
    let timeout = l.summary_timeout.unwrap_or(30.0);
    if !(timeout > 0.0 && timeout.is_finite()) {
        return Err((
            "summary_timeout",
            format!("summary_timeout must be a positive number of seconds, got {timeout}"),
        ));
    }
    let concurrency = l.llm_concurrency.unwrap_or(4);
    if concurrency == 0 {
        return Err((
            "llm_concurrency",
            "llm_concurrency must be at least 1".into(),
        ));
    }
    Ok(SummarizerSettings {
        kind,
        model: l.summary_model.clone(),
        base_url: l.base_url.clone(),
        timeout,
        concurrency,
        on_failure,
        redact: l.redact.unwrap_or(true),
        allow_insecure_http: l.allow_insecure_http.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests;

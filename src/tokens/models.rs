//! The model registry: which encoding counts a model's tokens, how large its context window
//! is, and whether the count is exact or stands in for a private tokenizer.

use super::*;

/// What is known about a model: how to count its tokens and how many fit its context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelInfo {
    /// The encoding to count with.
    pub encoding: Encoding,
    /// The model's context window in tokens.
    pub context_window: usize,
    /// False when the model's own tokenizer is not public and `encoding` stands in for it.
    pub exact: bool,
}

/// Model families by name prefix (first match wins), with their context windows. Those
/// without a public tokenizer are counted with o200k_base, the closest public modern BPE.
const ESTIMATED_FAMILIES: &[(&str, usize)] = &[
    ("claude-instant", 100_000),
    ("claude-1", 100_000),
    ("claude-2.0", 100_000),
    ("claude", 200_000),
    ("gemini-1.0", 32_768),
    ("gemini-pro", 32_768),
    ("gemini-1.5-pro", 2_097_152),
    ("gemini", 1_048_576),
    ("gemma-2", 8_192),
    ("gemma", 131_072),
    ("llama-2", 4_096),
    ("llama-3-", 8_192),
    ("llama3-", 8_192),
    ("llama-4", 1_048_576),
    ("llama", 131_072),
    ("codestral", 256_000),
    ("mixtral", 32_768),
    ("mistral", 131_072),
    ("ministral", 131_072),
    ("magistral", 131_072),
    ("devstral", 131_072),
    ("qwen", 131_072),
    ("deepseek", 128_000),
    ("grok", 131_072),
    ("kimi-k2", 262_144),
    ("glm-4.5", 131_072),
    ("glm-4.6", 204_800),
    ("glm-4.7", 204_800),
    ("command-r", 128_000),
];

/// Open-weight families whose public vocabulary ctxc carries, by name prefix (first match
/// wins; checked before [`ESTIMATED_FAMILIES`], which gives their windows): counted exactly.
/// Older generations with another tokenizer (Llama 2, Qwen 1, DeepSeek V2, Mistral's
/// SentencePiece models) stay estimates.
const OPEN_WEIGHT_FAMILIES: &[(&str, Encoding)] = &[
    ("llama-3", Encoding::Llama3),
    ("llama3", Encoding::Llama3),
    ("llama-4", Encoding::Llama3),
    ("llama4", Encoding::Llama3),
    ("qwen2", Encoding::Qwen2),
    ("qwen-2", Encoding::Qwen2),
    ("qwen3", Encoding::Qwen2),
    ("qwen-3", Encoding::Qwen2),
    ("qwq", Encoding::Qwen2),
    ("deepseek-v3", Encoding::DeepseekV3),
    ("deepseek-r1", Encoding::DeepseekV3),
    ("deepseek-chat", Encoding::DeepseekV3),
    ("deepseek-reasoner", Encoding::DeepseekV3),
    ("mistral-nemo", Encoding::MistralV3),
    ("open-mistral-nemo", Encoding::MistralV3),
    ("ministral", Encoding::MistralV3),
    ("pixtral", Encoding::MistralV3),
    ("devstral", Encoding::MistralV3),
    ("magistral", Encoding::MistralV3),
    ("kimi-k2", Encoding::KimiK2),
    ("glm-4.5", Encoding::Glm4),
    ("glm-4.6", Encoding::Glm4),
    ("glm-4.7", Encoding::Glm4),
];

/// Looks a model name up: OpenAI models through tiktoken-rs's tables, open-weight families
/// in their own vocabulary, other known families as o200k_base estimates, anything else
/// `None`. Case, a `provider/` prefix and a cloud
/// vendor prefix (`us.anthropic.`) are ignored.
pub fn model_info(name: &str) -> Option<ModelInfo> {
    let name = normalize_model_name(name);
    openai_model(&name).or_else(|| estimated_model(&name))
}

fn normalize_model_name(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    let base = ["us.", "eu.", "apac.", "global."]
        .iter()
        .find_map(|p| base.strip_prefix(p))
        .unwrap_or(base);
    let base = ["anthropic.", "meta.", "mistral.", "meta-"]
        .iter()
        .find_map(|p| base.strip_prefix(p))
        .unwrap_or(base);
    base.to_owned()
}

fn openai_model(name: &str) -> Option<ModelInfo> {
    let encoding = match get_tokenizer(name)? {
        TiktokenModel::O200kBase | TiktokenModel::O200kHarmony => Encoding::O200kBase,
        TiktokenModel::Cl100kBase => Encoding::Cl100kBase,
        TiktokenModel::P50kBase | TiktokenModel::P50kEdit => Encoding::P50kBase,
        TiktokenModel::R50kBase | TiktokenModel::Gpt2 => Encoding::R50kBase,
    };
    let context_window =
        tiktoken_rs::model::get_context_size(name).unwrap_or_else(|| openai_context_fallback(name));
    Some(ModelInfo {
        encoding,
        context_window,
        exact: true,
    })
}

/// Context sizes for models tiktoken-rs maps to an encoding but has no size for.
fn openai_context_fallback(name: &str) -> usize {
    match name {
        n if n.starts_with("text-embedding") => 8_191,
        "davinci-002" | "babbage-002" => 16_384,
        "gpt2" | "gpt-2" => 1_024,
        _ => 4_096,
    }
}

fn estimated_model(name: &str) -> Option<ModelInfo> {
    let own = OPEN_WEIGHT_FAMILIES
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|&(_, encoding)| encoding);
    let context_window = ESTIMATED_FAMILIES
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|&(_, window)| window);
    let context_window = match (context_window, own) {
        (Some(window), _) => window,
        (None, Some(_)) => DEFAULT_CONTEXT_WINDOW,
        (None, None) => return None,
    };
    Some(ModelInfo {
        encoding: own.unwrap_or(Encoding::O200kBase),
        context_window,
        exact: own.is_some(),
    })
}

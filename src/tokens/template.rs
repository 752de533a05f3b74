//! A model's chat template, rendered the way transformers' `apply_chat_template` renders it,
//! so that the text counted is the text a trainer tokenizes.
//!
//! transformers compiles a template in a Jinja2 sandbox with `trim_blocks` and
//! `lstrip_blocks` on and the loop-control extension, gives it `messages`, `tools` (when
//! there are any), `add_generation_prompt` and the tokenizer's special tokens (`bos_token`,
//! `eos_token`, ...), a `raise_exception` function, and replaces `tojson` with
//! `json.dumps(x, ensure_ascii=False, indent=indent, sort_keys=sort_keys)`: Python's
//! separators (`", "`, `": "`), non-ASCII kept. minijinja with minijinja-contrib's Python
//! methods (`startswith`, `split`, `strip`...) does the rest.

use anyhow::{Context, Result, anyhow, bail};
use minijinja::value::{Kwargs, Value as JinjaValue};
use minijinja::{Environment, Error, ErrorKind};
use serde_json::{Map, Value};
use std::path::Path;

/// The special tokens transformers hands every template by name.
const SPECIAL_TOKENS: [&str; 7] = [
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
];

/// A compiled chat template and the special tokens it is rendered with.
pub struct ChatTemplate {
    env: Environment<'static>,
    tokens: Map<String, Value>,
    name: String,
}

impl ChatTemplate {
    /// Reads `path`: a `tokenizer_config.json` (its `chat_template`, a string or the list of
    /// named templates, `default` taken), a `chat_template.json`, or a Jinja file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let shown = crate::human::Shown::shown(path);
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {shown}"))?;
        let (source, tokens) = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(config)) => {
                let source = template_of(&config).with_context(|| format!("reading {shown}"))?;
                (source, special_tokens(&config))
            }
            // Not a JSON object: the file is the template itself.
            _ => (text, Map::new()),
        };
        Self::new(source, tokens, shown)
    }

    /// The template `source`, rendered with `tokens` as its special tokens; `name` says where
    /// it came from in errors.
    pub fn new(source: String, tokens: Map<String, Value>, name: String) -> Result<Self> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", tojson);
        env.add_function("raise_exception", raise_exception);
        env.add_template_owned("chat", source)
            .map_err(|e| anyhow!("{e}"))
            .with_context(|| format!("compiling the chat template of {name}"))?;
        Ok(ChatTemplate { env, tokens, name })
    }

    /// Where the template came from, as shown in reports.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The text of `messages` (OpenAI-shaped) with `tools`, as the trainer renders it for
    /// training: no generation prompt.
    pub fn render(&self, messages: &[Value], tools: Option<&Value>) -> Result<String> {
        let mut ctx = self.tokens.clone();
        ctx.insert("messages".into(), Value::Array(messages.to_vec()));
        if let Some(tools) = tools {
            ctx.insert("tools".into(), tools.clone());
        }
        ctx.insert("add_generation_prompt".into(), Value::Bool(false));
        let template = self.env.get_template("chat").map_err(|e| anyhow!("{e}"))?;
        template
            .render(JinjaValue::from_serialize(&ctx))
            .map_err(|e| anyhow!("{e}"))
            .with_context(|| format!("rendering the chat template of {}", self.name))
    }
}

/// The template a `tokenizer_config.json` (or `chat_template.json`) holds.
fn template_of(config: &Map<String, Value>) -> Result<String> {
    match config.get("chat_template") {
        Some(Value::String(source)) => Ok(source.clone()),
        // [{"name": "default", "template": ...}, {"name": "tool_use", ...}]
        Some(Value::Array(named)) => named
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some("default"))
            .or_else(|| named.first())
            .and_then(|t| t.get("template"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| anyhow!("its chat_template list names no template")),
        Some(_) => bail!("its chat_template is neither a string nor a list of templates"),
        None => bail!("it has no chat_template (give the template with --chat-template)"),
    }
}

/// The special tokens of a config, as strings (a token may be stored as `{"content": ...}`).
fn special_tokens(config: &Map<String, Value>) -> Map<String, Value> {
    SPECIAL_TOKENS
        .iter()
        .filter_map(|&name| {
            let text = match config.get(name)? {
                Value::String(s) => s.clone(),
                Value::Object(o) => o.get("content")?.as_str()?.to_string(),
                _ => return None,
            };
            Some((name.to_string(), Value::String(text)))
        })
        .collect()
}

/// `raise_exception(message)`: how templates refuse a conversation they cannot render.
fn raise_exception(message: String) -> Result<JinjaValue, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

/// transformers' `tojson`: `json.dumps(value, ensure_ascii=False, indent=indent,
/// sort_keys=sort_keys)`.
fn tojson(value: JinjaValue, kwargs: Kwargs) -> Result<JinjaValue, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    let sort_keys: Option<bool> = kwargs.get("sort_keys")?;
    kwargs.assert_all_used()?;
    let json = serde_json::to_value(&value)
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
    let mut out = String::new();
    python_json(&json, indent, sort_keys.unwrap_or(false), 0, &mut out);
    Ok(JinjaValue::from_safe_string(out))
}

/// `value` written as Python's `json.dumps` writes it (see [`tojson`]).
fn python_json(value: &Value, indent: Option<usize>, sort: bool, depth: usize, out: &mut String) {
    // With an indent, Python puts each member on its own line and drops the space after ','.
    let (open_sep, item_sep, close_sep) = match indent {
        Some(n) => (
            format!("\n{}", " ".repeat(n * (depth + 1))),
            format!(",\n{}", " ".repeat(n * (depth + 1))),
            format!("\n{}", " ".repeat(n * depth)),
        ),
        None => (String::new(), ", ".to_string(), String::new()),
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            out.push_str(&open_sep);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(&item_sep);
                }
                python_json(item, indent, sort, depth + 1, out);
            }
            out.push_str(&close_sep);
            out.push(']');
        }
        Value::Object(members) if !members.is_empty() => {
            let mut keys: Vec<&String> = members.keys().collect();
            if sort {
                keys.sort();
            }
            out.push('{');
            out.push_str(&open_sep);
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(&item_sep);
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                python_json(&members[key], indent, sort, depth + 1, out);
            }
            out.push_str(&close_sep);
            out.push('}');
        }
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
        Value::Number(n) if n.is_f64() => out.push_str(&python_float(n.as_f64().unwrap_or(0.0))),
        // Strings: serde_json escapes as Python does with ensure_ascii=False (", \, and
        // control characters; \u00XX in lower case).
        other => out.push_str(&other.to_string()),
    }
}

/// A float as Python's `repr` writes it: `1.0`, `0.5`, `1e-05`.
fn python_float(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        return format!("{x:.1}");
    }
    let text = format!("{x:?}");
    // Rust writes 1e-5, Python 1e-05.
    match text.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ("-", d),
                None => ("+", exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn qwen3() -> ChatTemplate {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/tokenizers/qwen3/tokenizer_config.json");
        ChatTemplate::from_file(&path).unwrap()
    }

    #[test]
    fn renders_qwen3_with_tools_calls_and_results() {
        let messages = vec![
            json!({"role": "system", "content": "Be brief."}),
            json!({"role": "user", "content": "List files"}),
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "ls", "arguments": "{\"path\": \".\"}"}}]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "a.txt"}),
            json!({"role": "assistant", "content": "One file: a.txt"}),
        ];
        let tools =
            json!([{"type": "function", "function": {"name": "ls", "parameters": {"é": 1}}}]);
        let text = qwen3().render(&messages, Some(&tools)).unwrap();
        let expected = concat!(
            "<|im_start|>system\nBe brief.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n",
            "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n",
            "{\"type\": \"function\", \"function\": {\"name\": \"ls\", \"parameters\": {\"é\": 1}}}\n</tools>\n\n",
            "For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n",
            "<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n",
            "<|im_start|>user\nList files<|im_end|>\n",
            "<|im_start|>assistant\n<tool_call>\n{\"name\": \"ls\", \"arguments\": {\"path\": \".\"}}\n</tool_call><|im_end|>\n",
            "<|im_start|>user\n<tool_response>\na.txt\n</tool_response><|im_end|>\n",
            "<|im_start|>assistant\n<think>\n\n</think>\n\nOne file: a.txt<|im_end|>\n",
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn tojson_writes_as_python_json_dumps() {
        let mut out = String::new();
        let value = json!({"b": [1, 2.5, "x\n\u{1}"], "a": {}, "c": null, "d": true});
        python_json(&value, None, false, 0, &mut out);
        assert_eq!(
            out,
            r#"{"b": [1, 2.5, "x\n\u0001"], "a": {}, "c": null, "d": true}"#
        );
        let mut out = String::new();
        python_json(&json!({"b": [1], "a": 2}), Some(2), true, 0, &mut out);
        assert_eq!(out, "{\n  \"a\": 2,\n  \"b\": [\n    1\n  ]\n}");
        assert_eq!(python_float(1e-5), "1e-05");
        assert_eq!(python_float(3.0), "3.0");
    }

    #[test]
    fn a_config_without_a_template_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokenizer_config.json");
        std::fs::write(&path, "{\"eos_token\": \"</s>\"}").unwrap();
        let err = format!("{:#}", ChatTemplate::from_file(&path).err().unwrap());
        assert!(
            err.contains("tokenizer_config.json") && err.contains("no chat_template"),
            "{err}"
        );
    }

    #[test]
    fn raise_exception_fails_the_render_with_its_message() {
        let t = ChatTemplate::new(
            "{{ raise_exception('roles must alternate') }}".into(),
            Map::new(),
            "t.jinja".into(),
        )
        .unwrap();
        let err = format!("{:#}", t.render(&[], None).err().unwrap());
        assert!(err.contains("roles must alternate"), "{err}");
    }
}

//! ATIF, the Agent Trajectory Interchange Format (Harbor's RFC 0001, `ATIF-v1.x`): a
//! trajectory object with `schema_version` (`"ATIF-v1.x"`), `session_id`, `agent` and a `steps`
//! array; each step has a `step_id` counted from 1, a `source` (`system`, `user` or `agent`)
//! and a `message` (a string, or from v1.6 a list of content parts); an agent step may add
//! `reasoning_content`, `tool_calls` (`tool_call_id`, `function_name`, `arguments`), an
//! `observation` whose `results` answer the calls by `source_call_id`, and `metrics`.
//! Containers: one trajectory (`trajectory.json`), a JSON array of them, or JSONL with one per
//! line; each trajectory's steps are one conversation, everything else is left alone.
//!
//! What the model is sent, step by step: a system step is the system prompt, a user step a
//! user message, an agent step the assistant's reasoning, message and calls; its observation
//! is what the tools (or the environment) answered. A step and its observation are two items:
//! the observation's span lies inside its step's, they share a message id (so no edit splits
//! them), and the step is written back once, with the observation as the plan left it. Results
//! without a `source_call_id` answer the step's calls no result names (Harbor's terminus agents
//! write one such result for a step's commands); a call with no recorded answer stays text of
//! its step, not an open call. The agent's `tool_definitions` (v1.5) are the preamble.
//!
//! **How a compaction is written.** A summary is a `user` step whose message starts with the
//! summary marker. Harbor's model requires `step_id`s to be 1, 2, 3, ... in order, so every step
//! after a change is written with its new position as its `step_id` (nothing else of it
//! changes); `final_metrics.total_steps`, outside the list, is left as it was (the spec lets it
//! differ from the list's length). A masked or trimmed output replaces the `content` of each of
//! the observation's results.

use super::common::{element_indent, value_error};
use super::{
    Adapter, Conversation, Doc, Finding, Item, Kind, ListLayout, OutItem, Part, PartKind,
    ReadError, ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript, Usage,
};
use crate::json::{Node, 
    ArrayLayout, Span, array_elements, member, quote, replace_member,
    to_string_styled,
};
use serde_json::Value;
use serde_json::value::RawValue;

/// The ATIF adapter.
pub struct Atif;

impl Adapter for Atif {
    fn content_keys(&self) -> &'static [&'static str] {
        &["message", "reasoning_content", "tool_calls", "observation"]
    }

    fn detect(&self, doc: &Doc) -> bool {
        !find_trajectories(doc).is_empty()
    }

    fn read(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        let found = find_trajectories(doc);
        if found.is_empty() {
            return Err(ReadError::none_found(
                "ATIF trajectory",
                r#" (an object with "schema_version": "ATIF-v1.x" and "steps")"#,
                doc,
            ));
        }
        for f in found {
            each(read_trajectory(doc, f)?);
        }
        Ok(match doc {
            Doc::Lines { .. } => "jsonl, one trajectory per line",
            Doc::Json { root, .. } if root.get().starts_with('[') => "json array of trajectories",
            Doc::Json { .. } => "json trajectory object",
        }
        .to_string())
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        let raw = |i: usize| &t.source[conv.items[i].span.clone()];
        match out {
            OutItem::Keep(i) | OutItem::DropThinking(i) | OutItem::ReplaceArguments(i, _) => {
                raw(*i).to_string()
            }
            OutItem::Strip(i) => super::strip_item(self, t, conv, *i),
            OutItem::Summary { text, .. } => {
                let step = serde_json::json!({
                    "step_id": 0,
                    "source": "user",
                    "message": format!("{SUMMARY_MARKER}\n{text}"),
                });
                to_string_styled(&step, element_indent(conv))
            }
            OutItem::ReplaceText(i, text) => {
                replace_member(raw(*i), "message", &quote(text)).unwrap_or_else(|| raw(*i).into())
            }
            // A text action's output is a `user` step: its message is the result.
            OutItem::ReplaceResult(i, text) if conv.items[*i].role != Role::Tool => {
                replace_member(raw(*i), "message", &quote(text)).unwrap_or_else(|| raw(*i).into())
            }
            OutItem::ReplaceResult(i, text) => {
                replace_results(raw(*i), text).unwrap_or_else(|| raw(*i).into())
            }
        }
    }

    /// Writes each step once: an observation item is folded into its step (as the plan left
    /// it), and every step takes its position as its `step_id`.
    fn render_list(
        &self,
        t: &Transcript,
        conv: &Conversation,
        items: &[OutItem],
        out: &mut String,
    ) {
        let mut steps: Vec<String> = Vec::with_capacity(items.len());
        let mut k = 0;
        while k < items.len() {
            let item = &items[k];
            // A step's `observation` (a text action's output is a `user` step of its own).
            let is_observation = |out: &OutItem| {
                out.kept()
                    .is_some_and(|i| conv.items[i].role == Role::Tool)
            };
            if is_observation(item) {
                // Its step is gone (no plan does that: they share a message id).
                k += 1;
                continue;
            }
            let mut step = self.render(t, conv, item);
            if let Some(next) = items.get(k + 1).filter(|next| is_observation(next)) {
                if !matches!(next, OutItem::Keep(_)) {
                    let observation = self.render(t, conv, next);
                    if let Some(edited) = replace_member(&step, "observation", &observation) {
                        step = edited;
                    }
                }
                k += 1;
            }
            let id = (steps.len() + 1).to_string();
            let same = parse_member(&step, "step_id").is_some_and(|v| v == id);
            if !same {
                step = replace_member(&step, "step_id", &id).unwrap_or(step);
            }
            steps.push(step);
            k += 1;
        }
        match &conv.layout {
            ListLayout::Array(array) => array.render_into(&steps, out),
            // Steps are always an array.
            ListLayout::Lines { .. } | ListLayout::Single => out.push_str(&steps.join(",")),
        }
    }

    fn check(&self, source: &str, conv: &Conversation) -> Vec<Finding> {
        check_steps(source, conv)
    }
}

/// A trajectory's steps, where it is, and the trajectory object.
struct Found<'d, 'a> {
    location: String,
    steps: &'d Node<'a>,
    owner: &'d Node<'a>,
}

fn find_trajectories<'d, 'a>(doc: &'d Doc<'a>) -> Vec<Found<'d, 'a>> {
    super::containers::each_record(doc, trajectory)
}

/// The steps of an ATIF trajectory object: one whose `schema_version` names ATIF and whose
/// `steps` is an array.
fn trajectory<'d, 'a>(owner: &'d Node<'a>, location: String) -> Option<Found<'d, 'a>> {
    let version = owner.member("schema_version")?;
    if !version.get().starts_with("\"ATIF-") {
        return None;
    }
    let steps = owner.member("steps")?;
    steps.elements()?;
    Some(Found {
        location: format!("{location}/steps"),
        steps,
        owner,
    })
}

fn read_trajectory(doc: &Doc, found: Found) -> Result<Conversation, ReadError> {
    let steps = found.steps.elements().unwrap_or_default();
    let base = doc.span_of(found.steps).start;
    let owner: Value = crate::json::lenient::value(found.owner.get()).unwrap_or(Value::Null);
    let mut items = Vec::with_capacity(steps.len() * 2);
    let mut relative = Vec::with_capacity(steps.len());
    let mut model = owner["agent"]["model_name"].as_str().map(str::to_string);
    for (n, step) in steps.iter().enumerate() {
        let span = doc.span_of(step);
        relative.push(span.start - base..span.end - base);
        let line = doc.line_of(span.start);
        let value: Value = crate::json::lenient::value(step.get())
            .map_err(|e| value_error(line, span.start, &e))?;
        if let Some(name) = value["model_name"].as_str() {
            model = Some(name.to_string());
        }
        let message_id = format!("atif-step-{n}");
        let mut item = step_item(&value, span, line);
        let mut observation = step
            .member("observation")
            .filter(|o| o.get() != "null")
            .map(|o| {
                let span = doc.span_of(o);
                observation_item(&value["observation"], span.clone(), doc.line_of(span.start))
            });
        if let Some(observation) = &mut observation {
            answer_calls(&value["observation"], &item, observation);
            item.message_id = Some(message_id.clone());
        }
        keep_answered_calls(&mut item, observation.as_ref());
        items.push(item);
        if let Some(mut observation) = observation {
            observation.message_id = Some(message_id);
            items.push(observation);
        }
    }
    let mut conv = Conversation {
        span: doc.span_of(found.steps),
        location: found.location,
        items,
        preamble: preamble_of(&owner),
        layout: ListLayout::Array(ArrayLayout::of(found.steps.get(), &relative)),
        model,
        context_window: None,
    };
    // A text-based agent's trajectory: its observations are `user` steps.
    super::text_actions::mark_text_observations(&mut conv);
    Ok(conv)
}

/// A step's own item: its message, reasoning and calls (its observation is the next item).
fn step_item(value: &Value, span: Span, line: usize) -> Item {
    let text = message_text(&value["message"]);
    let (role, kind) = match value["source"].as_str().unwrap_or("") {
        "system" => (Role::System, Kind::System),
        "user" if text.starts_with(SUMMARY_MARKER) => (Role::User, Kind::Summary),
        "user" => (Role::User, Kind::User),
        "agent" if has_calls(value) => (Role::Assistant, Kind::ToolCall),
        "agent" => (Role::Assistant, Kind::AssistantText),
        _ => (Role::None, Kind::NonContext),
    };
    let mut item = Item::new(span, line, role, kind);
    item.ctxc_summary = kind == Kind::Summary;
    if let Some(reasoning) = value["reasoning_content"]
        .as_str()
        .filter(|r| !r.is_empty())
    {
        item.parts.push(Part::new(PartKind::Thinking, reasoning));
    }
    if !text.is_empty() || kind != Kind::ToolCall {
        item.parts.push(Part::new(PartKind::Text, text));
    }
    item.parts.extend(media_parts(&value["message"]));
    for call in value["tool_calls"].as_array().into_iter().flatten() {
        let id = call["tool_call_id"].as_str().unwrap_or_default();
        let name = call["function_name"].as_str().unwrap_or_default();
        item.calls.push(ToolCall {
            id: id.to_string(),
            name: name.to_string(),
        });
        item.parts.push(Part::new(PartKind::ToolName, name));
        item.parts.push(Part::new(
            PartKind::ToolArguments,
            call["arguments"].to_string(),
        ));
    }
    item.usage = usage_of(&value["metrics"]);
    item
}

/// Results without a `source_call_id` answer the calls of their step that no result names:
/// Harbor's own terminus agents write them so, one result for the step's commands.
fn answer_calls(value: &Value, step: &Item, observation: &mut Item) {
    let unnamed = value["results"]
        .as_array()
        .is_some_and(|r| r.iter().any(|r| r["source_call_id"].as_str().is_none()));
    if unnamed {
        for call in &step.calls {
            if !observation.results.contains(&call.id) {
                observation.results.push(call.id.clone());
            }
        }
    }
}

/// A step's calls as the model's: those its observation answers. A call and its result are
/// one step, never apart, so a call without a result is one the trajectory did not record the
/// answer of, not one left open: it stays in the step's text and is no call to pair.
fn keep_answered_calls(step: &mut Item, observation: Option<&Item>) {
    let answered = |id: &str| observation.is_some_and(|o| o.results.iter().any(|r| r == id));
    step.calls.retain(|c| answered(&c.id));
    if step.calls.is_empty() && step.kind == Kind::ToolCall {
        step.kind = Kind::AssistantText;
    }
}

fn has_calls(value: &Value) -> bool {
    value["tool_calls"]
        .as_array()
        .is_some_and(|c| !c.is_empty())
}

/// The observation of a step: what its tools (or the environment) answered.
fn observation_item(value: &Value, span: Span, line: usize) -> Item {
    let mut item = Item::new(span, line, Role::Tool, Kind::ToolResult);
    for result in value["results"].as_array().into_iter().flatten() {
        if let Some(id) = result["source_call_id"].as_str() {
            item.results.push(id.to_string());
        }
        item.parts.push(Part::new(
            PartKind::ToolResult,
            message_text(&result["content"]),
        ));
        item.parts.extend(media_parts(&result["content"]));
        for sub in result["subagent_trajectory_ref"]
            .as_array()
            .into_iter()
            .flatten()
        {
            // The reference itself is what the parent model is told.
            item.parts
                .push(Part::new(PartKind::ToolResult, sub.to_string()));
        }
    }
    item
}

/// The text of a message or a result's content: a string, or the text parts of a list of
/// content parts (v1.6).
fn message_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p["type"] == "text")
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Image parts of a list of content parts, as media the model is sent.
fn media_parts(value: &Value) -> Vec<Part> {
    let Some(parts) = value.as_array() else {
        return Vec::new();
    };
    parts
        .iter()
        .filter(|p| p["type"] == "image")
        .map(|p| Part::new(PartKind::Media, p["source"]["path"].as_str().unwrap_or("")))
        .collect()
}

/// A step's `metrics` as provider usage: `prompt_tokens` includes `cached_tokens`.
fn usage_of(metrics: &Value) -> Option<Box<Usage>> {
    let prompt = metrics["prompt_tokens"].as_u64()?;
    let cached = metrics["cached_tokens"].as_u64().unwrap_or(0).min(prompt);
    Some(Box::new(Usage {
        input_tokens: prompt - cached,
        output_tokens: metrics["completion_tokens"].as_u64().unwrap_or(0),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    }))
}

/// The agent's tool definitions, sent with every request.
fn preamble_of(owner: &Value) -> Vec<Part> {
    match &owner["agent"]["tool_definitions"] {
        Value::Null => Vec::new(),
        definitions => vec![Part::new(
            PartKind::ToolDefinitions,
            definitions.to_string(),
        )],
    }
}

/// The value of member `key` of `object` as raw text.
fn parse_member<'a>(object: &'a str, key: &str) -> Option<&'a str> {
    let raw = crate::json::parse_raw(object).ok()?;
    member(raw, key).map(RawValue::get)
}

/// An observation (raw JSON) with the `content` of each of its results replaced by `text`.
fn replace_results(observation: &str, text: &str) -> Option<String> {
    let raw = crate::json::parse_raw(observation).ok()?;
    let results = array_elements(member(raw, "results")?)?;
    let mut edits = Vec::new();
    for result in results {
        if let Some(content) = member(result, "content").filter(|c| c.get() != "null") {
            edits.push((
                crate::json::span_of(observation, content.get()),
                quote(text),
            ));
        }
    }
    (!edits.is_empty()).then(|| crate::json::splice(observation, &edits))
}

/// The `tool_call_id`s a step (raw JSON) declares.
fn declared_calls(raw: &str) -> Vec<String> {
    let value: Value = crate::json::lenient::value(raw).unwrap_or(Value::Null);
    value["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["tool_call_id"].as_str().map(str::to_string))
        .collect()
}

/// ATIF's own rules, as Harbor's models validate them: `step_id`s count from 1 in order, a
/// step's `source` is `system`, `user` or `agent`, only agent steps call tools, and a result
/// answers a call of its own step.
fn check_steps(source: &str, conv: &Conversation) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut position = 0;
    let mut calls: Vec<String> = Vec::new();
    for item in &conv.items {
        let raw = &source[item.span.clone()];
        if item.role == Role::Tool {
            for id in item.results.iter().filter(|id| !calls.contains(id)) {
                findings.push(Finding::new(
                    item.line,
                    format!(
                        "observation result for call '{id}' answers no tool call of its own step"
                    ),
                ));
            }
            continue;
        }
        position += 1;
        calls = declared_calls(raw);
        let id = parse_member(raw, "step_id");
        if id != Some(position.to_string().as_str()) {
            findings.push(Finding::new(
                item.line,
                format!(
                    "step_id {} where step {position} stands: ATIF step ids count from 1, in order",
                    id.unwrap_or("missing")
                ),
            ));
        }
        let source_name = parse_member(raw, "source").unwrap_or("missing");
        if !matches!(source_name, "\"system\"" | "\"user\"" | "\"agent\"") {
            findings.push(Finding::new(
                item.line,
                format!("step source {source_name}: ATIF steps come from \"system\", \"user\" or \"agent\""),
            ));
        } else if !calls.is_empty() && source_name != "\"agent\"" {
            findings.push(Finding::new(
                item.line,
                format!("a {source_name} step calls tools: only agent steps do"),
            ));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::super::{Format, ReadOptions, check, read};
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!("{}/fixtures/atif/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn reads_steps_calls_and_observations() {
        let t = read(fixture("rfc-example.json"), &ReadOptions::default()).unwrap();
        assert_eq!(t.format, Format::Atif);
        let items = &t.conversations[0].items;
        let kinds: Vec<Kind> = items.iter().map(|i| i.kind).collect();
        assert_eq!(
            kinds,
            [
                Kind::User,
                Kind::ToolCall,
                Kind::ToolResult,
                Kind::AssistantText
            ]
        );
        assert_eq!(items[1].calls.len(), 2);
        assert_eq!(items[2].results, ["call_price_1", "call_volume_2"]);
        assert_eq!(items[1].message_id, items[2].message_id);
        assert_eq!(items[1].usage.as_ref().unwrap().prompt_tokens(), 520);
        assert!(check(&t).is_empty(), "{:?}", check(&t));
    }

    #[test]
    fn an_edited_list_renumbers_steps_and_folds_observations_into_their_step() {
        let t = read(fixture("rfc-example.json"), &ReadOptions::default()).unwrap();
        let out = t.write(&[Some(vec![
            OutItem::Summary {
                text: "asked for the GOOGL price".into(),
                replaces: 0..1,
            },
            OutItem::Keep(1),
            OutItem::ReplaceResult(2, "[masked]".into()),
            OutItem::Keep(3),
        ])]);
        let value: Value = serde_json::from_str(&out).unwrap();
        let steps = value["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 3);
        let ids: Vec<u64> = steps
            .iter()
            .map(|s| s["step_id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, [1, 2, 3]);
        assert_eq!(steps[1]["observation"]["results"][1]["content"], "[masked]");
        assert_eq!(
            steps[1]["observation"]["results"][1]["source_call_id"],
            "call_volume_2"
        );
        let again = read(out, &ReadOptions::default()).unwrap();
        assert!(check(&again).is_empty(), "{:?}", check(&again));
        assert_eq!(again.conversations[0].items[0].kind, Kind::Summary);
    }

    #[test]
    fn results_without_a_call_id_answer_their_steps_calls() {
        let t = read(
            fixture("terminus-unnamed-results.json"),
            &ReadOptions::default(),
        )
        .unwrap();
        assert!(check(&t).is_empty(), "{:?}", check(&t));
        let items = &t.conversations[0].items;
        assert_eq!(items[2].calls[0].id, "call_0");
        assert_eq!(items[3].results, ["call_0"]);
        // The last call has no recorded answer: text of its step, no call to pair.
        let last = items.last().unwrap();
        assert!(last.calls.is_empty() && last.kind == Kind::AssistantText);
    }

    #[test]
    fn step_ids_out_of_order_and_foreign_results_are_findings() {
        let src = r#"{"schema_version":"ATIF-v1.4","session_id":"s","agent":{"name":"a","version":"1"},"steps":[
{"step_id":1,"source":"user","message":"hi"},
{"step_id":3,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"f","arguments":{}}],"observation":{"results":[{"source_call_id":"b","content":"x"}]}}]}"#;
        let t = read(src.into(), &ReadOptions::default()).unwrap();
        let found: Vec<String> = check(&t).into_iter().map(|f| f.message).collect();
        assert!(found.iter().any(|f| f.contains("step_id 3")), "{found:?}");
        assert!(found.iter().any(|f| f.contains("own step")), "{found:?}");
    }
}

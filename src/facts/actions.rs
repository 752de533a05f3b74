//! What a tool call did to each file it names — created, modified, deleted, read or only
//! named — for the summaries' artifact index and `ctxc eval`'s artifact probes, which must
//! agree on it.

use super::{CallArgs, Effect, file_effect, string_values};

/// Each file `call` touches with what it did to it, in the order named. A patch (Codex
/// `apply_patch`) says per file what it does; its other paths take the tool's effect.
pub fn file_actions(call: &CallArgs) -> Vec<(String, Effect)> {
    let patched = patch_effects(call);
    let effect = file_effect(call);
    let mut actions: Vec<(String, Effect)> = call
        .paths()
        .into_iter()
        .filter(|p| !patched.iter().any(|(q, _)| q == p))
        .map(|p| (p, effect))
        .collect();
    actions.extend(patched);
    actions
}

/// Files a patch adds, updates or deletes (`*** Add File: x`, ...).
fn patch_effects(call: &CallArgs) -> Vec<(String, Effect)> {
    let mut strings = Vec::new();
    string_values(&call.args, &mut strings);
    let mut found = Vec::new();
    for line in strings.iter().flat_map(|s| s.lines()) {
        let line = line.trim();
        for (prefix, effect) in [
            ("*** Add File: ", Effect::Create),
            ("*** Update File: ", Effect::Modify),
            ("*** Delete File: ", Effect::Delete),
        ] {
            if let Some(path) = line.strip_prefix(prefix) {
                found.push((path.trim().to_string(), effect));
            }
        }
    }
    found
}

impl Effect {
    /// The action in one word, as summaries and probes write it.
    pub fn verb(self) -> &'static str {
        match self {
            Effect::Create => "created",
            Effect::Modify => "modified",
            Effect::Delete => "deleted",
            Effect::Read => "read",
            Effect::None => "named",
        }
    }

    /// Whether the action changes the file (what a later action on it does not outrank).
    pub fn changes(self) -> bool {
        matches!(self, Effect::Create | Effect::Modify | Effect::Delete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_patch_names_its_files_actions_and_an_editor_its_own() {
        let patch = CallArgs {
            name: "apply_patch".into(),
            args: json!({"input": "*** Begin Patch\n*** Add File: a/new.rs\n+x\n*** Update File: a/old.rs\n*** Delete File: a/gone.rs\n*** End Patch"}),
        };
        let found: Vec<(String, &str)> = file_actions(&patch)
            .into_iter()
            .map(|(p, e)| (p, e.verb()))
            .collect();
        assert_eq!(
            found,
            [
                ("a/new.rs".to_string(), "created"),
                ("a/old.rs".to_string(), "modified"),
                ("a/gone.rs".to_string(), "deleted")
            ]
        );
        let view = CallArgs {
            name: "str_replace_editor".into(),
            args: json!({"command": "view", "path": "/repo/x.py"}),
        };
        assert_eq!(file_actions(&view), [("/repo/x.py".into(), Effect::Read)]);
    }
}

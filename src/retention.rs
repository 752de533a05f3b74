//! Retention: the share of a conversation's facts (file paths, shell commands, error lines,
//! user requests; see `facts`) that are still in what the model is sent after compaction —
//! verbatim in kept messages or written into a summary.

use crate::facts::{Facts, collapse_whitespace, is_collapsed, string_values};
use crate::transcript::{Conversation, PartKind};
use aho_corasick::{AhoCorasick, AhoCorasickKind};
use serde::{Serialize, Serializer};
use std::collections::HashMap;
use std::ops::AddAssign;

/// How many of a kind of fact survived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Facts still present.
    pub kept: usize,
    /// Facts in the original.
    pub total: usize,
}

impl Tally {
    /// The share kept, 1 when there was nothing to keep.
    pub fn ratio(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.kept as f64 / self.total as f64
        }
    }
}

impl AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        self.kept += other.kept;
        self.total += other.total;
    }
}

impl Serialize for Tally {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.share() {
            Some(share) => s.serialize_f64(share),
            // Nothing to keep: no share (reports said 1.0 before schema 2).
            None => s.serialize_none(),
        }
    }
}

impl Tally {
    /// The share kept as reports write it (four decimals: stable in snapshots, precise
    /// enough for a share); `None` when there was nothing to keep.
    pub fn share(&self) -> Option<f64> {
        (self.total > 0).then(|| (self.ratio() * 10_000.0).round() / 10_000.0)
    }
}

/// Retention of each kind of fact.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retention {
    /// File paths.
    pub paths: Tally,
    /// Shell commands.
    pub commands: Tally,
    /// Error lines.
    pub errors: Tally,
    /// User requests.
    pub user_requests: Tally,
}

impl AddAssign for Retention {
    fn add_assign(&mut self, other: Retention) {
        self.paths += other.paths;
        self.commands += other.commands;
        self.errors += other.errors;
        self.user_requests += other.user_requests;
    }
}

/// Retention as counts, `[kept, total]` per kind: what reports carry so they can be merged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// File paths.
    pub paths: [usize; 2],
    /// Shell commands.
    pub commands: [usize; 2],
    /// Error lines.
    pub errors: [usize; 2],
    /// User requests.
    pub user_requests: [usize; 2],
}

impl From<Retention> for Counts {
    fn from(r: Retention) -> Counts {
        let pair = |t: Tally| [t.kept, t.total];
        Counts {
            paths: pair(r.paths),
            commands: pair(r.commands),
            errors: pair(r.errors),
            user_requests: pair(r.user_requests),
        }
    }
}

impl From<Counts> for Retention {
    fn from(c: Counts) -> Retention {
        let tally = |[kept, total]: [usize; 2]| Tally { kept, total };
        Retention {
            paths: tally(c.paths),
            commands: tally(c.commands),
            errors: tally(c.errors),
            user_requests: tally(c.user_requests),
        }
    }
}

impl Retention {
    /// The counts behind the shares, for reports: `[kept, total]` per kind.
    pub fn counts(&self) -> [(&'static str, Tally); 4] {
        [
            ("paths", self.paths),
            ("commands", self.commands),
            ("errors", self.errors),
            ("userRequests", self.user_requests),
        ]
    }
}

/// How much of `before`'s facts `after` still holds.
pub fn retention(before: &Conversation, after: &Conversation) -> Retention {
    retention_of(&Facts::of(&before.items), after)
}

/// How much of `facts` (a conversation's before compaction) `after` still holds.
pub fn retention_of(facts: &Facts, after: &Conversation) -> Retention {
    retention_in(facts, findable_text(after))
}

/// How much of `facts` `after` still sends verbatim: as [`retention_of`], with no credit for
/// a summary's artifact index ([`verbatim_text`]).
pub fn verbatim_retention_of(facts: &Facts, after: &Conversation) -> Retention {
    retention_in(facts, verbatim_text(after))
}

/// How much of `facts` `text` holds.
fn retention_in(facts: &Facts, text: String) -> Retention {
    // Paths, commands and errors are looked for in the same text: one pass for the three.
    let [paths, commands, errors] = tally(
        [
            facts.paths.as_slice(),
            facts.commands.as_slice(),
            facts.errors.as_slice(),
        ],
        &text,
    );
    // No requests to look for (a conversation of tool calls only): no flat copy to make.
    if facts.user_requests.is_empty() {
        return Retention {
            paths,
            commands,
            errors,
            user_requests: Tally::default(),
        };
    }
    // A request in its collapsed form (words one space apart, as facts keep them) found in
    // the text as it is, is found in the text collapsed too: where every request is, the
    // collapsed copy need not be made.
    let requests = facts.user_requests.as_slice();
    if requests.iter().all(|r| is_collapsed(r)) {
        let [user_requests] = tally([requests], &text);
        if user_requests.kept == user_requests.total {
            return Retention {
                paths,
                commands,
                errors,
                user_requests,
            };
        }
    }
    // One copy of the conversation's text at a time: they are as large as the input.
    let flat = collapse_whitespace(&text);
    drop(text);
    let [user_requests] = tally([facts.user_requests.as_slice()], &flat);
    Retention {
        paths,
        commands,
        errors,
        user_requests,
    }
}

/// What facts are looked for in: everything the model is sent of `conv`, read through
/// `clean` as the facts were (no ANSI escapes, no client wrappers), with the paths and
/// commands of every folded artifact index written out whole (a model reads `src/{a.rs,
/// b.rs}` as both files).
pub fn findable_text(conv: &Conversation) -> String {
    let raw = context_text(conv);
    let mut text = match crate::facts::clean::clean(&raw) {
        std::borrow::Cow::Borrowed(_) => raw,
        std::borrow::Cow::Owned(cleaned) => cleaned,
    };
    for path in crate::summarizer::artifacts::unfold(&text) {
        text.push('\n');
        text.push_str(&path);
    }
    text
}

/// What the model is sent of `conv` verbatim: everything, read through `clean` as the facts
/// were, less the artifact indexes of summaries (a path listed in an index keeps the file's
/// name, not what was done to it).
pub fn verbatim_text(conv: &Conversation) -> String {
    let raw = context_text(conv);
    let text = match crate::facts::clean::clean(&raw) {
        std::borrow::Cow::Borrowed(_) => raw,
        std::borrow::Cow::Owned(cleaned) => cleaned,
    };
    match crate::summarizer::artifacts::without_indexes(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(left) => left,
    }
}

/// Everything the model is sent of a conversation as one text (tool arguments decoded).
pub fn context_text(conv: &Conversation) -> String {
    let mut text = String::new();
    for item in conv.items.iter().filter(|i| i.in_context) {
        for part in &item.parts {
            if part.kind == PartKind::ToolArguments {
                if let Ok(value) = serde_json::from_str::<serde_json::Value>(&part.text) {
                    let mut strings = Vec::new();
                    string_values(&value, &mut strings);
                    for s in strings {
                        text.push_str(s);
                        text.push('\n');
                    }
                    continue;
                }
            }
            text.push_str(&part.text);
            text.push('\n');
        }
    }
    text
}

/// How many facts of each list occur in `haystack`, in one pass over it that ends once every
/// fact is found. A fact in two lists (or twice in one) is looked for once.
fn tally<const N: usize>(lists: [&[String]; N], haystack: &str) -> [Tally; N] {
    let mut unique: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let ids = lists.map(|facts| {
        facts
            .iter()
            .map(|f| {
                *index.entry(f.as_str()).or_insert_with(|| {
                    unique.push(f);
                    unique.len() - 1
                })
            })
            .collect::<Vec<usize>>()
    });
    let found = found_in(&unique, haystack);
    ids.map(|ids| Tally {
        kept: ids.iter().filter(|&&id| found[id]).count(),
        total: ids.len(),
    })
}

/// Up to this many bytes searched in all (facts × text), each fact is looked for on its own.
const SEARCH_EACH_BYTES: usize = 1 << 20;

/// Which of `needles` occur in `haystack`.
fn found_in(needles: &[&str], haystack: &str) -> Vec<bool> {
    if needles.is_empty() {
        return Vec::new();
    }
    // Building an automaton costs about as much as a few hundred kB of `contains` (~0.6 M
    // instructions for a tau-bench conversation's facts): a short text is searched per fact,
    // with memchr's SIMD memmem (`str::contains` took 11% of compacting the tau-bench file
    // in-process: its two-way search reads every byte, memmem skips on a rare byte).
    if needles.len() * haystack.len() <= SEARCH_EACH_BYTES {
        return needles.iter().map(|n| contains(haystack, n)).collect();
    }
    // A contiguous NFA: the default may build a DFA, megabytes for a conversation's facts,
    // while everything else of a large input is still in memory.
    let Ok(searcher) = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(needles)
    else {
        return needles.iter().map(|n| contains(haystack, n)).collect();
    };
    let mut found = vec![false; needles.len()];
    let mut missing = needles.len();
    for m in searcher.find_overlapping_iter(haystack) {
        let seen = &mut found[m.pattern().as_usize()];
        if !*seen {
            *seen = true;
            missing -= 1;
            if missing == 0 {
                break;
            }
        }
    }
    found
}

/// Whether `needle` occurs in `haystack` (as `str::contains`). A long needle (an error line,
/// a quote) is found by its first [`NEEDLE_HEAD`] bytes, each hit checked in full: building
/// a searcher costs ~10 instructions a needle byte, more than searching a short text.
fn contains(haystack: &str, needle: &str) -> bool {
    let (haystack, needle) = (haystack.as_bytes(), needle.as_bytes());
    if needle.len() > haystack.len() {
        return false;
    }
    if needle.len() <= NEEDLE_HEAD {
        return memchr::memmem::find(haystack, needle).is_some();
    }
    // Every occurrence of the head, overlapping ones too (`find_iter` skips those). A text
    // that repeats the head without the rest (a rule of dashes) gets the full searcher after
    // a few, so the search stays linear.
    let head = memchr::memmem::Finder::new(&needle[..NEEDLE_HEAD]);
    let mut from = 0;
    for _ in 0..HEAD_HITS_MAX {
        let Some(at) = head.find(&haystack[from..]) else {
            return false;
        };
        if haystack[from + at..].starts_with(needle) {
            return true;
        }
        from += at + 1;
    }
    memchr::memmem::find(&haystack[from..], needle).is_some()
}

/// How much of a long needle [`contains`] builds its searcher for.
const NEEDLE_HEAD: usize = 32;
/// Hits of the head [`contains`] checks before it builds the whole needle's searcher.
const HEAD_HITS_MAX: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_finds_long_needles_as_str_contains_does() {
        let dashes = "-".repeat(40);
        let cases = [
            (format!("x{dashes}y"), format!("{dashes}y")),
            (format!("{dashes}{dashes}!"), format!("{dashes}!")),
            (format!("{dashes}{dashes}"), format!("{dashes}!")),
            (
                format!("ab {} end", "0123456789".repeat(5)),
                "0123456789".repeat(5),
            ),
            ("short".to_string(), "0123456789".repeat(5)),
            ("error: 0123456789".to_string(), "error: 0123".to_string()),
            // More hits of the head than are checked one by one.
            (
                format!("{}{dashes}!", "-".repeat(500)),
                format!("{dashes}!"),
            ),
            (
                format!("{}{dashes}?", "-".repeat(500)),
                format!("{dashes}!"),
            ),
        ];
        for (haystack, needle) in cases {
            assert_eq!(
                contains(&haystack, &needle),
                haystack.contains(&needle),
                "{needle:?} in {haystack:?}"
            );
        }
    }

    fn facts(list: &[&str]) -> Vec<String> {
        list.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn each_list_is_tallied_on_its_own_in_one_pass() {
        let paths = facts(&["src/a.rs", "src/b.rs"]);
        // A fact in two lists, and twice in one, counts in each.
        let errors = facts(&["src/a.rs: error: x", "src/a.rs", "src/a.rs"]);
        let [p, e, none] = tally(
            [paths.as_slice(), errors.as_slice(), &[]],
            "edited src/a.rs\n",
        );
        assert_eq!(p, Tally { kept: 1, total: 2 });
        assert_eq!(e, Tally { kept: 2, total: 3 });
        assert_eq!(none, Tally::default());
        // Every fact found: the search stops, and all count.
        let [all] = tally([paths.as_slice()], "src/b.rs then src/a.rs and more");
        assert_eq!(all, Tally { kept: 2, total: 2 });
        // A text long enough for the automaton finds what `contains` finds.
        let long = format!("{}edited src/a.rs\n", "x ".repeat(SEARCH_EACH_BYTES));
        let [p, e] = tally([paths.as_slice(), errors.as_slice()], &long);
        assert_eq!(p, Tally { kept: 1, total: 2 });
        assert_eq!(e, Tally { kept: 2, total: 3 });
    }

    #[test]
    fn requests_are_found_as_in_the_collapsed_text() {
        let source = r#"[{"role": "user", "content": "please  fix\nthe parser"},
            {"role": "assistant", "content": "fix the parser: done"}]"#;
        let t = crate::transcript::read(source.to_string(), &Default::default()).unwrap();
        let conv = &t.conversations[0];
        let flat = collapse_whitespace(&findable_text(conv));
        // Found as written; found only once collapsed; found as written but not collapsed
        // (not a collapsed form); found in neither.
        for request in [
            "fix the parser",
            "please fix the parser",
            "please  fix",
            "tests",
        ] {
            let facts = Facts {
                user_requests: vec![request.to_string(), "fix the parser".into()],
                ..Facts::default()
            };
            let want = 1 + usize::from(flat.contains(request));
            let got = retention_of(&facts, conv).user_requests;
            assert_eq!(
                got,
                Tally {
                    kept: want,
                    total: 2
                },
                "{request:?}"
            );
        }
    }
}

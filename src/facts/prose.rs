//! Sentences of prose, and which of them state a choice: what summaries keep as decisions
//! and `ctxc eval` asks about as decision probes.

/// The sentences of a text (split after `.`, `!`, `?` and at line ends), trimmed, none of
/// 12 bytes or fewer.
pub fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['.', '!', '?', '\n'])
        .map(str::trim)
        .filter(|s| s.len() > 12)
}

/// Phrases by which an assistant chooses or rejects something ("use X instead of Y",
/// "decided", "won't").
const CHOICE_CUES: [&str; 20] = [
    "instead of",
    "rather than",
    "decided",
    "decide to",
    "i'll use",
    "we'll use",
    "i will use",
    "let's use",
    "switch to",
    "switching to",
    "going with",
    "go with",
    "i chose",
    "we chose",
    "opted",
    "won't",
    "will not",
    "don't use",
    "do not use",
    "not going to",
];

/// Whether a sentence chooses or rejects something.
pub fn chooses(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    CHOICE_CUES.iter().any(|cue| lower.contains(cue))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_told_from_other_prose() {
        let text = "Let me look at the parser first. I'll use serde_json instead of a hand parser.\nWe won't touch the CLI. Done!";
        let chosen: Vec<&str> = sentences(text).filter(|s| chooses(s)).collect();
        assert_eq!(
            chosen,
            [
                "I'll use serde_json instead of a hand parser.",
                "We won't touch the CLI."
            ]
        );
    }
}

//! Sentences of prose, and which of them state a choice: what summaries keep as decisions
//! and `ctxc eval` asks about as decision probes.

use super::Cues;
use std::sync::LazyLock;

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

static CHOICE_FINDER: LazyLock<Cues> = LazyLock::new(|| Cues::new(&CHOICE_CUES));

/// Whether a sentence chooses or rejects something.
pub fn chooses(sentence: &str) -> bool {
    CHOICE_FINDER.in_lowercase_of(sentence)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cues are found in any case, in ASCII text and in other text, as in its lowercase.
    #[test]
    fn cues_are_found_in_the_lowercase_of_any_text() {
        for (text, chooses_it) in [
            ("We DECIDED to keep it.", true),
            ("Wir haben uns für Rust entschieden, rather than Go.", true),
            ("Ökonomisch: I'LL USE the cache.", true),
            ("Let me look at the parser first.", false),
            ("Ünïcode prose with no choice at all.", false),
        ] {
            let lower = text.to_lowercase();
            assert_eq!(chooses(text), chooses_it, "{text}");
            assert_eq!(CHOICE_CUES.iter().any(|c| lower.contains(c)), chooses_it);
        }
        assert!(crate::facts::states_decision(
            "Turns out the BUG IS in the lexer."
        ));
        assert!(!crate::facts::states_decision("Reading the file now."));
    }

    /// A sentence holds a cue only where its whole text does: the summarizer searches a
    /// message once before its sentences.
    #[test]
    fn a_sentence_holds_a_cue_only_where_its_text_does() {
        for text in [
            "Let me look. We DECIDED to keep it.\nThe FIX IS a \u{212A}ey swap! Done?",
            "Über alles: I'LL USE the cache. ΣΑΣ ΣΑΣ. İstanbul, because it is closer.",
            "Nothing here at all. Still nothing.",
            "rather than\nthis. Turns out",
        ] {
            let lower = text.to_lowercase();
            for sentence in sentences(text) {
                assert!(!chooses(sentence) || chooses(text), "{sentence:?}");
                assert!(
                    !crate::facts::states_decision(sentence) || crate::facts::states_decision(text),
                    "{sentence:?}"
                );
                let sentence_lower = sentence.to_lowercase();
                for cue in CHOICE_CUES {
                    assert!(!sentence_lower.contains(cue) || lower.contains(cue));
                }
            }
        }
    }

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

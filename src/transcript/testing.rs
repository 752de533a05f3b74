//! What the adapters' unit tests share: reading a text, a fixture's text, and `check`'s
//! findings as the CLI prints them.

use super::{ReadOptions, Transcript, check, read};
use crate::human::Shown;

/// `s` read with format detection; panics when it cannot be read.
pub fn read_str(s: &str) -> Transcript {
    read(s.to_string(), &ReadOptions::default()).unwrap()
}

/// The text of `fixtures/REL`.
pub fn fixture(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.shown()))
}

/// `check`'s findings of `src`, as `line: message`.
pub fn findings(src: &str) -> Vec<String> {
    check(&read_str(src))
        .iter()
        .map(|f| f.to_string())
        .collect()
}

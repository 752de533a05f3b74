//! Where the test binaries find the project and the files beside it: the crate root, its
//! `fixtures/`, and `../shared` (the corpus). One definition for tests/cli, tests/corpus,
//! tests/e2e and tests/llm, each including it with `#[path]`.
// Each test binary uses part of it.
#![allow(dead_code)]

use std::path::PathBuf;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file under `../shared`.
pub fn shared(rel: &str) -> PathBuf {
    root().join("../shared").join(rel)
}

/// A file under `../shared/corpus` (`""`: the corpus itself).
pub fn corpus(rel: &str) -> PathBuf {
    shared("corpus").join(rel)
}

/// A file under `fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

//! The loopback model server of these tests: `tests/common/loopback.rs`, shared with `tests/e2e`.

#[path = "../common/loopback.rs"]
mod loopback;

pub use loopback::*;

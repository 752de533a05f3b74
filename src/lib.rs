//! ctxc library.
pub mod json;
pub mod transcript;

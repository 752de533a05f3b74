//! One module per command: each turns its resolved arguments into output and an exit status.

pub mod archive;
pub mod check;
pub mod compact;
pub mod config;
pub mod convert;
pub mod docs;
pub mod eval;
pub mod fit;
pub mod repair;
pub mod report;
pub mod restore;
pub mod sessions;
pub mod stats;

//! One module per command: each turns its resolved arguments into output and an exit status.

pub mod check;
pub mod compact;
pub mod compact_report;
pub mod stats;

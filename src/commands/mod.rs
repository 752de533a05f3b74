//! One module per command: each turns its resolved arguments into output and an exit status.

pub mod check;
pub mod stats;

//! Where outputs go and how they are written. One [`Destination`] per output, decided before
//! the input is read, names one of the sinks below; each sink's write lives in one file:
//!
//! | sink | variant | written by |
//! |---|---|---|
//! | standard output | [`Destination::Stdout`] | `stdout.rs` |
//! | a file | [`Destination::File`] | `atomic.rs` (temporary file beside it, renamed over it) |
//! | the input, in place | [`Destination::InPlace`] | `src/inplace/` (lock, backup, live-append checks), its final rename through `atomic.rs` |
//! | an object | [`Destination::Remote`] | `src/store/` (whole, or a completed multipart upload) |
//! | nowhere (a dry run) | [`Destination::Nowhere`] | — |
//!
//! Beside them: what outputs are named (`naming.rs`) and the temporary files a signal does
//! not leave behind (`tempfiles.rs`). Compaction, repair, convert, restore, archives and
//! session listings share these, so none of them reaches into another command for it.

pub mod atomic;
mod destination;
mod naming;
pub mod stdout;
pub mod tempfiles;

pub use atomic::{check_writable_beside, write_atomic};
pub use destination::Destination;
pub use naming::*;

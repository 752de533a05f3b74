//! Datasets: many conversations in one columnar file, one per row (Parquet today).
//!
//! A dataset is told by its content, not its name: a Parquet file starts with `PAR1`
//! ([`sniff`]), on standard input too. Its conversation column is found by name
//! ([`COLUMN_NAMES`]) or given with `--column`; it holds each row's message list as a list of
//! structs or as JSON text, or a client's whole session file as text (JSON lines too). Each
//! row's conversation is handed to the commands as text ([`Row`]), which they read with the adapters and run through the pipeline as they would a
//! JSON file; `compact` hands back the compacted text, and the dataset is written again with
//! every other column, the schema, its metadata, the row order, the row-group sizes and the
//! codecs of the input. Reading and writing go one row group at a time, so memory follows the
//! largest row group, not the file.
//!
//! In reports a row is `PATH#row=N`, N counted from 0 over the whole file ([`row_path`]).

mod batch;
mod parquet;
pub mod restore;

pub use self::batch::{Column, Written};
pub use self::parquet::{Dataset, Done, Rewritten};

use crate::discover::{Input, LoadError};
use std::cmp::Ordering;
use std::io::{Read, Seek, Write};
use std::path::Path;

/// The magic number a Parquet file starts (and ends) with.
pub const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// Column names taken for the conversation column, in order of preference.
pub const COLUMN_NAMES: [&str; 8] = [
    "messages",
    "conversations",
    "conversation",
    "trajectory",
    "history",
    "traj",
    "chat",
    // A dataset of stored agent sessions: each row one client's session file as text.
    "session",
];

/// One row's conversation, as JSON text the transcript adapters read.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    /// The row's index in the file, from 0.
    pub index: usize,
    /// The conversation: an object holding the message list (a bare list is wrapped in one
    /// under the column's name, or `messages`, so that every adapter can tell its shape).
    pub text: &'a str,
}

/// What an input holds, told by its first bytes.
#[derive(Debug)]
pub enum Sniffed {
    /// A Parquet dataset (standard input is first copied to an unnamed temporary file: Parquet
    /// is read from its end).
    Parquet(std::fs::File),
    /// Anything else; for standard input, the bytes already read (they cannot be read twice).
    Other(Option<Vec<u8>>),
}

/// Tells whether `input` is a dataset. Reads a regular file's text whole through the handle
/// that read its first 4 bytes (a pipe, a device or a file over `limit` is the text loader's
/// to read or refuse); reads standard input whole, up to `limit` bytes for a text (a dataset
/// into a temporary file, so that memory does not grow with it).
pub fn sniff(input: &Input, limit: u64) -> Result<Sniffed, LoadError> {
    match input {
        Input::File(path) => sniff_file(path, limit),
        Input::Stdin => sniff_reader(&mut std::io::stdin().lock(), limit),
        // An object is read whole (capped) in one request either way; a dataset's bytes then go
        // to a temporary file, which Parquet is read from.
        Input::Remote(url) => {
            let (bytes, _) = crate::store::get(url, limit).map_err(|e| LoadError {
                line: 0,
                message: e.0,
            })?;
            sniff_bytes(bytes)
        }
    }
}

/// A dataset, or a text file read whole through the same handle: one open per input.
fn sniff_file(path: &Path, limit: u64) -> Result<Sniffed, LoadError> {
    // A dataset may be larger than the limit: its rows are read one at a time. A text over it
    // is the text loader's to refuse, with its message.
    match open_head(path)? {
        Head::Dataset(file) => Ok(Sniffed::Parquet(file)),
        Head::Text(file, head, size) if size <= limit => {
            crate::discover::probe_start(&file)?;
            let text = crate::discover::read_capped(head.as_slice().chain(file), size, limit)?;
            Ok(Sniffed::Other(Some(text)))
        }
        Head::Text(..) | Head::Unread => Ok(Sniffed::Other(None)),
    }
}

/// Whether the file at `path` is a dataset, from its first bytes alone: for a file that is
/// read later under a claim (`--in-place`).
pub fn sniff_head(path: &Path) -> Result<Sniffed, LoadError> {
    match open_head(path)? {
        Head::Dataset(file) => Ok(Sniffed::Parquet(file)),
        Head::Text(..) | Head::Unread => Ok(Sniffed::Other(None)),
    }
}

/// A regular file opened and its first bytes read.
enum Head {
    /// A dataset, rewound to its start.
    Dataset(std::fs::File),
    /// Another file, its first bytes read, with its size.
    Text(std::fs::File, Vec<u8>, u64),
    /// Missing, not a regular file, or unreadable: the text loader's to report, with its
    /// messages.
    Unread,
}

fn open_head(path: &Path) -> Result<Head, LoadError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(Head::Unread);
    };
    // Checked before opening: opening a named pipe waits for a writer.
    if !meta.is_file() {
        return Ok(Head::Unread);
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(Head::Unread);
    };
    let mut head = Vec::with_capacity(PARQUET_MAGIC.len());
    if (&mut file)
        .take(PARQUET_MAGIC.len() as u64)
        .read_to_end(&mut head)
        .is_err()
    {
        return Ok(Head::Unread);
    }
    if head.as_slice() != PARQUET_MAGIC {
        return Ok(Head::Text(file, head, meta.len()));
    }
    file.rewind().map_err(|e| load_error(&e))?;
    Ok(Head::Dataset(file))
}

/// What `bytes` read whole (an object's) are: a dataset's go to a temporary file, which
/// Parquet is read from.
pub fn sniff_bytes(bytes: Vec<u8>) -> Result<Sniffed, LoadError> {
    if !bytes.starts_with(PARQUET_MAGIC) {
        return Ok(Sniffed::Other(Some(bytes)));
    }
    let mut file = tempfile::tempfile().map_err(|e| load_error(&e))?;
    file.write_all(&bytes).map_err(|e| load_error(&e))?;
    Ok(Sniffed::Parquet(file))
}

fn sniff_reader(reader: &mut dyn Read, limit: u64) -> Result<Sniffed, LoadError> {
    let mut head = Vec::with_capacity(4);
    reader
        .take(4)
        .read_to_end(&mut head)
        .map_err(|e| load_error(&e))?;
    if head.as_slice() != PARQUET_MAGIC {
        let text = crate::discover::read_capped(head.as_slice().chain(reader), 0, limit)?;
        return Ok(Sniffed::Other(Some(text)));
    }
    let mut file = tempfile::tempfile().map_err(|e| load_error(&e))?;
    file.write_all(&head)
        .and_then(|()| std::io::copy(reader, &mut file).map(drop))
        .map_err(|e| load_error(&e))?;
    Ok(Sniffed::Parquet(file))
}

fn load_error(e: &std::io::Error) -> LoadError {
    LoadError {
        line: 0,
        message: e.to_string(),
    }
}

/// The whole of `file` from its start, wherever its cursor is: a dataset written or about to
/// be replaced, compared byte for byte with what is there.
pub fn read_whole(file: &std::fs::File) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let size = file.metadata()?.len();
    let mut bytes = vec![0u8; size as usize];
    file.read_exact_at(&mut bytes, 0)?;
    Ok(bytes)
}

/// How a row is named in reports: `data.parquet#row=12`.
pub fn row_path(path: &str, index: usize) -> String {
    format!("{path}#row={index}")
}

/// The order of report entries: by file, then a dataset's rows by index (not as text, where
/// `#row=10` would come before `#row=2`).
pub fn report_order(a: &str, b: &str) -> Ordering {
    split_row(a).cmp(&split_row(b))
}

/// Whether a report's `path` names a dataset's row ([`row_path`]).
pub fn is_row_path(path: &str) -> bool {
    split_row(path).1.is_some()
}

/// A report path as its file and, for a dataset's row, the row.
fn split_row(path: &str) -> (&str, Option<usize>) {
    // The last `#` is found with memrchr: searching for `#row=` built a searcher per
    // comparison, 1 ms to sort the reports of 1,296 files. A row number has no `#`.
    path.rfind('#')
        .and_then(|at| {
            let row = path[at..].strip_prefix("#row=")?.parse().ok()?;
            Some((&path[..at], Some(row)))
        })
        .unwrap_or((path, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parquet_is_told_by_its_magic_on_standard_input_too() {
        let mut parquet: &[u8] = b"PAR1 and the rest";
        match sniff_reader(&mut parquet, u64::MAX).unwrap() {
            Sniffed::Parquet(mut f) => {
                use std::io::Seek;
                let mut all = String::new();
                f.rewind().unwrap();
                f.read_to_string(&mut all).unwrap();
                assert_eq!(all, "PAR1 and the rest");
            }
            other => panic!("{other:?}"),
        }
        for text in [&b"[{\"role\": 1}]"[..], b"PA", b""] {
            let mut reader = text;
            match sniff_reader(&mut reader, u64::MAX).unwrap() {
                Sniffed::Other(Some(bytes)) => assert_eq!(bytes, text),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_file_is_read_once_and_a_dataset_over_the_text_limit_is_still_a_dataset() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            Input::File(path)
        };
        let text = write("a.json", b"[{\"role\": \"user\", \"content\": \"hi\"}]");
        match sniff(&text, u64::MAX).unwrap() {
            Sniffed::Other(Some(bytes)) => {
                assert_eq!(bytes, std::fs::read(dir.path().join("a.json")).unwrap())
            }
            other => panic!("{other:?}"),
        }
        // Over the limit, a text is left to the loader, which refuses it with its message.
        assert!(matches!(sniff(&text, 4).unwrap(), Sniffed::Other(None)));
        let short = write("b.json", b"[]");
        assert!(matches!(sniff(&short, u64::MAX).unwrap(), Sniffed::Other(Some(b)) if b == b"[]"));
        let dataset = write("c.parquet", b"PAR1 and the rest, larger than the limit");
        match sniff(&dataset, 8).unwrap() {
            Sniffed::Parquet(mut f) => {
                let mut all = String::new();
                f.read_to_string(&mut all).unwrap();
                assert_eq!(all, "PAR1 and the rest, larger than the limit");
            }
            other => panic!("{other:?}"),
        }
        let missing = Input::File(dir.path().join("none.json"));
        assert!(matches!(
            sniff(&missing, u64::MAX).unwrap(),
            Sniffed::Other(None)
        ));
    }

    #[test]
    fn rows_are_reported_in_file_then_row_order() {
        let mut paths = vec!["b.json", "a.parquet#row=10", "a.parquet#row=2", "a.parquet"];
        paths.sort_by(|a, b| report_order(a, b));
        assert_eq!(
            paths,
            ["a.parquet", "a.parquet#row=2", "a.parquet#row=10", "b.json"]
        );
        assert_eq!(row_path("d/x.parquet", 3), "d/x.parquet#row=3");
        assert!(is_row_path("d/x.parquet#row=3"));
        assert!(!is_row_path("a#row=x.json") && !is_row_path("a.json"));
        // A `#` that starts no row number is part of the name.
        let mut names = vec!["a#row=x.json", "a#2.json", "a#row=3#b", "a#row=1"];
        names.sort_by(|a, b| report_order(a, b));
        assert_eq!(names, ["a#row=1", "a#2.json", "a#row=3#b", "a#row=x.json"]);
    }
}

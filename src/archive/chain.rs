//! Generations: an archive is never started over.
//!
//! A file compacted in place lives on: the resumed client appends to it, and it is compacted
//! again. When the file still is the archive's last output, the new compaction continues the
//! same generation. When it changed since (appended to, edited, or compacted without
//! `--archive`), the new compaction starts the next generation, which keeps the earlier ones
//! and links back to them: its `previousOutput` rebuilds the last output of the generation
//! before from its own input. An append makes that link one range; any other change keeps the
//! bytes that differ. Either way `restore` can walk from the newest file back to the first
//! original.
//!
//! The link needs the earlier output's bytes, which the file no longer holds when it was
//! rewritten: so the latest record keeps a copy of its output (`outputCopy`), dropped from a
//! record once a later one is in place.
//!
//! A record is written `pending` before its output is put in place and committed after, so a
//! crash, a refused replace or a full disk on either side of the rename leaves an archive that
//! [`settle`] reads right: the pending record counts when the file holds its output (or starts
//! with it: appended to since), and is dropped when the file still holds its input. A file that
//! holds neither (rewritten since by a run without `--archive`) keeps the record when its copy
//! of the output matches the output's digest: that copy rebuilds the input.

use super::model::{Piece, Record, hash};
use super::paths;
use std::path::Path;

/// Settles pending last records (one run's: a compaction, or a repair and its compaction)
/// against the file the last one's output names (looked up from the archive at
/// `archive_path`): kept, as committed, when that file holds the output or starts with it, or
/// when the record's copy of its output is sound and the input is not where it was read;
/// dropped otherwise. Returns whether records were dropped.
pub fn settle(records: &mut Vec<Record>, archive_path: &Path) -> bool {
    settle_with(records, archive_path, true)
}

/// [`settle`] by what the file holds alone, the record's own copy of its output not trusted:
/// for a run that finds another in-place run rewrote the archive meanwhile, where a file that
/// holds neither this input nor this output holds the other run's output, and a pending record
/// of a run whose replace was refused must drop out.
pub fn settle_reached(records: &mut Vec<Record>, archive_path: &Path) -> bool {
    settle_with(records, archive_path, false)
}

fn settle_with(records: &mut Vec<Record>, archive_path: &Path, trust_copy: bool) -> bool {
    let Some(last) = records.last().filter(|r| r.pending) else {
        return false;
    };
    // Read in pieces: a dataset may be larger than memory.
    let reached = paths::candidates(archive_path, &last.output)
        .iter()
        .any(|(p, _)| super::file_holds_output(p, last));
    let pending = records.iter().rev().take_while(|r| r.pending).count();
    let first = records.len() - pending;
    // The file moved on from the output (rewritten by a run without `--archive`, or gone):
    // the archive's own copy of the output still rebuilds the input, unless the file holds
    // that input still, when the output never reached it.
    let kept = reached
        || (trust_copy
            && copy_matches(last)
            && !paths::candidates(archive_path, &records[first].input)
                .iter()
                .any(|(p, _)| super::file_holds(p, &records[first].input)));
    if kept {
        records[first..].iter_mut().for_each(|r| r.pending = false);
        false
    } else {
        records.truncate(first);
        true
    }
}

/// Whether the record keeps a copy of its output that matches the output's recorded digest.
fn copy_matches(record: &Record) -> bool {
    record.output_copy.as_ref().is_some_and(|copy| {
        copy.len() as u64 == record.output.bytes && hash(copy.as_bytes()) == record.output.hash
    })
}

/// Whether `bytes` are the record's output, or begin with it.
pub fn holds_output(bytes: &[u8], record: &Record) -> bool {
    let n = record.output.bytes as usize;
    bytes.len() >= n && hash(&bytes[..n]) == record.output.hash
}

/// The last output of `records`, as bytes, found without the file: the archive's copy, the
/// start of `input` when the file was only appended to, or a file the record names that still
/// holds it (an earlier output about to be overwritten).
pub fn last_output(records: &[Record], input: &[u8], archive_path: &Path) -> Option<Vec<u8>> {
    let last = records.last()?;
    if let Some(copy) = &last.output_copy {
        return Some(copy.clone().into_bytes());
    }
    if holds_output(input, last) {
        return Some(input[..last.output.bytes as usize].to_vec());
    }
    paths::candidates(archive_path, &last.output)
        .iter()
        .filter_map(|(p, _)| super::place::read(p).ok().flatten())
        .find(|bytes| hash(bytes) == last.output.hash)
}

/// Pieces that rebuild `previous` from `input`: the bytes they share at the start and at the
/// end are ranges of `input`, the rest of `previous` is kept as text. An append is one range.
pub fn link(input: &str, previous: &str) -> Vec<Piece> {
    let (a, b) = (input.as_bytes(), previous.as_bytes());
    let mut head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !previous.is_char_boundary(head) {
        head -= 1;
    }
    let room = a.len().min(b.len()) - head;
    let mut tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !previous.is_char_boundary(b.len() - tail) {
        tail -= 1;
    }
    let mut pieces = Vec::new();
    if head > 0 {
        pieces.push(Piece::Copy([0, head]));
    }
    let middle = &previous[head..b.len() - tail];
    if !middle.is_empty() {
        pieces.push(Piece::Text(middle.to_string()));
    }
    if tail > 0 {
        pieces.push(Piece::Copy([a.len() - tail, a.len()]));
    }
    pieces
}

/// Index of the first record of generation `g`.
pub fn first_of_generation(records: &[Record], g: u32) -> Option<usize> {
    records.iter().position(|r| r.generation == g)
}

#[cfg(test)]
mod tests {
    use super::super::delta;
    use super::*;

    fn rebuilt(input: &str, previous: &str) -> String {
        let pieces = link(input, previous);
        String::from_utf8(delta::apply(&pieces, input.as_bytes(), false).unwrap()).unwrap()
    }

    #[test]
    fn an_append_links_with_one_range() {
        let pieces = link("abc\ndef\n", "abc\n");
        assert_eq!(pieces, vec![Piece::Copy([0, 4])]);
    }

    #[test]
    fn any_change_links_exactly() {
        for (input, previous) in [
            ("abc", "abc"),
            ("", "abc"),
            ("abc", ""),
            ("a new head, same tail", "the old head, same tail"),
            ("xyz", "abc"),
            ("aaaa", "aa"),
            ("aa", "aaaa"),
            ("é中x", "é中y"),
            ("前a", "後a"),
            ("a€b", "a€€b"),
        ] {
            assert_eq!(
                rebuilt(input, previous),
                previous,
                "{input:?} -> {previous:?}"
            );
        }
    }
}

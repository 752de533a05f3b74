//! The restore data of a record: the input rebuilt as pieces of the output (`[start, end]`)
//! and original text (strings). Applying the pieces to the output gives the input back
//! byte-for-byte.
//!
//! Why a diff and not simply each edited conversation's original list: compaction keeps most
//! items byte-for-byte, so the archive only needs what was removed or changed. Over the
//! corpus with `adaptive` at a 50% target the restore data is 8.1 MB against 11.2 MB for
//! whole lists (12.2 MB of input, 6.4 MB removed), and a file that lost a third of its
//! bytes keeps about a third, not all of it. The diff stays exact without trusting anything
//! but the bytes: every `[start, end]` is a range whose bytes were compared equal,
//! everything else is stored literally, and `write_for` applies the pieces and compares the
//! result with the input before writing.
//!
//! How ranges are found: conversations compaction left alone sit at known offsets (the
//! pipeline's output spans). Inside an edited list, each item the final plan still writes
//! is looked for in the output after the previous match — whole when it is kept verbatim,
//! else (or when an adapter rewrote it, like a re-linked Claude Code record) by pieces from
//! inside it — within a window bounded by what can have been written in between. Matches
//! are grown in both directions over every equal byte, taking in separators, unchanged
//! neighbours and the unchanged parts of rewritten records.

use super::model::Piece;
use crate::json::Span;
use crate::pipeline::Outcome;
use crate::transcript::{Conversation, OutItem, Transcript};

/// Output bytes a new item (a summary record, a placeholder) may add beyond its text.
const ENVELOPE: usize = 4096;
/// Extra room for every search window.
const WINDOW_SLACK: usize = 64 * 1024;
/// Bytes of an item looked for when the whole item is not in the output.
const SEED: usize = 64;

/// The pieces that rebuild `original.source` from `outcome.output`.
pub fn pieces(original: &Transcript, outcome: &Outcome) -> Vec<Piece> {
    let src = original.source.as_str();
    let out: &str = &outcome.output;
    let mut b = Builder::default();
    let mut at_out = 0;
    for (c, conv) in original.conversations.iter().enumerate() {
        let Some(out_span) = outcome.spans.get(c).cloned().flatten() else {
            continue;
        };
        // Bytes between edited lists are untouched: the same text, shifted.
        b.copy(at_out..out_span.start);
        let plan = outcome.conversations[c]
            .compaction
            .as_ref()
            .map(|k| k.plan.items.as_slice())
            .unwrap_or_default();
        List {
            src,
            out,
            conv,
            out_span: out_span.clone(),
        }
        .diff(plan, &mut b);
        at_out = out_span.end;
    }
    b.copy(at_out..out.len());
    b.pieces
}

/// Rebuilds the input from `output`. A range beyond the output is an error, or cut to what
/// there is when `lenient` (restoring from a changed file with `--force`).
pub fn apply(pieces: &[Piece], output: &[u8], lenient: bool) -> Result<Vec<u8>, String> {
    let mut rebuilt = Vec::with_capacity(output.len() * 2);
    for piece in pieces {
        match piece {
            Piece::Text(text) => rebuilt.extend_from_slice(text.as_bytes()),
            Piece::Copy([start, end]) => {
                if start <= end && *end <= output.len() {
                    rebuilt.extend_from_slice(&output[*start..*end]);
                } else if lenient {
                    let end = (*end).min(output.len());
                    rebuilt.extend_from_slice(&output[(*start).min(end)..end]);
                } else {
                    return Err(format!(
                        "the archive copies bytes {start}..{end} of a file of {} bytes",
                        output.len()
                    ));
                }
            }
        }
    }
    Ok(rebuilt)
}

/// Collects pieces, merging neighbours.
#[derive(Default)]
struct Builder {
    pieces: Vec<Piece>,
}

impl Builder {
    fn copy(&mut self, range: Span) {
        if range.is_empty() {
            return;
        }
        if let Some(Piece::Copy([_, end])) = self.pieces.last_mut() {
            if *end == range.start {
                *end = range.end;
                return;
            }
        }
        self.pieces.push(Piece::Copy([range.start, range.end]));
    }

    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.pieces.last_mut() {
            Some(Piece::Text(last)) => last.push_str(text),
            _ => self.pieces.push(Piece::Text(text.to_string())),
        }
    }
}

/// One edited conversation list: its original text and where its output landed.
struct List<'a> {
    src: &'a str,
    out: &'a str,
    conv: &'a Conversation,
    out_span: Span,
}

impl List<'_> {
    /// Adds the pieces that rebuild the original list from the output list.
    fn diff(&self, plan: &[OutItem], b: &mut Builder) {
        let mut at_src = self.conv.span.start;
        // Where the next search starts: the end of the last seed found. Not the end of the
        // last copy — growing a match may have taken in the first bytes of the next item
        // (`\n{"` starts every record), and that item must still be found.
        let mut search_from = self.out_span.start;
        // Bytes new output items may have written since the last match.
        let mut slack = 0;
        for out in plan {
            let whole = match out {
                OutItem::Keep(_) => true,
                OutItem::Summary { text, .. } => {
                    slack += 2 * text.len() + ENVELOPE;
                    continue;
                }
                OutItem::ReplaceResult(_, text) | OutItem::ReplaceText(_, text) => {
                    slack += 2 * text.len() + ENVELOPE;
                    false
                }
                OutItem::ReplaceArguments(_, edits) => {
                    slack += edits.iter().map(|e| 2 * e.arguments.len()).sum::<usize>() + ENVELOPE;
                    false
                }
                OutItem::Strip(_) | OutItem::DropThinking(_) => {
                    slack += ENVELOPE;
                    false
                }
            };
            let i = out.kept().expect("not a summary");
            let span = self.conv.items[i].span.clone();
            let window = (span.end.saturating_sub(at_src)) + slack + WINDOW_SLACK;
            let found = self
                .seeds(span, whole)
                .filter(|seed| seed.end > at_src)
                .find_map(|seed| self.find(seed, (at_src, search_from), window));
            let Some(Match { src, out, seed_end }) = found else {
                continue; // rewritten through and through: stays in the text
            };
            b.text(&self.src[at_src..src.start]);
            b.copy(out);
            at_src = src.end;
            search_from = seed_end;
            slack = 0;
        }
        b.text(&self.src[at_src..self.conv.span.end]);
    }

    /// What to look for of an item in the output: the whole item when it is kept as it
    /// was, then [`SEED`]-byte pieces from inside it — a re-linked record or one with
    /// payloads stripped still has long runs of its original bytes.
    fn seeds(&self, span: Span, whole: bool) -> impl Iterator<Item = Span> + '_ {
        let len = span.len();
        let inner = (len >= 2 * SEED).then(|| {
            [2, 1, 3].into_iter().map(move |quarter| {
                let mut start = span.start + len * quarter / 4;
                while !self.src.is_char_boundary(start) {
                    start += 1;
                }
                let mut end = (start + SEED).min(span.end);
                while !self.src.is_char_boundary(end) {
                    end += 1;
                }
                start..end
            })
        });
        whole
            .then_some(span.clone())
            .into_iter()
            .chain(inner.into_iter().flatten())
    }

    /// `seed` (original bytes) found in the output within `window` bytes after `from`, grown
    /// to the longest equal run around it inside both lists, starting at or after the
    /// source cursor `at_src`.
    fn find(&self, seed: Span, cursors: (usize, usize), window: usize) -> Option<Match> {
        let (at_src, from) = cursors;
        let raw = &self.src[seed.clone()];
        let mut end = (from + window).min(self.out_span.end);
        while !self.out.is_char_boundary(end) {
            end += 1;
        }
        let at = from + self.out[from..end].find(raw)?;
        let seed_end = at + raw.len();
        let (src, out) = (self.src.as_bytes(), self.out.as_bytes());
        let (mut s0, mut o0) = if seed.start >= at_src {
            let back = common_suffix(&src[at_src..seed.start], &out[self.out_span.start..at]);
            (seed.start - back, at - back)
        } else {
            // The seed begins in bytes already restored: copy only the rest of it.
            (at_src, at + (at_src - seed.start))
        };
        let ahead = common_prefix(
            &src[seed.end..self.conv.span.end],
            &out[seed_end..self.out_span.end],
        );
        let (mut s1, mut o1) = (seed.end + ahead, seed_end + ahead);
        // Cut at characters, so the literal text between ranges is whole UTF-8.
        while !self.src.is_char_boundary(s0) {
            s0 += 1;
            o0 += 1;
        }
        while !(self.src.is_char_boundary(s1) && self.out.is_char_boundary(o1)) {
            s1 -= 1;
            o1 -= 1;
        }
        Some(Match {
            src: s0..s1,
            out: o0..o1,
            seed_end,
        })
    }
}

/// Equal bytes of the original and the output.
struct Match {
    /// Where they are in the original.
    src: Span,
    /// Where they are in the output.
    out: Span,
    /// Where the seed that found them ends in the output.
    seed_end: usize,
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Item, Kind, ListLayout, Role};

    /// A JSONL conversation of `lines`, as the one conversation of its source.
    fn conversation(lines: &[&str]) -> (String, Conversation) {
        let src = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        let mut at = 0;
        let items = lines
            .iter()
            .enumerate()
            .map(|(n, l)| {
                let item = Item::new(at..at + l.len(), n + 1, Role::User, Kind::User);
                at += l.len() + 1;
                item
            })
            .collect();
        let conv = Conversation {
            span: 0..src.len(),
            location: String::new(),
            items,
            preamble: Vec::new(),
            layout: ListLayout::Lines {
                newline: "\n",
                trailing_newline: true,
            },
            model: None,
            context_window: None,
        };
        (src, conv)
    }

    fn rebuild(src: &str, conv: &Conversation, out: &str, plan: &[OutItem]) -> Vec<Piece> {
        let mut b = Builder::default();
        let list = List {
            src,
            out,
            conv,
            out_span: 0..out.len(),
        };
        list.diff(plan, &mut b);
        assert_eq!(
            apply(&b.pieces, out.as_bytes(), false).unwrap(),
            src.as_bytes()
        );
        b.pieces
    }

    fn literal(pieces: &[Piece]) -> usize {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.len(),
                Piece::Copy(_) => 0,
            })
            .sum()
    }

    #[test]
    fn only_what_was_removed_is_kept_as_text() {
        let (src, conv) = conversation(&[
            r#"{"a":"héllo"}"#,
            r#"{"b":"dropped ünïcode"}"#,
            r#"{"c":"ö"}"#,
        ]);
        let out = "{\"a\":\"héllo\"}\n{\"c\":\"ö\"}\n";
        let pieces = rebuild(&src, &conv, out, &[OutItem::Keep(0), OutItem::Keep(2)]);
        assert!(
            literal(&pieces) <= "{\"b\":\"dropped ünïcode\"}\n".len(),
            "{pieces:?}"
        );
    }

    #[test]
    fn rewritten_records_are_matched_by_their_inside() {
        let body: String = (0..120).map(|n| n.to_string()).collect();
        let first = format!(r#"{{"parent":"p1","body":"{body}é"}}"#);
        let second = r#"{"progress":1}"#;
        let (src, conv) = conversation(&[second, &first]);
        // The progress record dropped, the other re-linked.
        let out = format!("{}\n", first.replace("p1", "null"));
        let pieces = rebuild(&src, &conv, &out, &[OutItem::Keep(1)]);
        // The dropped line, and the re-linked record up to where it differs.
        let differs = r#"{"parent":"p1"#.len();
        assert!(literal(&pieces) <= second.len() + 1 + differs, "{pieces:?}");
    }

    #[test]
    fn a_summary_between_kept_items_is_not_copied() {
        let (src, conv) = conversation(&["{\"k\":1}", "{\"old\":2}", "{\"k\":3}"]);
        let out = "{\"k\":1}\n{\"summary\":\"{\\\"k\\\":3}\"}\n{\"k\":3}\n";
        let plan = [
            OutItem::Keep(0),
            OutItem::Summary {
                text: "s".into(),
                replaces: 1..2,
            },
            OutItem::Keep(2),
        ];
        rebuild(&src, &conv, out, &plan);
    }

    #[test]
    fn applying_to_a_shorter_file_fails_unless_lenient() {
        let pieces = [
            Piece::Copy([0, 4]),
            Piece::Text("!".into()),
            Piece::Copy([6, 10]),
        ];
        assert!(apply(&pieces, b"abcdefg", false).is_err());
        assert_eq!(apply(&pieces, b"abcdefg", true).unwrap(), b"abcd!g");
    }
}

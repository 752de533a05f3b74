//! The restore data of a repair: the input rebuilt from the repaired output, line by line.
//!
//! A repair keeps the input's lines in order and only leaves some out, rewrites a few (a
//! re-linked `parentUuid`) and adds new ones, so each input line is either found whole in the
//! output after the previous match (a range of the output) or kept as text. Matching goes by
//! exact bytes, terminator included, so the pieces are exact whatever the repair did; the
//! archive applies them and compares before it writes.

use crate::archive::Piece;
use crate::transcript::edit::split;
use std::collections::HashMap;

/// Pieces that rebuild `input` from `output`.
pub fn pieces(input: &str, output: &str) -> Vec<Piece> {
    let mut at_line: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut spans = Vec::new();
    let mut offset = 0;
    for (i, (line, end)) in split(output).into_iter().enumerate() {
        let len = line.len() + end.len();
        at_line
            .entry(&output[offset..offset + len])
            .or_default()
            .push(i);
        spans.push([offset, offset + len]);
        offset += len;
    }
    let mut pieces: Vec<Piece> = Vec::new();
    let mut next = 0;
    let mut offset = 0;
    for (line, end) in split(input) {
        let whole = &input[offset..offset + line.len() + end.len()];
        offset += whole.len();
        let found = at_line.get(whole).and_then(|at| {
            let k = at.partition_point(|&i| i < next);
            at.get(k).copied()
        });
        match found {
            Some(i) => {
                next = i + 1;
                push_copy(&mut pieces, spans[i]);
            }
            None => push_text(&mut pieces, whole),
        }
    }
    pieces
}

fn push_copy(pieces: &mut Vec<Piece>, span: [usize; 2]) {
    if let Some(Piece::Copy(last)) = pieces.last_mut() {
        if last[1] == span[0] {
            last[1] = span[1];
            return;
        }
    }
    pieces.push(Piece::Copy(span));
}

fn push_text(pieces: &mut Vec<Piece>, text: &str) {
    if let Some(Piece::Text(last)) = pieces.last_mut() {
        last.push_str(text);
        return;
    }
    pieces.push(Piece::Text(text.to_string()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rebuilt(input: &str, output: &str) -> String {
        let p = pieces(input, output);
        String::from_utf8(crate::archive::apply(&p, output.as_bytes(), false).unwrap()).unwrap()
    }

    #[test]
    fn any_line_edit_rebuilds_exactly() {
        for (input, output) in [
            ("a\nb\nc\n", "a\nc\n"),
            ("a\nb\nc", "a\nx\nb\nc\n"),
            ("a\na\nb\n", "a\nb\n"),
            ("a\r\nb\n{torn", "a\r\nb\n"),
            ("", "a\n"),
            ("a\n", ""),
        ] {
            assert_eq!(rebuilt(input, output), input, "{input:?} <- {output:?}");
        }
    }

    #[test]
    fn kept_lines_are_ranges() {
        let p = pieces("a\nb\ngarbage\nc\n", "a\nb\nc\n");
        assert_eq!(
            p,
            vec![
                Piece::Copy([0, 4]),
                Piece::Text("garbage\n".into()),
                Piece::Copy([4, 6])
            ]
        );
    }
}

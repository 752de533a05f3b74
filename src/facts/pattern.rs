//! A regex compiled once without Unicode classes (`(?-u)`) that still matches as the Unicode
//! pattern does on any text.
//!
//! On ASCII text `\w`, `\s`, `\d` and `\b` mean the same in both modes. Other text is matched
//! folded ([`fold`]): each non-ASCII character becomes as many bytes of one ASCII stand-in of
//! its Unicode class (digit, word, space, other), so the ASCII build sees the same classes at
//! the same byte offsets. Compiling the Unicode build instead (Unicode's word class as UTF-8
//! automata, forward and reverse) cost 19.5 M instructions, 4.5% of a 3 MB session's
//! compaction, for the few dozen non-ASCII lines that meet a pattern.
//!
//! The fold is exact for the patterns built here: no literal or class in them matches a
//! stand-in (`0`, `_`, space, `\x01`) other than through `\d`, `\w` or `\s`, and no counted
//! repetition, so a run of stand-ins matches wherever the one character does
//! (`facts::tests` checks it over every line of the corpus). A match that would end inside a
//! character is found with the Unicode build instead.

use regex::Regex;
use regex_syntax::hir::{Class, HirKind};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

/// A pattern with an ASCII build, compiled when first needed, and a Unicode build kept for
/// what the fold cannot place.
pub struct Pattern {
    source: &'static str,
    ascii: OnceLock<Regex>,
    unicode: OnceLock<Regex>,
}

impl Pattern {
    /// A pattern that compiles in both modes (no class that could match a non-ASCII byte
    /// once Unicode is off, such as a negated class), with no literal `0`, `_` or `\x01` and no
    /// counted repetition (see the module header).
    pub const fn new(source: &'static str) -> Pattern {
        Pattern {
            source,
            ascii: OnceLock::new(),
            unicode: OnceLock::new(),
        }
    }

    /// Whether the Unicode pattern matches `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.ascii().is_match(&fold(text))
    }

    /// The byte ranges of the Unicode pattern's successive matches in `text`, found as they
    /// are taken on ASCII text (a caller wanting one match searches no further).
    pub fn find_ranges<'a>(&'a self, text: &'a str) -> impl Iterator<Item = Range<usize>> + 'a {
        let (ascii, other) = if text.is_ascii() {
            (Some(self.ascii().find_iter(text).map(|m| m.range())), None)
        } else {
            (None, Some(self.folded_ranges(text).into_iter()))
        };
        ascii
            .into_iter()
            .flatten()
            .chain(other.into_iter().flatten())
    }

    /// [`Self::find_ranges`] of non-ASCII text, all at once (the folded copy is searched).
    fn folded_ranges(&self, text: &str) -> Vec<Range<usize>> {
        let folded = fold(text);
        let ranges: Vec<Range<usize>> =
            self.ascii().find_iter(&folded).map(|m| m.range()).collect();
        let whole =
            |r: &Range<usize>| text.is_char_boundary(r.start) && text.is_char_boundary(r.end);
        if ranges.iter().all(whole) {
            return ranges;
        }
        self.unicode().find_iter(text).map(|m| m.range()).collect()
    }

    /// The Unicode build.
    pub fn unicode(&self) -> &Regex {
        self.unicode
            .get_or_init(|| Regex::new(self.source).expect("a valid pattern"))
    }

    /// The ASCII build, for ASCII or folded text.
    pub fn ascii(&self) -> &Regex {
        self.ascii.get_or_init(|| {
            Regex::new(&format!("(?-u:{})", self.source)).expect("a valid ASCII pattern")
        })
    }
}

/// Unicode's `\d`, `\w` and `\s` as the regex crate defines them (its own parser's tables).
static CLASSES: LazyLock<[Vec<(char, char)>; 3]> =
    LazyLock::new(|| [r"\d", r"\w", r"\s"].map(class_ranges));

fn class_ranges(class: &str) -> Vec<(char, char)> {
    let hir = regex_syntax::parse(class).expect("a Perl class");
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => {
            c.ranges().iter().map(|r| (r.start(), r.end())).collect()
        }
        other => unreachable!("{class} parsed as {other:?}"),
    }
}

fn in_class(ranges: &[(char, char)], c: char) -> bool {
    ranges
        .binary_search_by(|&(start, end)| {
            if end < c {
                std::cmp::Ordering::Less
            } else if start > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The ASCII character standing in for non-ASCII `c`: `0` for a digit, `_` for another word
/// character, a space for white space, `\x01` for anything else.
fn stand_in(c: char) -> char {
    let [digit, word, space] = &*CLASSES;
    if in_class(digit, c) {
        '0'
    } else if in_class(word, c) {
        '_'
    } else if in_class(space, c) {
        ' '
    } else {
        '\x01'
    }
}

/// `text` with each non-ASCII character replaced by its stand-in, once per byte it takes.
pub fn fold(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut folded = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            folded.push(c);
        } else {
            let s = stand_in(c);
            folded.extend(std::iter::repeat_n(s, c.len_utf8()));
        }
    }
    Cow::Owned(folded)
}

//! The pre-tokenizers' patterns ([`super::patterns`]) decided by hand on ASCII text, where
//! each character class is one byte test. Most of what agents write is ASCII, and the DFA
//! spends ~20 instructions a byte on it (a third of counting a Claude Code session).
//!
//! A piece is decided here only when every byte the decision reads is ASCII, or is the text's
//! true end: letters, digits and white space go on past ASCII (`é`, `²`, U+00A0), so a piece
//! that reaches the first non-ASCII byte is left to the DFA. The tests compare both over the
//! corpus's strings and random text.

/// Which encoding's patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rules {
    O200k,
    Cl100k,
}

/// A text up to its first non-ASCII byte after the piece being cut (earlier bytes are never
/// read).
pub(super) struct AsciiRun<'a> {
    bytes: &'a [u8],
    /// Whether `bytes` reaches the end of the text (`$` can match there).
    at_end: bool,
}

impl<'a> AsciiRun<'a> {
    pub(super) fn new(bytes: &'a [u8], at_end: bool) -> Self {
        AsciiRun { bytes, at_end }
    }

    /// The byte at `i`; `Some(None)` at the text's end; `None` where the run stops before the
    /// end: what comes next is not ASCII, and the caller leaves the piece to the DFA.
    #[inline(always)]
    fn at(&self, i: usize) -> Option<Option<u8>> {
        match self.bytes.get(i) {
            Some(&c) => Some(Some(c)),
            None if self.at_end => Some(None),
            None => None,
        }
    }

    /// Where the run of bytes of `class` starting at `i` ends.
    #[inline(always)]
    fn run_end(&self, mut i: usize, class: impl Fn(u8) -> bool) -> Option<usize> {
        while self.at(i)?.is_some_and(&class) {
            i += 1;
        }
        Some(i)
    }

    /// The end of the piece that starts at `p` (`p < len`), or `None` when it is the DFA's
    /// to decide.
    #[inline(always)]
    pub(super) fn piece_end(&self, rules: Rules, p: usize) -> Option<usize> {
        debug_assert!(self.bytes[p].is_ascii());
        let c = self.bytes[p];
        let found = match rules {
            Rules::O200k => self.o200k_letters(p, c)?,
            Rules::Cl100k => self.cl100k_letters(p, c)?,
        };
        if let Some(end) = found {
            return Some(end);
        }
        if c.is_ascii_digit() {
            // \p{N}{1,3}
            let mut i = p + 1;
            while i < p + 3 && self.at(i)?.is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
            return Some(i);
        }
        if let Some(end) = self.punctuation(rules, p, c)? {
            return Some(end);
        }
        self.white_space(p)
    }

    /// o200k's first two alternatives: `P?[Lu]*[Ll]+C?` then `P?[Lu]+[Ll]*C?`, P a character
    /// that is no letter, digit or line break, C a contraction. In ASCII the upper- and
    /// lower-case classes are disjoint, so the first matches where an upper-case run (maybe
    /// empty) is followed by lower case, and the second takes an upper-case run alone.
    fn o200k_letters(&self, p: usize, c: u8) -> Option<Option<usize>> {
        let start = if is_prefix(c) { p + 1 } else { p };
        let upper_end = self.run_end(start, |c| c.is_ascii_uppercase())?;
        let lower_end = self.run_end(upper_end, |c| c.is_ascii_lowercase())?;
        if lower_end == start {
            return Some(None);
        }
        Some(Some(self.contraction(lower_end)?.unwrap_or(lower_end)))
    }

    /// cl100k's first two alternatives: a contraction, then `P?\p{L}+`.
    fn cl100k_letters(&self, p: usize, c: u8) -> Option<Option<usize>> {
        if let Some(end) = self.contraction(p)? {
            return Some(Some(end));
        }
        let start = if is_prefix(c) { p + 1 } else { p };
        let end = self.run_end(start, |c| c.is_ascii_alphabetic())?;
        Some((end > start).then_some(end))
    }

    /// The end of `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`, if it matches there.
    fn contraction(&self, i: usize) -> Option<Option<usize>> {
        if self.at(i)? != Some(b'\'') {
            return Some(None);
        }
        let Some(first) = self.at(i + 1)? else {
            return Some(None);
        };
        let second = |expected: u8| -> Option<Option<usize>> {
            let next = self.at(i + 2)?;
            Some(
                next.is_some_and(|c| c.eq_ignore_ascii_case(&expected))
                    .then_some(i + 3),
            )
        };
        match first.to_ascii_lowercase() {
            b's' | b't' | b'm' | b'd' => Some(Some(i + 2)),
            b'r' | b'v' => second(b'e'),
            b'l' => second(b'l'),
            _ => Some(None),
        }
    }

    /// ` ?[^\s\p{L}\p{N}]+[\r\n/]*` (cl100k's tail is `[\r\n]*`): a `/` after the line
    /// breaks is o200k's too (`;\n/Users`).
    fn punctuation(&self, rules: Rules, p: usize, c: u8) -> Option<Option<usize>> {
        let start = if c == b' ' { p + 1 } else { p };
        if !self.at(start)?.is_some_and(is_other) {
            return Some(None);
        }
        let run = self.run_end(start, is_other)?;
        let tail = match rules {
            Rules::O200k => self.run_end(run, |c| matches!(c, b'\r' | b'\n' | b'/'))?,
            Rules::Cl100k => self.run_end(run, |c| matches!(c, b'\r' | b'\n'))?,
        };
        Some(Some(tail))
    }

    /// The white-space alternatives, in order: `\s*[\r\n]+` (through the run's last line
    /// break), `\s+$`, `\s+(?!\S)` (the run but its last character), `\s+`.
    fn white_space(&self, p: usize) -> Option<usize> {
        let end = self.run_end(p, is_space)?;
        debug_assert!(end > p, "every ASCII byte starts some alternative");
        if let Some(last_break) = self.bytes[p..end]
            .iter()
            .rposition(|&c| c == b'\r' || c == b'\n')
        {
            return Some(p + last_break + 1);
        }
        if self.at(end)?.is_none() || end - p == 1 {
            return Some(end);
        }
        Some(end - 1)
    }
}

/// `\s` in ASCII: tab, line feed, vertical tab, form feed, carriage return, space.
fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// `[^\s\p{L}\p{N}]` in ASCII: punctuation, symbols and control characters.
fn is_other(c: u8) -> bool {
    !is_space(c) && !c.is_ascii_alphanumeric()
}

/// `[^\r\n\p{L}\p{N}]`: what may stand before a word.
fn is_prefix(c: u8) -> bool {
    c != b'\r' && c != b'\n' && !c.is_ascii_alphanumeric()
}

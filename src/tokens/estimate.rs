//! The character-class estimate behind [`Encoding::Estimate`]: a rough imitation of o200k's
//! pre-tokenizer (words split at case changes, digits in threes, punctuation runs, whitespace,
//! base64 and hex blobs) with a token cost per piece fitted to o200k counts on the shared corpus.

/// Letters a natural-language word gets for its first token (common words are one token).
const WORD_FREE_LETTERS: f64 = 11.0;
/// Letters an identifier, acronym or other non-word gets for its first token.
const OTHER_FREE_LETTERS: f64 = 8.0;
/// Letters per further token once a word is past its free letters.
const LETTERS_PER_TOKEN: f64 = 2.5;
/// Weight of a non-ASCII letter: it is two or more bytes for the BPE.
const NON_ASCII_LETTER: f64 = 1.5;
/// Punctuation characters per token after a run's first token.
const PUNCT_PER_TOKEN: f64 = 3.0;
/// Cost of newlines glued to a punctuation run (`},\n`), often merged into it.
const GLUED_NEWLINES: f64 = 0.75;
/// Newlines and spaces one token covers in a long run.
const NEWLINES_PER_TOKEN: usize = 16;
const SPACES_PER_TOKEN: usize = 128;
/// Tokens per CJK character.
const CJK_TOKENS: f64 = 0.75;
/// Tokens per non-ASCII symbol or emoji.
const SYMBOL_TOKENS: f64 = 2.0;
/// Shortest run of base64 or hex characters treated as random data.
const BLOB_MIN: usize = 32;
/// Tokens per character of random base64 and hex (measured on random strings).
const BASE64_TOKENS: f64 = 0.68;
const HEX_TOKENS: f64 = 0.57;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Cjk,
    Digit,
    Newline,
    Space,
    Punct,
    Symbol,
}

fn class(c: char) -> Class {
    match c {
        'A'..='Z' => Class::Upper,
        'a'..='z' => Class::Lower,
        '0'..='9' => Class::Digit,
        '\n' | '\r' => Class::Newline,
        c if c.is_ascii_whitespace() => Class::Space,
        c if c.is_ascii() => Class::Punct,
        c if is_cjk(c) => Class::Cjk,
        c if c.is_alphabetic() && c.is_uppercase() => Class::Upper,
        c if c.is_alphabetic() => Class::Lower,
        c if c.is_numeric() => Class::Digit,
        c if c.is_whitespace() => Class::Space,
        _ => Class::Symbol,
    }
}

/// Kana, CJK ideographs, Hangul, CJK punctuation and full-width forms.
fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0xFF00..=0xFFEF)
}

fn is_vowel(c: char) -> bool {
    matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

/// Estimated o200k_base tokens in `text`.
pub(super) fn count(text: &str) -> usize {
    let mut scan = Scanner {
        rest: text,
        prev: '\0',
    };
    let mut tokens = 0.0;
    while let Some(next) = scan.next_class() {
        if let Some(blob) = scan.blob() {
            tokens += blob;
            continue;
        }
        tokens += match next {
            Class::Upper | Class::Lower => scan.word(),
            Class::Cjk => scan.take_while(|k| k == Class::Cjk) as f64 * CJK_TOKENS,
            Class::Digit => scan.take_while(|k| k == Class::Digit).div_ceil(3) as f64,
            Class::Newline | Class::Space => scan.whitespace(),
            Class::Punct => scan.punctuation(),
            Class::Symbol => scan.symbol(),
        };
    }
    tokens.round() as usize
}

struct Scanner<'a> {
    /// The text not consumed yet.
    rest: &'a str,
    /// The last character consumed.
    prev: char,
}

impl Scanner<'_> {
    fn next_class(&self) -> Option<Class> {
        self.rest.chars().next().map(class)
    }

    fn take_while(&mut self, mut keep: impl FnMut(Class) -> bool) -> usize {
        self.take_chars_while(|_, k| keep(k))
    }

    /// Consumes characters while `keep` says so and returns how many.
    fn take_chars_while(&mut self, mut keep: impl FnMut(char, Class) -> bool) -> usize {
        let mut taken = 0;
        while let Some(c) = self.rest.chars().next() {
            if !keep(c, class(c)) {
                break;
            }
            self.rest = &self.rest[c.len_utf8()..];
            self.prev = c;
            taken += 1;
        }
        taken
    }

    /// A long run of mixed-case base64 or of hex with digits: random data, which BPE
    /// splits into very short tokens.
    fn blob(&mut self) -> Option<f64> {
        if self.prev.is_ascii() && is_base64(self.prev as u8) {
            return None;
        }
        let bytes = self.rest.as_bytes();
        let len = bytes.iter().take_while(|&&b| is_base64(b)).count();
        if len < BLOB_MIN {
            return None;
        }
        let run = &bytes[..len];
        let has = |f: fn(&u8) -> bool| run.iter().any(f);
        let (digit, upper, lower) = (
            has(u8::is_ascii_digit),
            has(u8::is_ascii_uppercase),
            has(u8::is_ascii_lowercase),
        );
        let hex = run.iter().all(u8::is_ascii_hexdigit) && upper != lower;
        let per_char = match () {
            _ if digit && hex => HEX_TOKENS,
            _ if digit && upper && lower => BASE64_TOKENS,
            _ => return None,
        };
        let padding = bytes[len..].iter().take_while(|&&b| b == b'=').count();
        self.prev = char::from(bytes[len + padding - 1]);
        self.rest = &self.rest[len + padding..];
        Some(len as f64 * per_char)
    }

    fn symbol(&mut self) -> f64 {
        if let Some(c) = self.rest.chars().next() {
            self.rest = &self.rest[c.len_utf8()..];
            self.prev = c;
        }
        SYMBOL_TOKENS
    }

    /// One word piece: optional capitals, then lower-case letters (`getTokenCount` is three).
    fn word(&mut self) -> f64 {
        let (mut weight, mut letters, mut vowels, mut seen_lower) = (0.0, 0, 0, false);
        self.take_chars_while(|c, k| {
            let keep = k == Class::Lower || (k == Class::Upper && !seen_lower);
            if keep {
                seen_lower |= k == Class::Lower;
                weight += if c.is_ascii() { 1.0 } else { NON_ASCII_LETTER };
                letters += 1;
                vowels += usize::from(is_vowel(c));
            }
            keep
        });
        // Natural words have 25-60% vowels; identifiers, acronyms and hashes often do not.
        let natural =
            letters <= 3 || (letters * 25 <= vowels * 100 && vowels * 100 <= letters * 60);
        let free = if natural {
            WORD_FREE_LETTERS
        } else {
            OTHER_FREE_LETTERS
        };
        1.0 + (weight - free).max(0.0) / LETTERS_PER_TOKEN
    }

    /// A newline run costs a token, indentation after it another; a single space before a
    /// word or punctuation is part of that piece.
    fn whitespace(&mut self) -> f64 {
        let (mut newlines, mut tail) = (0usize, 0usize);
        self.take_while(|k| {
            if k == Class::Newline {
                newlines += 1;
                tail = 0;
            } else if k == Class::Space {
                tail += 1;
            }
            matches!(k, Class::Newline | Class::Space)
        });
        let joins_next = !self.rest.is_empty() && self.prev == ' ';
        let indent = tail - usize::from(joins_next && tail > 0);
        (newlines.div_ceil(NEWLINES_PER_TOKEN) + indent.div_ceil(SPACES_PER_TOKEN)) as f64
    }

    /// A lone punctuation character before a word is part of it (`.rs`, `_id`); longer
    /// runs, or one after a space, are pieces of their own.
    fn punctuation(&mut self) -> f64 {
        let after_space = self.prev == ' ';
        let len = self.take_while(|k| k == Class::Punct);
        let before_word = matches!(self.next_class(), Some(Class::Upper | Class::Lower));
        if len == 1 && !after_space && before_word {
            return 0.0;
        }
        let glued = self.take_while(|k| k == Class::Newline) > 0;
        let glued_cost = if glued { GLUED_NEWLINES } else { 0.0 };
        1.0 + (len - 1) as f64 / PUNCT_PER_TOKEN + glued_cost
    }
}

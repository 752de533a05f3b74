//! Text read in place: character-counted slices, white space collapsed (or checked to be),
//! words found in names in any case. Borrowed answers where a copy is not needed: these run
//! on every message and tool call of every compaction, and copies were most of their cost.

/// Whether `name` holds `word` (lowercase ASCII) in any ASCII case: what
/// `name.to_ascii_lowercase().contains(word)` answers, without the copy.
pub fn holds_ignoring_case(name: &str, word: &str) -> bool {
    debug_assert!(word.is_ascii() && word.to_ascii_lowercase() == word);
    let word = word.as_bytes();
    let Some(&first) = word.first() else {
        return true;
    };
    // The first byte compared alone first: most places of a name differ there.
    name.as_bytes()
        .windows(word.len())
        .any(|w| w[0].to_ascii_lowercase() == first && w.eq_ignore_ascii_case(word))
}

/// `text` with runs of whitespace collapsed to one space, trimmed.
pub fn collapse_whitespace(text: &str) -> String {
    // Built in place: collecting the words first cost 16 bytes per word, several times the
    // text itself on large tool outputs, and set the peak memory of a compaction. Read byte
    // by byte, decoding only non-ASCII characters: `split_whitespace` decoded every one, 3%
    // of compacting the tau-bench file. Words already one space apart are copied as one
    // stretch: a copy per word cost three times the scan on prose.
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() {
            let (space, len) = whitespace_at(text, i);
            if !space {
                break;
            }
            i += len;
        }
        if i == bytes.len() {
            return out;
        }
        let stretch = i;
        while i < bytes.len() {
            // Printable ASCII is never white space: the common case, one comparison a byte.
            if is_printable_ascii(bytes[i]) {
                i += 1;
                continue;
            }
            // One plain space before printable ASCII stays as it is: the stretch goes on.
            if bytes[i] == b' ' && bytes.get(i + 1).copied().is_some_and(is_printable_ascii) {
                i += 2;
                continue;
            }
            let (space, len) = whitespace_at(text, i);
            if space {
                break;
            }
            i += len;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&text[stretch..i]);
    }
}

/// Whether `text` is its own [`collapse_whitespace`]: no white space at either end, and only
/// single plain spaces between words. Read in place, without making the collapsed copy.
pub fn is_collapsed(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    // Whether the character before `i` is white space (true at the start: none may lead).
    let mut after_space = true;
    while i < bytes.len() {
        if is_printable_ascii(bytes[i]) {
            after_space = false;
            i += 1;
            continue;
        }
        let (space, len) = whitespace_at(text, i);
        if space && (after_space || bytes[i] != b' ') {
            return false;
        }
        after_space = space;
        i += len;
    }
    !after_space || text.is_empty()
}

/// Whether `b` is printable ASCII, never white space.
fn is_printable_ascii(b: u8) -> bool {
    (b'!'..=b'~').contains(&b)
}

/// Whether the character at byte `i` of `text` is white space ([`char::is_whitespace`]), and
/// its length.
fn whitespace_at(text: &str, i: usize) -> (bool, usize) {
    let b = text.as_bytes()[i];
    if b.is_ascii() {
        // U+0009..U+000D and the space: `char::is_whitespace` on ASCII (vertical tab
        // included, unlike `u8::is_ascii_whitespace`).
        return (matches!(b, b'\t'..=b'\r' | b' '), 1);
    }
    let c = text[i..].chars().next().expect("a character starts here");
    (c.is_whitespace(), c.len_utf8())
}

/// At most `max` characters of `text`.
pub fn clip(text: &str, max: usize) -> String {
    // One copy of a slice: collecting the characters pushed them one by one, encoding each
    // again (`String::from_iter<char>`, 2% of a warm in-process call on the tau-bench runs).
    head_chars(text, max).to_string()
}

/// The first `max` characters of `text`, borrowed.
pub fn head_chars(text: &str, max: usize) -> &str {
    // No more characters than bytes; an ASCII start is as many characters as bytes.
    if text.len() <= max {
        return text;
    }
    if text.as_bytes()[..max].is_ascii() {
        return &text[..max];
    }
    match text.char_indices().nth(max) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// The last `n` characters of `text`, borrowed (all of it when it has fewer).
pub fn tail_chars(text: &str, n: usize) -> &str {
    if n == 0 {
        return &text[text.len()..];
    }
    match text.char_indices().nth_back(n - 1) {
        Some((start, _)) => &text[start..],
        None => text,
    }
}

//! Numbers as notes, logs and tables print them for people: thousands separators and counts
//! whose noun agrees; and the one shape of a warning on stderr. Every layer writes such text
//! (strategy notes, trigger reasons, reports), so it lives below all of them rather than in
//! [`crate::report`].

/// `1234567` → `1,234,567`. Takes any unsigned count (`usize`, `u64`...).
pub fn thousands(n: impl TryInto<u64>) -> String {
    let digits = n.try_into().unwrap_or(u64::MAX).to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count and its noun, agreeing: `1 file`, `0 files`, `1,234 files`.
/// `1234567` → `1.2 MB`: a size as people read it in a table.
pub fn bytes(n: u64) -> String {
    match n {
        n if n < 1_000 => format!("{n} B"),
        n if n < 1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        n if n < 1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        n => format!("{:.1} GB", n as f64 / 1e9),
    }
}

pub fn plural(n: usize, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {noun}{s}", thousands(n))
}

/// Prints `ctxc: warning: MESSAGE` on stderr (the run goes on).
pub fn warn(message: impl std::fmt::Display) {
    eprintln!("ctxc: warning: {message}");
}

/// A path as messages, warnings and tables print it: lossy UTF-8, with control characters
/// escaped (`\n`, `\t`, `\u{1b}`…) and a backslash doubled, so a file name holding a newline
/// or a terminal escape cannot forge a log line or repaint the terminal.
pub fn path(path: &std::path::Path) -> String {
    text(&path.to_string_lossy()).into_owned()
}

/// [`path`] as a method, for messages: `format!("{}", file.shown())` where `display()` would
/// print a newline in a file name as it is.
pub trait Shown {
    /// The path as [`path`] prints it.
    fn shown(&self) -> String;
}

impl Shown for std::path::Path {
    fn shown(&self) -> String {
        path(self)
    }
}

impl Shown for std::path::PathBuf {
    fn shown(&self) -> String {
        path(self)
    }
}

/// `text` with control characters escaped as [`path`] does (borrowed when there are none).
pub fn text(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() || c == '\\') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_with_control_characters_escaped() {
        let forged = std::path::Path::new("a\nctxc: restored everything\t\u{1b}[2J.jsonl");
        assert_eq!(
            path(forged),
            "a\\nctxc: restored everything\\t\\u{1b}[2J.jsonl"
        );
        assert_eq!(path(std::path::Path::new("/w/é s.jsonl")), "/w/é s.jsonl");
        assert_eq!(text(r"C:\x"), r"C:\\x");
    }

    #[test]
    fn plurals_agree() {
        assert_eq!(plural(1, "turn"), "1 turn");
        assert_eq!(plural(0, "call"), "0 calls");
        assert_eq!(plural(29733, "conversation"), "29,733 conversations");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0u64), "0");
        assert_eq!(thousands(999usize), "999");
        assert_eq!(thousands(1000u32), "1,000");
        assert_eq!(thousands(1234567u64), "1,234,567");
    }
}

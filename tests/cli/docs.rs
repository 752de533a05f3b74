//! The guide stays true to the code: README.md, CONTRIBUTING.md and every page of `docs/`.
//! Each `ctxc` command they show (in shell blocks, and inline) parses with today's flags, each
//! link points at a page and heading that are there, each path they name exists, and
//! CONTRIBUTING.md's module map lists every module of `src/lib.rs`. What the examples print
//! is held by the tests that run them (`first_hour.rs`, `archive.rs`, `fleet.rs`, `s3*.rs`,
//! `python/tests/test_api.py` for docs/python.md).

use clap::Parser;
use std::path::{Path, PathBuf};

/// The pages of the guide, relative to the root.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md"), PathBuf::from("CONTRIBUTING.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(crate::root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(crate::root()).unwrap().to_path_buf())
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn read(page: &Path) -> String {
    std::fs::read_to_string(crate::root().join(page)).unwrap()
}

/// A page's lines with, for each, whether it is inside a fenced block and that block's
/// language (`""` for none).
fn lines(text: &str) -> Vec<(usize, &str, Option<&str>)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(lang.trim()),
            };
            continue;
        }
        out.push((i + 1, line, fence));
    }
    out
}

/// Shell words of one command line, operators (`|`, `&&`, `;`, `>`, `(`…) as words of their
/// own; a `#` starting a word comments out the rest.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    let mut started = false;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, '\\') => word.extend(chars.next()),
            (None, '#') if !started => break,
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, '|' | '&' | ';' | '>' | '<' | '(' | ')') => {
                if started && !(c == '>' && word == "2") {
                    words.push(std::mem::take(&mut word));
                }
                word.clear();
                started = false;
                words.push(c.to_string());
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// The `ctxc` invocations in a shell line: each simple command whose program is `ctxc`,
/// without the variables set before it and its redirections.
fn invocations(line: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let words = shell_words(line);
    for segment in words.split(|w| ["|", "&", ";", "(", ")"].contains(&w.as_str())) {
        let mut args = Vec::new();
        let mut redirected = false;
        for w in segment {
            if redirected {
                redirected = false;
            } else if w == ">" || w == "<" {
                redirected = true;
            } else if args.is_empty() && w.contains('=') && !w.starts_with('-') {
                // A variable set for the command.
            } else {
                args.push(w.clone());
            }
        }
        if args.first().is_some_and(|p| p == "ctxc") {
            found.push(args);
        }
    }
    found
}

/// The command lines of a page's shell blocks (continuations joined), with their lines. In
/// a block that shows a session (`$ ` prompts), only the prompted lines are commands.
fn block_commands(text: &str) -> Vec<(usize, String)> {
    let shell = |lang: &str| ["", "sh", "bash", "console", "shell"].contains(&lang);
    let all = lines(text);
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let (_, _, Some(lang)) = all[i] else {
            i += 1;
            continue;
        };
        let start = i;
        while i < all.len() && all[i].2.is_some() {
            i += 1;
        }
        if !shell(lang) {
            continue;
        }
        let block = &all[start..i];
        let prompted = block.iter().any(|(_, l, _)| l.starts_with("$ "));
        let mut pending: Option<(usize, String)> = None;
        for &(n, line, _) in block {
            let line = match (&pending, prompted) {
                (Some(_), _) => line,
                (None, true) => match line.strip_prefix("$ ") {
                    Some(rest) => rest,
                    None => continue,
                },
                (None, false) => line,
            };
            let (at, mut joined) = pending.take().unwrap_or((n, String::new()));
            match line.strip_suffix('\\') {
                Some(head) => {
                    joined.push_str(head);
                    pending = Some((at, joined));
                }
                None => {
                    joined.push_str(line);
                    out.push((at, joined));
                }
            }
        }
    }
    out
}

/// Inline code spans of a page's prose (outside fenced blocks), with their lines.
fn inline_spans(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    for (n, line, fence) in lines(text) {
        if fence.is_some() {
            continue;
        }
        // A double-backtick span (`` `x` ``) holds backticks: skip the line's spans then.
        if line.contains("``") {
            continue;
        }
        let parts: Vec<&str> = line.split('`').collect();
        for (k, part) in parts.iter().enumerate() {
            if k % 2 == 1 && k + 1 < parts.len() {
                spans.push((n, part.to_string()));
            }
        }
    }
    spans
}

/// Why `args` (`ctxc …`) does not parse, if it does not. A mention in prose (`inline`) may
/// leave out the inputs (`ctxc compact --repair`); its command and flags must still exist.
fn refused(args: &[String], inline: bool) -> Option<String> {
    use clap::error::ErrorKind;
    match ctxc::cli::Cli::try_parse_from(args) {
        Ok(_) => None,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => None,
        Err(e) if inline && e.kind() == ErrorKind::MissingRequiredArgument => None,
        Err(e) => Some(e.to_string().lines().next().unwrap_or("").to_string()),
    }
}

/// Whether an inline span is a usage pattern rather than an example: `ctxc man
/// [COMMAND...]`, `bash|zsh`, `ctxc COMMAND --help`.
fn is_pattern(span: &str) -> bool {
    let placeholder =
        |w: &str| w.len() > 1 && w.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    span.contains(['[', '|', '…']) || span.contains("...") || span.split(' ').any(placeholder)
}

#[test]
fn every_command_the_guide_shows_parses() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        let blocks = block_commands(&text)
            .into_iter()
            .map(|(n, l)| (n, l, false));
        let inline = inline_spans(&text)
            .into_iter()
            .filter(|(_, span)| span.starts_with("ctxc ") && !is_pattern(span))
            .map(|(n, l)| (n, l, true));
        for (n, line, inline) in blocks.chain(inline) {
            for args in invocations(&line) {
                checked += 1;
                if let Some(why) = refused(&args, inline) {
                    bad.push(format!(
                        "{}:{n}: `{}`: {why}",
                        page.display(),
                        args.join(" ")
                    ));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} commands found");
    assert!(
        bad.is_empty(),
        "commands that no longer parse:\n{}",
        bad.join("\n")
    );
}

/// A heading as GitHub makes it an anchor: lower case, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    lines(text)
        .into_iter()
        .filter(|(_, _, fence)| fence.is_none())
        .filter_map(|(_, l, _)| l.strip_prefix('#'))
        .map(|h| anchor(h.trim_start_matches('#')))
        .collect()
}

/// The targets of a page's markdown links (`[text](target)`), with their lines.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line, fence) in lines(text) {
        if fence.is_some() {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                out.push((n, rest[..end].to_string()));
                rest = &rest[end..];
            }
        }
    }
    out
}

#[test]
fn every_link_of_the_guide_points_at_a_page_and_heading_that_are_there() {
    let mut bad = Vec::new();
    for page in pages() {
        let text = read(&page);
        let dir = page.parent().unwrap_or(Path::new(""));
        for (n, target) in links(&text) {
            if target.starts_with("http") {
                continue;
            }
            let (file, heading) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            let full = crate::root().join(&path);
            if !full.exists() {
                bad.push(format!("{}:{n}: {target}: no such file", page.display()));
            } else if !heading.is_empty() && !anchors(&read(&path)).contains(&heading.to_string()) {
                bad.push(format!("{}:{n}: {target}: no such heading", page.display()));
            }
        }
    }
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn every_path_the_guide_names_exists() {
    let roots = [
        "src/",
        "tests/",
        "scripts/",
        "examples/",
        "python/",
        "benches/",
        "fixtures/",
        "docs/",
        "man/",
        ".ci/",
    ];
    // The artifact index example of docs/measuring.md folds made-up files.
    let made_up = ["src/a.rs", "src/b.rs"];
    let mut bad = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for (n, span) in inline_spans(&read(&page)) {
            let path = span.split_whitespace().next().unwrap_or("");
            let placeholder = path.contains(['*', '<', '{', '…', '$']) || path.contains("NAME");
            if !roots.iter().any(|r| path.starts_with(r)) || placeholder || made_up.contains(&path)
            {
                continue;
            }
            checked += 1;
            if !crate::root().join(path).exists() {
                bad.push(format!("{}:{n}: {path}", page.display()));
            }
        }
    }
    assert!(checked > 50, "only {checked} paths found");
    assert!(
        bad.is_empty(),
        "paths that are not there:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_module_map_of_contributing_lists_every_module() {
    let lib = read(Path::new("src/lib.rs"));
    let guide = read(Path::new("CONTRIBUTING.md"));
    let map = &guide[guide.find("## Module map").unwrap()..];
    let map = &map[..map[3..].find("\n## ").map_or(map.len(), |e| e + 3)];
    let missing: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            let l = l
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            l.strip_prefix("mod ")?.strip_suffix(';')
        })
        .filter(|m| !map.contains(&format!("`{m}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "modules of src/lib.rs missing from CONTRIBUTING.md's module map: {missing:?}"
    );
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = read(Path::new("README.md"));
    let n = readme.lines().count();
    assert!(
        n <= 350,
        "README.md is {n} lines: move the details into docs/"
    );
}

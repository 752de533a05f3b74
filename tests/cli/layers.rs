//! The floors of `src/` (issue 41): the commands and the library facade sit on top, and no
//! lower module reaches up into them. An import upward is how the last circle came back
//! (`api → commands/compact_report → repair → repair/oversize → api`), so each rule names the
//! files that break it.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, as paths relative to `src/`.
fn sources(src: &Path, dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(src, &path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path.strip_prefix(src).unwrap().to_path_buf());
        }
    }
}

/// The files of `src/` (as `src/…`) whose code, comments aside, names `needle`.
fn naming(needle: &str) -> Vec<String> {
    let src = crate::root().join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|rel| {
            let text = std::fs::read_to_string(src.join(rel)).unwrap();
            text.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(|l| l.contains(needle))
        })
        .map(|rel| format!("src/{}", rel.display()))
        .collect()
}

/// [`naming`], but for the files outside `allowed` (paths or folders under `src/`).
fn outside(needle: &str, allowed: &[&str]) -> Vec<String> {
    naming(needle)
        .into_iter()
        .filter(|f| !allowed.iter().any(|a| f.starts_with(&format!("src/{a}"))))
        .collect()
}

#[test]
fn nothing_below_the_commands_imports_from_them() {
    let up = outside(
        "crate::commands",
        &["commands/", "cli/", "main.rs", "lib.rs"],
    );
    assert!(
        up.is_empty(),
        "these reach up into src/commands/ (move what they need below it): {up:?}"
    );
}

#[test]
fn nothing_below_the_library_facade_calls_it() {
    let up = outside("crate::api", &["commands/", "api.rs", "main.rs", "lib.rs"]);
    assert!(
        up.is_empty(),
        "these call src/api.rs, which sits above them (build a pipeline::Settings): {up:?}"
    );
}

#[test]
fn repair_does_not_import_the_report_that_lists_its_repairs() {
    let up: Vec<String> = naming("crate::report")
        .into_iter()
        .filter(|f| f.starts_with("src/repair/"))
        .collect();
    assert!(
        up.is_empty(),
        "the compact report holds repair::Repair, so src/repair/ may not import it: {up:?}"
    );
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    // A file past this holds more than one concept: split it where the concepts part.
    let src = crate::root().join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|rel| {
            let lines = std::fs::read_to_string(src.join(rel))
                .unwrap()
                .lines()
                .count();
            (lines > 1000).then(|| format!("src/{} ({lines} lines)", rel.display()))
        })
        .collect();
    long.sort();
    assert!(long.is_empty(), "split these: {long:?}");
}

#[test]
fn every_file_is_put_in_place_by_the_outputs_module() {
    // A temporary file made or renamed elsewhere is a write path of its own (issue 41, item 3):
    // write through `outputs::Destination` or `outputs::atomic` instead.
    for needle in ["create_in(", ".persist("] {
        let stray = outside(needle, &["outputs/", "inplace/"]);
        assert!(
            stray.is_empty(),
            "these write files past src/outputs/ ({needle}): {stray:?}"
        );
    }
    let second = [naming("enum Destination"), naming("enum Dest ")].concat();
    assert_eq!(
        second,
        ["src/outputs/destination.rs"],
        "one Destination, in src/outputs/"
    );
}

/// The variants of `outputs::Destination`, in order.
fn destination_variants() -> Vec<String> {
    let text = std::fs::read_to_string(crate::root().join("src/outputs/destination.rs")).unwrap();
    let body = &text[text.find("pub enum Destination {").unwrap()..];
    let body = &body[..body.find("\n}").unwrap()];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.starts_with("pub enum"))
        .filter_map(|l| {
            let name: String = l.chars().take_while(|c| c.is_alphanumeric()).collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

#[test]
fn the_sink_walk_through_lists_every_destination_and_its_file() {
    let guide = std::fs::read_to_string(crate::root().join("CONTRIBUTING.md")).unwrap();
    let section = &guide[guide.find("## Adding a sink").unwrap()..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    // The table's rows: | `Variant` | sink | `its file` |
    let rows: Vec<(String, String)> = section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(|c| c.trim().trim_matches('`')).collect();
            (cells[1].to_string(), cells[3].to_string())
        })
        .collect();
    let listed: Vec<String> = rows.iter().map(|(v, _)| v.clone()).collect();
    assert_eq!(
        listed,
        destination_variants(),
        "CONTRIBUTING.md's sink table and outputs::Destination differ"
    );
    for (variant, file) in &rows {
        assert!(
            crate::root().join(file).is_file(),
            "{variant}: {file} is not there"
        );
    }
}

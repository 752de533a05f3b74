#[test]
fn the_definition_is_consistent() {
    super::command().debug_assert();
}

#[test]
fn sizes_take_binary_suffixes() {
    use super::parse_size;
    assert_eq!(parse_size("4096"), Ok(4096));
    assert_eq!(parse_size("512M"), Ok(512 << 20));
    assert_eq!(parse_size("2g"), Ok(2 << 30));
    assert_eq!(parse_size("2GiB"), Ok(2 << 30));
    assert_eq!(parse_size("1 KB"), Ok(1024));
    assert_eq!(parse_size("3T"), Ok(3 << 40));
    for bad in ["", "G", "1.5G", "-1", "12X", "0", "99999999999T"] {
        assert!(parse_size(bad).is_err(), "{bad}");
    }
}

/// Every command's path (`["report", "merge"]`), `help` aside.
fn command_paths(cmd: &clap::Command, path: &mut Vec<String>, into: &mut Vec<Vec<String>>) {
    into.push(path.clone());
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        path.push(sub.get_name().to_string());
        command_paths(sub, path, into);
        path.pop();
    }
}

#[test]
fn every_command_has_examples_and_each_parses() {
    let cmd = super::command();
    let mut paths = Vec::new();
    command_paths(&cmd, &mut Vec::new(), &mut paths);
    for path in paths {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        let examples = super::help::examples(&path);
        assert!(
            !examples.is_empty(),
            "`ctxc {}` has no examples",
            path.join(" ")
        );
        for (line, _) in examples {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(words.first(), Some(&"ctxc"), "{line}");
            assert_eq!(
                &words[1..1 + path.len()],
                path.as_slice(),
                "{line} is not an example of it"
            );
            if let Err(e) = super::command().try_get_matches_from(&words) {
                panic!("`{line}` does not parse: {e}");
            }
        }
    }
}

#[test]
fn long_help_and_man_pages_have_examples_and_exit_status_short_help_does_not() {
    let mut cmd = super::command();
    let sub = cmd.find_subcommand_mut("compact").unwrap();
    let long = sub.render_long_help().to_string();
    let short = sub.render_help().to_string();
    assert!(
        long.contains("Examples:") && long.contains("Exit status:"),
        "{long}"
    );
    assert!(long.contains("ctxc compact --in-place --archive --drop-stored @8463"));
    assert!(!short.contains("Examples:") && !short.contains("Exit status:"));
    assert!(short.lines().count() < long.lines().count());
    for (name, page) in super::man_pages() {
        let page = String::from_utf8(page).unwrap();
        assert!(page.contains(".SH \"EXIT STATUS\""), "{name}");
        assert!(page.contains(".SH EXAMPLES"), "{name}");
        assert!(!page.contains(".SH EXTRA"), "{name}");
        assert_eq!(
            page.matches(".el .ds Aq").count(),
            1,
            "one preamble in {name}"
        );
    }
}

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

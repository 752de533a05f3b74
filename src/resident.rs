//! Giving the pages of the program's read-only mappings back to the system while a large
//! input is compacted.
//!
//! Every page of the binary that a run touched stays in its resident set and counts in its
//! peak: the token tables (counting a few MB of varied text reads nearly all of o200k's
//! 6.3 MB), and the code and constants of every phase (~5 MB). Later phases need little of
//! either. These pages are clean copies of files (the binary, its libraries), so dropping
//! them loses nothing: the next read faults the page back in from the page cache.
//!
//! Only mappings that are file-backed, private, not writable and hold no private copy of a
//! page (`Anonymous: 0 kB` in `/proc/self/smaps`) are released: relocated read-only data
//! (RELRO) has private copies, and dropping those would lose the relocations.

/// Tells the kernel it may drop the resident pages of every clean read-only mapping of a
/// file; does nothing where that cannot be checked.
#[cfg(target_os = "linux")]
pub fn release_read_only_pages() {
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
        return;
    };
    for (start, end) in clean_read_only_mappings(&smaps) {
        release(start, end);
    }
}

/// Elsewhere the pages stay (and the kernel reclaims clean file pages under pressure anyway).
#[cfg(not(target_os = "linux"))]
pub fn release_read_only_pages() {}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn release(start: usize, end: usize) {
    // SAFETY: `start..end` is a whole mapping of a file that is private, not writable and
    // holds no private copy of any page (checked by the caller from /proc/self/smaps):
    // nothing in it can differ from the file, so MADV_DONTNEED only drops page-cache pages,
    // which the next read faults back in unchanged. No Rust reference is invalidated.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
    }
}

/// The address ranges of the mappings in `smaps` that are file-backed, private, readable,
/// not writable, and hold no anonymous (copied-on-write) page.
fn clean_read_only_mappings(smaps: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    for line in smaps.lines() {
        if let Some(mapping) = read_only_file_mapping(line) {
            current = mapping;
        } else if let Some(kb) = line.strip_prefix("Anonymous:") {
            let clean = kb.trim().strip_suffix("kB").map(str::trim) == Some("0");
            if let Some(range) = current.take().filter(|_| clean) {
                found.push(range);
            }
        }
    }
    found
}

/// For a mapping header line ("lo-hi perms offset dev inode path"): `Some(range)` when it is
/// a private, readable, not writable mapping of a file, `Some(None)` for any other mapping;
/// `None` when the line is not a header.
fn read_only_file_mapping(line: &str) -> Option<Option<(usize, usize)>> {
    let mut fields = line.split_whitespace();
    let (range, perms, _, _, inode) = (
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
    );
    let (lo, hi) = range.split_once('-')?;
    let (lo, hi) = (
        usize::from_str_radix(lo, 16).ok()?,
        usize::from_str_radix(hi, 16).ok()?,
    );
    if perms.len() != 4 || !inode.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let clean = perms.starts_with('r') && !perms.contains('w') && perms.ends_with('p');
    Some((clean && inode != "0" && lo < hi).then_some((lo, hi)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55d0c0000000-55d0c1000000 r--p 00000000 fe:00 5382895                    /usr/bin/ctxc
Size:              16384 kB
Rss:                2688 kB
Anonymous:             0 kB
55d0c1000000-55d0c1400000 r-xp 01000000 fe:00 5382895                    /usr/bin/ctxc
Size:               4096 kB
Anonymous:             0 kB
55d0c1400000-55d0c1467000 r--p 01400000 fe:00 5382895                    /usr/bin/ctxc
Size:                412 kB
Anonymous:           412 kB
55d0c1467000-55d0c1469000 rw-p 01467000 fe:00 5382895                    /usr/bin/ctxc
Anonymous:             8 kB
55d0c2000000-55d0c3000000 rw-p 00000000 00:00 0                          [heap]
Anonymous:         16384 kB
7f0000000000-7f0000001000 r--p 00000000 00:00 0 
Anonymous:             0 kB
";

    #[test]
    fn only_clean_read_only_file_mappings_are_released() {
        assert_eq!(
            clean_read_only_mappings(SMAPS),
            vec![
                (0x55d0c0000000, 0x55d0c1000000),
                (0x55d0c1000000, 0x55d0c1400000)
            ],
            "not the relocated read-only data, the writable data, the heap or anonymous memory"
        );
    }

    static EMBEDDED: [u8; 3 << 16] = [7; 3 << 16];

    #[test]
    fn released_pages_read_back_unchanged() {
        let before: u64 = EMBEDDED.iter().map(|&b| u64::from(b)).sum();
        release_read_only_pages();
        let after: u64 = EMBEDDED.iter().map(|&b| u64::from(b)).sum();
        assert_eq!(before, after);
        let relocated: &[&str] = &["a", "b"];
        assert_eq!(relocated.concat(), "ab", "relocated constants survive");
    }
}

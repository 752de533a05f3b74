//! Giving the pages of an embedded table back to the system once a large input is counted.
//!
//! The tables are read in place from the binary, so every page a run touched stays in its
//! resident set: after counting a few MB of varied text that is nearly all of o200k's 7.3 MB
//! table, more than a 12 MB input's decoded text. The pages are read-only and backed by the
//! binary's file, so dropping them loses nothing: a later lookup reads the page back from the
//! page cache.

/// Tells the kernel it may drop the resident pages of `bytes` (whole pages inside it only),
/// when they are a read-only private mapping of a file; otherwise does nothing.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub(super) fn release(bytes: &'static [u8]) {
    // SAFETY: sysconf only reads a system constant.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => return,
    };
    let start = (bytes.as_ptr() as usize).next_multiple_of(page);
    let end = (bytes.as_ptr() as usize + bytes.len()) / page * page;
    if end <= start || !file_backed_read_only(start, end) {
        return;
    }
    // SAFETY: the range is whole pages inside a `'static` slice that lies in a read-only,
    // private, file-backed mapping (checked above), which nothing can write: MADV_DONTNEED
    // drops them, and the next read faults them back in from the file, unchanged.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
    }
}

/// Whether `start..end` lies in one mapping of a file that is private and not writable (a
/// packed or copied binary could hold the tables in anonymous memory, which dropping would
/// zero).
#[cfg(target_os = "linux")]
fn file_backed_read_only(start: usize, end: usize) -> bool {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return false;
    };
    maps.lines().any(|line| {
        // "lo-hi perms offset dev inode path"
        let mut fields = line.split_whitespace();
        let (Some(range), Some(perms), Some(_), Some(_), Some(inode)) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return false;
        };
        let Some((lo, hi)) = range.split_once('-') else {
            return false;
        };
        let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        else {
            return false;
        };
        lo <= start
            && end <= hi
            && perms.starts_with('r')
            && !perms.contains('w')
            && perms.ends_with('p')
            && inode != "0"
    })
}

/// Elsewhere the pages stay (and the kernel reclaims clean file pages under pressure anyway).
#[cfg(not(target_os = "linux"))]
pub(super) fn release(_bytes: &'static [u8]) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    static EMBEDDED: [u8; 3 << 16] = [7; 3 << 16];

    fn page_range(bytes: &[u8]) -> (usize, usize) {
        let start = (bytes.as_ptr() as usize).next_multiple_of(1 << 16);
        (start, start + (1 << 16))
    }

    #[test]
    fn only_read_only_file_pages_are_released() {
        let (lo, hi) = page_range(&EMBEDDED);
        assert!(file_backed_read_only(lo, hi), "a static in the binary");
        let heap = vec![7u8; 3 << 16];
        let (lo, hi) = page_range(&heap);
        assert!(!file_backed_read_only(lo, hi), "heap memory");
        release(&EMBEDDED);
        assert!(
            EMBEDDED.iter().all(|&b| b == 7),
            "released pages read back unchanged"
        );
    }
}

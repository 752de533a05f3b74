//! Giving the pages of an embedded table back to the system once a large input is counted.
//!
//! The tables are read in place from the binary, so every page a run touched stays in its
//! resident set: ~14 MB of o200k's 12.4 MB table after counting a large transcript, which is
//! more than the input itself below ~10 MB. The pages are read-only and backed by the binary,
//! so dropping them loses nothing: a later lookup reads the page back from the page cache.

/// Tells the kernel it may drop the resident pages of `bytes` (whole pages inside it only).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub(super) fn release(bytes: &'static [u8]) {
    const PAGE: usize = 4096;
    let start = (bytes.as_ptr() as usize).next_multiple_of(PAGE);
    let end = (bytes.as_ptr() as usize + bytes.len()) / PAGE * PAGE;
    if end > start {
        // SAFETY: the range lies inside a `'static` read-only slice of the binary's own
        // file-backed image, which no code ever writes; MADV_DONTNEED on such a private
        // mapping only drops clean pages, which the next read faults back in unchanged.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
        }
    }
}

/// Elsewhere the pages stay (and the kernel reclaims clean file pages under pressure anyway).
#[cfg(not(target_os = "linux"))]
pub(super) fn release(_bytes: &'static [u8]) {}

//! Inputs: command-line paths (files, directories searched recursively, `-` for stdin, object
//! URLs and prefixes, see [`crate::store`]) turned into one sorted, de-duplicated list, and each
//! input's text loaded with errors that name it.

use crate::human::Shown;
use crate::store::Url;
use anyhow::{Context, Result};
use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// One transcript to process.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Input {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
    /// An object in an object store.
    Remote(Url),
}

impl Input {
    /// How the input is named in messages and reports.
    pub fn display(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".into(),
            // Control characters escaped: a name holding a newline cannot forge a line.
            Input::File(path) => crate::human::path(path),
            // An object key may hold a newline too.
            Input::Remote(url) => url.shown(),
        }
    }
}

/// An input that could not even be listed (missing path, unreadable directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The path as given.
    pub path: String,
    /// Why it was not usable.
    pub message: String,
    /// Whether it could not be opened or listed at all (an I/O error, which exits 2 as
    /// ripgrep's do), rather than found empty of matching files.
    pub unopened: bool,
}

impl InputError {
    /// Says the error on standard error and gives the status it calls for: 2 for a path that
    /// could not be opened (as ripgrep's), 1 for one that held nothing to read.
    pub fn report(&self) -> crate::exit::ExitStatus {
        eprintln!("ctxc: {}: {}", self.path, self.message);
        if self.unopened {
            crate::exit::ExitStatus::Error
        } else {
            crate::exit::ExitStatus::Failure
        }
    }
}

/// What a discovery found: the inputs, the paths that could not be used, and what the walks
/// left out.
#[derive(Debug, Default)]
pub struct Found {
    /// Sorted, de-duplicated inputs.
    pub inputs: Vec<Input>,
    /// Paths that could not be used.
    pub errors: Vec<InputError>,
    /// What directory walks left out.
    pub skipped: Skipped,
}

impl Found {
    /// The inputs and the paths that could not be used, having said (unless `quiet`) what the
    /// walks left out: what every command does first with a discovery.
    pub fn reported(self, quiet: bool) -> (Vec<Input>, Vec<InputError>) {
        self.skipped.report(quiet);
        (self.inputs, self.errors)
    }
}

/// What directory walks (and prefix listings) left out: ctxc's own files — outputs, archives,
/// backups, temporary files — and this run's own output folders inside an input. A file named
/// on the command line is read whatever its name.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// Files (or objects) with the name of one of ctxc's own.
    pub files: usize,
    /// This run's output or archive folders met inside an input.
    pub folders: usize,
}

impl Skipped {
    fn add(&mut self, other: Skipped) {
        self.files += other.files;
        self.folders += other.folders;
    }

    /// The line that says what was skipped, when anything was.
    pub fn note(&self) -> Option<String> {
        use crate::human::plural;
        let mut parts = Vec::new();
        if self.files > 0 {
            parts.push(format!(
                "{} of ctxc's own (outputs, archives, backups, temporary files)",
                plural(self.files, "file")
            ));
        }
        if self.folders > 0 {
            parts.push(format!(
                "{} this run writes into",
                plural(self.folders, "folder")
            ));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "skipped {} found in the walk; name a file to read it",
                parts.join(" and ")
            )
        })
    }

    /// Prints [`Self::note`] to standard error unless `quiet`.
    pub fn report(&self, quiet: bool) {
        if let Some(note) = self.note().filter(|_| !quiet) {
            eprintln!("ctxc: {note}");
        }
    }
}

/// Expands `paths` into inputs: files as given, directories walked for names matching `globs`,
/// session references (`@ID`, see [`crate::sessions`]) replaced by their session files.
/// Inputs come back sorted and de-duplicated; problems come back beside them, so one bad path
/// never stops the others. A reference that names no session, or several, is an error: the
/// user meant one session, and no other input should run in its place. Walks leave out
/// ctxc's own files and the folders in `own` (this run's outputs, archives, report), so that
/// a second run over the same directory reads what the first one read.
pub fn discover(paths: &[PathBuf], globs: &[String], own: &[PathBuf]) -> Result<Found> {
    let walker = Walker {
        matcher: glob_set(globs)?,
        own: own.iter().filter_map(|p| p.canonicalize().ok()).collect(),
    };
    let paths = crate::sessions::resolve_all(paths)?;
    let mut found = Found::default();
    for path in &paths {
        if path.as_os_str() == "-" {
            found.inputs.push(Input::Stdin);
        } else if let Some(url) = Url::of_path(path) {
            remote(path, url, &walker.matcher, globs, &mut found);
        } else if path.is_dir() {
            let before = found.inputs.len();
            let (inputs, errors, skipped) = walker.folder(path);
            found.inputs.extend(inputs);
            found.errors.extend(errors);
            found.skipped.add(skipped);
            if found.inputs.len() == before {
                found.errors.push(InputError {
                    path: crate::human::path(path),
                    message: format!("no files matching {} in this directory", globs.join(", ")),
                    unopened: false,
                });
            }
        } else if path.exists() {
            found.inputs.push(Input::File(path.clone()));
        } else {
            found.errors.push(InputError {
                path: crate::human::path(path),
                message: "no such file or directory".into(),
                unopened: true,
            });
        }
    }
    found.inputs.sort();
    // One path names each file once (a walk does not follow links); only several paths can
    // name one file twice, and resolving every path costs a system call per component.
    if paths.len() > 1 {
        dedupe(&mut found.inputs);
    }
    Ok(found)
}

/// The same file named twice (`dir` and `./dir/a.json`) is one input.
fn dedupe(inputs: &mut Vec<Input>) {
    let mut seen = std::collections::HashSet::new();
    inputs.retain(|input| match input {
        Input::File(p) => seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())),
        Input::Stdin => seen.insert(PathBuf::from("-")),
        Input::Remote(url) => seen.insert(PathBuf::from(url.to_string())),
    });
}

/// An object URL given on the command line: the object itself, or when it names a prefix (a
/// trailing `/`, or a key with no object but objects below it), the objects below it whose
/// names match `globs`, like a directory walk.
fn remote(path: &Path, url: Result<Url>, matcher: &GlobSet, globs: &[String], found: &mut Found) {
    let inputs = &mut found.inputs;
    let skipped = &mut found.skipped;
    let mut fail = |message: String| {
        found.errors.push(InputError {
            path: crate::human::path(path),
            message,
            unopened: true,
        });
    };
    let url = match url {
        Ok(url) => url,
        Err(e) => return fail(format!("{e:#}")),
    };
    if let crate::store::Scheme::Http { .. } = url.scheme {
        // A web server has no listing to walk: the URL must name the object.
        return match crate::store::head(&url) {
            _ if url.is_prefix() => fail(
                "an http(s):// URL names one object; prefixes are listed on s3://, gs:// and az://"
                    .into(),
            ),
            Ok(Some(_)) => inputs.push(Input::Remote(url)),
            Ok(None) => fail("no such object".into()),
            Err(e) => fail(format!("{e:#}")),
        };
    }
    if !url.is_prefix() {
        match crate::store::head(&url) {
            Ok(Some(_)) => return inputs.push(Input::Remote(url)),
            Ok(None) => {}
            Err(e) => return fail(format!("{e:#}")),
        }
    }
    let listed = match crate::store::listing(&url) {
        Ok(listed) => listed,
        Err(e) => return fail(format!("{e:#}")),
    };
    if listed.objects.is_empty() && listed.odd.is_empty() && !url.is_prefix() {
        return fail("no such object, and no objects below it".into());
    }
    let wanted = |object: &Url| {
        matcher.is_match(object.file_name())
            && !crate::outputs::is_ctxc_output_name(object.file_name())
    };
    // Objects the client cannot address: named, and failed on their own (never read, never
    // written), while the others are processed.
    let odd: Vec<InputError> = listed
        .odd
        .iter()
        .filter(|object| wanted(object))
        .map(|object| InputError {
            path: crate::human::text(&object.to_string()).into_owned(),
            message: crate::store::odd_key(object),
            unopened: false,
        })
        .collect();
    let before = inputs.len();
    for (object, _, _) in listed.objects {
        if !matcher.is_match(object.file_name()) {
            continue;
        }
        if crate::outputs::is_ctxc_output_name(object.file_name()) {
            skipped.files += 1;
        } else {
            inputs.push(Input::Remote(object));
        }
    }
    if inputs.len() == before && odd.is_empty() {
        fail(format!(
            "no objects matching {} below this prefix",
            globs.join(", ")
        ));
    }
    found.errors.extend(odd);
}

/// Starts reading the objects among `inputs` ahead of the threads that will read them (see
/// [`crate::store::prefetch`]).
pub fn read_ahead(inputs: &[Input], limit: u64) {
    let objects: Vec<Url> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Remote(url) => Some(url.clone()),
            _ => None,
        })
        .collect();
    if !objects.is_empty() {
        crate::store::prefetch(&objects, limit);
    }
}

fn glob_set(globs: &[String]) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(Glob::new(glob).with_context(|| format!("invalid --glob pattern '{glob}'"))?);
    }
    Ok(builder.build()?)
}

/// How folders are walked: which names match, and which folders are this run's own.
struct Walker {
    matcher: GlobSet,
    /// This run's output and archive folders, resolved.
    own: Vec<PathBuf>,
}

impl Walker {
    /// The files below `dir` whose names match, at every depth, in path order, the folders
    /// that could not be read, and what was left out. Links are not followed. Each folder is
    /// read on the thread pool: one thread took 7–8 ms to list the 1,296 files of the corpus
    /// copied 16 times, while the other 15 of a 16-core machine waited for the list.
    fn folder(&self, dir: &Path) -> (Vec<Input>, Vec<InputError>, Skipped) {
        let unreadable = |path: &Path, e: std::io::Error| InputError {
            path: crate::human::path(path),
            message: format!(
                "IO error for operation on {}: {e}",
                crate::human::path(path)
            ),
            unopened: true,
        };
        let listing = match std::fs::read_dir(dir) {
            Ok(listing) => listing,
            Err(e) => return (Vec::new(), vec![unreadable(dir, e)], Skipped::default()),
        };
        let mut entries = Vec::new();
        let mut errors = Vec::new();
        for entry in listing {
            match entry.and_then(|e| Ok((e.file_name(), e.path(), e.file_type()?))) {
                Ok(entry) => entries.push(entry),
                Err(e) => errors.push(unreadable(dir, e)),
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let below: Vec<(Vec<Input>, Vec<InputError>, Skipped)> = entries
            .into_par_iter()
            .map(|(name, path, kind)| {
                let mut skipped = Skipped::default();
                if kind.is_dir() {
                    if self.is_own(&path) {
                        skipped.folders = 1;
                        return (Vec::new(), Vec::new(), skipped);
                    }
                    self.folder(&path)
                } else if kind.is_file() && self.matcher.is_match(&name) {
                    if crate::outputs::is_ctxc_output_name(&name.to_string_lossy()) {
                        skipped.files = 1;
                        return (Vec::new(), Vec::new(), skipped);
                    }
                    (vec![Input::File(path)], Vec::new(), skipped)
                } else {
                    Default::default()
                }
            })
            .collect();
        let mut inputs = Vec::new();
        let mut skipped = Skipped::default();
        for (found, failed, left) in below {
            inputs.extend(found);
            errors.extend(failed);
            skipped.add(left);
        }
        (inputs, errors, skipped)
    }

    /// Whether `dir` is one of this run's own folders.
    fn is_own(&self, dir: &Path) -> bool {
        !self.own.is_empty() && dir.canonicalize().is_ok_and(|d| self.own.contains(&d))
    }
}

/// Why an input's text could not be loaded; `line` is 0 when not tied to a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// 1-based line of the problem, or 0.
    pub line: usize,
    /// What went wrong.
    pub message: String,
}

/// Reads an input's bytes, at most `limit` of them, and checks they are UTF-8 (JSON must be).
pub fn load(input: &Input, limit: u64) -> Result<String, LoadError> {
    utf8(load_bytes(input, limit)?)
}

/// Reads an input's bytes; refuses, without reading it, anything but a regular file or a
/// named pipe (a device such as `/dev/zero` never ends) and a file larger than `limit`.
/// Standard input and pipes are read up to `limit` and refused past it.
pub fn load_bytes(input: &Input, limit: u64) -> Result<Vec<u8>, LoadError> {
    let whole = |message| LoadError { line: 0, message };
    match input {
        Input::Stdin => read_capped(std::io::stdin().lock(), 0, limit),
        Input::Remote(url) => crate::store::get(url, limit)
            .map(|(bytes, _)| bytes)
            .map_err(|e| whole(e.0)),
        Input::File(path) => {
            let meta = std::fs::metadata(path).map_err(|e| io_error(&e))?;
            if !meta.file_type().is_fifo() {
                check_regular(&meta, limit).map_err(whole)?;
            }
            let file = std::fs::File::open(path).map_err(|e| io_error(&e))?;
            if !meta.file_type().is_fifo() {
                probe_start(&file)?;
            }
            read_capped(file, meta.len(), limit)
        }
    }
}

/// How far past a first byte that cannot start JSON [`probe_start`] looks for a line break.
const PROBE_BYTES: u64 = 1 << 20;

/// Refuses, before the file is loaded, one whose first line cannot be JSON and runs on for
/// [`PROBE_BYTES`] with no line break (a file of NULs, a binary): it is not read further, so
/// such a file costs a mebibyte, not its size twice over. A bad first line that ends is left
/// to the reader, which reads the lines after it (and `repair` can drop it).
pub fn probe_start(file: &std::fs::File) -> Result<(), LoadError> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; 64 << 10];
    let read = |buf: &mut [u8], at: u64| file.read_at(buf, at).map_err(|e| io_error(&e));
    let (mut at, mut line) = (0u64, 1usize);
    // Past leading white space, counting its lines.
    let (start, first) = loop {
        let n = read(&mut buf, at)?;
        if n == 0 {
            return Ok(());
        }
        let chunk = &buf[..n];
        match chunk
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            Some(i) => {
                line += chunk[..i].iter().filter(|&&b| b == b'\n').count();
                break (at + i as u64, chunk[i]);
            }
            None => line += chunk.iter().filter(|&&b| b == b'\n').count(),
        }
        at += n as u64;
    };
    // A value, or a UTF-8 byte order mark.
    if matches!(
        first,
        b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | 0xEF
    ) {
        return Ok(());
    }
    at = start;
    while at < start + PROBE_BYTES {
        let n = read(&mut buf, at)?;
        if n == 0 || buf[..n].contains(&b'\n') {
            return Ok(());
        }
        at += n as u64;
    }
    let what = match first {
        0 => "a NUL byte (0x00)".to_string(),
        b if b.is_ascii_graphic() => format!("'{}'", b as char),
        b => format!("byte 0x{b:02x}"),
    };
    Err(LoadError {
        line,
        message: format!(
            "invalid JSON at byte {start}: {what} cannot start a JSON value, and no line break \
             follows within {} MiB: not read further",
            PROBE_BYTES >> 20
        ),
    })
}

/// Refuses a file (from its metadata) that is not a regular file or is larger than `limit`
/// bytes, with the message to print after its path.
pub fn check_regular(meta: &std::fs::Metadata, limit: u64) -> Result<(), String> {
    let kind = meta.file_type();
    let what = if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_fifo() {
        Some("a named pipe")
    } else {
        Some("not a regular file")
    };
    if let Some(what) = what {
        return Err(format!("is {what}, not a transcript file"));
    }
    if meta.len() > limit {
        return Err(format!(
            "larger than --max-input-bytes ({limit} bytes): {} bytes, not read",
            meta.len()
        ));
    }
    Ok(())
}

/// Reads `reader` to its end, or refuses it once more than `limit` bytes came: a stream says
/// its size only by ending. `size` (a regular file's length) is the room reserved.
pub fn read_capped(reader: impl Read, size: u64, limit: u64) -> Result<Vec<u8>, LoadError> {
    // Exactly the file's size: read_to_end then probes for the end without doubling the room.
    let mut bytes = Vec::with_capacity(size.min(limit) as usize);
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(&e))?;
    if bytes.len() as u64 > limit {
        return Err(LoadError {
            line: 0,
            message: format!(
                "larger than --max-input-bytes ({limit} bytes): the rest was not read"
            ),
        });
    }
    Ok(bytes)
}

/// The text of an input's bytes, which JSON requires to be UTF-8.
pub fn utf8(bytes: Vec<u8>) -> Result<String, LoadError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        LoadError {
            line,
            message: format!("invalid UTF-8 at byte {at}: JSON text must be UTF-8"),
        }
    })
}

fn io_error(e: &std::io::Error) -> LoadError {
    let message = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    };
    LoadError { line: 0, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_named_with_control_characters_escaped() {
        let file = Input::File(PathBuf::from("a\nctxc: ok\u{1b}[2K.jsonl"));
        assert_eq!(file.display(), r"a\nctxc: ok\u{1b}[2K.jsonl");
        let url = Url::detect("s3://b/in/a\nctxc: ok.jsonl").unwrap().unwrap();
        assert_eq!(Input::Remote(url).display(), r"s3://b/in/a\nctxc: ok.jsonl");
        assert_eq!(Input::Stdin.display(), "<stdin>");
    }

    /// Each input as a path relative to `root` (others as displayed).
    fn names_below(root: &Path, inputs: &[Input]) -> Vec<String> {
        inputs
            .iter()
            .map(|i| match i {
                Input::File(p) => p.strip_prefix(root).unwrap().to_string_lossy().into_owned(),
                other => other.display(),
            })
            .collect()
    }

    #[test]
    fn directories_are_walked_sorted_and_deduplicated() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        for name in ["b.jsonl", "a.json", "sub/c.traj", "notes.txt"] {
            std::fs::write(root.join(name), "[]").unwrap();
        }
        let globs: Vec<String> = ["*.json", "*.jsonl", "*.traj"].map(String::from).to_vec();
        let paths = vec![
            root.to_path_buf(),
            root.join("a.json"),
            root.join("missing.json"),
        ];
        let Found { inputs, errors, .. } = discover(&paths, &globs, &[]).unwrap();
        let names = names_below(root, &inputs);
        assert_eq!(names, ["a.json", "b.jsonl", "sub/c.traj"]);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].path.ends_with("missing.json"));
    }

    #[test]
    fn a_walk_lists_nested_folders_in_path_order_and_skips_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in ["a/deep", "b", "c"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        for name in [
            "b/2.json",
            "a.json",
            "a/deep/1.json",
            "a/0.json",
            "c/3.json",
        ] {
            std::fs::write(root.join(name), "[]").unwrap();
        }
        std::os::unix::fs::symlink(root.join("a.json"), root.join("c/link.json")).unwrap();
        let Found { inputs, errors, .. } =
            discover(&[root.to_path_buf()], &["*.json".into()], &[]).unwrap();
        let names = names_below(root, &inputs);
        assert_eq!(
            names,
            [
                "a/0.json",
                "a/deep/1.json",
                "a.json",
                "b/2.json",
                "c/3.json"
            ]
        );
        assert!(errors.is_empty());
    }

    #[test]
    fn a_walk_skips_ctxc_own_files_and_this_runs_folders_and_counts_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("out/sub")).unwrap();
        for name in [
            "s.jsonl",
            "s.compact.jsonl",
            "s.ctxc-archive.json",
            "s.repaired.jsonl",
            "s.repaired.ctxc-archive.json",
            "out/s.jsonl",
            "out/sub/t.jsonl",
        ] {
            std::fs::write(root.join(name), "[]").unwrap();
        }
        let globs = ["*.json".to_string(), "*.jsonl".to_string()];
        let found = discover(&[root.to_path_buf()], &globs, &[root.join("out")]).unwrap();
        assert_eq!(names_below(root, &found.inputs), ["s.jsonl"]);
        let skipped = Skipped {
            files: 4,
            folders: 1,
        };
        assert_eq!(found.skipped, skipped);
        assert_eq!(
            skipped.note().unwrap(),
            "skipped 4 files of ctxc's own (outputs, archives, backups, temporary files) and 1 folder this run writes into found in the walk; name a file to read it"
        );
        // Named on the command line, they are read.
        let named = discover(&[root.join("s.compact.jsonl")], &globs, &[]).unwrap();
        assert_eq!(named.inputs.len(), 1);
        assert_eq!(named.skipped, Skipped::default());
    }

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, "[]\n").unwrap();
        let meta = |p: &Path| std::fs::metadata(p).unwrap();
        assert_eq!(check_regular(&meta(&path), 3), Ok(()));
        assert_eq!(
            check_regular(&meta(&path), 2),
            Err("larger than --max-input-bytes (2 bytes): 3 bytes, not read".into())
        );
        assert_eq!(
            check_regular(&meta(dir.path()), 100),
            Err("is a directory, not a transcript file".into())
        );
        let zero = Input::File("/dev/zero".into());
        assert_eq!(
            load_bytes(&zero, 100).unwrap_err().message,
            "is a character device, not a transcript file"
        );
        assert_eq!(load(&Input::File(path.clone()), 3).unwrap(), "[]\n");
        assert!(load(&Input::File(path), 2).is_err());
    }

    #[test]
    fn streams_are_read_up_to_the_limit() {
        let read = |text: &[u8], limit| read_capped(text, 0, limit).map_err(|e| e.message);
        assert_eq!(read(b"12345", 5), Ok(b"12345".to_vec()));
        assert_eq!(
            read(b"123456", 5),
            Err("larger than --max-input-bytes (5 bytes): the rest was not read".into())
        );
        // A stream that never ends is refused all the same.
        let endless = std::io::repeat(b'x');
        assert!(read_capped(endless, 0, 1 << 20).is_err());
    }

    #[test]
    fn invalid_utf8_names_its_line_and_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        std::fs::write(&path, b"{\"a\": 1}\n{\"b\": \"\xff\"}\n").unwrap();
        let err = load(&Input::File(path), u64::MAX).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("byte 16"), "{}", err.message);
    }

    #[test]
    fn a_file_that_cannot_start_json_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nul.jsonl");
        std::fs::write(&path, vec![0u8; 3 << 20]).unwrap();
        let err = load_bytes(&Input::File(path.clone()), u64::MAX).unwrap_err();
        assert_eq!(err.line, 1);
        assert!(
            err.message
                .starts_with("invalid JSON at byte 0: a NUL byte (0x00) cannot start a JSON value"),
            "{}",
            err.message
        );
        // After white space, named by its byte and line.
        let mut text = b"\n\n  ".to_vec();
        text.extend(std::iter::repeat_n(b'x', 2 << 20));
        std::fs::write(&path, &text).unwrap();
        let err = load_bytes(&Input::File(path.clone()), u64::MAX).unwrap_err();
        assert_eq!((err.line, err.message.contains("byte 4: 'x'")), (3, true));
        // A bad first line that ends is the reader's to report, with the lines after it.
        let mut text = vec![b'x'; 4096];
        text.extend(b"\n{\"a\": 1}\n");
        std::fs::write(&path, &text).unwrap();
        assert!(load_bytes(&Input::File(path.clone()), u64::MAX).is_ok());
        std::fs::write(&path, b"\x00\x00 short").unwrap();
        assert!(load_bytes(&Input::File(path), u64::MAX).is_ok());
    }
}

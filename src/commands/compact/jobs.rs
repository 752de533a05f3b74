//! What is decided about each input before it is read: where its output goes (beside it,
//! mirrored under `--out-dir`, `-o`, in place, a bucket), which shard it belongs to, and
//! whether the destination may be written; the refusals a run makes up front.

use super::*;
use crate::human::Shown;
pub(super) use crate::outputs::Destination;

/// Where a dry run writes.
pub(super) static NOWHERE: Destination = Destination::Nowhere;

/// One input with everything decided about it before it is read.
pub(super) struct Job {
    /// Its place among the run's jobs.
    pub(super) id: usize,
    pub(super) input: Input,
    /// The command-line path it was found under.
    pub(super) root: Option<PathBuf>,
    /// Where a real run writes (a dry run checks it, and writes nowhere: [`Conduct::dest`]).
    pub(super) dest: Destination,
    /// Whether an object is at `dest` already, when a listing of the run's output objects
    /// said (`None`: not listed, ask the store).
    pub(super) dest_exists: Option<bool>,
}

impl Job {
    /// The input as an archive names it: a file's path, an object's URL (`None`: standard
    /// input).
    pub(super) fn input_name(&self) -> Option<PathBuf> {
        match &self.input {
            Input::File(path) => Some(path.clone()),
            Input::Remote(url) => Some(PathBuf::from(url.to_string())),
            Input::Stdin => None,
        }
    }
}

/// The inputs of this run (this shard's, outputs of earlier runs left out) and their
/// destinations.
pub(super) fn jobs(args: &CompactArgs, inputs: Vec<Input>) -> Result<Vec<Job>> {
    let given = &args.input.inputs;
    let shard = args
        .shard
        .map(|spec| shard::resolve(spec, |name| std::env::var(name).ok()))
        .transpose()?;
    // A directory walk left out what an earlier run wrote (see `discover`).
    let inputs: Vec<Input> = inputs
        .into_iter()
        .filter(|i| shard.is_none_or(|s| in_shard(i, s)))
        .collect();
    let outputs = &args.outputs;
    if let Some(output) = &outputs.output {
        if inputs.len() != 1 {
            bail!(
                "-o/--output takes one input, got {}: use --out-dir for several",
                inputs.len()
            );
        }
        let dest = Destination::of_output(output)?;
        match &dest {
            Destination::Remote(url) if url.is_prefix() => bail!(
                "-o names one object, and {url} is a prefix: use --out-dir for a prefix",
                url = url.shown()
            ),
            Destination::Stdout if args.archive => bail!(
                "--archive keeps archives beside output files, and -o - writes to standard output"
            ),
            _ => {}
        }
        let input = inputs.into_iter().next().expect("one input");
        return Ok(vec![Job {
            id: 0,
            root: root_of(&input, given),
            input,
            dest,
            dest_exists: None,
        }]);
    }
    if outputs.in_place && inputs.contains(&Input::Stdin) {
        bail!("--in-place cannot replace standard input");
    }
    refuse_output_into_store(args, &inputs)?;
    if args.archive && !args.dry_run && inputs.contains(&Input::Stdin) {
        bail!(
            "--archive keeps archives beside output files; standard input goes to standard output (use -o FILE)"
        );
    }
    let out_dir = match outputs.out_dir.as_deref().map(Url::of_path) {
        Some(Some(url)) => Some(OutDir::Remote(url?)),
        Some(None) => outputs.out_dir.clone().map(OutDir::Local),
        None => None,
    };
    if let Some(OutDir::Local(dir)) = &out_dir {
        if dir.symlink_metadata().is_ok() && !dir.is_dir() {
            bail!("--out-dir {} is not a directory", dir.shown());
        }
    }
    Ok(inputs
        .into_iter()
        .enumerate()
        .map(|(id, input)| {
            let root = root_of(&input, given);
            let dest = match &input {
                Input::Stdin => Destination::Stdout,
                Input::File(path) if outputs.in_place => Destination::InPlace(path.clone()),
                Input::Remote(url) if outputs.in_place => Destination::Remote(url.clone()),
                _ => match &out_dir {
                    Some(dir) => dir.mirrored(&input, root.as_deref()),
                    None => match &input {
                        Input::Remote(url) => {
                            Destination::Remote(crate::outputs::beside_remote(url))
                        }
                        Input::File(path) => Destination::File(crate::outputs::beside(path)),
                        Input::Stdin => Destination::Stdout,
                    },
                },
            };
            Job {
                id,
                input,
                root,
                dest,
                dest_exists: None,
            }
        })
        .collect())
}

/// Reads ahead the objects the run will read, and lists the output objects that exist already
/// in one request per bucket rather than one per output.
pub(super) fn prepare_remote(jobs: &mut [Job], args: &CompactArgs) {
    let in_place = args.outputs.in_place && !args.dry_run;
    if !in_place {
        // An object compacted in place is read when claimed, with its version.
        let inputs: Vec<Input> = jobs.iter().map(|j| j.input.clone()).collect();
        discover::read_ahead(&inputs, args.input.limit.max_input_bytes);
    }
    if in_place || args.outputs.force_overwrite {
        return;
    }
    let mut buckets: std::collections::BTreeMap<(store::Scheme, String), Vec<usize>> =
        Default::default();
    for (k, job) in jobs.iter().enumerate() {
        if let Destination::Remote(url) = &job.dest {
            buckets
                .entry((url.scheme, url.bucket.clone()))
                .or_default()
                .push(k);
        }
    }
    for members in buckets.values().filter(|m| m.len() > 1) {
        let keys: Vec<&Url> = members
            .iter()
            .filter_map(|&k| match &jobs[k].dest {
                Destination::Remote(url) => Some(url),
                _ => None,
            })
            .collect();
        // The longest prefix every key shares, cut back to a whole segment.
        let mut common = keys[0].key.clone();
        for url in &keys[1..] {
            let shared = common
                .char_indices()
                .zip(url.key.chars())
                .take_while(|((_, a), b)| a == b)
                .last()
                .map_or(0, |((i, a), _)| i + a.len_utf8());
            common.truncate(shared);
        }
        common.truncate(common.rfind('/').map_or(0, |i| i + 1));
        let prefix = Url {
            key: common,
            ..keys[0].clone()
        };
        // Not listed: each output is asked about on its own.
        let Ok(existing) = store::keys_below(&prefix) else {
            continue;
        };
        for &k in members {
            if let Destination::Remote(url) = &jobs[k].dest {
                jobs[k].dest_exists = Some(existing.contains(url));
            }
        }
    }
}

/// `--out-dir`: a local directory or an object prefix.
pub(super) enum OutDir {
    Local(PathBuf),
    Remote(Url),
}

impl OutDir {
    /// Where `input`'s output goes: its place below its root, mirrored under the directory.
    pub(super) fn mirrored(&self, input: &Input, root: Option<&Path>) -> Destination {
        // The input's name below its root, with `/` between segments.
        let relative = match input {
            Input::File(path) => {
                let below = crate::outputs::mirrored(Path::new(""), path, root);
                let parts: Vec<_> = below.iter().map(|p| p.to_string_lossy()).collect();
                parts.join("/")
            }
            Input::Remote(url) => {
                let root = root.and_then(Url::of_path).and_then(Result::ok);
                root.map_or(url.file_name(), |root| url.below(&root))
                    .to_string()
            }
            Input::Stdin => String::new(),
        };
        match self {
            OutDir::Local(dir) => match input {
                Input::File(path) => Destination::File(crate::outputs::mirrored(dir, path, root)),
                _ => Destination::File(dir.join(relative)),
            },
            OutDir::Remote(prefix) => Destination::Remote(prefix.join(&relative)),
        }
    }
}

/// Refuses to write `NAME.compact.jsonl` beside a session in a client's store: the client
/// would list the copy as one more session.
pub(super) fn refuse_output_into_store(args: &CompactArgs, inputs: &[Input]) -> Result<()> {
    let outputs = &args.outputs;
    if args.dry_run || outputs.in_place || outputs.out_dir.is_some() {
        return Ok(());
    }
    let stores = crate::sessions::Stores::from_env();
    let stored = inputs.iter().find(|i| match i {
        Input::File(path) => stores.contains(path),
        Input::Remote(url) => stores.contains_object(url),
        Input::Stdin => false,
    });
    if let Some(input) = stored {
        bail!(
            "{} is a session in its client's store, where a compacted copy beside it would show \
             as one more session: use --in-place (with --backup or --archive to keep the \
             original), -o FILE or --out-dir DIR",
            input.display()
        );
    }
    Ok(())
}

/// Whether an input belongs to shard K of N: a stable hash of its path.
pub(super) fn in_shard(input: &Input, shard: Shard) -> bool {
    let key = input.display();
    let hash = xxhash_rust::xxh3::xxh3_64(key.as_bytes());
    hash % u64::from(shard.count) == u64::from(shard.index - 1)
}

/// The command-line path an input was found under: the directory it was walked from, or the
/// file itself.
pub(super) fn root_of(input: &Input, given: &[PathBuf]) -> Option<PathBuf> {
    let path = match input {
        Input::File(path) => path,
        Input::Remote(url) => {
            // The longest URL given that is this object or a prefix above it.
            return given
                .iter()
                .filter_map(|g| Some((g, Url::of_path(g)?.ok()?)))
                .filter(|(_, root)| {
                    root == url
                        || (root.scheme, &root.bucket) == (url.scheme, &url.bucket)
                            && url.key.starts_with(&root.as_prefix().key)
                })
                .max_by_key(|(_, root)| root.key.len())
                .map(|(g, _)| g.clone());
        }
        Input::Stdin => return None,
    };
    given
        .iter()
        .filter(|g| path.starts_with(g))
        .max_by_key(|g| g.as_os_str().len())
        .cloned()
}

/// Refuses to overwrite an input (but with `--in-place`). Returns whether an output is at the
/// destination already that the run may not replace (no `--force-overwrite`, and not one an
/// earlier attempt of this run wrote: `replaceable`): the run is done if it would write the
/// same bytes ([`Conduct::existing`]), and refused if not.
pub(super) fn check_destination(
    job: &Job,
    outputs: &crate::cli::OutputPathArgs,
    replaceable: bool,
) -> Result<bool> {
    if outputs.in_place {
        return Ok(false);
    }
    let may_replace = outputs.force_overwrite || replaceable;
    let out = match &job.dest {
        Destination::File(out) | Destination::InPlace(out) => out,
        Destination::Remote(out) => {
            if job.input == Input::Remote(out.clone()) {
                bail!(
                    "the output {out} is the input itself: ctxc never overwrites its input without --in-place"
                );
            }
            if may_replace {
                return Ok(false);
            }
            return Ok(match job.dest_exists {
                Some(exists) => exists,
                None => store::head(out)?.is_some(),
            });
        }
        Destination::Stdout | Destination::Nowhere => return Ok(false),
    };
    if let Input::File(path) = &job.input {
        if let (Ok(a), Ok(b)) = (path.canonicalize(), out.canonicalize()) {
            if a == b {
                bail!(
                    "the output {} is the input itself: ctxc never overwrites its input without --in-place",
                    out.shown()
                );
            }
        }
    }
    Ok(!may_replace && out.symlink_metadata().is_ok())
}

/// The refusal of an output that is there already and differs from what the run writes.
pub(super) fn output_exists(out: &dyn std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!(
        "the output {out} exists and differs from this result (--force-overwrite replaces it)"
    )
}

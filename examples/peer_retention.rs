//! Retention of a transcript rewritten by another tool, with ctxc's own fact definitions:
//! `cargo run --release --example peer_retention ORIGINAL REWRITTEN` prints the
//! `[kept, total]` counts of paths, commands, error lines and user requests as JSON (the
//! first conversation of each file), `verbatim` (a summary's artifact index not counted, as
//! `ctxc eval` counts) beside `anywhere` (the index read as the paths and commands it folds).
//! Used by `scripts/bench/peer-bench.sh`.

use anyhow::{Context, Result, bail};
use ctxc::facts::Facts;
use ctxc::retention::{Counts, retention_of, verbatim_retention_of};
use ctxc::transcript::{ReadOptions, read};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [original, rewritten] = args.as_slice() else {
        bail!("usage: peer_retention ORIGINAL REWRITTEN");
    };
    let load = |path: &str| -> Result<_> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
        read(text, &ReadOptions::default()).map_err(|e| anyhow::anyhow!("parsing {path}: {e:?}"))
    };
    let (before, after) = (load(original)?, load(rewritten)?);
    let facts = Facts::of(&before.conversations[0].items);
    let after = &after.conversations[0];
    let counts = serde_json::json!({
        "verbatim": Counts::from(verbatim_retention_of(&facts, after)),
        "anywhere": Counts::from(retention_of(&facts, after)),
    });
    println!("{}", serde_json::to_string(&counts)?);
    Ok(())
}

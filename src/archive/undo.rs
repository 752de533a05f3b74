//! Walking compactions back: apply the restore pieces of the last record to the compacted
//! bytes, check the result against that record's input hash, and go on with the record
//! before it; from the first record of a generation, its `previousOutput` link first
//! rebuilds the output of the record before it.

use super::delta;
use super::model::{Record, hash};

/// The bytes compactions were undone to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undone {
    /// The rebuilt file.
    pub bytes: Vec<u8>,
    /// With `force`: the steps whose result did not match the recorded hash.
    pub mismatches: Vec<String>,
}

/// Undoes the last `steps` of `records` (oldest first) on `compacted`, the last record's
/// output, crossing generations on their links. Without `force` a result that does not match
/// its recorded hash is an error; with it, the mismatch is noted and the walk goes on.
/// `compacted` itself is not checked here.
pub fn undo(
    records: &[Record],
    compacted: &[u8],
    steps: usize,
    force: bool,
) -> Result<Undone, String> {
    let mut bytes = compacted.to_vec();
    let mut mismatches = Vec::new();
    let n = records.len();
    for (k, record) in records.iter().enumerate().rev().take(steps) {
        if k + 1 < n && records[k + 1].generation != record.generation {
            bytes = cross_link(&records[k + 1], record, &bytes, force, &mut mismatches)?;
        }
        let which = format!("compaction {} of {n}", k + 1);
        bytes =
            delta::apply(&record.restore, &bytes, force).map_err(|e| format!("{which}: {e}"))?;
        let got = hash(&bytes);
        if got != record.input.hash {
            let problem = format!(
                "{which}: the rebuilt file does not match its recorded hash (expected {}, got {got})",
                record.input.hash
            );
            if !force {
                return Err(format!("{problem}: the archive is damaged"));
            }
            mismatches.push(problem);
        }
    }
    Ok(Undone { bytes, mismatches })
}

/// From the input of `later`, the first record of its generation, to the output of
/// `earlier`, the last record of the generation before.
fn cross_link(
    later: &Record,
    earlier: &Record,
    input: &[u8],
    force: bool,
    mismatches: &mut Vec<String>,
) -> Result<Vec<u8>, String> {
    let which = format!("generation {}", earlier.generation);
    let Some(link) = &later.previous_output else {
        return Err(format!(
            "{which} cannot be reached: the file was rewritten, not appended to, before \
             generation {} began, and the archive kept no copy of its last output",
            later.generation
        ));
    };
    let bytes = delta::apply(link, input, force).map_err(|e| format!("{which}: {e}"))?;
    let got = hash(&bytes);
    if got != earlier.output.hash {
        let problem = format!(
            "{which}: its last output does not match its recorded hash (expected {}, got {got})",
            earlier.output.hash
        );
        if !force {
            return Err(format!("{problem}: the archive is damaged"));
        }
        mismatches.push(problem);
    }
    Ok(bytes)
}

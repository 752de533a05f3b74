//! Undoing the compactions of a Parquet dataset (`ctxc restore`): the compacted dataset is
//! written again, a row group at a time, with each changed row's original conversation put
//! back from the archive — every other column and row copied as they are.
//!
//! A row's original text is rebuilt from its compacted text by the last record's pieces, then
//! by the record's before it, and so on; each step is checked against the hash its record
//! kept. The dataset written is then read back and its conversation column checked against
//! the hash the target record kept of its input's: the rows come back value-identical (the
//! Parquet bytes need not be: the writer may encode pages otherwise).

use super::{Dataset, Written};
use crate::archive::{self, Record, RowRestore};
use anyhow::{Context, Result, anyhow, bail};
use std::fs::File;
use std::io::Write;

/// What a restore of a dataset did.
#[derive(Debug, Default)]
pub struct Restored {
    /// Rows in the dataset.
    pub rows: u64,
    /// Rows whose original conversation was put back.
    pub restored: usize,
    /// With `force`: the checks that failed.
    pub mismatches: Vec<String>,
}

/// Undoes `records` (oldest first; each one's output the next one's input, all of a dataset)
/// on the compacted dataset `compacted`, writing the result to `out` (a file, read back to
/// check it). Without `force` a row or a dataset that does not match its recorded hash is an
/// error; with it, the mismatch is noted and the restore goes on.
pub fn undo(records: &[Record], compacted: File, out: &File, force: bool) -> Result<Restored> {
    let (Some(first), Some(last)) = (records.first(), records.last()) else {
        bail!("no compaction to undo");
    };
    for pair in records.windows(2) {
        if pair[0].generation != pair[1].generation {
            bail!(
                "generation {} cannot be reached: the dataset was rewritten between its \
                 compactions, and an archive keeps no copy of a dataset",
                pair[0].generation
            );
        }
    }
    let changed: Vec<&[RowRestore]> = records
        .iter()
        .map(|r| {
            r.dataset
                .as_ref()
                .map(|d| d.changed.as_slice())
                .ok_or_else(|| anyhow!("the compaction of {} is not a dataset's", r.time))
        })
        .collect::<Result<_>>()?;
    let column = &last.dataset.as_ref().expect("checked").column;
    let dataset = Dataset::open(compacted, Some(column), u64::MAX)
        .with_context(|| "reading the compacted dataset".to_string())?;
    let mut restored = Restored::default();
    // Each row: whether it was changed, the mismatches `force` let through; its original.
    type Undone = Result<(bool, Vec<String>), String>;
    let each = |row: super::Row| -> (Undone, Option<String>) {
        let mut text: Option<String> = None;
        let mut mismatches = Vec::new();
        for (k, rows) in changed.iter().enumerate().rev() {
            let Ok(at) = rows.binary_search_by_key(&(row.index as u64), |r| r.row) else {
                continue;
            };
            let from = text.as_deref().unwrap_or(row.text);
            let back = match archive::apply(&rows[at].restore, from.as_bytes(), force) {
                Ok(bytes) => String::from_utf8(bytes).map_err(|e| e.to_string()),
                Err(e) => Err(e),
            };
            let back = match back {
                Ok(back) => back,
                Err(e) => return (Err(format!("row {}: {e}", row.index)), None),
            };
            if archive::hash(back.as_bytes()) != rows[at].hash {
                mismatches.push(format!(
                    "row {}: its conversation rebuilt by compaction {} of {} does not match \
                     its recorded hash",
                    row.index,
                    k + 1,
                    records.len()
                ));
            }
            text = Some(back);
        }
        match mismatches.first() {
            Some(m) if !force => (Err(format!("{m}: the archive is damaged")), None),
            _ => (Ok((text.is_some(), mismatches)), text),
        }
    };
    let mut failure: Option<String> = None;
    let mut writer = std::io::BufWriter::new(out);
    let read = dataset.rewrite(Some(&mut writer), each, |done| {
        match (done.result, done.written) {
            (Err(e), _) => {
                failure.get_or_insert(e);
            }
            (Ok((changed, mismatches)), written) => {
                restored.mismatches.extend(mismatches);
                match written {
                    Written::Replaced => restored.restored += usize::from(changed),
                    Written::Refused(why) => {
                        failure.get_or_insert(format!("row {}: {why}", done.index));
                    }
                    Written::Kept => {}
                }
            }
        }
        Ok(())
    })?;
    writer.flush()?;
    drop(writer);
    if let Some(failure) = failure {
        bail!("{failure}");
    }
    restored.rows = read.rows;
    out.sync_all()?;
    // Read back what was written.
    let back = Dataset::open(out.try_clone()?, Some(column), u64::MAX)
        .context("reading back the restored dataset")?
        .values_hash()?;
    let expected = &first.dataset.as_ref().expect("checked").values_hash;
    if &back != expected {
        let problem = format!(
            "the restored dataset's conversations do not match their recorded hash (expected \
             {expected}, got {back})"
        );
        if !force {
            bail!("{problem}: the archive is damaged");
        }
        restored.mismatches.push(problem);
    }
    Ok(restored)
}

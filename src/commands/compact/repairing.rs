//! `compact --repair`: each input repaired as `ctxc repair` repairs it ([`crate::repair`])
//! before the pipeline reads it, so a session refused for what `check` finds is compacted
//! instead. The repair is archived as a record of its own before the compaction's
//! ([`RepairStep`]): `restore` walks back through both to the damaged input.

use crate::archive::RepairStep;
use crate::repair::{self, Repair};
use crate::report::compact::{FileReport, Status};
use crate::transcript::ReadOptions;

/// An input that was repaired before it was compacted.
pub struct Repaired {
    /// What the archive keeps of the repair.
    pub step: RepairStep,
    /// Every repair, in input line order.
    pub repairs: Vec<Repair>,
}

/// The text to compact: `text` repaired, with what was repaired; `text` itself when there is
/// nothing to repair, or it cannot be read as a transcript (the pipeline then says why).
pub fn repair(text: String, read: &ReadOptions) -> (String, Option<Repaired>) {
    let opts = repair::Options {
        read: read.clone(),
        // An oversized session is the compaction's to shrink (`--drop-stored`, and the
        // adaptive chain's `strip-payloads`), by the target it is given.
        max_session_bytes: u64::MAX,
        fit: repair::oversize::Fit {
            model: None,
            context_window: None,
        },
    };
    let done = match repair::repair(&text, &opts) {
        Ok(done) if !done.repairs.is_empty() && done.output != text => done,
        _ => return (text, None),
    };
    let step = RepairStep {
        restore: repair::pieces(&text, &done.output),
        repairs: serde_json::json!({ "command": "compact --repair", "repairs": done.repairs }),
        original: text,
    };
    let repaired = Repaired {
        step,
        repairs: done.repairs,
    };
    (done.output, Some(repaired))
}

/// `report` (of the compaction of the repaired text) as a report on the input: its size as
/// it was, written even when the compaction changed nothing, and every repair named.
pub fn report(report: &mut FileReport, repaired: &Repaired) {
    report.bytes_before = repaired.step.original.len();
    if report.status == Status::Unchanged {
        report.status = Status::Compacted;
    }
    report.notes.push(format!(
        "repaired before compaction: {} (the archive keeps what {} changed)",
        crate::human::plural(repaired.repairs.len(), "repair"),
        if repaired.repairs.len() == 1 {
            "it"
        } else {
            "they"
        }
    ));
    report.repairs = repaired.repairs.clone();
}

/// Whether the archive is written: asked for, or a repair to keep.
pub fn archives(asked: bool, repaired: Option<&Repaired>) -> bool {
    asked || repaired.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_or_unreadable_input_is_left_as_it_is() {
        let clean = "{\"role\":\"user\",\"content\":\"hi\"}\n".to_string();
        let (text, repaired) = repair(clean.clone(), &ReadOptions::default());
        assert_eq!(text, clean);
        assert!(repaired.is_none());
        let (text, repaired) = repair("not json".into(), &ReadOptions::default());
        assert_eq!(text, "not json");
        assert!(repaired.is_none());
    }

    #[test]
    fn a_repaired_input_keeps_what_rebuilds_it() {
        let damaged = std::fs::read_to_string(
            "../shared/corpus/claude-code/claude-code-log/edge_cases.jsonl",
        )
        .unwrap();
        let (text, repaired) = repair(damaged.clone(), &ReadOptions::default());
        let repaired = repaired.expect("edge_cases.jsonl is damaged");
        assert_ne!(text, damaged);
        assert!(!repaired.repairs.is_empty());
        let rebuilt =
            crate::archive::apply(&repaired.step.restore, text.as_bytes(), false).unwrap();
        assert_eq!(rebuilt, damaged.as_bytes());
    }
}

//! `drop-stored` (what `--drop-stored` runs on every conversation): remove what is stored but
//! never sent — Claude Code progress records and file-history snapshots, the chain of records
//! above the latest compact boundary, and the `toolUseResult` copies of tool results. Sessions
//! that grew too large to load (hundreds of megabytes of history the model never sees again)
//! become loadable. Unlike `strip-payloads` it never changes what the model is sent: embedded
//! media stays. What it removes goes to the archive like every other edit, so `ctxc restore`
//! brings it back.

use super::{Context, Strategy, StrategyName};
use crate::plan::{Plan, Subject};
use crate::transcript::{OutItem, payload};
use anyhow::Result;

/// Dropping stored-only records.
pub struct DropStored;

impl Strategy for DropStored {
    fn name(&self) -> StrategyName {
        StrategyName::DropStored
    }

    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan> {
        Ok(drop_stored(cx.subject, plan))
    }
}

/// `plan` without the records that are stored but never sent, and with the stored copies of
/// the items it keeps removed. The model's context is untouched: its tokens stay the same. A
/// file of nothing but such records keeps them: an empty file is no transcript.
pub fn drop_stored(s: &Subject, plan: Plan) -> Plan {
    let items: Vec<OutItem> = plan
        .items
        .iter()
        .filter_map(|out| match out {
            OutItem::Keep(i) | OutItem::Strip(i) => {
                let item = &s.conv.items[*i];
                if item.disposable || item.stale_history {
                    None
                } else if matches!(out, OutItem::Keep(_)) && only_copies(s, *i) {
                    Some(OutItem::Strip(*i))
                } else {
                    Some(out.clone())
                }
            }
            other => Some(other.clone()),
        })
        .collect();
    if items.is_empty() {
        return plan;
    }
    Plan { items }
}

/// Whether stripping item `i` removes stored copies and nothing else: stripping also stubs
/// large media, which the model would see.
fn only_copies(s: &Subject, i: usize) -> bool {
    let raw = s.raw(i);
    s.copy_members.iter().any(|k| raw.contains(k))
        && payload::has_copy(raw, s.copy_members)
        && !payload::has_large_media(raw)
}

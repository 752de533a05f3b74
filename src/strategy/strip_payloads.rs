//! `strip-payloads`: remove what never reaches the model — Claude Code progress records and
//! file-history snapshots, and the `toolUseResult` copies of tool results — and replace
//! embedded base64 media of 8 KiB or more with a stub naming its type, size and hash. Users
//! hit this first: sessions too big to resume because of stored screenshots and PDFs.
//! Preserved messages keep their media (their content must not change); frozen history
//! loses only what never reaches the model.

use super::{Context, Strategy, StrategyName};
use crate::plan::{Plan, Subject};
use crate::preserve::Hold;
use crate::transcript::{OutItem, payload};
use anyhow::Result;

/// Payload stripping.
pub struct StripPayloads;

impl Strategy for StripPayloads {
    fn name(&self) -> StrategyName {
        StrategyName::StripPayloads
    }

    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan> {
        Ok(strip(cx.subject, plan))
    }
}

/// `plan` with disposable records dropped and kept items stripped of their payloads. A file
/// of nothing but disposable records keeps them: an empty file is no transcript.
pub fn strip(s: &Subject, plan: Plan) -> Plan {
    let items: Vec<OutItem> = plan
        .items
        .into_iter()
        .filter_map(|out| {
            let OutItem::Keep(i) = out else {
                return Some(out);
            };
            let item = &s.conv.items[i];
            if item.disposable {
                return None;
            }
            let raw = s.raw(i);
            let media_allowed = !matches!(s.holds[i], Hold::Preserved(_));
            // The read already found the record's stored copies (`stored_only_bytes`): no
            // parse of every record to find them again.
            let has_copy = item.stored_only_bytes > 0;
            let strip = if media_allowed {
                has_copy || payload::has_large_media(raw)
            } else {
                has_copy && !payload::has_large_media(raw)
            };
            Some(if strip { OutItem::Strip(i) } else { out })
        })
        .collect();
    if items.is_empty() {
        return plan_keep(s);
    }
    Plan { items }
}

fn plan_keep(s: &Subject) -> Plan {
    s.keep_all()
}

/// Whether the conversation has anything to strip: a disposable record, a stored copy, or
/// large embedded media (only records big enough to hold some are parsed).
pub fn has_payloads(s: &Subject) -> bool {
    s.conv.items.iter().enumerate().any(|(i, item)| {
        item.disposable
            || (s.copy_members.iter().any(|k| s.raw(i).contains(k))
                && payload::has_copy(s.raw(i), s.copy_members))
            || (item.span.len() >= payload::MEDIA_STUB_MIN_BYTES
                && payload::has_large_media(s.raw(i)))
    })
}

//! The chain: each record's `uuid` / `parentUuid` links read from its text, the faults
//! `check` names (dangling links, cycles, repeated uuids), and the re-linking of an edited
//! conversation, every surviving link re-pointed at the nearest surviving ancestor.

use super::*;

/// A record's links, read straight from its text. Absent and null links are `None`; a record
/// that is not an object, or whose links are not strings, has none. Kept on the record's item
/// ([`Item::chain`]) when it is read, so that checking and writing it do not parse it again.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chain {
    pub(super) uuid: Option<String>,
    pub(super) parent_uuid: Option<String>,
    pub(super) logical_parent_uuid: Option<String>,
    pub(super) leaf_uuid: Option<String>,
    /// The record's uuid and stamp for finding replays, when it was read in one scan
    /// (`transcript::replay`).
    #[serde(skip)]
    pub(crate) replay: Option<Option<super::replay::Stamped>>,
    /// Whether reading set aside results of the record that answer calls stored outside the
    /// file: its item's `results` are then not all its text names.
    #[serde(skip)]
    pub(super) results_dropped: bool,
}

impl Chain {
    pub(super) fn of(raw: &str) -> Chain {
        serde_json::from_str(raw).unwrap_or_default()
    }

    /// The present link fields, with the uuid each names.
    pub(super) fn links(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let values = [
            &self.parent_uuid,
            &self.logical_parent_uuid,
            &self.leaf_uuid,
        ];
        LINK_KEYS
            .into_iter()
            .zip(values)
            .filter_map(|(key, value)| Some((key, value.as_deref()?)))
    }

    /// Whether the record takes part in the chain at all (snapshots and titles do not).
    pub(super) fn is_linked(&self) -> bool {
        self.uuid.is_some() || self.parent_uuid.is_some()
    }
}

/// The links of each item's record: those read with it (borrowed: checking and writing a
/// session copied every uuid of every record), else parsed from `source`.
pub(super) fn chains_of<'c>(source: &str, conv: &'c Conversation) -> Vec<Cow<'c, Chain>> {
    conv.items
        .iter()
        .map(|item| match &item.chain {
            Some(chain) => Cow::Borrowed(&**chain),
            None => Cow::Owned(Chain::of(&source[item.span.clone()])),
        })
        .collect()
}

/// Each uuid's first record.
pub(super) fn uuid_index<'a>(chains: &'a [Cow<'_, Chain>]) -> HashMap<&'a str, usize> {
    let mut index = HashMap::new();
    for (i, chain) in chains.iter().enumerate() {
        if let Some(uuid) = &chain.uuid {
            index.entry(uuid.as_str()).or_insert(i);
        }
    }
    index
}

/// `parentUuid`s naming no record of the file. The file may begin mid-chain: records before
/// the first one that is a root or links inside the file may point outside it (single-record
/// samples do, and compaction agents link their opening records into the parent session).
/// `index` is [`uuid_index`] of `chains`.
pub(super) fn dangling_links(
    conv: &Conversation,
    chains: &[Cow<Chain>],
    index: &HashMap<&str, usize>,
) -> Vec<Finding> {
    let mut opening = true;
    let mut findings = Vec::new();
    for (item, chain) in conv.items.iter().zip(chains) {
        if !chain.is_linked() {
            continue;
        }
        match chain.parent_uuid.as_deref() {
            Some(parent) if !index.contains_key(parent) => {
                if !opening {
                    findings.push(Finding::new(
                        item.line,
                        format!("parentUuid '{parent}' names no record in this file"),
                    ));
                }
            }
            _ => opening = false,
        }
    }
    findings
}

/// `parentUuid` chains that loop (a record its own parent, or a ring of records): Claude Code
/// walks up the chain to resume and never reaches a root. One finding per loop, at the line
/// of its first record in the file. Iterative, so a long chain cannot overflow the stack.
/// `index` is [`uuid_index`] of `chains`.
pub(super) fn cycles(
    conv: &Conversation,
    chains: &[Cow<Chain>],
    index: &HashMap<&str, usize>,
) -> Vec<Finding> {
    let parent: Vec<Option<usize>> = chains
        .iter()
        .map(|c| c.parent_uuid.as_deref().and_then(|p| index.get(p)).copied())
        .collect();
    let mut findings = Vec::new();
    for ring in rings(&parent) {
        let first = *ring.iter().min().expect("a loop has a record");
        let uuid = chains[first].uuid.as_deref().unwrap_or("?");
        let message = if ring.len() == 1 {
            format!("parentUuid of '{uuid}' names the record itself: the chain never reaches a root")
        } else {
            format!(
                "parentUuid chain loops: '{uuid}' is its own ancestor through {} records",
                ring.len()
            )
        };
        findings.push(Finding::new(conv.items[first].line, message));
    }
    findings
}

/// Each loop of `parent` links (record → its parent's record) once, as its records in walk
/// order. Iterative, so a long chain cannot overflow the stack.
pub(super) fn rings(parent: &[Option<usize>]) -> Vec<Vec<usize>> {
    // 0 = not seen, 1 = on the walk in progress, 2 = known to end at a root or outside.
    let mut state = vec![0u8; parent.len()];
    let mut found = Vec::new();
    for start in 0..parent.len() {
        let mut path = Vec::new();
        let mut at = start;
        let looped = loop {
            if state[at] != 0 {
                break state[at] == 1;
            }
            state[at] = 1;
            path.push(at);
            match parent[at] {
                Some(p) => at = p,
                None => break false,
            }
        };
        if looped {
            // `at` is on this walk: the loop is the path from `at` on.
            let from = path.iter().position(|&i| i == at).unwrap_or(0);
            found.push(path[from..].to_vec());
        }
        for i in path {
            state[i] = 2;
        }
    }
    found
}

/// Records carrying a uuid an earlier record already carries. A link naming that uuid cannot
/// be followed: ctxc takes the first record, a reader keeping the last takes another, and
/// once compaction removes the first, the same link lands on the second (a record that may
/// be the link's own descendant, closing a loop). One finding per repeat, at its line; a
/// repeat that a chain link (`parentUuid`, `logicalParentUuid`) names blocks compaction,
/// whose re-linking goes by uuid. A title's `leafUuid` is no chain link: nothing walks it.
/// `index` is [`uuid_index`] of `chains`.
pub(super) fn repeated_uuids(
    conv: &Conversation,
    chains: &[Cow<Chain>],
    index: &HashMap<&str, usize>,
) -> Vec<Finding> {
    // The uuids chain links name, gathered only once a repeat is found (sessions rarely
    // have one).
    let mut named: Option<HashSet<&str>> = None;
    let mut findings = Vec::new();
    for (i, (item, chain)) in conv.items.iter().zip(chains).enumerate() {
        let Some(uuid) = chain.uuid.as_deref() else {
            continue;
        };
        let first = index[uuid];
        if first == i {
            continue;
        }
        let line = conv.items[first].line;
        let message = format!(
            "uuid '{uuid}' appears again (first at line {line}): the chain cannot be followed"
        );
        let named = named.get_or_insert_with(|| {
            chains
                .iter()
                .flat_map(|c| [c.parent_uuid.as_deref(), c.logical_parent_uuid.as_deref()])
                .flatten()
                .collect()
        });
        let finding = if named.contains(uuid) {
            Finding::blocking(item.line, message)
        } else {
            Finding::new(item.line, message)
        };
        findings.push(
            finding
                .with_identity(format!("uuid '{uuid}' repeated"))
                .repeating(line, "same uuid"),
        );
    }
    findings
}

// ----- Writing -----

/// What became of a uuid in an edited conversation.
pub(super) enum Fate<'a> {
    /// A record carrying it is written.
    Kept,
    /// Its record is gone; links to it move to the nearest surviving ancestor.
    Gone { parent: Option<&'a str> },
    /// Its record is replaced by the summary at this position of the output.
    Summarized { at: usize, parent: Option<&'a str> },
}

/// A summary written into the chain.
pub(super) struct SummaryLink {
    pub(super) uuid: String,
    pub(super) parent: Option<String>,
}

/// The re-linking of one edited conversation.
pub(super) struct Links<'a> {
    pub(super) fates: HashMap<&'a str, Fate<'a>>,
    /// Keyed by the summary's position in the output.
    pub(super) summaries: HashMap<usize, SummaryLink>,
}

impl<'a> Links<'a> {
    pub(super) fn new(chains: &'a [Cow<'_, Chain>], items: &[OutItem]) -> Self {
        let mut kept = vec![false; chains.len()];
        let mut summarized = vec![None; chains.len()];
        for (at, out) in items.iter().enumerate() {
            match out {
                OutItem::Keep(i)
                | OutItem::ReplaceResult(i, _)
                | OutItem::ReplaceText(i, _)
                | OutItem::Strip(i)
                | OutItem::DropThinking(i)
                | OutItem::ReplaceArguments(i, _) => kept[*i] = true,
                OutItem::Summary { replaces, .. } => {
                    replaces.clone().for_each(|i| summarized[i] = Some(at))
                }
            }
        }
        let mut links = Links {
            fates: fates(chains, &kept, &summarized),
            summaries: HashMap::new(),
        };
        for (at, out) in items.iter().enumerate() {
            if let OutItem::Summary { replaces, .. } = out {
                let uuid = summary_uuid(chains, replaces);
                links
                    .summaries
                    .insert(at, SummaryLink { uuid, parent: None });
            }
        }
        // Parents last: a summary may hang below an earlier summary, whose uuid must exist.
        let parents: Vec<(usize, Option<String>)> = items
            .iter()
            .enumerate()
            .filter_map(|(at, out)| match out {
                OutItem::Summary { replaces, .. } => {
                    Some((at, links.summary_parent(&chains[replaces.clone()], at)))
                }
                _ => None,
            })
            .collect();
        for (at, parent) in parents {
            links.summaries.get_mut(&at).expect("inserted above").parent = parent;
        }
        links
    }

    /// The nearest ancestor of the first linked record a summary replaces.
    pub(super) fn summary_parent(&self, replaced: &[Cow<Chain>], at: usize) -> Option<String> {
        let first = replaced.iter().find(|c| c.is_linked())?;
        self.resolve(first.parent_uuid.as_deref()?, Some(at))
    }

    /// Where a link to `uuid` must point now: the uuid itself if its record survives (or is
    /// not in the file), else the nearest surviving ancestor, a summary standing in for it,
    /// or nothing. `own` is the summary being placed, whose replaced records it walks through.
    pub(super) fn resolve(&self, uuid: &str, own: Option<usize>) -> Option<String> {
        let mut current = uuid;
        for _ in 0..=self.fates.len() {
            let parent = match self.fates.get(current) {
                None | Some(Fate::Kept) => return Some(current.to_string()),
                Some(Fate::Summarized { at, .. }) if Some(*at) != own => {
                    return Some(self.summaries[at].uuid.clone());
                }
                Some(Fate::Summarized { parent, .. } | Fate::Gone { parent }) => parent,
            };
            current = (*parent)?;
        }
        None
    }

    /// `text` (a surviving record) with each link to a record that is gone re-pointed.
    pub(super) fn relink<'t>(&self, text: Cow<'t, str>, chain: &Chain) -> Cow<'t, str> {
        let mut text = text;
        for (key, uuid) in chain.links() {
            if matches!(self.fates.get(uuid), None | Some(Fate::Kept)) {
                continue;
            }
            let value = self
                .resolve(uuid, None)
                .map_or("null".into(), |u| quote(&u));
            if let Some(edited) = replace_member(&text, key, &value) {
                text = Cow::Owned(edited);
            }
        }
        text
    }
}

pub(super) fn fates<'a>(
    chains: &'a [Cow<'_, Chain>],
    kept: &[bool],
    summarized: &[Option<usize>],
) -> HashMap<&'a str, Fate<'a>> {
    let mut fates = HashMap::new();
    // Kept first: a uuid that some written record still carries is never redirected.
    for (chain, _) in chains.iter().zip(kept).filter(|(_, k)| **k) {
        if let Some(uuid) = &chain.uuid {
            fates.insert(uuid.as_str(), Fate::Kept);
        }
    }
    for (i, chain) in chains.iter().enumerate().filter(|(i, _)| !kept[*i]) {
        let Some(uuid) = &chain.uuid else { continue };
        let parent = chain.parent_uuid.as_deref();
        let fate = match summarized[i] {
            Some(at) => Fate::Summarized { at, parent },
            None => Fate::Gone { parent },
        };
        fates.entry(uuid.as_str()).or_insert(fate);
    }
    fates
}

/// A uuid derived from the replaced records' uuids (or, when they have none, from where they
/// are), so the same edit always writes the same file. Formatted as a version-4 UUID because
/// Claude Code expects UUIDs there.
pub(super) fn summary_uuid(chains: &[Cow<Chain>], replaces: &Range<usize>) -> String {
    let uuids: Vec<&str> = chains[replaces.clone()]
        .iter()
        .filter_map(|c| c.uuid.as_deref())
        .collect();
    let seed = if uuids.is_empty() {
        format!("ctxc summary of records {replaces:?}")
    } else {
        format!("ctxc summary\n{}", uuids.join("\n"))
    };
    uuid_from(&seed)
}

/// A version-4-shaped UUID derived from `seed`: records ctxc writes get the same uuid on every
/// run, in the shape Claude Code expects.
pub fn uuid_from(seed: &str) -> String {
    let hash = xxhash_rust::xxh3::xxh3_128(seed.as_bytes());
    let hex = format!("{hash:032x}");
    format!(
        "{}-{}-4{}-{:x}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        8 | (u8::from_str_radix(&hex[16..17], 16).unwrap_or(0) & 3),
        &hex[17..20],
        &hex[20..32]
    )
}

//! `ctxc convert` of every Claude Code and Codex session of the corpus to OpenAI chat and to
//! ATIF: the output reads and checks clean (every call answered by its id where the session
//! answered it), and sends the session's commands, paths and user requests as the client did.
//! A session with nothing Chat Completions has a place for (reasoning alone) is refused.

use ctxc::convert::{Target, convert};
use ctxc::facts::Facts;
use ctxc::transcript::{Format, ReadOptions, check, read};

#[test]
fn every_claude_code_and_codex_session_converts_with_its_facts_and_pairs() {
    let mut converted = 0;
    let mut refused = Vec::new();
    for (rel, t) in crate::supported_transcripts() {
        if !matches!(t.format, Format::ClaudeCode | Format::Codex) {
            continue;
        }
        let findings_before = check(&t).len();
        for to in [Target::OpenAi, Target::Atif] {
            let out = match convert(&t, to, &rel) {
                Ok(out) => out,
                // Reasoning alone (a one-message sample) has no place in either: refused.
                Err(e) if e.to_string().starts_with("nothing the conversation sends") => {
                    refused.push(format!("{rel}: {e}"));
                    continue;
                }
                Err(e) => panic!("{rel}: {e:#}"),
            };
            let back = read(out.text.clone(), &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{rel} as {}: {:?}", to.name(), e.findings));
            // A session that checks clean converts to one that checks clean.
            let findings = check(&back);
            assert!(
                findings_before > 0 || findings.is_empty(),
                "{rel} as {}: {findings:?}",
                to.name()
            );
            for (before, after) in t.conversations.iter().zip(&back.conversations) {
                let sent: Vec<_> = before
                    .items
                    .iter()
                    .filter(|i| i.in_context)
                    .cloned()
                    .collect();
                let (was, now) = (Facts::of(&sent), Facts::of(&after.items));
                // A result that answers no call in the file is user text there: it may add
                // paths and requests, never lose one.
                assert_eq!(was.commands, now.commands, "{rel} as {}", to.name());
                for (what, was, now) in [
                    ("path", &was.paths, &now.paths),
                    ("user request", &was.user_requests, &now.user_requests),
                ] {
                    // An image has no place in Chat Completions (noted): a request keyed
                    // with its stub is looked for without it.
                    let unstubbed = |f: &String| {
                        ["[image] ", "[document] "]
                            .iter()
                            .fold(f.clone(), |f, stub| f.replace(stub, ""))
                    };
                    let now: Vec<String> = now.iter().map(unstubbed).collect();
                    // (Keys are clipped: the one without the stub runs further.)
                    let kept = |f: &String| now.iter().any(|n| n.starts_with(&unstubbed(f)));
                    let lost: Vec<_> = was.iter().filter(|f| !kept(f)).collect();
                    assert!(
                        lost.is_empty(),
                        "{rel} as {}: {what}s lost: {lost:?}",
                        to.name()
                    );
                }
            }
        }
        converted += 1;
    }
    assert!(converted >= 20, "only {converted} sessions");
    // Only sessions that send nothing but reasoning, or nothing at all (one-record samples
    // of Claude Code's bookkeeping records), are refused.
    assert!(
        refused
            .iter()
            .all(|r| r.ends_with("(it holds only reasoning)")
                || r.ends_with("(it holds no message)")),
        "{refused:#?}"
    );
}

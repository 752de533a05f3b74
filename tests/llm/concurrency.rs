//! The cap on requests in flight holds across threads, whatever the number of threads.

use crate::server::{Reply, Server};
use crate::{SESSION, items, settings, summarize, summarizer};
use ctxc::summarizer::llm::Provider;
use std::time::Duration;

#[test]
fn at_most_concurrency_requests_in_flight() {
    let server = Server::holding(Duration::from_millis(250), |_, _| {
        Reply::openai("<summary>s</summary>")
    });
    let mut s = settings(Provider::OpenAi, &server.base_url());
    s.concurrency = 2;
    let summarizer = summarizer(s);
    // Clones share the cap: half the threads use a clone.
    let clone = summarizer.clone();
    let items = items(&SESSION);
    std::thread::scope(|scope| {
        for i in 0..8 {
            let (summarizer, items) = (if i % 2 == 0 { &summarizer } else { &clone }, &items);
            scope.spawn(move || {
                let summary = summarize(summarizer, items).unwrap();
                assert_eq!(summary.fallback, None);
            });
        }
    });
    assert_eq!(server.requests().len(), 8);
    assert_eq!(server.peak(), 2);
}

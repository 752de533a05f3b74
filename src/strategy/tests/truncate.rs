//! Tests of truncate.

use super::*;

#[test]
fn truncate_keeps_preserved_items_and_the_last_10_messages() {
    let c = rich().case();
    let plan = c.apply(StrategyName::Truncate);
    // Counting back 10 messages: 29, 27-28, 26, 25, 23-24, 21-22; 19-20 would be the 10th
    // and 11th, and a call is never split from its result.
    assert_eq!(shape(&plan), format!("0 1 9 {}", kept(21, 29)));
    let five = StrategySettings {
        truncate_keep_recent: 5,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::Truncate, &five, 0);
    assert_eq!(shape(&plan), "0 1 9 25 26 27 28 29");
}

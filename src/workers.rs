//! How a command spreads its inputs over the thread pool: one at a time, in the order they
//! were found, each taken by the next free worker.
//!
//! Rayon's `par_iter` hands each worker a contiguous range of the list to split further. Taken
//! one by one instead, no worker is left at the end with a range of large files, and inputs
//! that repeat one another (a dataset shipped twice, sessions copied into two folders) are
//! reached in the order of the walk rather than by all workers at once. On 16 cores over the
//! corpus copied 16 times, `stats --jobs 16` took 0.170 s instead of 0.196 s.
//!
//! Each item runs under [`crate::panics::catch`]: a panic (a bug, or a library's on hostile
//! bytes) fails that item alone, through the caller's `panicked`, and the batch goes on.

use rayon::prelude::*;

/// `f` of every item, on the thread pool, items taken in order; results in the items' order.
/// An item whose `f` panics gets `panicked` of it and the error's wording
/// ([`crate::panics::internal`]) instead.
pub fn in_order<'a, T, R, F, P>(items: &'a [T], f: F, panicked: P) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&'a T) -> R + Sync + Send,
    P: Fn(&'a T, String) -> R + Sync + Send,
{
    let mut done: Vec<(usize, R)> = items
        .iter()
        .enumerate()
        .par_bridge()
        .map(|(i, item)| {
            let result = crate::panics::catch(|| f(item))
                .unwrap_or_else(|e| panicked(item, crate::panics::internal(&e)));
            (i, result)
        })
        .collect();
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_the_items_order() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let items: Vec<u64> = (0..1000).collect();
        // Uneven work, so that workers finish out of order.
        let squares = pool.install(|| {
            in_order(
                &items,
                |&n| {
                    if n % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    n * n
                },
                |_, _| unreachable!("nothing panics"),
            )
        });
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
    }

    #[test]
    fn an_item_that_panics_fails_alone() {
        let items: Vec<u64> = (0..100).collect();
        let done = in_order(
            &items,
            |&n| {
                assert!(n != 37, "item {n}");
                Ok(n)
            },
            |&n, why| Err((n, why)),
        );
        assert_eq!(done.len(), 100);
        assert_eq!(done[36], Ok(36));
        assert_eq!(done[38], Ok(38));
        let Err((37, why)) = &done[37] else {
            panic!("{:?}", done[37]);
        };
        assert!(
            why.contains("internal error") && why.contains("item 37"),
            "{why}"
        );
    }
}

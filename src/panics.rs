//! Panics turned into one input's error, so that no panic ends a batch: each worker's input
//! runs under [`catch`] ([`crate::workers::in_order`]), and so do the third-party decoders
//! that panic on hostile bytes (arrow-ipc on a damaged `ARROW:schema` in a Parquet footer).
//!
//! While any [`catch`] is running, the panic hook keeps quiet: what it would print goes into
//! the error instead, which names the input. A panic on a thread of the pool (a dataset's rows
//! run in parallel) reaches the worker that waits on it through rayon, so the hook cannot tell
//! by thread; outside every [`catch`] (a test's `should_panic`), the default hook prints.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many [`catch`] calls are running, on any thread.
static CATCHING: AtomicUsize = AtomicUsize::new(0);

/// Runs `f`; a panic in it comes back as its message. Whatever `f` was changing when it
/// panicked is dropped on the way out (temporary files are removed by their `Drop`), so the
/// caller reports the input as failed and uses nothing `f` left behind.
pub fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CATCHING.load(Ordering::SeqCst) == 0 {
                default(info);
            }
        }));
    });
    CATCHING.fetch_add(1, Ordering::SeqCst);
    let result = catch_unwind(AssertUnwindSafe(f));
    CATCHING.fetch_sub(1, Ordering::SeqCst);
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string())
    })
}

/// An internal error's wording: a panic caught at a worker's boundary is a bug.
pub fn internal(message: &str) -> String {
    format!("internal error, nothing written for this input (please report it): {message}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_comes_back_as_its_message_and_a_value_as_itself() {
        assert_eq!(catch(|| 7), Ok(7));
        assert_eq!(
            catch(|| panic!("at {}", 3)),
            Err::<(), _>("at 3".to_string())
        );
        let none: Option<u8> = "x".parse().ok();
        let err = catch(|| none.unwrap()).unwrap_err();
        assert!(err.contains("None"), "{err}");
    }

    #[test]
    fn a_panic_on_another_thread_of_the_pool_is_caught_too() {
        use rayon::prelude::*;
        let err = catch(|| {
            (0..64)
                .into_par_iter()
                .map(|i| if i == 40 { panic!("row {i}") } else { i })
                .sum::<i32>()
        })
        .unwrap_err();
        assert_eq!(err, "row 40");
    }
}

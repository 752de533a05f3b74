//! When to try a request again and how long to wait first: exponential backoff with jitter,
//! or what the server asked for in `retry-after-ms` / `Retry-After` (seconds or an HTTP date).
//!
//! Jitter comes from std's randomly seeded hasher rather than a random-number crate: it only
//! has to keep parallel workers from retrying in lockstep.

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The wait before the first retry; it doubles with each retry.
pub const BACKOFF_BASE: Duration = Duration::from_millis(250);
/// The longest backoff between two attempts.
pub const BACKOFF_MAX: Duration = Duration::from_secs(8);
/// The longest server-requested wait ctxc honours; beyond it, it gives up at once rather than
/// stall a batch (a provider asking for minutes is out of quota, not briefly overloaded).
pub const RETRY_AFTER_MAX: Duration = Duration::from_secs(60);

/// Whether a response with `status` is worth retrying: request time-out, rate limit, and
/// server errors. Other client errors (400, 401, 403, 404, 413, 422...) will fail again.
pub fn retryable_status(status: StatusCode) -> bool {
    status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
        || status.is_server_error()
}

/// The wait before retry number `retry` (0 for the first): half the exponential delay plus a
/// random share of the other half ("equal jitter"), so it never collapses to nothing.
pub fn backoff(retry: u32) -> Duration {
    let exp = BACKOFF_BASE.saturating_mul(1u32 << retry.min(16));
    let delay = exp.min(BACKOFF_MAX);
    delay / 2 + (delay / 2).mul_f64(jitter())
}

/// A number in [0, 1) that differs between calls and processes.
fn jitter() -> f64 {
    let bits = RandomState::new().hash_one(std::thread::current().id());
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// The wait the server asked for, if it did: `retry-after-ms` (OpenAI) first, then
/// `Retry-After` in seconds or as an HTTP date.
pub fn server_wait(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let at = http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

fn seconds(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the HTTP date servers send.
pub fn http_date(text: &str) -> Option<SystemTime> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [_weekday, day, month, year, time, "GMT"] = fields.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<i64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *h > 23 || *m > 59 || *s > 60 {
        return None;
    }
    let secs = days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s;
    Some(UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).ok()?))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_static(v));
        }
        map
    }

    #[test]
    fn statuses() {
        for code in [408, 429, 500, 502, 503, 504, 529] {
            assert!(
                retryable_status(StatusCode::from_u16(code).unwrap()),
                "{code}"
            );
        }
        for code in [400, 401, 403, 404, 413, 422] {
            assert!(
                !retryable_status(StatusCode::from_u16(code).unwrap()),
                "{code}"
            );
        }
    }

    #[test]
    fn backoff_grows_with_jitter_and_is_capped() {
        for retry in 0..20 {
            let exp = (BACKOFF_BASE * 2u32.pow(retry.min(10))).min(BACKOFF_MAX);
            let wait = backoff(retry);
            assert!(wait >= exp / 2 && wait <= exp, "{retry}: {wait:?}");
        }
    }

    #[test]
    fn server_waits() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37
        let wait = |pairs| server_wait(&headers(pairs), now);
        assert_eq!(wait(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(
            wait(&[("retry-after", "1.5")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            wait(&[("retry-after", "3"), ("retry-after-ms", "250")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            wait(&[("retry-after", "Sun, 06 Nov 1994 08:49:47 GMT")]),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            wait(&[("retry-after", "Sun, 06 Nov 1994 08:49:00 GMT")]),
            Some(Duration::ZERO)
        );
        assert_eq!(wait(&[("retry-after", "soon")]), None);
        assert_eq!(wait(&[("retry-after", "-1")]), None);
        assert_eq!(wait(&[]), None);
    }

    #[test]
    fn http_dates() {
        let t = http_date("Thu, 01 Jan 1970 00:00:00 GMT").unwrap();
        assert_eq!(t, UNIX_EPOCH);
        let t = http_date("Tue, 29 Feb 2000 12:00:00 GMT").unwrap();
        assert_eq!(t.duration_since(UNIX_EPOCH).unwrap().as_secs(), 951_825_600);
        assert_eq!(http_date("Tue, 29 Foo 2000 12:00:00 GMT"), None);
        assert_eq!(http_date("29 Feb 2000"), None);
    }
}

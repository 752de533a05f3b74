//! An S3 listing that keeps every key as the store holds it. object_store's listing turns
//! each key into its `Path`, which refuses a key with an empty segment (`in//x.jsonl`), a `.`
//! or `..` segment, or a control character, and then fails the whole listing: one odd key
//! stopped a prefix. This one sends ListObjectsV2 itself, signed with object_store's own
//! SigV4 signer and credentials, asks for URL-encoded keys (XML cannot carry every
//! character a key may hold), and returns the keys raw: the caller tells the ones the client
//! can address from the ones it cannot ([`addressable`]).

use super::client::{S3, first_line};
use anyhow::{Result, anyhow, bail};
use object_store::client::{HttpClient, HttpConnector, HttpRequest, HttpRequestBody};
use object_store::signer::Signer;
use serde::Deserialize;
use std::sync::OnceLock;

/// One object as the listing gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// The key, exactly as the store holds it.
    pub key: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its entity tag (quoted, as S3 sends it).
    pub etag: Option<String>,
    /// Its last-modified time, in seconds since the epoch (0 when unreadable).
    pub modified: u64,
}

/// Whether object_store addresses `key` as exactly this key: it parses, and parsing did not
/// change it (a leading `/` would be dropped, reading another object).
pub fn addressable(key: &str) -> bool {
    object_store::path::Path::parse(key).is_ok_and(|p| p.as_ref() == key)
}

/// Why object_store cannot address `key`, as a message says it.
pub fn why_odd(key: &str) -> &'static str {
    let segments: Vec<&str> = key.split('/').collect();
    if key.chars().any(|c| c.is_ascii_control()) {
        "its key holds a control character"
    } else if segments.iter().any(|s| *s == "." || *s == "..") {
        "its key has a `.` or `..` segment"
    } else if key.starts_with('/') {
        "its key starts with `/`"
    } else {
        "its key has an empty segment (`//`)"
    }
}

/// Pages one listing may take: 1,000 keys a page, so ten million keys.
const MAX_PAGES: usize = 10_000;

/// Tries of one page before its listing fails.
const TRIES: u32 = 3;

/// Every object whose key starts with `prefix` (raw, as given), in the store's order.
pub async fn list(s3: &S3, prefix: &str) -> Result<Vec<Object>> {
    let mut base = s3
        .store
        .signed_url(
            reqwest::Method::GET,
            &object_store::path::Path::ROOT,
            std::time::Duration::from_secs(60),
        )
        .await?;
    base.set_query(None);
    let mut objects = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut query = format!("list-type=2&encoding-type=url&prefix={}", encode(prefix));
        if let Some(token) = &token {
            query.push_str(&format!("&continuation-token={}", encode(token)));
        }
        let page = parse_page(&page_text(s3, &format!("{base}?{query}")).await?)?;
        objects.extend(page.objects);
        match page.next {
            Some(next) => token = Some(next),
            None => return Ok(objects),
        }
    }
    bail!("the listing ran past {MAX_PAGES} pages")
}

/// The body of one listing page, retried a few times on a transport error or a 5xx.
async fn page_text(s3: &S3, uri: &str) -> Result<String> {
    let mut last = String::new();
    for attempt in 0..TRIES {
        if attempt > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(200 << attempt)).await;
        }
        match send(s3, uri).await? {
            Ok(text) => return Ok(text),
            Err(why) => last = why,
        }
    }
    bail!("{last} (tried {TRIES} times)")
}

/// One signed GET: `Ok(Ok(body))`, `Ok(Err(why))` when worth another try, `Err` when not.
async fn send(s3: &S3, uri: &str) -> Result<Result<String, String>> {
    let credential = s3.store.credentials().get_credential().await?;
    let mut request = HttpRequest::new(HttpRequestBody::empty());
    *request.uri_mut() = uri.parse().map_err(|e| anyhow!("{uri}: {e}"))?;
    object_store::aws::AwsAuthorizer::new(&credential, "s3", &s3.region)
        .authorize(&mut request, None);
    let response = match http(s3)?.execute(request).await {
        Ok(response) => response,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let status = response.status();
    let body = match response.into_body().bytes().await {
        Ok(body) => String::from_utf8_lossy(&body).into_owned(),
        Err(e) => return Ok(Err(e.to_string())),
    };
    if status.is_success() {
        return Ok(Ok(body));
    }
    let why = format!("{status}: {}", first_line(&s3_message(&body)));
    if status.is_server_error() {
        return Ok(Err(why));
    }
    bail!(why)
}

/// The `<Code>` and `<Message>` of an S3 error body, or the body.
fn s3_message(body: &str) -> String {
    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct Error {
        code: Option<String>,
        message: Option<String>,
    }
    match quick_xml::de::from_str::<Error>(body) {
        Ok(Error {
            code: Some(code),
            message,
        }) => {
            format!("{code}: {}", message.unwrap_or_default())
        }
        _ => body.to_string(),
    }
}

/// The HTTP client of the hand-signed requests (one, shared: connections are reused).
fn http(s3: &S3) -> Result<&'static HttpClient> {
    static HTTP: OnceLock<HttpClient> = OnceLock::new();
    if let Some(http) = HTTP.get() {
        return Ok(http);
    }
    let options = object_store::ClientOptions::new().with_allow_http(s3.allow_http);
    let http = object_store::client::ReqwestConnector::default().connect(&options)?;
    Ok(HTTP.get_or_init(|| http))
}

/// A query value percent-encoded (all but RFC 3986's unreserved characters).
fn encode(value: &str) -> String {
    use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
    const SET: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    utf8_percent_encode(value, SET).to_string()
}

/// One page: its objects, and the token of the next page when there is one.
#[derive(Debug, PartialEq, Eq)]
struct Page {
    objects: Vec<Object>,
    next: Option<String>,
}

/// A ListObjectsV2 result (`encoding-type=url`).
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ListBucketResult {
    #[serde(default)]
    contents: Vec<Contents>,
    #[serde(default)]
    is_truncated: bool,
    next_continuation_token: Option<String>,
    encoding_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Contents {
    key: String,
    size: u64,
    last_modified: Option<String>,
    #[serde(rename = "ETag")]
    e_tag: Option<String>,
}

fn parse_page(xml: &str) -> Result<Page> {
    // serde does not look at the root's name: any XML would read as an empty page.
    if !xml.contains("<ListBucketResult") {
        bail!("not a ListObjectsV2 result: {}", first_line(xml));
    }
    let result: ListBucketResult =
        quick_xml::de::from_str(xml).map_err(|e| anyhow!("not a ListObjectsV2 result: {e}"))?;
    // A server that ignored `encoding-type=url` sends the keys as they are.
    let encoded = result.encoding_type.as_deref() == Some("url");
    let objects = result
        .contents
        .into_iter()
        .map(|c| {
            let key = if encoded { decode(&c.key)? } else { c.key };
            let modified = c
                .last_modified
                .as_deref()
                .and_then(crate::time::parse_rfc3339);
            Ok(Object {
                key,
                size: c.size,
                etag: c.e_tag,
                modified: modified.unwrap_or(0),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let next = match (result.is_truncated, result.next_continuation_token) {
        (false, _) => None,
        (true, Some(token)) if !token.is_empty() => Some(token),
        (true, _) => bail!("a truncated listing page gave no continuation token"),
    };
    Ok(Page { objects, next })
}

/// A key as `encoding-type=url` sends it: `+` for a space, `%XX` for other bytes.
fn decode(key: &str) -> Result<String> {
    let spaced = key.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8()
        .map(|k| k.into_owned())
        .map_err(|e| anyhow!("the listing gave a key that is not UTF-8 ({e}): {key}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bkt</Name><Prefix>in/</Prefix><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys>
  <EncodingType>url</EncodingType>
  <IsTruncated>true</IsTruncated>
  <Contents><Key>in/a+b.jsonl</Key><LastModified>2023-11-14T22:13:20.000Z</LastModified>
    <ETag>&quot;0cc175b9c0f1b6a831c399e269772661&quot;</ETag><Size>12</Size>
    <StorageClass>STANDARD</StorageClass></Contents>
  <Contents><Key>in//x.jsonl</Key><LastModified>2023-11-14T22:13:21Z</LastModified>
    <ETag>"e"</ETag><Size>3</Size></Contents>
  <Contents><Key>in/%2E%2E/y%0A.jsonl</Key><Size>0</Size></Contents>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
</ListBucketResult>"#;

    #[test]
    fn a_page_gives_raw_keys_and_the_next_token() {
        let page = parse_page(PAGE).unwrap();
        let keys: Vec<&str> = page.objects.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(keys, ["in/a b.jsonl", "in//x.jsonl", "in/../y\n.jsonl"]);
        assert_eq!(
            page.objects[0],
            Object {
                key: "in/a b.jsonl".into(),
                size: 12,
                etag: Some("\"0cc175b9c0f1b6a831c399e269772661\"".into()),
                modified: 1_700_000_000,
            }
        );
        assert_eq!(page.objects[1].modified, 1_700_000_001);
        assert_eq!(page.objects[2].modified, 0);
        assert_eq!(
            page.next.as_deref(),
            Some("1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        );
        assert_eq!(
            encode("1ueG/XY+w=~ a"),
            "1ueG%2FXY%2Bw%3D~%20a",
            "a token goes back encoded"
        );
    }

    #[test]
    fn the_last_page_an_empty_one_and_a_broken_one() {
        let last = "<ListBucketResult><IsTruncated>false</IsTruncated>\
            <Contents><Key>k%2Bx</Key><Size>1</Size></Contents></ListBucketResult>";
        let page = parse_page(last).unwrap();
        // Not URL-encoded (the server said nothing of it): taken as it is.
        assert_eq!((page.objects[0].key.as_str(), page.next), ("k%2Bx", None));
        let empty = "<ListBucketResult><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated>\
            </ListBucketResult>";
        assert_eq!(parse_page(empty).unwrap().objects, []);
        let no_token = "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>";
        assert!(parse_page(no_token).is_err());
        // A page from something else (a proxy's error page) is no empty listing.
        assert!(parse_page("<html><body>proxy error</body></html>").is_err());
        let no_size = "<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>";
        assert!(parse_page(no_size).is_err());
    }

    #[test]
    fn only_keys_the_client_addresses_exactly_are_addressable() {
        for key in ["in/a.jsonl", "a", "in/a b+c.jsonl", "in/.hidden"] {
            assert!(addressable(key), "{key}");
        }
        for (key, why) in [
            ("in//x.jsonl", "empty segment"),
            ("in/../y.jsonl", "`..` segment"),
            ("in/./y.jsonl", "`..` segment"),
            ("/x.jsonl", "starts with `/`"),
            ("in/a\nb.jsonl", "control character"),
        ] {
            assert!(!addressable(key), "{key}");
            assert!(why_odd(key).contains(why), "{key}: {}", why_odd(key));
        }
    }
}

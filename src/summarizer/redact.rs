//! Secret redaction: what is removed from a span before it leaves the machine.
//!
//! Remote summarizers send transcripts to someone else's server, and agent transcripts are full
//! of secrets: keys pasted by users, `.env` files read by tools, `curl -H 'Authorization: ...'`
//! commands. [`redact`] replaces each secret it recognises with `[REDACTED:kind]`, so the
//! summary can still say that a key was there and of which kind. The patterns aim at secrets
//! with a recognisable shape (provider key prefixes, PEM blocks, URL passwords, `key=value` with
//! a secret-looking key); ordinary text — paths, commit hashes, UUIDs, token counts — is left
//! alone. It is a safety net, not a guarantee: an unlabelled random password cannot be told from
//! any other word.

use regex::{Captures, Regex};
use std::borrow::Cow;
use std::sync::LazyLock;

/// The text with its secrets replaced, and how many were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction<'a> {
    /// The redacted text (borrowed when nothing was found).
    pub text: Cow<'a, str>,
    /// Secrets replaced.
    pub count: usize,
}

/// A secret's shape: the whole match is replaced, or only the `value` group when there is one
/// and `check` accepts it.
struct Rule {
    kind: &'static str,
    regex: Regex,
    check: fn(&str) -> bool,
}

/// Values taken as they are.
fn any(_: &str) -> bool {
    true
}

/// Opaque tokens nearly always hold a digit; prose after "Bearer" ("Bearer authentication")
/// does not.
fn has_digit(value: &str) -> bool {
    value.bytes().any(|b| b.is_ascii_digit())
}

/// Key names whose values are secrets: the name must end with one of these words, so
/// `max_tokens`, `token_count` and `tokenizer` are not taken for secrets.
const SECRET_KEY: &str = r"[A-Za-z0-9_.-]*?(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)";

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let checked = |kind, pattern: &str, check| Rule {
        kind,
        regex: Regex::new(pattern).expect("redaction pattern"),
        check,
    };
    let rule = |kind, pattern: &str| checked(kind, pattern, any);
    vec![
        // Whole PEM blocks; a block cut short (a clipped output) up to the end of its base64.
        rule(
            "private-key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:-]*)",
        ),
        rule("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
        rule("openai-key", r"\bsk-[A-Za-z0-9_-]{20,}"),
        rule("stripe-key", r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
        rule("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        rule(
            "github-token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        ),
        rule(
            "gitlab-token",
            r"\bgl(?:pat|ptt|dt|rt|cbt|oas|ft|imt|agent|soat)-[A-Za-z0-9_-]{20,}",
        ),
        // More of the token shapes gitleaks knows by their prefix.
        rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        rule("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
        rule(
            "slack-webhook",
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{40,}",
        ),
        rule(
            "sendgrid-key",
            r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
        ),
        rule("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
        rule("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
        rule("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
        rule("doppler-token", r"\bdp\.pt\.[A-Za-z0-9]{43}\b"),
        rule("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
        rule("linear-key", r"\blin_api_[A-Za-z0-9]{40}\b"),
        rule(
            "grafana-token",
            r"\b(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})",
        ),
        rule(
            "age-secret-key",
            r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
        ),
        rule("slack-token", r"\bxox[baprs]-[A-Za-z0-9-]{10,}"),
        rule("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
        rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
        rule(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        ),
        checked(
            "bearer-token",
            r"(?i)\bbearer\s+(?P<value>[A-Za-z0-9._~+/-]{12,}=*)",
            has_digit,
        ),
        rule(
            "basic-auth",
            r"(?i)\bauthorization\s*[:=]\s*\\?['\x22]?\s*basic\s+(?P<value>[A-Za-z0-9+/]{8,}=*)",
        ),
        rule(
            "url-password",
            r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@'\x22\[]+:(?P<value>[^/\s@'\x22]+)@",
        ),
        // Azure storage, Service Bus and Event Hubs connection strings.
        rule(
            "azure-key",
            r"(?i)\b(?:AccountKey|SharedAccessKey)\s*=\s*(?P<value>[A-Za-z0-9+/]{16,}={0,2})",
        ),
        // A registry login in Docker's `config.json`: `"auth": "<base64 of user:password>"`.
        rule(
            "docker-auth",
            r#"\\?"(?:auth|identitytoken)\\?"\s*:\s*\\?"(?P<value>[A-Za-z0-9+/._-]{8,}={0,2})"#,
        ),
        // The MySQL clients' password written against `-p` (`mysql -u root -pPASSWORD`).
        rule(
            "mysql-password",
            r#"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p\\?['"]?(?P<value>[^\s"'\\|;&]+)"#,
        ),
        // "key": "value" (JSON, also with escaped quotes inside a JSON string).
        rule(
            "secret",
            &format!(r#"(?i)\b{SECRET_KEY}\\?["']\s*:\s*\\?["'](?P<value>[^"'\\\s][^"'\\]*)"#),
        ),
        // key=value (environment files, command lines, query strings).
        rule(
            "secret",
            &format!(r#"(?i)\b{SECRET_KEY}\s*=\s*\\?["']?(?P<value>[^\s"'\\&;,]{{4,}})"#),
        ),
        // key: value ending its line (YAML, HTTP headers), so prose such as "token: a string
        // the server returns" is left alone.
        rule(
            "secret",
            &format!(r#"(?im)\b{SECRET_KEY}:[ \t]*(?P<value>[^\s"'\\]{{4,}})[ \t]*\r?$"#),
        ),
    ]
});

/// `text` with every secret it recognises replaced by `[REDACTED:kind]`.
pub fn redact(text: &str) -> Redaction<'_> {
    let mut out = Cow::Borrowed(text);
    let mut count = 0;
    for rule in RULES.iter() {
        if let Cow::Owned(replaced) = apply(rule, &out, &mut count) {
            out = Cow::Owned(replaced);
        }
    }
    Redaction { text: out, count }
}

fn apply<'t>(rule: &Rule, text: &'t str, count: &mut usize) -> Cow<'t, str> {
    rule.regex.replace_all(text, |caps: &Captures| {
        let whole = caps.get(0).expect("whole match");
        let Some(value) = caps.name("value") else {
            *count += 1;
            return format!("[REDACTED:{}]", rule.kind);
        };
        // A value already redacted by a more specific rule, or a variable reference, stays.
        let value_text = value.as_str();
        if value_text.starts_with("[REDACTED:")
            || value_text.starts_with('$')
            || !(rule.check)(value_text)
        {
            return whole.as_str().to_string();
        }
        *count += 1;
        let start = value.start() - whole.start();
        let end = value.end() - whole.start();
        format!(
            "{}[REDACTED:{}]{}",
            &whole.as_str()[..start],
            rule.kind,
            &whole.as_str()[end..]
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redacted(text: &str) -> String {
        redact(text).text.into_owned()
    }

    #[track_caller]
    fn assert_redacts(text: &str, secret: &str, kind: &str) {
        let out = redacted(text);
        assert!(!out.contains(secret), "{secret} left in: {out}");
        assert!(out.contains(&format!("[REDACTED:{kind}]")), "{out}");
    }

    #[track_caller]
    fn assert_untouched(text: &str) {
        let r = redact(text);
        assert_eq!(r.text, text);
        assert_eq!(r.count, 0);
    }

    #[test]
    fn more_gitleaks_token_shapes() {
        let hex = |n: usize| "0123456789abcdef".repeat(8)[..n].to_string();
        let cases = [
            (
                "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".to_string(),
                "npm-token",
            ),
            (
                format!("pypi-AgEIcHlwaS5vcmc{}", "x".repeat(60)),
                "pypi-token",
            ),
            (
                format!("https://hooks.slack.com/services/T0000/{}", "B".repeat(44)),
                "slack-webhook",
            ),
            (
                format!("SG.{}.{}", "a".repeat(22), "b".repeat(43)),
                "sendgrid-key",
            ),
            (format!("dop_v1_{}", hex(64)), "digitalocean-token"),
            (format!("shpat_{}", hex(32)), "shopify-token"),
            (format!("dapi{}", hex(32)), "databricks-token"),
            (format!("dp.pt.{}", "a1".repeat(21) + "b"), "doppler-token"),
            (format!("PMAK-{}-{}", hex(24), hex(34)), "postman-key"),
            (format!("lin_api_{}", "a".repeat(40)), "linear-key"),
            (
                format!("glsa_{}_{}", "a".repeat(32), hex(8)),
                "grafana-token",
            ),
            ("glptt-AbCdEfGhIjKlMnOpQrSt".to_string(), "gitlab-token"),
        ];
        for (secret, kind) in cases {
            assert_redacts(&format!("NPM: //registry/:_t {secret} end"), &secret, kind);
        }
    }

    #[test]
    fn provider_keys() {
        let openai = "sk-proj-Ab3dEf6hIj9kLmN0pQrStUvWxYz012345";
        assert_redacts(
            &format!("export OPENAI_API_KEY={openai}"),
            openai,
            "openai-key",
        );
        assert_redacts(&format!("key {openai} here"), openai, "openai-key");
        let ant = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        assert_redacts(&format!("using {ant}."), ant, "anthropic-key");
        assert_redacts(
            "id AKIAIOSFODNN7EXAMPLE ok",
            "AKIAIOSFODNN7EXAMPLE",
            "aws-access-key",
        );
        let ghp = "ghp_1234567890abcdefghijABCDEFGHIJ123456";
        assert_redacts(&format!("git push https://{ghp}@x"), ghp, "github-token");
        let pat = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz";
        assert_redacts(pat, pat, "github-token");
        assert_redacts(
            "SLACK=xoxb-123456789012-abcdefABCDEF",
            "xoxb-123456789012",
            "slack-token",
        );
        let google = "AIzaSyA1234567890abcdefghijklmnopqrstuv";
        assert_redacts(&format!("\"{google}\""), google, "google-api-key");
        let gitlab = "glpat-AbCdEfGhIjKlMnOpQrSt";
        assert_redacts(&format!("token {gitlab}"), gitlab, "gitlab-token");
        let stripe = "sk_live_AbCdEfGhIjKlMnOpQrSt";
        assert_redacts(stripe, stripe, "stripe-key");
    }

    #[test]
    fn bearer_and_basic_auth() {
        let h = "curl -H 'Authorization: Bearer abc.DEF_ghi-jkl~123456' https://x";
        assert_redacts(h, "abc.DEF_ghi-jkl~123456", "bearer-token");
        assert!(redacted(h).contains("Authorization: Bearer [REDACTED:bearer-token]'"));
        let b = "Authorization: Basic dXNlcjpwYXNzd29yZA==";
        assert_redacts(b, "dXNlcjpwYXNzd29yZA==", "basic-auth");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N";
        assert_redacts(&format!("cookie={jwt}"), "dozjgNryP4J3jVmNHl0w5N", "jwt");
    }

    #[test]
    fn private_key_blocks() {
        let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1b2c3\nd4e5f6==\n-----END RSA PRIVATE KEY-----";
        let out = redacted(&format!("cat id_rsa\n{pem}\ndone"));
        assert_eq!(out, "cat id_rsa\n[REDACTED:private-key]\ndone");
        // JSON-escaped, and cut short by a clipped output.
        let escaped = r"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nAAAABG5vbmU";
        assert_eq!(redacted(escaped), "[REDACTED:private-key]");
        // A public key is no secret.
        assert_untouched("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n");
    }

    #[test]
    fn passwords_in_urls() {
        let out = redacted("git clone https://alice:hunter22@git.example.com/r.git");
        assert_eq!(
            out,
            "git clone https://alice:[REDACTED:url-password]@git.example.com/r.git"
        );
        assert_redacts(
            "DATABASE_URL=postgres://app:s3cr3t!@db:5432/app",
            "s3cr3t!",
            "url-password",
        );
        assert_untouched("see https://example.com:8443/path and git@github.com:org/repo.git");
    }

    #[test]
    fn key_value_secrets() {
        assert_redacts("DB_PASSWORD=correct-horse", "correct-horse", "secret");
        assert_redacts(
            r#"{"api_key": "abc123def456", "model": "x"}"#,
            "abc123def456",
            "secret",
        );
        assert_redacts(
            r#"{\"client_secret\": \"zzz-top-secret\"}"#,
            "zzz-top-secret",
            "secret",
        );
        assert_redacts("  password: hunter22\n  user: bob", "hunter22", "secret");
        assert_redacts("GITHUB_TOKEN = 'tok_12345678'", "tok_12345678", "secret");
        let out = redacted(r#"{"access_token": "abcdefgh"}"#);
        assert_eq!(out, r#"{"access_token": "[REDACTED:secret]"}"#);
        // A key already caught by its provider rule is redacted once, by kind.
        let out = redacted("OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLmN0pQrStUvWx");
        assert_eq!(out, "OPENAI_API_KEY=[REDACTED:openai-key]");
        // Variable references are no secrets.
        assert_untouched("password=$DB_PASSWORD");
    }

    #[test]
    fn connection_strings_registry_logins_and_mysql_passwords() {
        let key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
        let conn = format!(
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={key};EndpointSuffix=core.windows.net"
        );
        assert_redacts(&conn, key, "azure-key");
        assert!(redacted(&conn).contains("AccountName=acct;AccountKey=[REDACTED:azure-key];"));
        let bus = "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=q1w2e3r4t5y6u7i8o9p0AbCdEfGhIjKl=";
        assert_redacts(bus, "q1w2e3r4t5y6u7i8o9p0AbCdEfGhIjKl=", "azure-key");
        let docker = r#"{"auths": {"registry.example.com": {"auth": "dXNlcjpodW50ZXIyMg=="}}}"#;
        assert_redacts(docker, "dXNlcjpodW50ZXIyMg==", "docker-auth");
        // As a tool's output quoted inside a JSON string.
        let escaped = r#"{\"auths\": {\"ghcr.io\": {\"auth\": \"Ym9iOnMzY3IzdA==\"}}}"#;
        assert_redacts(escaped, "Ym9iOnMzY3IzdA==", "docker-auth");
        assert_redacts(
            "mysql -u root -phunter22 shop",
            "hunter22",
            "mysql-password",
        );
        assert_redacts(
            "mysqldump -h db -uroot -p'S3cr3t!' shop > dump.sql",
            "S3cr3t!",
            "mysql-password",
        );
        assert_eq!(
            redacted("mysql -u root -phunter22 -e 'select 1'"),
            "mysql -u root -p[REDACTED:mysql-password] -e 'select 1'"
        );
        // A password prompt, a port and other commands' -p are no secrets.
        assert_untouched("mysql -u root -p shop");
        assert_untouched("mysql -h db -P3306 -u app -p");
        assert_untouched("mkdir -p build && cp -pr src out");
        assert_untouched(r#"{"auth": "none", "oauth": "dXNlcjpwYXNzd29yZA=="}"#);
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        assert_untouched("/home/alice/skills/task-sk-list.md and ./src/summarizer/mod.rs");
        assert_untouched(
            "commit 3f2a9c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291\nAuthor: Alice <a@example.com>",
        );
        assert_untouched(
            "id 123e4567-e89b-12d3-a456-426614174000 sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        );
        assert_untouched(r#"{"max_tokens": 1000, "prompt_tokens": 52, "token_count": 7}"#);
        assert_untouched("max_tokens=1000 tokenizer=o200k_base");
        assert_untouched("The token: a string the server returns on login.");
        assert_untouched("Use a bearer token in the header; ask for the password.");
        assert_untouched("Bearer authentication is configured in auth.rs");
        assert_untouched("task-sk-1 desk-sk-abc and risk-free");
    }

    #[test]
    fn counts_every_secret() {
        let r = redact("a=1 AKIAIOSFODNN7EXAMPLE b AKIAIOSFODNN7EXAMPLF password=hunter22");
        assert_eq!(r.count, 3);
    }
}

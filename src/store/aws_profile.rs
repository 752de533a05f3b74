//! The AWS CLI's shared files, `~/.aws/config` and `~/.aws/credentials`, read the way the AWS
//! CLI reads them, for the settings `object_store`'s environment does not cover: a profile's
//! static keys and session token, its region and its `endpoint_url` (also the
//! `[services NAME]` section's `s3 = endpoint_url = …`).
//!
//! The profile is `AWS_PROFILE` (else `AWS_DEFAULT_PROFILE`, else `default`); the files are
//! `AWS_CONFIG_FILE` and `AWS_SHARED_CREDENTIALS_FILE` when set. What the environment sets
//! wins, as in the CLI: keys in `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY` (or a web identity)
//! replace the profile's keys and token together, `AWS_REGION`/`AWS_DEFAULT_REGION` its region,
//! `AWS_ENDPOINT_URL(_S3)` its endpoint. For keys the credentials file wins over the config.
//!
//! No crate fits: `aws-config` reads these files but brings the whole AWS SDK runtime (its own
//! HTTP stack beside `object_store`'s) for one parser; generic INI crates do not know the AWS
//! format's `[profile NAME]` naming or its indented sub-settings (`s3 =` then `  endpoint_url`).
//! Profiles that get credentials another way (`role_arn`, `sso_*`, `credential_process`) are
//! refused with what to do, never silently replaced by another identity. The profile's
//! `ignore_configured_endpoint_urls` and the SSO token cache are not read.

use crate::human::Shown;
use anyhow::{Result, bail};
use object_store::aws::AmazonS3Builder;
use std::collections::HashMap;
use std::path::PathBuf;

/// The settings of the chosen profile that ctxc applies, each only where the environment
/// leaves it unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// `aws_access_key_id`, `aws_secret_access_key` and `aws_session_token`.
    pub keys: Option<Keys>,
    /// `region`.
    pub region: Option<String>,
    /// `endpoint_url` for S3: the services section's, else the profile's own.
    pub endpoint: Option<String>,
    /// A setting that makes the credentials come from elsewhere (`role_arn`, `sso_session`…).
    pub other_source: Option<String>,
    /// The profile's name, for messages.
    pub name: String,
}

/// Static credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    /// `aws_access_key_id`.
    pub id: String,
    /// `aws_secret_access_key`.
    pub secret: String,
    /// `aws_session_token` (temporary keys).
    pub token: Option<String>,
}

/// Settings that make a profile's credentials come from elsewhere, which ctxc does not run.
const OTHER_SOURCES: [&str; 5] = [
    "role_arn",
    "credential_process",
    "sso_session",
    "sso_start_url",
    "web_identity_token_file",
];

/// The profile the environment `var` names, read from the files it names (`read` gives a
/// file's text, `None` when there is none); `None` when no file holds the default profile.
pub fn load(
    var: impl Fn(&str) -> Option<String>,
    read: impl Fn(&PathBuf) -> Option<String>,
) -> Result<Option<Profile>> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    let home = set("HOME").map(PathBuf::from).or_else(dirs::home_dir);
    let file = |name: &str, default: &str| {
        set(name)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join(default)))
    };
    let config_path = file("AWS_CONFIG_FILE", "config");
    let credentials_path = file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
    let config = config_path.as_ref().and_then(&read).map(|t| parse(&t));
    let credentials = credentials_path.as_ref().and_then(&read).map(|t| parse(&t));
    let named = set("AWS_PROFILE").or_else(|| set("AWS_DEFAULT_PROFILE"));
    let name = named.clone().unwrap_or_else(|| "default".into());

    // `[profile NAME]` in the config (`[default]` too), `[NAME]` in the credentials file.
    let in_config = config.as_ref().and_then(|c| {
        c.get(&format!("profile {name}"))
            .or_else(|| (name == "default").then(|| c.get("default")).flatten())
    });
    let in_credentials = credentials.as_ref().and_then(|c| c.get(&name));
    if in_config.is_none() && in_credentials.is_none() {
        if let Some(name) = named {
            bail!(
                "AWS_PROFILE={name}: no such profile ([profile {name}] in {}, [{name}] in {})",
                shown(&config_path),
                shown(&credentials_path)
            );
        }
        return Ok(None);
    }
    let value = |key: &str| {
        let found = in_credentials.and_then(|s| s.values.get(key));
        found
            .or_else(|| in_config.and_then(|s| s.values.get(key)))
            .cloned()
    };
    let keys = match (value("aws_access_key_id"), value("aws_secret_access_key")) {
        (Some(id), Some(secret)) => Some(Keys {
            id,
            secret,
            token: value("aws_session_token"),
        }),
        _ => None,
    };
    let services = value("services").and_then(|s| {
        let section = config.as_ref()?.get(&format!("services {s}"))?;
        section.nested.get("s3")?.get("endpoint_url").cloned()
    });
    let nested = in_config.and_then(|s| s.nested.get("s3")?.get("endpoint_url").cloned());
    Ok(Some(Profile {
        keys,
        region: value("region"),
        endpoint: services.or(nested).or_else(|| value("endpoint_url")),
        other_source: OTHER_SOURCES
            .iter()
            .find(|&&s| value(s).is_some())
            .map(|s| (*s).to_string()),
        name,
    }))
}

impl Profile {
    /// `builder` (made from the environment, which `var` reads) with this profile's settings
    /// where the environment sets none. A profile whose credentials come from a role, SSO or
    /// a process is refused when the environment gives no keys: ctxc would otherwise go on as
    /// another identity (the instance's, say).
    pub fn apply(
        self,
        mut builder: AmazonS3Builder,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<AmazonS3Builder> {
        let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
        let env_keys = set("AWS_ACCESS_KEY_ID") || set("AWS_WEB_IDENTITY_TOKEN_FILE");
        if !env_keys {
            match (self.keys, self.other_source) {
                (Some(keys), _) => {
                    builder = builder
                        .with_access_key_id(keys.id)
                        .with_secret_access_key(keys.secret);
                    if let Some(token) = keys.token {
                        builder = builder.with_token(token);
                    }
                }
                (None, Some(setting)) => bail!(
                    "AWS profile {name} gets its credentials through `{setting}`, which ctxc \
                     does not follow: export them first (eval \"$(aws configure \
                     export-credentials --profile {name} --format env)\")",
                    name = self.name
                ),
                (None, None) => {}
            }
        }
        if let Some(region) = self
            .region
            .filter(|_| !set("AWS_REGION") && !set("AWS_DEFAULT_REGION"))
        {
            builder = builder.with_region(region);
        }
        let env_endpoint = ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"];
        if let Some(endpoint) = self
            .endpoint
            .filter(|_| !env_endpoint.iter().any(|v| set(v)))
        {
            // The AWS CLI talks plain http to an endpoint configured so; so does ctxc.
            builder = builder
                .with_allow_http(endpoint.starts_with("http://"))
                .with_endpoint(endpoint);
        }
        Ok(builder)
    }
}

fn shown(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map_or("(no home directory)".into(), |p| p.shown())
}

/// One `[section]`: its `key = value` lines, and its sub-settings (`s3 =` followed by indented
/// `key = value` lines).
#[derive(Debug, Default)]
struct Section {
    values: HashMap<String, String>,
    nested: HashMap<String, HashMap<String, String>>,
}

/// The sections of an AWS shared file, by their name as written inside the brackets (inner
/// spaces collapsed: `[profile  dev]` is `profile dev`). Comment lines start with `#` or `;`;
/// a later section or key of the same name wins, as in the CLI.
fn parse(text: &str) -> HashMap<String, Section> {
    let mut sections: HashMap<String, Section> = HashMap::new();
    let mut current: Option<String> = None;
    let mut parent: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
            sections.entry(name.clone()).or_default();
            current = Some(name);
            parent = None;
            continue;
        }
        let (Some(section), Some((key, value))) = (&current, trimmed.split_once('=')) else {
            continue;
        };
        let section = sections.entry(section.clone()).or_default();
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim().to_string());
        let indented = line.starts_with([' ', '\t']);
        match (&parent, indented) {
            (Some(p), true) => {
                section
                    .nested
                    .entry(p.clone())
                    .or_default()
                    .insert(key, value);
            }
            _ if value.is_empty() => parent = Some(key),
            _ => {
                parent = None;
                section.values.insert(key, value);
            }
        }
    }
    sections
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::aws::AmazonS3ConfigKey;

    const CONFIG: &str = "\
# a comment
[default]
region = eu-west-1

[profile dev]
region = us-east-2
endpoint_url = http://127.0.0.1:9000
aws_access_key_id = FROMCONFIG
aws_secret_access_key = config-secret

[profile svc]
services = local
[services local]
s3 =
  endpoint_url = http://127.0.0.1:9100
sts =
  endpoint_url = http://127.0.0.1:9200

[profile sso]
sso_session = corp
";

    const CREDENTIALS: &str = "\
[default]
aws_access_key_id = DEFAULTKEY
aws_secret_access_key = default-secret
; a comment
[dev]
aws_access_key_id = DEVKEY
aws_secret_access_key = dev-secret
aws_session_token = dev-token
";

    fn load_with(vars: &[(&str, &str)]) -> Result<Option<Profile>> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        load(
            |name| vars.get(name).cloned(),
            |path| match path.to_str()? {
                "/home/me/.aws/config" => Some(CONFIG.into()),
                "/home/me/.aws/credentials" => Some(CREDENTIALS.into()),
                "/elsewhere/config" => Some("[profile other]\nregion = ap-south-1\n".into()),
                _ => None,
            },
        )
    }

    #[test]
    fn the_default_profile_takes_keys_from_credentials_and_region_from_config() {
        let profile = load_with(&[("HOME", "/home/me")]).unwrap().unwrap();
        assert_eq!(
            profile.keys,
            Some(Keys {
                id: "DEFAULTKEY".into(),
                secret: "default-secret".into(),
                token: None
            })
        );
        assert_eq!(profile.region.as_deref(), Some("eu-west-1"));
        assert_eq!(profile.endpoint, None);
    }

    #[test]
    fn a_named_profile_prefers_the_credentials_file_for_keys() {
        let profile = load_with(&[("HOME", "/home/me"), ("AWS_PROFILE", "dev")])
            .unwrap()
            .unwrap();
        let keys = profile.keys.unwrap();
        assert_eq!(
            (keys.id.as_str(), keys.token.as_deref()),
            ("DEVKEY", Some("dev-token"))
        );
        assert_eq!(profile.region.as_deref(), Some("us-east-2"));
        assert_eq!(profile.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
    }

    #[test]
    fn a_services_section_names_the_s3_endpoint() {
        let profile = load_with(&[("HOME", "/home/me"), ("AWS_DEFAULT_PROFILE", "svc")])
            .unwrap()
            .unwrap();
        assert_eq!(profile.endpoint.as_deref(), Some("http://127.0.0.1:9100"));
        assert_eq!(profile.keys, None);
    }

    #[test]
    fn an_unknown_profile_is_an_error_naming_the_files() {
        let err = load_with(&[("HOME", "/home/me"), ("AWS_PROFILE", "nope")]).unwrap_err();
        let text = format!("{err:#}");
        assert!(text.contains("AWS_PROFILE=nope: no such profile"), "{text}");
        assert!(text.contains("/home/me/.aws/config"), "{text}");
    }

    fn applied(profile: &str, env: &[(&str, &str)]) -> Result<AmazonS3Builder> {
        let profile = load_with(&[("HOME", "/home/me"), ("AWS_PROFILE", profile)])?.unwrap();
        let env: HashMap<&str, &str> = env.iter().copied().collect();
        let builder = AmazonS3Builder::new();
        profile.apply(builder, |name| env.get(name).map(|v| v.to_string()))
    }

    fn setting(builder: &AmazonS3Builder, key: AmazonS3ConfigKey) -> Option<String> {
        builder.get_config_value(&key)
    }

    #[test]
    fn the_environment_wins_over_the_profile_setting_by_setting() {
        let from_profile = applied("dev", &[]).unwrap();
        assert_eq!(
            setting(&from_profile, AmazonS3ConfigKey::AccessKeyId).as_deref(),
            Some("DEVKEY")
        );
        assert_eq!(
            setting(&from_profile, AmazonS3ConfigKey::Token).as_deref(),
            Some("dev-token")
        );
        assert_eq!(
            setting(&from_profile, AmazonS3ConfigKey::Region).as_deref(),
            Some("us-east-2")
        );
        assert_eq!(
            setting(&from_profile, AmazonS3ConfigKey::Endpoint).as_deref(),
            Some("http://127.0.0.1:9000")
        );
        // Keys in the environment replace the profile's keys and token together; a region or
        // an endpoint there replaces the profile's.
        let env = [
            ("AWS_ACCESS_KEY_ID", "ENVKEY"),
            ("AWS_REGION", "sa-east-1"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:1"),
        ];
        let from_env = applied("dev", &env).unwrap();
        assert_eq!(setting(&from_env, AmazonS3ConfigKey::AccessKeyId), None);
        assert_eq!(setting(&from_env, AmazonS3ConfigKey::Token), None);
        assert_eq!(setting(&from_env, AmazonS3ConfigKey::Region), None);
        assert_eq!(setting(&from_env, AmazonS3ConfigKey::Endpoint), None);
    }

    #[test]
    fn a_web_identity_in_the_environment_comes_before_the_profiles_keys() {
        let env = [("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token")];
        let builder = applied("dev", &env).unwrap();
        assert_eq!(setting(&builder, AmazonS3ConfigKey::AccessKeyId), None);
        assert_eq!(
            setting(&builder, AmazonS3ConfigKey::Region).as_deref(),
            Some("us-east-2")
        );
    }

    #[test]
    fn a_profile_that_needs_sso_is_refused_with_what_to_do_unless_the_environment_has_keys() {
        let err = applied("sso", &[]).unwrap_err();
        let text = format!("{err:#}");
        assert!(text.contains("`sso_session`"), "{text}");
        assert!(text.contains("export-credentials --profile sso"), "{text}");
        assert!(applied("sso", &[("AWS_ACCESS_KEY_ID", "ENVKEY")]).is_ok());
    }

    #[test]
    fn no_files_no_profile_and_the_file_variables_move_them() {
        assert_eq!(load_with(&[("HOME", "/nobody")]).unwrap(), None);
        let profile = load_with(&[
            ("HOME", "/nobody"),
            ("AWS_CONFIG_FILE", "/elsewhere/config"),
            ("AWS_PROFILE", "other"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(profile.region.as_deref(), Some("ap-south-1"));
    }
}

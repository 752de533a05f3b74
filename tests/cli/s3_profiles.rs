//! The AWS CLI's profile files (`~/.aws/config`, `~/.aws/credentials`) against the same moto
//! server as `s3.rs`, with a temporary HOME and no AWS variables: the profile's endpoint
//! (also from a services section), region, keys and session token reach the bucket; the
//! environment's endpoint wins over the profile's; a missing profile, or one that needs a
//! credential process, is refused saying so.

use crate::s3::{Bucket, aws_vars, json};
use crate::{ctxc, shared, stderr_of};
use serde_json::Value;
use std::path::Path;

/// A HOME whose `~/.aws` holds `config` and, when given, `credentials`.
fn aws_home(config: &str, credentials: Option<&str>) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(aws.join("config"), config).unwrap();
    if let Some(credentials) = credentials {
        std::fs::write(aws.join("credentials"), credentials).unwrap();
    }
    home
}

/// `ctxc` with no AWS variables but HOME and `extra`; the instance-metadata endpoint (where
/// a client without keys would ask) is a closed port on this machine.
fn with_home(home: &Path, extra: &[(&str, &str)]) -> assert_cmd::Command {
    let mut cmd = ctxc();
    for name in aws_vars() {
        cmd.env_remove(name);
    }
    cmd.env("HOME", home)
        .env("AWS_METADATA_ENDPOINT", "http://127.0.0.1:9");
    for (name, value) in extra {
        cmd.env(name, value);
    }
    cmd
}

fn stats_files(out: &std::process::Output) -> Vec<Value> {
    json(out)["files"].as_array().unwrap().clone()
}

#[test]
fn aws_profiles_give_the_endpoint_region_and_keys_and_the_environment_wins() {
    let Some(bucket) = Bucket::new("profiles") else {
        return;
    };
    let session = shared("corpus/claude-code/spotter/short.jsonl");
    bucket.put("in/short.jsonl", &std::fs::read(&session).unwrap());
    let prefix = bucket.url("in/");
    let endpoint = &bucket.endpoint;

    // The default profile: keys from `credentials`, endpoint and region from `config`.
    let home = aws_home(
        &format!("[default]\nregion = us-east-1\nendpoint_url = {endpoint}\n"),
        Some("[default]\naws_access_key_id = test\naws_secret_access_key = test\n"),
    );
    let out = with_home(home.path(), &[])
        .args(["stats", "--json", &prefix])
        .output()
        .unwrap();
    assert_eq!(stats_files(&out).len(), 1);

    // A named profile with temporary keys in `config`, its endpoint in a services section.
    let home = aws_home(
        &format!(
            "[profile ci]\nregion = us-east-1\nservices = here\naws_access_key_id = test\n\
             aws_secret_access_key = test\naws_session_token = token\n\
             [services here]\ns3 =\n  endpoint_url = {endpoint}\n"
        ),
        None,
    );
    let out = with_home(home.path(), &[("AWS_PROFILE", "ci")])
        .args(["stats", "--json", &prefix])
        .output()
        .unwrap();
    assert_eq!(stats_files(&out).len(), 1);

    // The environment's endpoint wins over a profile's that goes nowhere.
    let home = aws_home(
        "[default]\nregion = us-east-1\nendpoint_url = http://127.0.0.1:9\n",
        Some("[default]\naws_access_key_id = test\naws_secret_access_key = test\n"),
    );
    let env = [
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("AWS_ALLOW_HTTP", "true"),
    ];
    let out = with_home(home.path(), &env)
        .args(["stats", "--json", &prefix])
        .output()
        .unwrap();
    assert_eq!(stats_files(&out).len(), 1);

    // A profile that does not exist, or that needs a process ctxc does not run: refused,
    // saying so, before any request.
    let out = with_home(home.path(), &[("AWS_PROFILE", "nope")])
        .args(["stats", &prefix])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = stderr_of(&out);
    assert!(err.contains("AWS_PROFILE=nope: no such profile"), "{err}");
    let home = aws_home("[profile proc]\ncredential_process = /bin/false\n", None);
    let out = with_home(home.path(), &[("AWS_PROFILE", "proc")])
        .args(["stats", &prefix])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = stderr_of(&out);
    assert!(err.contains("`credential_process`"), "{err}");
    assert!(err.contains(&prefix), "{err}");
}

/// A server on loopback that answers every request `403 Forbidden`: an instance-metadata
/// endpoint that gives no credentials, as one does off EC2 behind some proxies.
fn forbidding_metadata() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// What a newcomer trips on is said in one line: no credentials anywhere (and where ctxc
/// looked), a plain-http endpoint without `AWS_ALLOW_HTTP`, a bucket that is not there.
#[test]
fn no_credentials_plain_http_and_a_missing_bucket_are_said_in_one_line() {
    let Some(bucket) = Bucket::new("newcomer") else {
        return;
    };
    bucket.put(
        "in/short.jsonl",
        &std::fs::read(shared("corpus/claude-code/spotter/short.jsonl")).unwrap(),
    );
    let prefix = bucket.url("in/");
    let endpoint = bucket.endpoint.as_str();
    let home = aws_home("", None);
    let metadata = forbidding_metadata();
    let stand_in = [
        ("AWS_ENDPOINT_URL", endpoint),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_METADATA_ENDPOINT", metadata.as_str()),
    ];
    let out = with_home(home.path(), &stand_in)
        .args(["stats", &prefix])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = stderr_of(&out);
    assert!(
        err.contains("no AWS credentials found (looked in: the environment"),
        "{err}"
    );
    assert!(
        err.contains("profile default in ~/.aws/credentials"),
        "{err}"
    );
    assert!(err.contains("instance metadata"), "{err}");

    let keys = [
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
    ];
    let out = with_home(home.path(), &[&stand_in[..], &keys[..]].concat())
        .env_remove("AWS_ALLOW_HTTP")
        .args(["stats", &prefix])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = stderr_of(&out);
    assert!(
        err.contains(&format!("the S3 endpoint {endpoint} is plain http")),
        "{err}"
    );
    assert!(err.contains("AWS_ALLOW_HTTP=true"), "{err}");

    let out_dir = home.path().join("out");
    let out_dir = out_dir.to_str().unwrap();
    let object = "s3://no-such-bucket-here/in/short.jsonl";
    for command in [
        &["stats", object][..],
        &["stats", "s3://no-such-bucket-here/in/"][..],
        &["compact", "--force", "--out-dir", out_dir, object][..],
    ] {
        let out = with_home(home.path(), &[&stand_in[..], &keys[..]].concat())
            .args(command)
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(0));
        let err = stderr_of(&out);
        assert!(err.contains("no such bucket"), "{command:?}: {err}");
        assert!(!err.contains('<'), "{command:?}: no XML: {err}");
    }
}

/// The "try it locally" recipe of docs/datasets.md: `scripts/dev/s3-try-locally.sh` starts the
/// stand-in with a bucket and prints the variables to set, with which ctxc writes to and reads
/// from it.
#[test]
fn the_try_it_locally_script_gives_a_bucket_ctxc_can_use() {
    let Some(server) = crate::s3::moto_server() else {
        return;
    };
    let venv = server.parent().unwrap().parent().unwrap();
    let out = std::process::Command::new(crate::root().join("scripts/dev/s3-try-locally.sh"))
        .arg("try-it")
        .env("CTXC_S3_VENV", venv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let printed = String::from_utf8(out.stdout).unwrap();
    let vars: Vec<(String, String)> = printed
        .lines()
        .filter_map(|l| l.strip_prefix("export "))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let pid = printed
        .lines()
        .find_map(|l| l.strip_prefix("# Stop it with: kill "))
        .expect("how to stop it")
        .to_string();
    let home = aws_home("", None);
    let env: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let session = shared("corpus/claude-code/spotter/short.jsonl");
    let copied = with_home(home.path(), &env)
        .args(["compact", "--out-dir", "s3://try-it/out/"])
        .arg(&session)
        .output()
        .unwrap();
    let listed = with_home(home.path(), &env)
        .args(["stats", "--json", "s3://try-it/out/"])
        .output()
        .unwrap();
    let _ = std::process::Command::new("kill").arg(&pid).status();
    assert_eq!(copied.status.code(), Some(0), "{}", stderr_of(&copied));
    assert_eq!(stats_files(&listed).len(), 1);
    let guide = std::fs::read_to_string(crate::root().join("docs/datasets.md")).unwrap();
    assert!(
        guide.contains("scripts/dev/s3-try-locally.sh"),
        "docs/datasets.md names it"
    );
}

//! What CI and CONTRIBUTING.md say the end-to-end test needs: the Node.js version its pinned clients
//! ask for (`engines` in tests/e2e/package-lock.json), checked early by `.ci/run`.

use crate::root;
use std::path::Path;
use std::process::Command;

/// The highest `engines.node` (">=N") of the e2e test's lock file.
fn needed_node() -> u32 {
    let lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("tests/e2e/package-lock.json")).unwrap())
            .unwrap();
    lock["packages"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|p| p["engines"]["node"].as_str())
        .filter_map(|v| {
            v.trim()
                .strip_prefix(">=")?
                .trim()
                .split('.')
                .next()?
                .parse()
                .ok()
        })
        .max()
        .unwrap()
}

/// `scripts/ci/check-node.sh` with a `node` (and `npm`) on PATH that says it is `version`.
fn check_node(version: &str, bin: &Path) -> std::process::Output {
    let node = bin.join("node");
    std::fs::write(&node, format!("#!/bin/sh\necho {version}\n")).unwrap();
    std::fs::write(bin.join("npm"), "#!/bin/sh\necho 10.0.0\n").unwrap();
    for f in ["node", "npm"] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    Command::new(root().join("scripts/ci/check-node.sh"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap()
}

#[test]
fn ci_fails_early_on_a_node_older_than_the_e2e_clients_need() {
    let need = needed_node();
    assert!(need >= 22, "Claude Code 2.1.330 asks for Node.js 22");
    let bin = tempfile::tempdir().unwrap();
    let old = check_node("v20.20.2", bin.path());
    let said = String::from_utf8_lossy(&old.stderr);
    assert_eq!(old.status.code(), Some(1), "{said}");
    assert!(said.contains("v20.20.2 is too old"), "{said}");
    assert!(said.contains(&format!("Node.js {need}+")), "{said}");
    let new = check_node(&format!("v{need}.1.0"), bin.path());
    assert!(
        new.status.success(),
        "{}",
        String::from_utf8_lossy(&new.stderr)
    );

    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let checked = ci
        .find("scripts/ci/check-node.sh")
        .expect(".ci/run checks node");
    assert!(
        checked < ci.find("npm ci").unwrap(),
        "the check comes before npm ci"
    );
    let guide = std::fs::read_to_string(root().join("CONTRIBUTING.md")).unwrap();
    assert!(
        guide.contains(&format!("Needs Node.js {need}+")),
        "CONTRIBUTING.md says what tests/e2e needs"
    );
    for older in 16..need {
        assert!(
            !guide.contains(&format!("Node.js {older}+")),
            "CONTRIBUTING.md still says Node.js {older}+"
        );
    }
}

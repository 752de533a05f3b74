//! `--shard K/N` and `--shard auto`: which share of the inputs one process of a fleet takes.
//!
//! Job runners start N copies of one command and tell each its index in the environment;
//! `auto` reads it, so one manifest or script serves every copy:
//! - Slurm job arrays: `SLURM_ARRAY_TASK_ID`, with `SLURM_ARRAY_TASK_MIN`, `_MAX`, `_STEP` and
//!   `_COUNT` (index and count both come from the environment);
//! - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` (0-based);
//! - AWS Batch array jobs: `AWS_BATCH_JOB_ARRAY_INDEX` (0-based).
//!
//! Kubernetes and AWS Batch give the index but not the count: `--shard auto/N` names it. A file
//! belongs to shard K when a stable hash of its path modulo N is K - 1, so the shards of one
//! input tree never overlap and always cover it.

use anyhow::{Result, anyhow, bail};

/// A share of the inputs: the K-th of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based index.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

/// What `--shard` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardSpec {
    /// `K/N`.
    Given(Shard),
    /// `auto` or `auto/N`: from the job runner's environment.
    Auto {
        /// `N`, for runners that give only the index.
        count: Option<u32>,
    },
}

/// Parses `K/N`, `auto` or `auto/N`.
pub fn parse(s: &str) -> Result<ShardSpec, String> {
    let (k, n) = match s.split_once('/') {
        Some((k, n)) => (k.trim(), Some(n.trim())),
        None => (s.trim(), None),
    };
    let number = |t: &str| {
        t.parse::<u32>()
            .map_err(|_| format!("'{t}' is not a number"))
    };
    let count = n.map(number).transpose()?;
    if count == Some(0) {
        return Err(format!("shard {s}: N must be at least 1"));
    }
    if k == "auto" {
        return Ok(ShardSpec::Auto { count });
    }
    let Some(count) = count else {
        return Err(format!("'{s}' is not K/N (e.g. 1/4) or auto"));
    };
    let index = number(k)?;
    if index == 0 || index > count {
        return Err(format!("shard {index}/{count}: K must be between 1 and N"));
    }
    Ok(ShardSpec::Given(Shard { index, count }))
}

/// The shard `spec` names, `auto` read from `env` (the process environment in use).
pub fn resolve(spec: ShardSpec, env: impl Fn(&str) -> Option<String>) -> Result<Shard> {
    let count = match spec {
        ShardSpec::Given(shard) => return Ok(shard),
        ShardSpec::Auto { count } => count,
    };
    let number = |name: &str| -> Result<Option<i64>> {
        env(name)
            .map(|v| {
                v.trim()
                    .parse::<i64>()
                    .map_err(|_| anyhow!("--shard auto: {name}={v:?} is not a number"))
            })
            .transpose()
    };
    let shard = if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        slurm(id, &number, count)?
    } else if let Some(i) = number("JOB_COMPLETION_INDEX")? {
        zero_based(
            i,
            count,
            "JOB_COMPLETION_INDEX",
            "a Kubernetes Indexed Job",
            "completions",
        )?
    } else if let Some(i) = number("AWS_BATCH_JOB_ARRAY_INDEX")? {
        zero_based(
            i,
            count,
            "AWS_BATCH_JOB_ARRAY_INDEX",
            "an AWS Batch array job",
            "array size",
        )?
    } else {
        bail!(
            "--shard auto: no job runner's index in the environment (SLURM_ARRAY_TASK_ID, \
             JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX): give --shard K/N"
        );
    };
    if shard.index == 0 || shard.index > shard.count {
        bail!(
            "--shard auto: the environment gives shard {} of {}, outside 1 to {}: give --shard K/N",
            shard.index,
            shard.count,
            shard.count
        );
    }
    Ok(shard)
}

/// A Slurm array task: `--array=MIN-MAX[:STEP]`, indexes counted from MIN in steps.
fn slurm(
    id: i64,
    number: &dyn Fn(&str) -> Result<Option<i64>>,
    given: Option<u32>,
) -> Result<Shard> {
    let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
    let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
    let count = match (
        number("SLURM_ARRAY_TASK_COUNT")?,
        number("SLURM_ARRAY_TASK_MAX")?,
    ) {
        (Some(n), _) => n,
        (None, Some(max)) => (max - min) / step + 1,
        (None, None) => match given {
            Some(n) => i64::from(n),
            None => bail!(
                "--shard auto: SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT or \
                 SLURM_ARRAY_TASK_MAX: give --shard auto/N"
            ),
        },
    };
    if let Some(n) = given.filter(|&n| i64::from(n) != count) {
        bail!("--shard auto/{n}: the Slurm array has {count} tasks");
    }
    if (id - min) % step != 0 {
        bail!(
            "--shard auto: task {id} is not on the array's steps of {step} from {min}: give \
             --shard K/N"
        );
    }
    Ok(Shard {
        index: clamp((id - min) / step + 1),
        count: clamp(count),
    })
}

/// An index counted from 0 whose count the runner does not give.
fn zero_based(
    index: i64,
    count: Option<u32>,
    name: &str,
    runner: &str,
    what: &str,
) -> Result<Shard> {
    let Some(count) = count else {
        bail!(
            "--shard auto: {name}={index} ({runner}) gives the index but not the count: \
             give --shard auto/N, N being the job's {what}"
        );
    };
    Ok(Shard {
        index: clamp(index + 1),
        count,
    })
}

/// A count or index as u32; out of range becomes 0, which [`resolve`] refuses.
fn clamp(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(count: Option<u32>, vars: &[(&str, &str)]) -> Result<Shard> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        resolve(ShardSpec::Auto { count }, |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    fn shard(index: u32, count: u32) -> Shard {
        Shard { index, count }
    }

    #[test]
    fn given_shards_and_auto_parse() {
        assert_eq!(parse("2/4"), Ok(ShardSpec::Given(shard(2, 4))));
        assert_eq!(parse("auto"), Ok(ShardSpec::Auto { count: None }));
        assert_eq!(parse("auto/8"), Ok(ShardSpec::Auto { count: Some(8) }));
        for bad in ["3/2", "0/2", "auto/0", "2", "x/2", "auto/x"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slurm_arrays_give_index_and_count() {
        let vars = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(auto(None, &vars).unwrap(), shard(1, 4));
        // --array=1-8: ids from 1.
        let vars = [
            ("SLURM_ARRAY_TASK_ID", "8"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "8"),
        ];
        assert_eq!(auto(None, &vars).unwrap(), shard(8, 8));
        // --array=0-15:5 → 0, 5, 10, 15.
        let vars = [
            ("SLURM_ARRAY_TASK_ID", "10"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "15"),
            ("SLURM_ARRAY_TASK_STEP", "5"),
        ];
        assert_eq!(auto(None, &vars).unwrap(), shard(3, 4));
        let vars = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert!(auto(Some(5), &vars).is_err(), "a count that disagrees");
        assert!(auto(None, &[("SLURM_ARRAY_TASK_ID", "2")]).is_err());
        assert_eq!(
            auto(Some(3), &[("SLURM_ARRAY_TASK_ID", "2")]).unwrap(),
            shard(3, 3)
        );
    }

    #[test]
    fn kubernetes_and_aws_batch_need_the_count() {
        let k8s = [("JOB_COMPLETION_INDEX", "3")];
        assert_eq!(auto(Some(4), &k8s).unwrap(), shard(4, 4));
        let err = auto(None, &k8s).unwrap_err().to_string();
        assert!(
            err.contains("auto/N") && err.contains("Kubernetes"),
            "{err}"
        );
        assert!(auto(Some(3), &k8s).is_err(), "index 4 of 3");
        let aws = [("AWS_BATCH_JOB_ARRAY_INDEX", "0")];
        assert_eq!(auto(Some(2), &aws).unwrap(), shard(1, 2));
    }

    #[test]
    fn no_runner_is_a_clear_error() {
        let err = auto(None, &[]).unwrap_err().to_string();
        assert!(err.contains("SLURM_ARRAY_TASK_ID"), "{err}");
        let err = auto(None, &[("JOB_COMPLETION_INDEX", "x")]).unwrap_err();
        assert!(err.to_string().contains("not a number"), "{err}");
    }
}

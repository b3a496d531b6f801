//! A batch on a real SLURM cluster: the script `--emit-slurm` writes,
//! submitted as it is, runs as a 4-task job array; merged, its folder is
//! byte for byte the folder of one unsharded batch on this machine.
//!
//! `.ci/slurm-up` brings up a single-node cluster (slurmctld, slurmd, munge)
//! on this machine; against a real cluster, see the README ("Batches on a
//! SLURM cluster").

use std::fs;
use std::path::Path;
use std::process::Command;

mod cli_support;
mod tools;
use cli_support::{crowd, temp_dir, tree};

#[test]
#[cfg_attr(no_slurm, ignore = "no SLURM cluster answers here (.ci/slurm-up starts one); CI runs it")]
fn a_job_array_on_a_real_cluster_makes_the_files_of_one_local_batch() {
    assert!(tools::slurm_available(), "no SLURM cluster answers `sinfo`: run .ci/slurm-up");
    let dir = temp_dir("slurm-cluster");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/basics/pillars.crowd");
    fs::copy(src, dir.join("p.crowd")).unwrap();
    let args = ["batch", "p.crowd", "--seeds", "1..6", "--set", "population.walkers.count=10,30", "--out"];

    let o = crowd(&dir, &[&args[..], &["cluster", "--emit-slurm", "job.sh", "--tasks", "4"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // As a user submits it; --wait returns when every task has ended, with the worst exit code.
    let o = Command::new("sbatch").args(["--wait", "job.sh"]).current_dir(&dir).output().expect("sbatch runs");
    let logs: Vec<String> = fs::read_dir(dir.join("job-logs"))
        .map(|d| d.filter_map(Result::ok).map(|e| fs::read_to_string(e.path()).unwrap_or_default()).collect())
        .unwrap_or_default();
    assert!(o.status.success(), "sbatch: {}\ntask logs:\n{}", String::from_utf8_lossy(&o.stderr), logs.join("\n---\n"));
    assert_eq!(logs.len(), 4, "one log per task");
    for shard in 0..4 {
        assert!(logs.iter().any(|l| l.contains(&format!("shard {shard}/4: 3 run(s)"))), "{}", logs.join("\n---\n"));
    }

    let o = crowd(&dir, &["batch", "--merge", "cluster"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = crowd(&dir, &[&args[..], &["local"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (cluster, local) = (tree(&dir.join("cluster")), tree(&dir.join("local")));
    assert_eq!(cluster.len(), 3 + 2 * 12);
    assert!(cluster == local, "the cluster's batch differs from the local one");
    let _ = fs::remove_dir_all(&dir);
}

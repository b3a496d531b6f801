//! Which part of a run list one process takes: `--shard I/N`, or the task of
//! a SLURM job array it runs in.

/// Shard `index` of `count` (0-based): the runs whose index is `index` modulo
/// `count`. Dealt out in turn rather than in blocks, so that each shard gets
/// runs of every parameter point, and costly points are spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// The whole run list.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    pub fn holds(&self, run: u64) -> bool {
        run % self.count == self.index
    }

    /// The shard of the SLURM array task this process runs in, if it runs in
    /// one: the task's place in the array (`SLURM_ARRAY_TASK_ID` counted from
    /// `SLURM_ARRAY_TASK_MIN` in steps of `SLURM_ARRAY_TASK_STEP`) of
    /// `SLURM_ARRAY_TASK_COUNT` tasks.
    pub fn from_slurm(var: impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, String> {
        let Some(id) = var("SLURM_ARRAY_TASK_ID") else { return Ok(None) };
        let num = |name: &str, default: Option<u64>| -> Result<u64, String> {
            match var(name) {
                Some(v) => v.trim().parse().map_err(|_| format!("{name}={v} is not a whole number")),
                None => default.ok_or_else(|| format!("SLURM_ARRAY_TASK_ID is set but {name} is not")),
            }
        };
        let id: u64 = id.trim().parse().map_err(|_| format!("SLURM_ARRAY_TASK_ID={id} is not a whole number"))?;
        let (min, step, count) = (
            num("SLURM_ARRAY_TASK_MIN", Some(0))?,
            num("SLURM_ARRAY_TASK_STEP", Some(1))?,
            num("SLURM_ARRAY_TASK_COUNT", None)?,
        );
        if step == 0 || id < min || !(id - min).is_multiple_of(step) || (id - min) / step >= count {
            return Err(format!(
                "SLURM_ARRAY_TASK_ID={id} is not a task of an array of {count} from {min} in steps of {step}: \
                 give the shard with --shard I/N"
            ));
        }
        Ok(Some(Shard { index: (id - min) / step, count }))
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}` is not a shard: write I/N, with 0 ≤ I < N (shard 0/4 is the first of four)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_deal_the_runs_in_turn() {
        let s: Shard = "1/3".parse().unwrap();
        assert_eq!((0..9).filter(|&r| s.holds(r)).collect::<Vec<_>>(), [1, 4, 7]);
        assert!("3/3".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn a_slurm_array_task_is_its_shard() {
        fn env<'a>(pairs: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'a {
            move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        }
        assert_eq!(Shard::from_slurm(env(&[])), Ok(None));
        let task = [("SLURM_ARRAY_TASK_ID", "7"), ("SLURM_ARRAY_TASK_MIN", "4"), ("SLURM_ARRAY_TASK_COUNT", "4")];
        assert_eq!(Shard::from_slurm(env(&task)), Ok(Some(Shard { index: 3, count: 4 })));
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert_eq!(Shard::from_slurm(env(&stepped)), Ok(Some(Shard { index: 2, count: 3 })));
        assert!(Shard::from_slurm(env(&[("SLURM_ARRAY_TASK_ID", "2")])).is_err());
    }
}

//! Comparing a trace with its golden snapshot.
//!
//! Invariants: traces are equal exactly when their bytes are; on a difference
//! the report names the first diverging row in (frame, id) order, its first
//! diverging column, the expected and actual text, how many rows differ and
//! the largest positional deviation among rows present in both.

use std::cmp::Ordering;
use std::fmt;

use super::read::Table;

/// Where two traces first part.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    pub frame: String,
    pub id: String,
    pub column: String,
    pub expected: String,
    pub actual: String,
}

/// How a trace differs from its golden.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// `(expected, actual)` header rows when they differ.
    pub header: Option<(String, String)>,
    pub first: Option<Divergence>,
    pub differing_rows: u64,
    pub expected_rows: u64,
    pub actual_rows: u64,
    /// Largest distance between a row's expected and actual position, m, with its frame and id.
    pub max_deviation: Option<(f64, String, String)>,
    /// The files could not be read as traces: why.
    pub unreadable: Option<String>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(why) = &self.unreadable {
            return write!(f, "the traces differ and cannot be compared row by row: {why}");
        }
        if let Some((e, a)) = &self.header {
            writeln!(f, "header differs:\n  expected: {e}\n  actual:   {a}")?;
        }
        if let Some(d) = &self.first {
            writeln!(
                f,
                "first divergence at frame {}, agent {}, column {}: expected `{}`, got `{}`",
                d.frame, d.id, d.column, d.expected, d.actual
            )?;
        }
        write!(
            f,
            "{} row{} differ ({} expected, {} actual)",
            self.differing_rows,
            if self.differing_rows == 1 { "" } else { "s" },
            self.expected_rows,
            self.actual_rows
        )?;
        if let Some((d, frame, id)) = &self.max_deviation {
            write!(f, "; largest positional deviation {d} m (frame {frame}, agent {id})")?;
        }
        Ok(())
    }
}

/// `None` when the traces are identical.
pub fn compare(expected: &[u8], actual: &[u8]) -> Option<Mismatch> {
    if expected == actual {
        return None;
    }
    let (e, a) = match (Table::parse(expected), Table::parse(actual)) {
        (Ok(e), Ok(a)) => (e, a),
        (Err(why), _) => return Some(unreadable(format!("golden: {why}"))),
        (_, Err(why)) => return Some(unreadable(format!("trace: {why}"))),
    };
    let mut m = Mismatch {
        header: (e.header != a.header).then(|| (e.header.join(","), a.header.join(","))),
        first: None,
        differing_rows: 0,
        expected_rows: e.rows.len() as u64,
        actual_rows: a.rows.len() as u64,
        max_deviation: None,
        unreadable: None,
    };
    let key_cols = |t: &Table| (t.column("frame"), t.column("id"));
    let (ef, ei) = key_cols(&e);
    let (af, ai) = key_cols(&a);
    let key = |row: &[String], f: Option<usize>, i: Option<usize>| -> (u64, u64) {
        let get = |c: Option<usize>| c.and_then(|c| row.get(c)).and_then(|v| v.parse::<u64>().ok()).unwrap_or(u64::MAX);
        (get(f), get(i))
    };
    let text = |row: &[String], c: Option<usize>| c.and_then(|c| row.get(c)).cloned().unwrap_or_default();
    let (mut p, mut q) = (0, 0);
    while p < e.rows.len() || q < a.rows.len() {
        let order = match (e.rows.get(p), a.rows.get(q)) {
            (Some(x), Some(y)) => key(x, ef, ei).cmp(&key(y, af, ai)).then(Ordering::Equal),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match order {
            Ordering::Equal => {
                let (x, y) = (&e.rows[p], &a.rows[q]);
                if x != y {
                    m.differing_rows += 1;
                    if m.first.is_none() {
                        let c = (0..x.len().max(y.len())).find(|&c| x.get(c) != y.get(c)).unwrap_or(0);
                        m.first = Some(Divergence {
                            frame: text(x, ef),
                            id: text(x, ei),
                            column: e.header.get(c).cloned().unwrap_or_else(|| format!("#{}", c + 1)),
                            expected: x.get(c).cloned().unwrap_or_default(),
                            actual: y.get(c).cloned().unwrap_or_default(),
                        });
                    }
                    if let Some(d) = deviation(&e, x, &a, y) {
                        if m.max_deviation.as_ref().is_none_or(|(best, _, _)| d > *best) {
                            m.max_deviation = Some((d, text(x, ef), text(x, ei)));
                        }
                    }
                }
                p += 1;
                q += 1;
            }
            Ordering::Less => {
                let x = &e.rows[p];
                m.differing_rows += 1;
                m.first.get_or_insert_with(|| Divergence {
                    frame: text(x, ef),
                    id: text(x, ei),
                    column: "(row)".into(),
                    expected: "present".into(),
                    actual: "missing".into(),
                });
                p += 1;
            }
            Ordering::Greater => {
                let y = &a.rows[q];
                m.differing_rows += 1;
                m.first.get_or_insert_with(|| Divergence {
                    frame: text(y, af),
                    id: text(y, ai),
                    column: "(row)".into(),
                    expected: "missing".into(),
                    actual: "present".into(),
                });
                q += 1;
            }
        }
    }
    Some(m)
}

fn unreadable(why: String) -> Mismatch {
    Mismatch {
        header: None,
        first: None,
        differing_rows: 0,
        expected_rows: 0,
        actual_rows: 0,
        max_deviation: None,
        unreadable: Some(why),
    }
}

fn deviation(et: &Table, x: &[String], at: &Table, y: &[String]) -> Option<f64> {
    let num = |t: &Table, row: &[String], name: &str| {
        t.column(name).and_then(|c| row.get(c)).and_then(|v| v.parse::<f64>().ok())
    };
    let dx = num(et, x, "x")? - num(at, y, "x")?;
    let dy = num(et, x, "y")? - num(at, y, "y")?;
    Some((dx * dx + dy * dy).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "id,frame,t,x,y\n0,0,0,1,2\n1,0,0,3,4\n0,1,0.5,1.5,2\n1,1,0.5,3,4.5\n";

    #[test]
    fn identical_traces_match() {
        assert_eq!(compare(A.as_bytes(), A.as_bytes()), None);
    }

    #[test]
    fn a_changed_value_is_located() {
        let b = A.replace("3,4.5", "3,4.75");
        let m = compare(A.as_bytes(), b.as_bytes()).unwrap();
        let d = m.first.clone().unwrap();
        assert_eq!((d.frame.as_str(), d.id.as_str(), d.column.as_str()), ("1", "1", "y"));
        assert_eq!((d.expected.as_str(), d.actual.as_str()), ("4.5", "4.75"));
        assert_eq!(m.differing_rows, 1);
        assert_eq!(m.max_deviation.as_ref().map(|d| d.0), Some(0.25));
        assert!(m.to_string().contains("frame 1, agent 1, column y"));
    }

    #[test]
    fn a_missing_row_is_located() {
        let b = A.replace("1,0,0,3,4\n", "");
        let m = compare(A.as_bytes(), b.as_bytes()).unwrap();
        let d = m.first.unwrap();
        assert_eq!((d.frame.as_str(), d.id.as_str(), d.actual.as_str()), ("0", "1", "missing"));
        assert_eq!(m.differing_rows, 1);
    }
}

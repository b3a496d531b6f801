//! Looking up the parameter table (`ir::params`) while checking: model
//! names and rows by name.

pub use crate::ir::params::{ParamSpec, PARAMS};

pub fn models() -> Vec<&'static str> {
    let mut m: Vec<&str> = PARAMS.iter().map(|p| p.model).collect();
    m.dedup();
    m
}

pub fn find(model: &str, name: &str) -> Option<&'static ParamSpec> {
    PARAMS.iter().find(|p| p.model == model && p.name == name)
}

pub fn of_model(model: &str) -> impl Iterator<Item = &'static ParamSpec> + '_ {
    PARAMS.iter().filter(move |p| p.model == model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_values_are_the_defaults() {
        let v = |m, n| find(m, n).unwrap().default;
        assert_eq!(v("space_colonization", "R"), 1.2);
        assert_eq!(v("space_colonization", "alpha"), 2.0);
        assert_eq!(v("space_colonization", "beta"), 0.05);
        assert_eq!(v("space_colonization", "t_min"), 0.5);
        assert_eq!(v("space_colonization", "w_max"), 10.0);
    }
}

//! `--set KEY=VALUE`: a parameter of the table (`MODEL.NAME`) or a
//! population's count (`population.NAME.count`) given on the command line.
//!
//! An override is applied to the scenario's text, not to its IR: the value
//! replaces the one the file writes, or a `parameters` block carrying it is
//! appended, and the result is compiled as any scenario is. So a value from
//! the command line is checked exactly as the file's own (unit, range, the
//! limits and warnings that depend on it), and its diagnostics point at it.

use crate::diag::{did_you_mean, SourceFile};
use crate::ir::params;
use crate::syntax::ast::{self, EntityStmt, Item};

/// What a key names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A row of the parameter table.
    Param { model: &'static str, name: &'static str },
    /// The `count` of a population.
    Count { population: String },
}

/// One `--set`: a key and the values to take, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The key as written: `boids.max_speed`, `population.walkers.count`.
    pub key: String,
    pub target: Target,
    pub values: Vec<String>,
}

/// Reads `KEY=V1,V2,…` against the scenario's syntax tree: the key must name
/// a parameter of the table or a population with a `count`.
pub fn setting(arg: &str, tree: &ast::File) -> Result<Setting, String> {
    let Some((key, values)) = arg.split_once('=') else {
        return Err(format!("`--set {arg}` has no value: write `--set MODEL.PARAMETER=VALUE[,VALUE…]`"));
    };
    let key = key.trim();
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
    if let Some(empty) = values.iter().position(String::is_empty) {
        return Err(format!("`--set {arg}`: value {} is empty", empty + 1));
    }
    let target = match key.split('.').collect::<Vec<_>>()[..] {
        ["population", name, "count"] => count_target(name, tree)?,
        ["population", ..] => {
            return Err(format!("`{key}`: of a population only the count can be set (`population.NAME.count`)"))
        }
        [model, name] => param_target(model, name)?,
        _ => {
            return Err(format!(
                "`{key}` names no parameter: write `MODEL.PARAMETER` (models: {}) or `population.NAME.count`",
                params::PARAMS
                    .iter()
                    .map(|p| p.model)
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    };
    Ok(Setting { key: key.to_string(), target, values })
}

fn param_target(model: &str, name: &str) -> Result<Target, String> {
    if let Some(spec) = params::PARAMS.iter().find(|p| p.model == model && p.name == name) {
        return Ok(Target::Param { model: spec.model, name: spec.name });
    }
    let mut models: Vec<&str> = params::PARAMS.iter().map(|p| p.model).collect();
    models.dedup();
    if !models.contains(&model) {
        let help = match did_you_mean(model, models.iter().copied()) {
            Some(m) => format!("did you mean `{m}`?"),
            None => format!("models: {}", models.join(", ")),
        };
        return Err(format!("`{model}.{name}`: unknown model `{model}`; {help}"));
    }
    let names: Vec<&str> = params::PARAMS.iter().filter(|p| p.model == model).map(|p| p.name).collect();
    let help = match did_you_mean(name, names.iter().copied()) {
        Some(n) => format!("did you mean `{n}`?"),
        None => format!("parameters of {model}: {}", names.join(", ")),
    };
    Err(format!("`{model}.{name}`: unknown parameter `{name}` of model {model}; {help}"))
}

fn count_target(name: &str, tree: &ast::File) -> Result<Target, String> {
    let populations: Vec<&ast::Entity> =
        tree.items.iter().filter_map(|i| if let Item::Population(p) = i { Some(p) } else { None }).collect();
    let Some(p) = populations.iter().find(|p| p.name.text == name) else {
        let names: Vec<&str> = populations.iter().map(|p| p.name.text.as_str()).collect();
        let help = match did_you_mean(name, names.iter().copied()) {
            Some(n) => format!("did you mean `{n}`?"),
            None if names.is_empty() => "the scenario declares no population".to_string(),
            None => format!("populations: {}", names.join(", ")),
        };
        return Err(format!("`population.{name}.count`: no population `{name}`; {help}"));
    };
    if !p.stmts.iter().any(|s| matches!(s, EntityStmt::Count(_))) {
        return Err(format!(
            "`population.{name}.count`: population `{name}` has no `count` statement to replace (a population \
             that grows to a `peak` has no fixed count)"
        ));
    }
    Ok(Target::Count { population: name.to_string() })
}

/// The scenario's text with each `(target, value)` applied, and a name for
/// it that says so (`p.crowd with --set boids.max_speed=3 m/s`).
pub fn apply(file: &SourceFile, tree: &ast::File, assignments: &[(&Setting, &str)]) -> SourceFile {
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let mut appended = String::new();
    for (setting, value) in assignments {
        match &setting.target {
            Target::Param { model, name } => match written_param(tree, model, name) {
                Some(span) => edits.push((span, (*value).to_string())),
                None => appended.push_str(&format!("\nparameters {model} {{ {name} {value} }}\n")),
            },
            Target::Count { population } => {
                for span in written_counts(tree, population) {
                    edits.push((span, (*value).to_string()));
                }
            }
        }
    }
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    let mut text = file.text.to_string();
    for (span, value) in edits {
        text.replace_range(span, &value);
    }
    if !appended.is_empty() {
        text.push_str("\n// --set");
        text.push_str(&appended);
    }
    let said: Vec<String> = assignments.iter().map(|(s, v)| format!("--set {}={v}", s.key)).collect();
    let name = if said.is_empty() { file.name.clone() } else { format!("{} with {}", file.name, said.join(" ")) };
    SourceFile::new(name, text)
}

/// Where the file writes `model.name`'s value, if it does.
fn written_param(tree: &ast::File, model: &str, name: &str) -> Option<std::ops::Range<usize>> {
    tree.items.iter().find_map(|item| match item {
        Item::Parameters(block) if block.model.text == model => {
            block.values.iter().find(|(n, _)| n.text == name).map(|(_, q)| q.span.clone())
        }
        _ => None,
    })
}

/// Where population `name` writes its count.
fn written_counts(tree: &ast::File, name: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for item in &tree.items {
        let Item::Population(p) = item else { continue };
        if p.name.text != name {
            continue;
        }
        for s in &p.stmts {
            if let EntityStmt::Count(n) = s {
                out.push(n.span.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "scenario s { seed 1; duration 1 s; step 1 s }\n\
        population walkers { count 4 }\n\
        parameters boids { max_speed 2 m/s }\n";

    fn tree() -> ast::File {
        crate::syntax::parse(TEXT).0
    }

    #[test]
    fn keys_name_a_parameter_or_a_populations_count() {
        let t = tree();
        let s = setting("boids.max_speed=1 m/s, 3 m/s", &t).unwrap();
        assert_eq!(s.target, Target::Param { model: "boids", name: "max_speed" });
        assert_eq!(s.values, ["1 m/s", "3 m/s"]);
        let s = setting("population.walkers.count=10,20", &t).unwrap();
        assert_eq!(s.target, Target::Count { population: "walkers".into() });
        assert!(setting("boids.max_sped=1", &t).unwrap_err().contains("did you mean `max_speed`?"));
        assert!(setting("boid.max_speed=1", &t).unwrap_err().contains("did you mean `boids`?"));
        assert!(setting("population.walker.count=1", &t).unwrap_err().contains("did you mean `walkers`?"));
        assert!(setting("boids.max_speed", &t).unwrap_err().contains("has no value"));
        assert!(setting("boids.max_speed=1,,2", &t).unwrap_err().contains("value 2 is empty"));
    }

    #[test]
    fn a_value_replaces_the_files_own_or_is_appended() {
        let t = tree();
        let file = SourceFile::new("s.crowd", TEXT);
        let speed = setting("boids.max_speed=3 m/s", &t).unwrap();
        let sep = setting("boids.separation=2", &t).unwrap();
        let count = setting("population.walkers.count=12", &t).unwrap();
        let out = apply(&file, &t, &[(&speed, "3 m/s"), (&sep, "2"), (&count, "12")]);
        assert!(out.text.contains("population walkers { count 12 }"), "{}", out.text);
        assert!(out.text.contains("parameters boids { max_speed 3 m/s }"), "{}", out.text);
        assert!(out.text.ends_with("// --set\nparameters boids { separation 2 }\n"), "{}", out.text);
        assert_eq!(
            out.name,
            "s.crowd with --set boids.max_speed=3 m/s --set boids.separation=2 --set population.walkers.count=12"
        );
    }
}

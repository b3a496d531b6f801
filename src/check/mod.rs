//! AST → IR, or every diagnostic at once.
//!
//! The only producer of diagnostics about the user's file. It resolves names
//! (one namespace for everything declared; resources, states and parameters
//! have their own), converts units to SI, checks ranges and geometry, bounds
//! sizes, and builds the IR whose guarantees `ir` documents.

mod agents;
mod behave;
mod expect;
pub mod layout;
pub mod params;
mod shapes;
pub mod symbols;
mod units;
mod world;

use std::collections::BTreeMap;

use crate::diag::{did_you_mean, Diagnostic, SourceFile};
use crate::ir;
use crate::syntax::ast::{self, Name, Span};

pub use params::{ParamSpec, PARAMS};
pub use symbols::{Symbol, Symbols};
pub use units::Dim;

/// A program that checked clean (warnings allowed).
#[derive(Debug)]
pub struct Compiled {
    pub program: ir::Program,
    pub warnings: Vec<Diagnostic>,
}

/// Parses and checks a scenario. On error, every diagnostic (errors and
/// warnings) is returned, sorted by position.
pub fn compile(file: &SourceFile) -> Result<Compiled, Vec<Diagnostic>> {
    analyse(file).outcome
}

/// What checking a file found: the program or every diagnostic, and the
/// names as they resolved (there for a file with errors too).
pub struct Analysis {
    pub outcome: Result<Compiled, Vec<Diagnostic>>,
    pub symbols: Symbols,
    /// What parsed, with the items that did not left out.
    pub tree: ast::File,
}

/// [`compile`], keeping where every name is declared and used.
pub fn analyse(file: &SourceFile) -> Analysis {
    let (tree, mut diags) = crate::syntax::parse(&file.text);
    let mut checker = Checker {
        source: file.text.to_string(),
        broken: tree.broken.clone(),
        syntax_errors: diags.iter().any(Diagnostic::is_error),
        ..Checker::default()
    };
    let program = checker.program(&tree);
    diags.append(&mut checker.diags);
    diags.sort_by(|a, b| (a.span.start, a.span.end, a.code).cmp(&(b.span.start, b.span.end, b.code)));
    let outcome = match program {
        Some(program) if !diags.iter().any(Diagnostic::is_error) => Ok(Compiled { program, warnings: diags }),
        _ => Err(diags),
    };
    Analysis { outcome, symbols: checker.symbols, tree }
}

/// What a declared name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Region,
    Obstacle,
    Shape,
    Mask,
    Space,
    Object,
    Door,
    Population,
    Agent,
    Group,
    Behaviour,
    /// What objects provide: declared by its first `provides`.
    Resource,
    /// A state of a behaviour.
    State,
    /// A var of a behaviour.
    Var,
}

impl Kind {
    pub fn article(self) -> &'static str {
        match self {
            Kind::Region => "a region",
            Kind::Obstacle => "an obstacle",
            Kind::Shape => "a shape",
            Kind::Mask => "a mask",
            Kind::Space => "a space",
            Kind::Object => "an object",
            Kind::Door => "a door",
            Kind::Population => "a population",
            Kind::Agent => "an agent",
            Kind::Group => "a group",
            Kind::Behaviour => "a behaviour",
            Kind::Resource => "a resource",
            Kind::State => "a state",
            Kind::Var => "a var",
        }
    }

    pub fn noun(self) -> &'static str {
        let article = self.article();
        article.strip_prefix("an ").or_else(|| article.strip_prefix("a ")).unwrap_or(article)
    }
}

/// `a, b or c`.
fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// `a, b, c`, or the first few and how many more.
fn name_list(names: &[&str]) -> String {
    const SHOWN: usize = 8;
    if names.len() <= SHOWN {
        names.join(", ")
    } else {
        format!("{}, and {} more", names[..SHOWN].join(", "), names.len() - SHOWN)
    }
}

/// Whether `word` occurs in `text` as a whole word.
fn contains_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| !text[..i].ends_with(ident) && !text[i + word.len()..].starts_with(ident))
}

#[derive(Clone, Debug)]
pub(crate) struct Decl {
    pub kind: Kind,
    pub index: u32,
    pub span: Span,
    /// Its entry in [`Checker::symbols`].
    pub symbol: usize,
}

#[derive(Default)]
pub(crate) struct Checker {
    pub diags: Vec<Diagnostic>,
    pub names: BTreeMap<String, Decl>,
    /// The declared names by kind, for suggestions: an unknown name looks at
    /// the kinds its place accepts, not at every name of the file.
    by_kind: BTreeMap<Kind, std::collections::BTreeSet<String>>,
    /// Resource name → id, in order of first mention by an object.
    pub resources: BTreeMap<String, u32>,
    pub resource_names: Vec<String>,
    /// Behaviours referenced by some population, agent or group.
    pub used_behaviours: Vec<bool>,
    /// The population a group's own agents form, by group index.
    pub group_population: Vec<Option<u32>>,
    /// Whether a group names a leader (`leader` or `followers N around`), by group index.
    pub group_led: Vec<bool>,
    pub world: Option<ir::World>,
    pub duration: Option<f64>,
    pub dt: Option<f64>,
    /// `space_colonization.beta` when the scenario sets it: then the default
    /// agent speed is β per step.
    pub beta: Option<f64>,
    /// Every model parameter in force, for defaults of actions.
    pub params: ir::Params,
    /// Per population: whether it has a goal or wants (for `reaches goal`).
    pub has_goal: Vec<bool>,
    /// The source text, to quote expectations in reports.
    pub source: String,
    /// The parts of the source that did not parse (see [`ast::File::broken`]).
    pub broken: Vec<Span>,
    /// Some `behaviour NAME` reference did not resolve, so "never used" would be a guess.
    pub unresolved_behaviour: bool,
    /// The parser reported an error: some items or values are missing.
    pub syntax_errors: bool,
    /// The walkable share of each region checked so far (of its bounding
    /// box, sampled), by region index.
    pub walkable_regions: BTreeMap<u32, f64>,
    /// Bounding boxes of the world's obstacles, computed on first use.
    pub obstacle_boxes: Vec<ir::Rect>,
    /// The vars of the behaviour being checked: name and `max` (when valid),
    /// for the conditions that compare them.
    pub vars_in_scope: Vec<(String, Option<f64>)>,
    /// The behaviour being checked, for messages.
    pub behaviour_in_scope: String,
    /// The symbols of `vars_in_scope`, in the same order.
    pub var_symbols: Vec<usize>,
    /// The symbol of each resource, by resource id.
    pub resource_symbols: Vec<usize>,
    /// Where each name is declared and used.
    pub symbols: Symbols,
}

impl Checker {
    pub fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Whether any error has been found, by the parser or the checker so far.
    pub fn has_errors(&self) -> bool {
        self.syntax_errors || self.diags.iter().any(Diagnostic::is_error)
    }

    /// Whether `word` occurs in a part of the file that did not parse. A name
    /// declared or used there is unknown to the checker: reporting it as
    /// undeclared or unused would only echo the syntax error.
    pub fn in_broken(&self, word: &str) -> bool {
        self.broken.iter().any(|r| self.source.get(r.clone()).is_some_and(|text| contains_word(text, word)))
    }

    /// Converts a quantity, reporting a unit error.
    pub fn si(&mut self, q: &ast::Quantity, dim: Dim) -> Option<f64> {
        units::si(q, dim).map_err(|d| self.diags.push(d)).ok()
    }

    /// Converts a quantity and checks `min ≤ value ≤ max` (with `open_min`, `min < value`).
    pub fn si_in(
        &mut self,
        q: &ast::Quantity,
        dim: Dim,
        min: f64,
        max: f64,
        open_min: bool,
        what: &str,
    ) -> Option<f64> {
        let v = self.si(q, dim)?;
        let below = if open_min { v <= min } else { v < min };
        if below || v > max {
            let range = range_text(dim, min, max, open_min);
            self.error(
                Diagnostic::error(
                    "E030",
                    q.span.clone(),
                    format!("{what} out of range: {} is not {range}", show(v, dim)),
                )
                .label("out of range")
                .help(format!("{what} must be {range}")),
            );
            return None;
        }
        Some(v)
    }

    /// A whole number in `min..=max` (too-large numbers were already reported by the parser).
    pub fn int_in(&mut self, i: &ast::Int, min: u64, max: u64, what: &str) -> Option<u32> {
        let v = i.value?;
        if v < min || v > max {
            self.error(
                Diagnostic::error("E030", i.span.clone(), format!("{what} out of range: {v}"))
                    .label(format!("not between {min} and {max}"))
                    .help(format!("{what} must be a whole number from {min} to {max}")),
            );
            return None;
        }
        u32::try_from(v).ok()
    }

    /// Registers a declaration; a second declaration of the same name is an error.
    pub fn declare(&mut self, name: &Name, kind: Kind, index: u32) {
        if let Some(first) = self.names.get(&name.text) {
            let first_span = first.span.clone();
            let first_kind = first.kind;
            self.symbols.use_at(name, first.symbol);
            self.error(
                Diagnostic::error("E011", name.span.clone(), format!("`{}` is declared twice", name.text))
                    .label("declared again here")
                    .related(first_span, format!("first declared here as {}", first_kind.article()))
                    .help("every name is declared once: rename one of them"),
            );
            return;
        }
        let symbol = self.symbols.declare(name, kind, None);
        self.names.insert(name.text.clone(), Decl { kind, index, span: name.span.clone(), symbol });
        self.by_kind.entry(kind).or_default().insert(name.text.clone());
    }

    /// Looks a name up among the kinds a place accepts.
    pub fn resolve(&mut self, name: &Name, want: &[Kind]) -> Option<Decl> {
        let wanted = || or_list(&want.iter().map(|k| k.article()).collect::<Vec<_>>());
        if let Some(d) = self.names.get(&name.text) {
            self.symbols.use_at(name, d.symbol);
        }
        match self.names.get(&name.text) {
            Some(d) if want.contains(&d.kind) => Some(d.clone()),
            Some(d) => {
                let wanted = wanted();
                let (kind, span) = (d.kind, d.span.clone());
                self.error(
                    Diagnostic::error(
                        "E012",
                        name.span.clone(),
                        format!("`{}` is {}, but {} is expected here", name.text, kind.article(), wanted),
                    )
                    .label(format!("{} is expected here", wanted))
                    .related(span, format!("`{}` is declared here", name.text))
                    .help(format!("name {} here", wanted)),
                );
                None
            }
            None if self.in_broken(&name.text) => None,
            None => {
                let mut candidates: Vec<&str> = (want.iter())
                    .filter_map(|k| self.by_kind.get(k))
                    .flat_map(|names| names.iter().map(String::as_str))
                    .collect();
                candidates.sort_unstable();
                let help = match did_you_mean(&name.text, candidates.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None if candidates.is_empty() => format!("declare {} named `{}`", wanted(), name.text),
                    None => format!("declared: {}", name_list(&candidates)),
                };
                let nouns = or_list(&want.iter().map(|k| k.noun()).collect::<Vec<_>>());
                self.error(
                    Diagnostic::error(
                        "E010",
                        name.span.clone(),
                        format!("unknown name `{}`: no {nouns} has this name", name.text),
                    )
                    .label("not declared")
                    .help(help),
                );
                None
            }
        }
    }

    /// A statement that may appear once.
    pub fn once<T: Clone>(&mut self, slot: &mut Option<(T, Span)>, value: T, span: Span, what: &str) {
        if let Some((_, first)) = slot {
            let first = first.clone();
            self.error(
                Diagnostic::error("E071", span, format!("{what} is given twice"))
                    .label("given again here")
                    .related(first, "first given here")
                    .help(format!("keep one `{what}` statement")),
            );
        } else {
            *slot = Some((value, span));
        }
    }

    pub fn missing(&mut self, span: Span, what: &str, help: impl Into<String>) {
        self.error(
            Diagnostic::error("E070", span, format!("missing {what}")).label(format!("needs {what}")).help(help),
        );
    }

    fn program(&mut self, file: &ast::File) -> Option<ir::Program> {
        self.declare_all(file);
        let mut scenarios = file.items.iter().filter_map(|i| match i {
            ast::Item::Scenario(s) => Some(s),
            _ => None,
        });
        let scenario = scenarios.next();
        for extra in scenarios {
            self.error(
                Diagnostic::error("E071", extra.name.span.clone(), "a file holds one scenario")
                    .label("second scenario header")
                    .related(scenario.map_or(0..0, |s| s.name.span.clone()), "the first one")
                    .help("split the scenarios into separate files"),
            );
        }
        let header = match scenario {
            Some(s) => self.header(s),
            None if self.in_broken("scenario") => None,
            None => {
                self.missing(
                    0..0,
                    "scenario header",
                    "start the file with `scenario NAME { seed 1; duration 60 s; step 1/24 s }`",
                );
                None
            }
        };
        self.duration = header.as_ref().map(|h| h.duration);
        self.dt = header.as_ref().map(|h| h.dt);
        self.params = self.parameters(file);
        let world = self.world(file);
        self.world = world.clone();
        let (spaces, objects) = self.spaces(file);
        let behaviours = self.behaviours(file);
        let (populations, groups) = self.populations(file, &behaviours);
        self.unused_behaviours(file);
        let expectations = self.expectations(file, &spaces);
        let output = self.output(file, &behaviours, &populations);
        let header = header?;
        self.sizes(&header, &populations, file);
        self.trace_size(&header, &populations, &output, file);
        let program = ir::Program {
            name: scenario?.name.text.clone(),
            header,
            world: world?,
            spaces,
            objects,
            resources: self.resource_names.clone(),
            populations,
            groups,
            behaviours,
            params: self.params.clone(),
            expectations,
            output,
            switches: ir::Switches::default(),
        };
        self.plan_size(&program, file);
        self.spawn_room(&program, file);
        Some(program)
    }

    /// First pass: every declared name, so references may point forward.
    fn declare_all(&mut self, file: &ast::File) {
        let (mut regions, mut obstacles, mut shapes, mut masks) = (0, 0, 0, 0);
        let (mut spaces, mut objects, mut doors) = (0, 0, 0);
        let (mut populations, mut groups, mut behaviours) = (0, 0, 0);
        for item in &file.items {
            match item {
                ast::Item::World(w) => {
                    for s in &w.stmts {
                        let (name, kind, counter) = match s {
                            ast::WorldStmt::Obstacle { name, .. } => (name, Kind::Obstacle, &mut obstacles),
                            ast::WorldStmt::Region { name, .. } => (name, Kind::Region, &mut regions),
                            ast::WorldStmt::Shape { name, .. } => (name, Kind::Shape, &mut shapes),
                            ast::WorldStmt::Mask(m) => (&m.name, Kind::Mask, &mut masks),
                            _ => continue,
                        };
                        self.declare(name, kind, *counter);
                        *counter += 1;
                    }
                }
                ast::Item::Space(s) => self.declare_space(s, &mut spaces, &mut objects, &mut doors),
                ast::Item::Population(e) => {
                    self.declare(&e.name, Kind::Population, populations);
                    populations += 1;
                }
                ast::Item::Agent(e) => {
                    self.declare(&e.name, Kind::Agent, populations);
                    populations += 1;
                }
                ast::Item::Group(e) => {
                    self.declare(&e.name, Kind::Group, groups);
                    groups += 1;
                    let own_agents = e.stmts.iter().any(|s| {
                        matches!(
                            s,
                            ast::EntityStmt::GroupAgentsIn { .. }
                                | ast::EntityStmt::GroupAgentsAt { .. }
                                | ast::EntityStmt::Followers { .. }
                        )
                    });
                    self.group_population.push(own_agents.then_some(populations));
                    let led = e
                        .stmts
                        .iter()
                        .any(|s| matches!(s, ast::EntityStmt::Leader(_) | ast::EntityStmt::Followers { .. }));
                    self.group_led.push(led);
                    if own_agents {
                        populations += 1;
                    }
                }
                ast::Item::Behaviour(b) => {
                    self.declare(&b.name, Kind::Behaviour, behaviours);
                    behaviours += 1;
                }
                _ => {}
            }
        }
        self.used_behaviours = vec![false; behaviours as usize];
    }

    fn declare_space(&mut self, s: &ast::Space, spaces: &mut u32, objects: &mut u32, doors: &mut u32) {
        self.declare(&s.name, Kind::Space, *spaces);
        *spaces += 1;
        for d in &s.doors {
            self.declare(&d.name, Kind::Door, *doors);
            *doors += 1;
        }
        for o in &s.objects {
            self.declare(&o.name, Kind::Object, *objects);
            *objects += 1;
            for r in &o.provides {
                match self.resources.get(&r.text) {
                    Some(&id) => self.symbols.use_at(r, self.resource_symbols[id as usize]),
                    None => {
                        self.resources.insert(r.text.clone(), self.resource_names.len() as u32);
                        self.resource_names.push(r.text.clone());
                        self.resource_symbols.push(self.symbols.declare(r, Kind::Resource, None));
                    }
                }
            }
        }
        for c in &s.children {
            self.declare_space(c, spaces, objects, doors);
        }
    }

    fn header(&mut self, s: &ast::Scenario) -> Option<ir::Header> {
        let (mut seed, mut duration, mut step, mut record) = (None, None, None, None);
        for stmt in &s.stmts {
            match stmt {
                ast::HeaderStmt::Seed(i) => self.once(&mut seed, i.value, i.span.clone(), "seed"),
                ast::HeaderStmt::Duration(q) => {
                    let v = self.si_in(q, Dim::Time, 0.0, f64::INFINITY, true, "duration");
                    self.once(&mut duration, v, q.span.clone(), "duration")
                }
                ast::HeaderStmt::Step(q) => {
                    let v = self.si_in(q, Dim::Time, 0.0, 1.0, true, "time step");
                    self.once(&mut step, v, q.span.clone(), "step")
                }
                ast::HeaderStmt::RecordEvery(i) => {
                    let v = self.int_in(i, 1, 1_000_000, "record rate (steps per frame)");
                    self.once(&mut record, v, i.span.clone(), "record rate")
                }
            }
        }
        let end = s.span.end.saturating_sub(1)..s.span.end;
        if seed.is_none() {
            self.missing(end.clone(), "seed", "add `seed 1` (any whole number) to the scenario header");
        }
        if duration.is_none() {
            self.missing(end.clone(), "duration", "add e.g. `duration 60 s` to the scenario header");
        }
        if step.is_none() {
            self.missing(end, "time step", "add e.g. `step 1/24 s` to the scenario header");
        }
        let record_every = match record {
            Some((v, _)) => v?,
            None => 1,
        };
        Some(ir::Header { seed: seed?.0?, duration: duration?.0?, dt: step?.0?, record_every })
    }

    /// The parameters in force: the table's defaults, then every value the
    /// scenario sets (each checked against its row).
    fn parameters(&mut self, file: &ast::File) -> ir::Params {
        let mut given: BTreeMap<(String, String), Span> = BTreeMap::new();
        let mut params = ir::Params::default();
        let models = params::models();
        for item in &file.items {
            let ast::Item::Parameters(block) = item else { continue };
            if !models.contains(&block.model.text.as_str()) {
                let help = match did_you_mean(&block.model.text, models.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("models: {}", models.join(", ")),
                };
                self.error(
                    Diagnostic::error(
                        "E081",
                        block.model.span.clone(),
                        format!("unknown model `{}`", block.model.text),
                    )
                    .label("no model has this name")
                    .help(help),
                );
                continue;
            }
            for (name, q) in &block.values {
                let Some(v) = self.param_value(&block.model.text, name, q) else { continue };
                let key = (block.model.text.clone(), name.text.clone());
                if let Some(first) = given.get(&key) {
                    let first = first.clone();
                    self.error(
                        Diagnostic::error(
                            "E071",
                            name.span.clone(),
                            format!("parameter `{}` is given twice", name.text),
                        )
                        .label("given again here")
                        .related(first, "first given here")
                        .help("keep one value"),
                    );
                    continue;
                }
                if key.0 == "space_colonization" && key.1 == "beta" {
                    self.beta = Some(v);
                }
                params.set(&key.0, &key.1, v);
                given.insert(key, name.span.clone());
            }
        }
        params
    }

    /// Checks one parameter value of a model: known name, unit, range.
    pub fn param_value(&mut self, model: &str, name: &Name, q: &ast::Quantity) -> Option<f64> {
        let found = params::find(model, &name.text);
        if let Some(spec) = found {
            self.symbols.params.push((name.span.clone(), spec));
        }
        let Some(spec) = found else {
            let names: Vec<&str> = params::of_model(model).map(|p| p.name).collect();
            let help = match did_you_mean(&name.text, names.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("parameters of {model}: {}", names.join(", ")),
            };
            self.error(
                Diagnostic::error(
                    "E080",
                    name.span.clone(),
                    format!("unknown parameter `{}` of model {model}", name.text),
                )
                .label("no such parameter")
                .help(help),
            );
            return None;
        };
        let what = format!("{model} parameter `{}`", spec.name);
        let before = self.diags.len();
        let v = self.si_in(q, spec.dim, spec.min, spec.max, false, &what);
        if let Some(d) = self.diags.get_mut(before).filter(|d| d.code == "E030") {
            let range = range_text(spec.dim, spec.min, spec.max, false);
            d.help = format!("`{}` is the {}; it must be {range}", spec.name, spec.doc);
        }
        v
    }

    fn output(&mut self, file: &ast::File, behaviours: &[ir::Behaviour], populations: &[ir::Population]) -> ir::Output {
        let mut columns: Vec<ir::Column> = Vec::new();
        let mut all = vec![ir::Column::Speed, ir::Column::Goal, ir::Column::Formation, ir::Column::Radius];
        // A var's column: every var of that name, whichever behaviour declares it.
        let mut var_names: Vec<&str> = behaviours.iter().flat_map(|b| b.vars.iter().map(|v| v.name.as_str())).collect();
        var_names.sort_unstable();
        var_names.dedup();
        for name in var_names {
            if all.iter().any(|c| c.header() == name) || crate::trace::csv::BASE_COLUMNS.contains(&name) {
                continue;
            }
            let slots = populations
                .iter()
                .map(|p| {
                    let vars = behaviours.get(p.behaviour.index()).map_or(&[][..], |b| &b.vars[..]);
                    vars.iter().position(|v| v.name == name).map_or(ir::NONE, |k| k as u32)
                })
                .collect();
            all.push(ir::Column::Var { name: name.to_string(), slots });
        }
        for item in &file.items {
            let ast::Item::Output(o) = item else { continue };
            for c in &o.columns {
                let found = all.iter().find(|k| k.header() == c.text);
                if let Some(ir::Column::Var { name, .. }) = found {
                    // The column of every var of that name, whichever behaviour declares it.
                    let vars: Vec<usize> = (self.symbols.symbols.iter().enumerate())
                        .filter(|(_, s)| s.kind == Kind::Var && s.name == *name)
                        .map(|(i, _)| i)
                        .collect();
                    for i in vars {
                        self.symbols.use_at(c, i);
                    }
                }
                match found {
                    Some(k) if columns.contains(k) => self.error(
                        Diagnostic::error("E071", c.span.clone(), format!("column `{}` is listed twice", c.text))
                            .label("listed again")
                            .help("list each column once"),
                    ),
                    Some(k) => columns.push(k.clone()),
                    None => {
                        let names: Vec<&str> = all.iter().map(|k| k.header()).collect();
                        let help = match did_you_mean(&c.text, names.iter().copied()) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!("optional columns: {}", names.join(", ")),
                        };
                        self.error(
                            Diagnostic::error("E092", c.span.clone(), format!("unknown trace column `{}`", c.text))
                                .label("no such column")
                                .help(help),
                        );
                    }
                }
            }
        }
        ir::Output { columns }
    }

    /// Work and memory bounds that would otherwise surface as an endless run or an OOM.
    fn sizes(&mut self, header: &ir::Header, populations: &[ir::Population], file: &ast::File) {
        let steps = header.duration / header.dt;
        let scenario = file.items.iter().find_map(|i| match i {
            ast::Item::Scenario(s) => Some(s),
            _ => None,
        });
        let fallback = scenario.map_or(0..0, |s| s.name.span.clone());
        let header_span = |pick: fn(&ast::HeaderStmt) -> Option<&ast::Quantity>| {
            scenario.and_then(|s| s.stmts.iter().find_map(pick)).map_or(fallback.clone(), |q| q.span.clone())
        };
        let duration = header_span(|h| if let ast::HeaderStmt::Duration(q) = h { Some(q) } else { None });
        let step = header_span(|h| if let ast::HeaderStmt::Step(q) = h { Some(q) } else { None });
        if steps > ir::limits::MAX_STEPS as f64 {
            self.error(
                Diagnostic::error("E063", duration.clone(), format!("the run would take {steps:.0} steps"))
                    .label(format!("{} s in steps of {} s", header.duration, header.dt))
                    .related(step.clone(), "the time step")
                    .help(format!(
                        "at most {} steps: shorten the duration or lengthen the step",
                        ir::limits::MAX_STEPS
                    )),
            );
        }
        let agents: u64 = populations.iter().map(|p| u64::from(p.max_count())).sum();
        let largest = populations.iter().max_by_key(|p| p.max_count());
        let largest_span = largest.and_then(|p| self.names.get(&p.name)).map_or(fallback.clone(), |d| d.span.clone());
        let largest_count = largest.map_or(0, |p| p.max_count());
        if agents > ir::limits::MAX_AGENTS {
            self.error(
                Diagnostic::error("E061", largest_span, format!("the scenario declares {agents} agents in all"))
                    .label(format!("the largest population: {largest_count} agents"))
                    .help(format!(
                        "at most {} agents may be alive at once, over all populations",
                        ir::limits::MAX_AGENTS
                    )),
            );
        } else if steps <= ir::limits::MAX_STEPS as f64 && agents as f64 * steps > ir::limits::MAX_AGENT_STEPS as f64 {
            self.error(
                Diagnostic::error("E063", duration, format!("the run would take {:.3e} agent-steps", agents as f64 * steps))
                    .label(format!("{steps:.0} steps"))
                    .related(largest_span, format!("{largest_count} agents"))
                    .help(format!(
                        "at most {} agent-steps ({agents} agents in all): fewer agents, a shorter duration or a longer step",
                        ir::limits::MAX_AGENT_STEPS
                    )),
            );
        }
    }
}

impl Checker {
    /// Warns when the grid planners could visit more cells in a step than
    /// `crowd run` allows without `--max-plan-cells`: the figure before the work.
    fn plan_size(&mut self, program: &ir::Program, file: &ast::File) {
        let Some(work) = ir::limits::plan_work(program) else { return };
        if work.cells_per_step() <= ir::limits::DEFAULT_MAX_PLAN_CELLS {
            return;
        }
        let name = &program.behaviours[work.behaviour].name;
        let span = file.items.iter().find_map(|i| match i {
            ast::Item::Behaviour(b) if &b.name.text == name => Some(b.name.span.clone()),
            _ => None,
        });
        self.diags.push(
            Diagnostic::warning(
                "W005",
                span.unwrap_or(0..0),
                format!("the planners could visit about {:.1e} grid cells a step", work.cells_per_step()),
            )
            .label(format!(
                "up to {} {} run this behaviour on a grid of {:.0} cells",
                work.searches, work.by, work.cells
            ))
            .help(format!(
                "`crowd run` refuses more than {:.0e} cells a step: use a coarser grid (`grid X x Y`, a larger \
                 cell), fewer agents, or raise the limit with `--max-plan-cells`",
                ir::limits::DEFAULT_MAX_PLAN_CELLS
            )),
        );
    }

    /// Warns when the agents created at once in a region cover more of it
    /// than random placement keeps apart: beyond about half (random
    /// sequential packing jams at 0.547) bodies appear overlapping.
    fn spawn_room(&mut self, program: &ir::Program, file: &ast::File) {
        const ROOM: f64 = 0.5;
        let spacing = crate::sim::spawn::spawn_spacing(program);
        let body = std::f64::consts::PI * spacing * spacing / 4.0;
        let mut at_once = vec![0u64; program.world.regions.len()];
        for p in &program.populations {
            if let (ir::Schedule::Fixed { count }, ir::Place::Region(r)) = (&p.schedule, &p.spawn) {
                at_once[r.index()] += u64::from(*count);
            }
        }
        for (r, &n) in at_once.iter().enumerate() {
            let region = &program.world.regions[r];
            let cover = n as f64 * body;
            // The whole region's area bounds the walkable part's: most regions need no polygon work.
            if n < 2 || cover <= ROOM * crate::world::geometry::area(&region.shape) {
                continue;
            }
            let area = self.region_walkable_area(ir::RegionId(r as u32));
            // No walkable area at all is E046's.
            if area <= 0.0 || cover <= ROOM * area {
                continue;
            }
            let span = file.items.iter().find_map(|i| match i {
                ast::Item::Population(e) => e.stmts.iter().find_map(|st| match st {
                    ast::EntityStmt::SpawnIn { region: name, chaotic: None } if name.text == region.name => {
                        Some(name.span.clone())
                    }
                    _ => None,
                }),
                _ => None,
            });
            self.diags.push(
                Diagnostic::warning(
                    "W006",
                    span.unwrap_or(0..0),
                    format!("{n} agents appear at once in `{}`, more than fit apart", region.name),
                )
                .label(if cover <= area {
                    format!("{n} bodies {spacing} m apart would cover {:.0}% of its {area:.1} m² of walkable area", 100.0 * cover / area)
                } else {
                    format!("{n} bodies {spacing} m apart need {cover:.0} m², {:.0} times its {area:.1} m² of walkable area", cover / area)
                })
                .help(format!(
                    "random placement keeps bodies apart up to about {:.0}% cover; beyond it some start overlapping: \
                     spawn them in at least {:.0} m², or over time with `peak N at T`",
                    100.0 * ROOM,
                    cover / ROOM
                )),
            );
        }
    }

    /// Warns when the trace could outgrow what `crowd run` writes without
    /// `--max-trace-gb`: the figure before the work.
    fn trace_size(
        &mut self,
        header: &ir::Header,
        populations: &[ir::Population],
        output: &ir::Output,
        file: &ast::File,
    ) {
        let (bytes, agents, frames) = ir::limits::trace_bytes(header, populations, output.columns.len());
        let gb = bytes / 1e9;
        if gb <= ir::limits::DEFAULT_MAX_TRACE_GB {
            return;
        }
        let span = file.items.iter().find_map(|i| match i {
            ast::Item::Scenario(s) => Some(s.name.span.clone()),
            _ => None,
        });
        self.diags.push(
            Diagnostic::warning("W002", span.unwrap_or(0..0), format!("the trace could grow to about {gb:.0} GB"))
                .label(format!("{agents} agent{} in {frames:.0} recorded frames", if agents == 1 { "" } else { "s" }))
                .help(format!(
                    "`crowd run` refuses more than {} GB: record fewer frames (`record every N steps`), or raise the \
                     limit with `--max-trace-gb`",
                    ir::limits::DEFAULT_MAX_TRACE_GB
                )),
        );
    }
}

/// `between a and b`, `at least a`, ... in the unit a person would write.
pub(crate) fn range_text(dim: Dim, min: f64, max: f64, open_min: bool) -> String {
    if dim == Dim::Count {
        return format!("a whole number from {min} to {max}");
    }
    match (open_min, max.is_finite()) {
        (true, false) => format!("greater than {}", show(min, dim)),
        (false, false) => format!("at least {}", show(min, dim)),
        (true, true) => format!("greater than {} and at most {}", show(min, dim), show(max, dim)),
        (false, true) => format!("between {} and {}", show(min, dim), show(max, dim)),
    }
}

/// A value in the unit a person would write it in.
pub(crate) fn show(v: f64, dim: Dim) -> String {
    match dim {
        Dim::Length => format!("{v} m"),
        Dim::Time => format!("{v} s"),
        Dim::Speed => format!("{v} m/s"),
        Dim::Angle => format!("{} deg", v * 180.0 / std::f64::consts::PI),
        Dim::Density => format!("{v} per m2"),
        Dim::Rate => format!("{v} per s"),
        Dim::Percent => format!("{}%", v * 100.0),
        Dim::Number | Dim::Count => format!("{v}"),
    }
}

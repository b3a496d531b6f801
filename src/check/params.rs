//! Every model parameter the language knows: its unit, the paper's default
//! and the range in which the model is valid.

use super::units::Dim;

pub struct ParamSpec {
    pub model: &'static str,
    pub name: &'static str,
    pub dim: Dim,
    /// SI units.
    pub default: f64,
    /// Inclusive bounds, SI units.
    pub min: f64,
    pub max: f64,
    pub doc: &'static str,
}

const fn p(
    model: &'static str,
    name: &'static str,
    dim: Dim,
    default: f64,
    min: f64,
    max: f64,
    doc: &'static str,
) -> ParamSpec {
    ParamSpec { model, name, dim, default, min, max, doc }
}

use Dim::*;

/// Sorted by model, then name (the IR's order).
pub const PARAMS: &[ParamSpec] = &[
    // Silveira, Prestes, Nedel 2008.
    p("bvp", "epsilon", Number, 0.5, -2.0, 2.0, "bias strength ε of Eq 1; |ε| > 2 makes Gauss-Seidel unstable"),
    p("bvp", "eta", Number, 0.3, 0.0, 1.0, "inertia η blending the previous direction"),
    p("bvp", "initial", Number, 0.9, 0.0, 1.0, "initial potential of free cells"),
    p("bvp", "max_iterations", Number, 1000.0, 1.0, 1.0e6, "relaxation iteration cap per step"),
    p("bvp", "mu", Number, 0.5, 0.0, 1.0, "weight μ of the group-map direction against the formation force"),
    p("bvp", "tolerance", Number, 0.001, 1.0e-12, 0.1, "relaxation stops when the largest change is below this"),
    // Durupınar 2007 (boids with predators and prey).
    p("boids", "alignment", Number, 1.0, 0.0, 100.0, "alignment weight"),
    p("boids", "avoid_steepness", Number, 4.0, 0.0, 100.0, "ω of the prey-avoidance sigmoid"),
    p("boids", "avoid_weight", Number, 10.0, 0.0, 1000.0, "c_av of the prey-avoidance force"),
    p("boids", "catch_distance", Length, 0.5, 0.01, 100.0, "a predator catches prey closer than this"),
    p("boids", "cohesion", Number, 1.0, 0.0, 100.0, "cohesion weight"),
    p("boids", "max_speed", Speed, 2.0, 0.01, 100.0, "speed limit"),
    p("boids", "pursuit_weight", Number, 5.0, 0.0, 1000.0, "C_at of the predator's attraction"),
    p("boids", "separation", Number, 1.5, 0.0, 100.0, "separation weight"),
    p("boids", "view_radius", Length, 5.0, 0.01, 1000.0, "perception radius"),
    // Treuille, Cooper, Popović 2006, as summarised by Durupınar.
    p("continuum", "cell", Length, 1.0, 0.05, 100.0, "grid cell size"),
    p("continuum", "density_max", Density, 0.8, 0.0, 10.0, "density at which speed is the flow speed"),
    p("continuum", "density_min", Density, 0.5, 0.0, 10.0, "density below which speed is the topographic speed"),
    p("continuum", "discomfort_weight", Number, 1.0, 0.0, 1000.0, "γ: weight of discomfort in the unit cost"),
    p("continuum", "path_weight", Number, 1.0, 0.0, 1000.0, "α: weight of path length in the unit cost"),
    p("continuum", "time_weight", Number, 1.0, 0.0, 1000.0, "β: weight of time in the unit cost"),
    // Li, Jeng, Chang: leader-follower in configuration-time space.
    p("ct_space", "attraction", Number, 1.0, 0.0, 100.0, "leader attraction weight"),
    p("ct_space", "cohesion", Number, 1.0, 0.0, 100.0, "follower cohesion weight"),
    p("ct_space", "alignment", Number, 1.0, 0.0, 100.0, "follower alignment weight"),
    p("ct_space", "max_speed", Speed, 1.5, 0.01, 100.0, "leader speed bound (path slope in CT-space)"),
    p("ct_space", "obstacle", Number, 2.0, 0.0, 100.0, "obstacle repulsion weight"),
    p("ct_space", "separation", Number, 1.5, 0.0, 100.0, "separation weight"),
    p("ct_space", "view_radius", Length, 4.0, 0.01, 1000.0, "follower perception radius"),
    // Shared by every model.
    p(
        "motion",
        "arrival_radius",
        Length,
        0.3,
        0.001,
        100.0,
        "an agent has arrived within this distance of its goal point",
    ),
    // Hocevar et al.: procedural groups in semantic environments.
    p("semantic_groups", "astar_cell", Length, 1.0, 0.05, 100.0, "spacing of the A* node grid laid over the markers"),
    p(
        "semantic_groups",
        "core",
        Percent,
        0.5,
        0.0,
        1.0,
        "the reserved core of the group space, as a fraction of its radius",
    ),
    p(
        "semantic_groups",
        "social_distance",
        Length,
        3.6,
        0.1,
        100.0,
        "Hall's social distance: agents closer than this may form a group",
    ),
    p(
        "semantic_groups",
        "v_angle",
        Angle,
        std::f64::consts::FRAC_PI_4,
        0.0,
        std::f64::consts::FRAC_PI_2,
        "angle of the V formation's wings",
    ),
    // Rodrigues et al. 2010: space colonization.
    p("space_colonization", "A_r", Length, 1.2, 0.01, 100.0, "action radius of a path node"),
    p("space_colonization", "R", Length, 1.2, 0.01, 100.0, "personal-space radius for direct motion"),
    p("space_colonization", "R_d", Length, 4.0, 0.01, 1000.0, "recomputing distance when the goal moves"),
    p("space_colonization", "alpha", Length, 2.0, 0.01, 100.0, "α: distance between a node and its child (Eq 4)"),
    p(
        "space_colonization",
        "beta",
        Length,
        0.05,
        0.0001,
        10.0,
        "β: step length per step (Eq 9); 0.05 m at 24 steps/s is 1.2 m/s",
    ),
    p("space_colonization", "max_iterations", Number, 200.0, 1.0, 100000.0, "tree growth iteration cap"),
    p(
        "space_colonization",
        "restriction",
        Length,
        1.0,
        0.0,
        100.0,
        "restriction distance: markers a new child takes from its parent",
    ),
    p("space_colonization", "t_min", Length, 0.5, 0.0, 100.0, "minimum distance enforced between agents (Eq 8)"),
    p("space_colonization", "w_max", Number, 10.0, 1.0, 1.0e6, "weight of shape markers (Eq 14)"),
];

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

/// The model whose parameters a planner's per-action overrides refer to.
pub fn planner_model(planner: crate::ir::PlannerKind) -> &'static str {
    use crate::ir::PlannerKind::*;
    match planner {
        Straight | TreePaths => "space_colonization",
        AStar => "semantic_groups",
        Bvp => "bvp",
        CtSpace => "ct_space",
        Continuum => "continuum",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_in_their_ranges_and_names_are_unique() {
        for p in PARAMS {
            assert!(p.min <= p.default && p.default <= p.max, "{}.{}", p.model, p.name);
            assert_eq!(PARAMS.iter().filter(|q| q.model == p.model && q.name == p.name).count(), 1);
        }
    }

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

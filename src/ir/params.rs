//! Every model parameter the language knows, in one table: its unit, the
//! paper's default and the range in which the model is valid; and, made from
//! the same table, the typed structs through which the executor, the metrics
//! and the checker read the values in force.
//!
//! Invariants:
//! - one row per (model, name); rows sorted by model, then name (byte order:
//!   the order of `crowd ir` and of a trace's metadata);
//! - a struct's `Default` is the table's defaults, so a program built in code
//!   runs with the papers' values;
//! - after checking, parameters are read as fields, never looked up by name.

/// What a quantity measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    Length,
    Time,
    Speed,
    Angle,
    /// Per square metre.
    Density,
    /// A percentage, converted to a fraction in [0, 1].
    Percent,
    /// How fast a plain number changes, per second.
    Rate,
    /// A plain number with no unit.
    Number,
    /// A whole number with no unit.
    Count,
}

/// One row of the table.
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

/// Writes the table ([`PARAMS`]), the models and their sources ([`MODELS`]),
/// one struct per model with a field per parameter, and [`Params`] holding
/// one struct per model.
macro_rules! parameters {
    ($(
        #[doc = $source:literal]
        $model:ident: $Model:ident {
            $( $name:literal $field:ident: $dim:ident = $default:expr, $min:expr, $max:expr, $doc:literal; )*
        }
    )*) => {
        $(
            #[doc = $source]
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct $Model {
                $( #[doc = $doc] pub $field: f64, )*
            }

            impl Default for $Model {
                fn default() -> Self {
                    $Model { $( $field: $default, )* }
                }
            }
        )*

        /// Every model's parameters in force: the paper's defaults unless the
        /// scenario set them.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Params {
            $( pub $model: $Model, )*
        }

        /// Each model and the work it comes from, in the table's order.
        pub const MODELS: &[(&str, &str)] = &[ $( (stringify!($model), $source.trim_ascii_start()), )* ];

        /// The table, sorted by model then name.
        pub const PARAMS: &[ParamSpec] = &[
            $( $( ParamSpec {
                model: stringify!($model),
                name: $name,
                dim: Dim::$dim,
                default: $default,
                min: $min,
                max: $max,
                doc: $doc,
            }, )* )*
        ];

        impl Params {
            /// Sets `model.name`; `false` when the table has no such row.
            pub fn set(&mut self, model: &str, name: &str, value: f64) -> bool {
                match (model, name) {
                    $( $( (stringify!($model), $name) => self.$model.$field = value, )* )*
                    _ => return false,
                }
                true
            }

            /// `(model, name, value)` for every row, in the table's order.
            pub fn values(&self) -> Vec<(&'static str, &'static str, f64)> {
                vec![ $( $( (stringify!($model), $name, self.$model.$field), )* )* ]
            }
        }
    };
}

parameters! {
    /// Durupınar 2007: boids with predators and prey.
    boids: Boids {
        "alignment" alignment: Number = 1.0, 0.0, 100.0, "alignment weight";
        "avoid_steepness" avoid_steepness: Number = 4.0, 0.0, 100.0, "ω of the prey-avoidance sigmoid";
        "avoid_weight" avoid_weight: Number = 10.0, 0.0, 1000.0, "c_av of the prey-avoidance force";
        "catch_distance" catch_distance: Length = 0.5, 0.01, 100.0, "a predator catches prey closer than this";
        "cohesion" cohesion: Number = 1.0, 0.0, 100.0, "cohesion weight";
        "max_speed" max_speed: Speed = 2.0, 0.01, 100.0, "speed limit";
        "predator_view_radius" predator_view_radius: Length = 20.0, 0.01, 1000.0, "radius of a predator's visibility sphere, in which it picks the closest prey";
        "pursuit_weight" pursuit_weight: Number = 5.0, 0.0, 1000.0, "C_at of the predator's attraction";
        "separation" separation: Number = 1.5, 0.0, 100.0, "separation weight";
        "view_radius" view_radius: Length = 5.0, 0.01, 1000.0, "perception radius";
    }
    /// Silveira, Prestes, Nedel 2008: BVP potential fields for coherent groups.
    bvp: Bvp {
        "cell" cell: Length = 0.5, 0.01, 100.0, "cell size of the whole-world potential (a planner's `grid X x Y` sets it instead)";
        "epsilon" epsilon: Number = 0.5, -2.0, 2.0, "bias strength ε of Eq 1; |ε| > 2 makes Gauss-Seidel unstable";
        "eta" eta: Number = 0.3, 0.0, 1.0, "inertia η blending the previous direction";
        "initial" initial: Number = 0.9, 0.0, 1.0, "initial potential of free cells";
        "map_speed" map_speed: Speed = 1.0, 0.01, 20.0, "v_g: the speed of a group map along its global path; members' speed must exceed it";
        "max_iterations" max_iterations: Number = 10000.0, 1.0, 1.0e6, "sweeps a relaxation may take before the run stops with an error";
        "mu" mu: Number = 0.5, 0.0, 1.0, "weight μ of the group-map direction against the formation force";
        "spacing" spacing: Length = 1.5, 0.1, 10.0, "distance between neighbouring points of the predefined formations";
        "tolerance" tolerance: Number = 1.0e-6, 1.0e-12, 0.1, "relaxation stops when every free cell's Eq 3 value is within this fraction of its own (a relative residual)";
    }
    /// Treuille, Cooper, Popović 2006, as summarised by Durupınar.
    continuum: Continuum {
        "cell" cell: Length = 1.0, 0.05, 100.0, "grid cell size";
        "density_exponent" density_exponent: Number = 1.0, 0.1, 10.0,
            "λ of the density splat (§4.1): each person's four weights min(1 − Δx, 1 − Δy)^λ …, scaled to sum to 1";
        "density_max" density_max: Density = 3.0, 0.0, 10.0,
            "density from which people walk at the flow speed (Weidmann: half the free speed at about 3 per m²)";
        "density_min" density_min: Density = 1.0, 0.0, 10.0,
            "density up to which people walk at the topographic speed (above about 1 per m², crowds constrain walking)";
        "discomfort_weight" discomfort_weight: Number = 1.0, 0.0, 1000.0, "γ: weight of discomfort in the unit cost";
        "order" order: Count = 1.0, 1.0, 2.0,
            "order of fast marching's upwind differences: 1, the paper's (§4.3); 2, second-order where two accepted cells lie upwind along an axis (Sethian 1999), about a fifth of the first order's error on smooth potentials";
        "path_weight" path_weight: Number = 1.0, 0.0, 1000.0, "α: weight of path length in the unit cost";
        "predictive_horizon" predictive_horizon: Time = 1.0, 0.0, 60.0,
            "how far ahead along its walk a person's predictive discomfort reaches";
        "predictive_weight" predictive_weight: Number = 0.0, 0.0, 1000.0,
            "discomfort a person lays along its walk ahead (0: off; on, people also swerve from their own projection)";
        "slope_max" slope_max: Percent = 0.3, 0.01, 1.0,
            "s_max: up a slope this steep or steeper, people walk at slope_speed (§4.2)";
        "slope_speed" slope_speed: Percent = 0.35, 0.01, 1.0,
            "f_min as a fraction of f_max: the speed up a slope of slope_max (Tobler's hiking function: 35% at 30%)";
        "time_weight" time_weight: Number = 1.0, 0.0, 1000.0, "β: weight of time in the unit cost";
        "update_every" update_every: Number = 1.0, 1.0, 10000.0, "steps between two solves of the potentials";
    }
    /// Li, Jeng, Chang: leader-follower crowds in configuration-time space.
    ct_space: CtSpace {
        "alignment" alignment: Number = 1.0, 0.0, 100.0, "follower alignment weight";
        "attraction" attraction: Number = 1.0, 0.0, 100.0, "leader attraction weight";
        "cohesion" cohesion: Number = 1.0, 0.0, 100.0, "follower cohesion weight";
        "deadlock_steps" deadlock_steps: Number = 12.0, 1.0, 10000.0,
            "steps a follower blocked by another walks a random direction with its attractions off";
        "follow_distance" follow_distance: Length = 2.0, 0.01, 100.0,
            "distance from the leader at which its attraction has its full weight (it grows with the distance)";
        "max_speed" max_speed: Speed = 1.5, 0.01, 100.0, "leader speed bound (path slope in CT-space)";
        "obstacle" obstacle: Number = 2.0, 0.0, 100.0, "obstacle repulsion weight";
        "obstacle_reach" obstacle_reach: Length = 1.0, 0.01, 100.0, "obstacles repel a follower closer than this to its body";
        "separation" separation: Number = 1.5, 0.0, 100.0, "separation weight";
        "spacing" spacing: Length = 1.0, 0.1, 10.0,
            "room per follower in the crowd shape estimate: a crowd of n covers n spacing²";
        "view_angle" view_angle: Angle = 1.5 * std::f64::consts::PI, 0.0, std::f64::consts::TAU,
            "the followers' view cone, centred on their heading";
        "view_radius" view_radius: Length = 4.0, 0.01, 1000.0, "follower perception radius";
    }
    /// Shared by every model.
    motion: Motion {
        "arrival_radius" arrival_radius: Length = 0.3, 0.001, 100.0,
            "an agent has arrived within this distance of its goal point";
    }
    /// Hocevar et al. 2012: procedural groups in semantic environments.
    semantic_groups: SemanticGroups {
        "astar_cell" astar_cell: Length = 1.0, 0.05, 100.0, "spacing of the A* node grid laid over the markers";
        "core" core: Percent = 0.5, 0.0, 1.0, "the reserved core of the group space, as a fraction of its radius";
        "social_distance" social_distance: Length = 3.6, 0.1, 100.0,
            "Hall's social distance: agents closer than this may form a group";
        "v_angle" v_angle: Angle = std::f64::consts::FRAC_PI_4, 0.0, std::f64::consts::FRAC_PI_2,
            "angle of the V formation's wings";
    }
    /// Rodrigues et al. 2010: space colonization.
    space_colonization: SpaceColonization {
        "A_r" action_radius: Length = 1.2, 0.01, 100.0, "action radius of a path node";
        "R" personal_radius: Length = 1.2, 0.01, 100.0, "personal-space radius for direct motion";
        "R_d" recompute_distance: Length = 4.0, 0.01, 1000.0, "recomputing distance when the goal moves";
        "alpha" alpha: Length = 2.0, 0.01, 100.0, "α: distance between a node and its child (Eq 4)";
        "beta" beta: Length = 0.05, 0.0001, 10.0, "β: step length per step (Eq 9); 0.05 m at 24 steps/s is 1.2 m/s";
        "lane_lookahead" lane_lookahead: Length = 5.0, 0.0, 100.0,
            "crowd extension: how far ahead a walker sees people coming the other way and keeps right of them (0: never)";
        "max_iterations" max_iterations: Number = 200.0, 1.0, 100000.0, "tree growth iteration cap";
        "restriction" restriction: Length = 1.0, 0.0, 100.0,
            "restriction distance: markers a new child takes from its parent";
        "t_min" t_min: Length = 0.5, 0.0, 100.0, "minimum distance enforced between agents (Eq 8)";
        "w_max" w_max: Number = 10.0, 1.0, 1.0e6, "weight of shape markers (Eq 14)";
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_unique_and_defaults_lie_in_their_ranges() {
        for w in PARAMS.windows(2) {
            assert!(
                (w[0].model, w[0].name) < (w[1].model, w[1].name),
                "{}.{} before {}.{}",
                w[0].model,
                w[0].name,
                w[1].model,
                w[1].name
            );
        }
        for p in PARAMS {
            assert!(p.min <= p.default && p.default <= p.max, "{}.{}", p.model, p.name);
        }
    }

    #[test]
    fn the_structs_hold_the_tables_defaults_and_every_row_can_be_set() {
        let defaults = Params::default();
        let values = defaults.values();
        assert_eq!(values.len(), PARAMS.len());
        for (p, (model, name, value)) in PARAMS.iter().zip(&values) {
            assert_eq!((p.model, p.name, p.default), (*model, *name, *value));
            let mut set = Params::default();
            assert!(set.set(p.model, p.name, p.max));
            let changed: Vec<_> =
                set.values().into_iter().zip(&values).filter(|(a, b)| a != *b).map(|(a, _)| a).collect();
            assert_eq!(changed, [(p.model, p.name, p.max)]);
        }
        assert!(!Params::default().set("space_colonization", "gamma", 1.0));
    }
}

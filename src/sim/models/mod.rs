//! The registry of motion models. Each model is a folder (or a file) with
//! its run state, the state it keeps for each agent it drives, and its part
//! in the stages of a step (`sim::stage::Model`). This file lists them once;
//! the core reaches a model only through what is written here.
//!
//! Invariants:
//! - an agent's [`Drive`] carries the state of the one model that drives it
//!   and nothing else of any model; a model that stops driving an agent is told first
//!   ([`Model::stop`]), so it can give back what the agent held;
//! - dispatch is static (a `match` on the drive), and every stage calls the
//!   models in the order they are listed.

pub(crate) mod boids;
pub(crate) mod bvp;
pub(crate) mod continuum;
pub(crate) mod in_force;
pub(crate) mod leader_follower;
pub(crate) mod needs;
pub(crate) mod semantic_groups;
pub(crate) mod space_colonization;
pub(crate) mod straight;

use super::scene::Scene;
use super::stage::{Catch, Holds, Model, Own, Plan};
use super::workers::Workers;
use crate::ir::{Action, Behaviour, Program};
use crate::rng::Draws;
use crate::world::markers::Change;

/// An agent's own state, the only state of another agent's that no stage
/// reads: the streams it has drawn, by purpose, over its life, and the model
/// that drives it with what that model keeps for it. Both boxed: the
/// organise stages scan every agent's drive for the model driving it, and a
/// small drive keeps that scan within the cache.
pub(crate) struct Drive {
    pub draws: Box<Draws>,
    driven: Driven,
}

/// Writes [`Driven`], [`How`], [`Models`] and the stages' dispatch for the
/// models listed: the default one (which drives any mode no other model
/// claims) first, then the others, in the order their claims are tried.
macro_rules! models {
    (
        default $DVariant:ident($dfield:ident: $DModel:ty);
        $( $Variant:ident($field:ident: $Model:ty); )*
    ) => {
        /// The model that drives an agent, with what that model keeps for it.
        pub(crate) enum Driven {
            $DVariant(Box<<$DModel as Model>::Walker>),
            $( $Variant(Box<<$Model as Model>::Walker>), )*
        }

        /// How a mode engages its model.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub(crate) enum How {
            $DVariant(<$DModel as Model>::How),
            $( $Variant(<$Model as Model>::How), )*
        }

        /// Every model's state for a run.
        pub(crate) struct Models {
            pub $dfield: $DModel,
            $( pub $field: $Model, )*
        }

        impl Holds<<$DModel as Model>::Walker> for Drive {
            fn walker(&self) -> Option<&<$DModel as Model>::Walker> {
                match &self.driven {
                    Driven::$DVariant(w) => Some(w),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
            fn walker_mut(&mut self) -> Option<&mut <$DModel as Model>::Walker> {
                match &mut self.driven {
                    Driven::$DVariant(w) => Some(w),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        }

        $(
            impl Holds<<$Model as Model>::Walker> for Drive {
                fn walker(&self) -> Option<&<$Model as Model>::Walker> {
                    match &self.driven {
                        Driven::$Variant(w) => Some(w),
                        _ => None,
                    }
                }
                fn walker_mut(&mut self) -> Option<&mut <$Model as Model>::Walker> {
                    match &mut self.driven {
                        Driven::$Variant(w) => Some(w),
                        _ => None,
                    }
                }
            }
        )*

        impl Drive {
            /// An agent before its first mode: driven by the default model, nothing drawn.
            pub fn new() -> Drive {
                Drive { draws: Box::default(), driven: Driven::$DVariant(Box::default()) }
            }

            /// A hint: the boxes of this drive are brought into cache.
            #[inline]
            pub fn prefetch(&self) {
                crate::sim::cache::prefetch(&*self.draws);
                match &self.driven {
                    Driven::$DVariant(w) => crate::sim::cache::prefetch(&**w),
                    $( Driven::$Variant(w) => crate::sim::cache::prefetch(&**w), )*
                }
            }

            /// Driven by the default model: no other model has it.
            pub fn is_default(&self) -> bool {
                matches!(self.driven, Driven::$DVariant(_))
            }
        }

        impl Models {
            pub fn new(scene: &Scene) -> Models {
                Models { $dfield: <$DModel>::new(scene), $( $field: <$Model>::new(scene), )* }
            }

            /// How a mode with `actions` moves its agents: the first action
            /// that some model drives decides; a mode none claims is the
            /// default model's.
            pub fn how_of(actions: &[Action]) -> How {
                for a in actions {
                    $( if let Some(h) = <$Model>::how(a, actions) {
                        return How::$Variant(h);
                    } )*
                }
                How::$DVariant(Default::default())
            }

            /// Whether some model drives `action`, one of `mode`'s actions.
            pub fn drive(action: &Action, mode: &[Action]) -> bool {
                <$DModel>::how(action, mode).is_some() $( || <$Model>::how(action, mode).is_some() )*
            }

            /// The radius the markers' index is cut for: the smallest of the
            /// models' per-step marker queries.
            pub fn marker_reach(program: &Program) -> Option<f64> {
                [<$DModel>::marker_reach(program) $(, <$Model>::marker_reach(program) )*]
                    .into_iter()
                    .flatten()
                    .reduce(f64::min)
            }

            /// The radius the agents' index is cut for: the smallest of the
            /// models' per-step agent queries.
            pub fn agent_reach(program: &Program) -> Option<f64> {
                [<$DModel>::agent_reach(program) $(, <$Model>::agent_reach(program) )*]
                    .into_iter()
                    .flatten()
                    .reduce(f64::min)
            }

            /// Agent `i` enters a mode that moves it `how`: the model that
            /// drove it stops, the one `how` names starts (the same model
            /// starts again from the walker it had).
            pub fn engage(&mut self, scene: &Scene, i: usize, how: How, drive: &mut Drive) {
                match (&mut drive.driven, how) {
                    (Driven::$DVariant(w), How::$DVariant(h)) => {
                        self.$dfield.stop(scene, i, w);
                        let next = self.$dfield.start(scene, i, h, Some(&**w));
                        **w = next;
                        return;
                    }
                    $( (Driven::$Variant(w), How::$Variant(h)) => {
                        self.$field.stop(scene, i, w);
                        let next = self.$field.start(scene, i, h, Some(&**w));
                        **w = next;
                        return;
                    } )*
                    _ => self.stop(scene, i, drive),
                }
                drive.driven = match how {
                    How::$DVariant(h) => Driven::$DVariant(Box::new(self.$dfield.start(scene, i, h, None))),
                    $( How::$Variant(h) => Driven::$Variant(Box::new(self.$field.start(scene, i, h, None))), )*
                };
            }

            /// Agent `i` leaves its model: it changes mode, or it is removed.
            pub fn stop(&mut self, scene: &Scene, i: usize, drive: &mut Drive) {
                match &mut drive.driven {
                    Driven::$DVariant(w) => self.$dfield.stop(scene, i, w),
                    $( Driven::$Variant(w) => self.$field.stop(scene, i, w), )*
                }
            }

            /// Agent `i` starts leaving by its population's exit: a model that
            /// takes over the leavers of its behaviour drives it out; an agent
            /// no model drives walks out as its behaviour's first mode would,
            /// when that mode's model leads leavers out; any other keeps its drive.
            pub fn leave(&mut self, scene: &Scene, i: usize, behaviour: &Behaviour, drive: &mut Drive) {
                $( if let Some(h) = <$Model>::takes_leavers(behaviour) {
                    if !matches!(drive.driven, Driven::$Variant(_)) {
                        self.engage(scene, i, How::$Variant(h), drive);
                    }
                    return;
                } )*
                if drive.is_default() {
                    let how = Self::how_of(behaviour.body.mode_actions(0));
                    let leads = match how {
                        How::$DVariant(h) => <$DModel>::leads_out(h),
                        $( How::$Variant(h) => <$Model>::leads_out(h), )*
                    };
                    if leads {
                        self.engage(scene, i, how, drive);
                    }
                }
            }

            /// Every model follows a change of the markers.
            pub fn markers_changed(&mut self, scene: &Scene, drives: &mut [Drive], change: &Change) {
                self.$dfield.markers_changed(scene, drives, change);
                $( self.$field.markers_changed(scene, drives, change); )*
            }

            /// The perceive stage of every model.
            pub fn perceive(&mut self, scene: &Scene) {
                self.$dfield.perceive(scene);
                $( self.$field.perceive(scene); )*
            }

            /// The organise stage of every model.
            pub fn organise(&mut self, scene: &Scene, drives: &[Drive], workers: &Workers, formation: &mut [u32]) {
                self.$dfield.organise(scene, drives, workers, formation);
                $( self.$field.organise(scene, drives, workers, formation); )*
            }

            /// Why a model cannot go on after its organise stage, if one cannot.
            pub fn fault(&self) -> Option<String> {
                [self.$dfield.fault() $(, self.$field.fault() )*].into_iter().flatten().next().map(str::to_string)
            }

            /// Whether the model driving an agent plans it right after the
            /// apply of its changed decision, in id order (see
            /// [`Model::plans_in_order`]); the others' plans wait for a
            /// parallel pass after every decision is applied.
            pub fn plans_in_order(&self, drive: &Drive) -> bool {
                match drive.driven {
                    Driven::$DVariant(_) => self.$dfield.plans_in_order(),
                    $( Driven::$Variant(_) => self.$field.plans_in_order(), )*
                }
            }

            /// A hint before an earlier agent's plan: what this drive's
            /// walker points to, and its plan will read, is brought into cache.
            #[inline]
            pub fn prefetch(&self, drive: &Drive) {
                match &drive.driven {
                    Driven::$DVariant(w) => self.$dfield.prefetch(w),
                    $( Driven::$Variant(w) => self.$field.prefetch(w), )*
                }
            }

            /// The plan stage of agent `i`, by the model that drives it.
            #[inline]
            pub fn plan(&self, scene: &Scene, i: usize, drive: &mut Drive) -> Plan {
                let draws = &mut drive.draws;
                match &mut drive.driven {
                    Driven::$DVariant(w) => self.$dfield.plan(scene, Own { i, walker: w, draws }),
                    $( Driven::$Variant(w) => self.$field.plan(scene, Own { i, walker: w, draws }), )*
                }
            }

            /// The settle stage of every model.
            pub fn settle(&mut self, scene: &Scene, drives: &mut [Drive], settling: &[usize], workers: &Workers) {
                self.$dfield.settle(scene, drives, settling, workers);
                $( self.$field.settle(scene, drives, settling, workers); )*
            }

            /// Every model's catches of the step, model by model.
            pub fn catches(&mut self) -> Vec<Catch> {
                let mut all = self.$dfield.catches();
                $( all.extend(self.$field.catches()); )*
                all
            }
        }
    };
}

/// The distance the core's resolve stage keeps between agents (Rodrigues et
/// al. Eq 8's `t_min`): a parameter of space colonization, whose distance
/// enforcement the models here steer with.
pub fn min_distance(program: &Program) -> f64 {
    program.params.space_colonization.t_min
}

models! {
    default Straight(straight: straight::Straight);
    SpaceColonization(space_colonization: space_colonization::SpaceColonization);
    SemanticGroups(semantic_groups: semantic_groups::SemanticGroups);
    Bvp(bvp: bvp::Bvp);
    LeaderFollower(leader_follower: leader_follower::LeaderFollower);
    Boids(boids: boids::Boids);
    Continuum(continuum: continuum::Continuum);
}

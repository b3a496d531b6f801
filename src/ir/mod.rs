//! The lowered program: what `check` hands to `sim`.
//!
//! Guarantees, established by `check` and relied on by everything downstream:
//! - **Names are resolved.** Every reference is an index into a `Vec` of this
//!   module (`PopulationId`, `RegionId`, ...). Names survive only as display
//!   labels (`name` fields) for traces and runtime errors.
//! - **SI units.** Lengths in metres, times in seconds, speeds in m/s, angles in
//!   radians, densities in markers per m², probabilities in `[0, 1]`.
//! - **Geometry is valid.** Rectangles have `min < max`; polygons have at least
//!   three distinct vertices, non-zero area and no self-intersection, and are
//!   stored counter-clockwise; polylines have a positive width; every object lies
//!   in its space and every child space in its parent.
//! - **Distributions are explicit.** Every per-agent attribute is a `Dist` with
//!   its parameters in SI units; weighted choices have weights summing to 1.
//! - **Sizes are bounded.** Marker counts, agent counts and grids have been
//!   estimated and are below the limits in [`limits`].
//! - **Model parameters are complete.** Every parameter has a value (the
//!   paper's default unless the scenario overrode it) inside its valid range.

pub mod limits;
pub mod params;
mod text;

pub use params::Params;

pub use text::{meaning_text, to_text};

/// An index or id that refers to nothing: no group, no goal, no agent.
pub const NONE: u32 = u32::MAX;

/// A 2-D point or vector in metres.
pub type Vec2 = glam::DVec2;

macro_rules! ids {
    ($($name:ident),* $(,)?) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}
ids!(PopulationId, GroupId, RegionId, ObstacleId, SpaceId, ObjectId, ResourceId, BehaviourId, ShapeId, MaskId,);

/// A whole scenario, ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub name: String,
    pub header: Header,
    pub world: World,
    pub spaces: Vec<Space>,
    pub objects: Vec<Object>,
    /// Resource names, indexed by `ResourceId`.
    pub resources: Vec<String>,
    pub populations: Vec<Population>,
    pub groups: Vec<Group>,
    pub behaviours: Vec<Behaviour>,
    pub params: Params,
    pub expectations: Vec<Expectation>,
    pub output: Output,
    /// Behaviours of the executor that the language does not switch: all on
    /// in every compiled program, and left out of `crowd ir`.
    pub switches: Switches,
}

/// Behaviours of the executor that a scenario cannot switch off: a test
/// switches one off in a compiled [`Program`] to show that the scenario's
/// expectations notice (`tests/sg_model_breaks.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Switches {
    /// An agent done with an object (choosing again, or leaving) gives its
    /// place up at once; off: it keeps it until it picks another goal.
    pub give_up_places: bool,
    /// A group that finds no object with room for it lines up at one, and
    /// nobody may take the room it needs there; off: it takes whatever
    /// frees first, if others leave it room.
    pub wait_in_line: bool,
    /// Semantic groups' A* grid and paths keep the widest walker's body
    /// radius from obstacles; off: they keep none.
    pub astar_clearance: bool,
    /// Semantic groups' A* nodes near a wall walk at the point farthest from
    /// it (among markers and a lattice), so that a door a little wider than
    /// a body is a way through; off: at the usable marker nearest to the
    /// cell's centre.
    pub astar_door_points: bool,
    /// A semantic-groups A* path whose start or goal lies where no body fits
    /// (against a wall, in a niche) starts or ends at the usable node
    /// nearest it; off: no path is found, and the walker walks straight.
    pub astar_snap_ends: bool,
    /// A semantic group stands to let a walker by rather than walk its
    /// reserved core onto them (Hocevar et al. §3.3); off: it walks on.
    pub groups_let_by: bool,
    /// A semantic-groups walker whose way stays blocked keeps turning to the
    /// side it turned to last; off: it tries its right first at every step.
    pub keep_turn_side: bool,
    /// A semantic-groups walker whose step would walk into another agent's
    /// body turns until it does not; off: it walks on, and distance
    /// enforcement settles the overlap.
    pub turn_round_bodies: bool,
    /// Semantic groups' A* grid is laid again on the markers after each
    /// marker event (open floor without markers is not walkable), and every
    /// path planned afresh on it; off: the grid of the start is kept.
    pub astar_follows_markers: bool,
    /// A reserving walker (the crowd extension) waiting behind someone who
    /// arrived counts as arrived itself only when it cannot step round them
    /// and they stand nearer its aim, so that a region fills from its aim
    /// on every side; off: as soon as it waits behind anyone who arrived.
    pub fill_from_aim: bool,
    /// A blocked reserving walker's way around is a node with no standing
    /// body on the way to it, as the grant asks; off: any node whose
    /// markers are free, so that it may pick one the grant refuses.
    pub sidestep_round_standing: bool,
    /// A reserving walker whose tree has added no node for a second counts
    /// it as dry, as one of a single node, and steps for its goal (as near
    /// that way as is clear and free); off: only a tree of one node is dry,
    /// and a tree facing an obstacle is waited on until the growth cap.
    pub barren_is_dry: bool,
    /// A walker keeping its distance (no reservation) at the last node of
    /// a tree that grows nothing from there steps for its goal, as near
    /// that way as is clear, and its tree grows again from that step; off:
    /// the tree starts again where the walker stands.
    pub dry_leaf_steps_on: bool,
    /// Tree paths keep off ground an erase left without markers, as off an
    /// obstacle (markers are the walkable space); off: they grow over it
    /// wherever Eqs 4-7 put a node.
    pub keep_off_bare_ground: bool,
    /// A surrounding pursuer near its target spaces itself evenly round it
    /// among the others there, then closes in, and keeps doing so once it
    /// has arrived; off: its tree alone takes it in, and once arrived it
    /// stands.
    pub surround_evenly: bool,
    /// A surrounding pursuer within `A_r` of its target closes in to its
    /// heels only while no pursuer nearer the target stands within `A_r` of
    /// it, and stands otherwise; off: it closes in whoever stands before it.
    pub surround_wait_behind: bool,
    /// An escaping agent (Eq 13) takes a next node only when it brings it
    /// farther from `c`, and otherwise grows its tree again where it stands;
    /// off: it walks on towards the farthest node however its branch winds.
    pub escape_farther: bool,
    /// An escaping agent whose tree, grown again where it stands, again
    /// leads only back towards `c` steps away from `c` as near straight as
    /// is clear (round an obstacle's corner); off: it grows its tree again
    /// there, step after step.
    pub escape_round_corners: bool,
    /// A marker near several surrounding pursuers' trees is claimed by the
    /// tree with the nearest node; off: by the first tree in id order.
    pub claims_to_nearest_tree: bool,
    /// A surrounding pursuer with its target in sight takes a next node only
    /// when it brings it closer to the target, and otherwise grows its tree
    /// again where it stands, as starved; off: it walks on along its branch.
    pub pursue_closer: bool,
    /// A pursuer whose target moved on walks on along its way while a tree
    /// regrown for the target's new place grows beside it, and takes the
    /// regrown way only when it is the shorter; off: the way beyond its next
    /// node is cut and regrown at once, and it follows the regrown tree.
    pub pursuit_keeps_way: bool,
    /// Every character is a wall on every BVP group map (Silveira et al.);
    /// off: a map holds only the world's walls and its border.
    pub characters_on_maps: bool,
    /// A CT-space leader plans around the other leaders' timed paths (Li et
    /// al. §3.2); off: it plans around static obstacles only.
    pub leaders_in_ct_space: bool,
    /// A follower who cannot see its leader heads for the latest point of
    /// the leader's trace it can see (Li et al. §4.2); off: for the leader.
    pub trace_attraction: bool,
    /// A predator within its catch distance of a prey catches it, and the
    /// prey leaves the run (Durupınar §3.1); off: predators never catch.
    pub catches: bool,
    /// Populations that `spawn in REGION chaotic` are placed along their
    /// logistic-map orbits (Durupınar 2007); off: uniformly, as `spawn in
    /// REGION` places them.
    pub chaotic_placement: bool,
    /// An agent's memory (Durupınar's goal queue): a rule interrupted by one
    /// of higher priority is resumed where it left off, and `pop goal` takes
    /// the remembered goal back; off: interruptions push nothing and resume
    /// nothing, and `pop goal` does nothing.
    pub goal_memory: bool,
    /// Continuum crowds walk down their group's potential, round obstacles
    /// and discomfort (Treuille et al. §4.4); off: straight towards their
    /// goal's point at their own speed.
    pub continuum_potential: bool,
}

impl Default for Switches {
    fn default() -> Switches {
        Switches {
            give_up_places: true,
            wait_in_line: true,
            astar_clearance: true,
            astar_door_points: true,
            astar_snap_ends: true,
            groups_let_by: true,
            astar_follows_markers: true,
            fill_from_aim: true,
            sidestep_round_standing: true,
            barren_is_dry: true,
            dry_leaf_steps_on: true,
            keep_off_bare_ground: true,
            surround_evenly: true,
            surround_wait_behind: true,
            escape_farther: true,
            escape_round_corners: true,
            pursue_closer: true,
            pursuit_keeps_way: true,
            claims_to_nearest_tree: true,
            keep_turn_side: true,
            turn_round_bodies: true,
            characters_on_maps: true,
            leaders_in_ct_space: true,
            trace_attraction: true,
            catches: true,
            chaotic_placement: true,
            goal_memory: true,
            continuum_potential: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub seed: u64,
    /// Simulated time, s.
    pub duration: f64,
    /// Time step, s.
    pub dt: f64,
    /// A trace frame is recorded every this many steps (≥ 1).
    pub record_every: u32,
}

impl Header {
    /// Number of simulation steps in the run.
    pub fn steps(&self) -> u64 {
        (self.duration / self.dt).round() as u64
    }
    /// Recorded frames per second.
    pub fn frame_rate(&self) -> f64 {
        1.0 / (self.dt * self.record_every as f64)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub min: Vec2,
    pub max: Vec2,
}

impl Rect {
    pub fn area(&self) -> f64 {
        (self.max.x - self.min.x) * (self.max.y - self.min.y)
    }
    pub fn contains(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.x <= self.max.x && p.y >= self.min.y && p.y <= self.max.y
    }
}

/// A closed area or a thick line.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Rect(Rect),
    Circle {
        center: Vec2,
        radius: f64,
    },
    /// Counter-clockwise, simple, at least three vertices.
    Polygon(Vec<Vec2>),
    /// A path of segments swept by a disc of diameter `width`.
    Polyline {
        points: Vec<Vec2>,
        width: f64,
    },
    /// A door or gate: a segment with no area of its own.
    Segment {
        a: Vec2,
        b: Vec2,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct World {
    pub bounds: Rect,
    pub obstacles: Vec<Obstacle>,
    pub regions: Vec<Region>,
    pub markers: Markers,
    /// Target shapes for shape formation (space colonization Eq 14).
    pub shapes: Vec<TargetShape>,
    /// Alignment masks (space colonization Fig 7).
    pub masks: Vec<Mask>,
}

impl World {
    /// Bounds and obstacles only (named `o0`, `o1`, ...): no regions,
    /// markers, shapes or masks. For worlds built in code rather than checked.
    pub fn bare(bounds: Rect, obstacles: Vec<Shape>) -> World {
        World {
            bounds,
            obstacles: obstacles
                .into_iter()
                .enumerate()
                .map(|(i, shape)| Obstacle { name: format!("o{i}"), shape })
                .collect(),
            regions: vec![],
            markers: Markers { base: None, overrides: vec![], estimated_count: 0, events: vec![] },
            shapes: vec![],
            masks: vec![],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Obstacle {
    pub name: String,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    pub name: String,
    pub shape: Shape,
    /// Continuum crowds' discomfort `g` inside the region (Treuille et al.
    /// §4.2); 0 for a region that only names a place.
    pub discomfort: f64,
    /// The ground's gradient `∇h` inside the region (rise per metre, uphill),
    /// for continuum crowds' topographical speed; `None`: flat.
    pub slope: Option<Vec2>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerMethod {
    /// Poisson-disk sampling by dart throwing.
    DartThrowing,
    /// One jittered sample per grid cell: the linear-time alternative.
    JitteredGrid,
}

/// Where markers go. `None` when the scenario declares no markers.
#[derive(Clone, Debug, PartialEq)]
pub struct Markers {
    pub base: Option<MarkerLayer>,
    /// Local overrides ("sprayed" markers), applied in declaration order.
    pub overrides: Vec<MarkerOverride>,
    /// Estimated total marker count over walkable space (checked against limits).
    pub estimated_count: u64,
    /// Markers sprayed and erased during the run, by time (ties: in the
    /// order written). The estimate above counts the markers at the start;
    /// the checker bounds it plus every spray's estimate.
    pub events: Vec<MarkerEvent>,
}

/// A change to the markers during a run (Rodrigues et al. 2010, Fig 9, Sec 6.1).
#[derive(Clone, Debug, PartialEq)]
pub struct MarkerEvent {
    /// When it happens, s: at the first step whose time is within half a step of it.
    pub at: f64,
    pub action: MarkerAction,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MarkerAction {
    /// New markers over the area at `density` (markers per m²), drawn with
    /// the base layer's method, added to those already there; `weight` for
    /// the new ones (else the weight the world gives that place).
    Spray { area: MarkerArea, density: f64, weight: Option<f64> },
    /// Removes the markers inside the area, or every marker (`None`).
    Erase { area: Option<MarkerArea> },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkerLayer {
    pub method: MarkerMethod,
    /// Markers per m².
    pub density: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MarkerOverride {
    pub area: MarkerArea,
    /// Markers per m² inside the area; `None` keeps the base density.
    pub density: Option<f64>,
    /// Weight of the markers inside the area; `None` keeps weight 1.
    pub weight: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MarkerArea {
    Region(RegionId),
    Shape(ShapeId),
}

#[derive(Clone, Debug, PartialEq)]
pub struct TargetShape {
    pub name: String,
    pub shape: Shape,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskKind {
    Rows,
    Columns,
    Grid,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Mask {
    pub name: String,
    pub kind: MaskKind,
    pub area: Rect,
    /// Distance between mask lines, m.
    pub spacing: f64,
    /// Markers closer than `width / 2` to a line belong to the mask, m.
    pub width: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    pub name: String,
    pub parent: Option<SpaceId>,
    pub shape: Shape,
    pub doors: Vec<Door>,
    pub objects: Vec<ObjectId>,
    /// What the space provides: the union of what its objects and child spaces provide, sorted.
    pub provides: Vec<ResourceId>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Door {
    pub name: String,
    pub a: Vec2,
    pub b: Vec2,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    pub name: String,
    pub space: SpaceId,
    pub position: Vec2,
    /// Sorted, no duplicates.
    pub provides: Vec<ResourceId>,
    pub capacity: Option<u32>,
}

/// A random variable in SI units.
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Constant(f64),
    Uniform {
        min: f64,
        max: f64,
    },
    /// Truncated at `min`/`max` (the attribute's valid range) by resampling.
    Normal {
        mean: f64,
        sd: f64,
        min: f64,
        max: f64,
    },
    /// `(value, probability)`, probabilities summing to 1.
    Choice(Vec<(f64, f64)>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    Point(Vec2),
    Region(RegionId),
    /// Along two logistic-map orbits `x ← r x (1 − x)` (one per axis, chained
    /// from agent to agent in creation order) mapped onto the region's
    /// bounding box, skipping points off its walkable part (`world::chaos`).
    Chaotic {
        region: RegionId,
        r: f64,
    },
    /// Uniformly within `within` of the (first) agent of a population: followers around a leader.
    Around {
        leader: PopulationId,
        within: f64,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Goal {
    Point(Vec2),
    Region(RegionId),
    /// An object providing this resource, picked by the agent.
    Resource(ResourceId),
    Object(ObjectId),
    /// Another agent (pursuit): the first agent of that population.
    Agent(PopulationId),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// All agents exist from the first step.
    Fixed { count: u32 },
    /// Agents created linearly from t = 0 to `peak` agents at `at`.
    Peak { count: u32, at: f64 },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Leave {
    Never,
    /// Each agent is removed this long after its creation.
    After(f64),
    /// From `from` on, agents walk to the region and are removed there.
    Via {
        region: RegionId,
        from: f64,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Population {
    pub name: String,
    pub schedule: Schedule,
    pub leave: Leave,
    pub spawn: Place,
    /// `(size, probability)` of procedural groups, probabilities summing to 1.
    pub group_sizes: Vec<(u32, f64)>,
    /// m/s.
    pub speed: Dist,
    /// Body radius, m.
    pub radius: Dist,
    /// Personal-space radius `R`, m.
    pub personal_space: Dist,
    pub goal: Option<Goal>,
    /// Resources the agents want, in declaration order.
    pub wants: Vec<ResourceId>,
    /// Dwell time at a goal, s.
    pub dwell: Dist,
    pub behaviour: BehaviourId,
    pub formation: Option<Formation>,
}

impl Population {
    /// The largest number of agents this population can have alive at once.
    pub fn max_count(&self) -> u32 {
        match self.schedule {
            Schedule::Fixed { count } | Schedule::Peak { count, .. } => count,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Formation {
    /// Chosen each step by free space: side-by-side, else V, else river.
    Auto,
    SideBySide,
    V,
    River,
    /// A square lattice, front row first (Silveira et al. Fig 4b).
    Square,
    /// The square lattice turned by 45° (Silveira et al. Fig 4a).
    Diamond,
    /// A sketched point list, x along the walking direction, m (Silveira et
    /// al. Fig 3a), sampled for the members by `behave::formations`.
    Sketch(Vec<Vec2>),
}

/// An explicit group of agents.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub name: String,
    /// Members, by the population each one comes from (one agent each), or a
    /// whole population.
    pub members: Vec<PopulationId>,
    pub leader: Option<PopulationId>,
    /// Followers are spawned within `within` of the leader.
    pub followers: Option<Followers>,
    pub formation: Option<Formation>,
    /// Local group map (BVP): cells in x and y and the cell size, m.
    pub group_map: Option<GroupMap>,
}

impl Group {
    /// Whether the agents of population `p` belong to the group: members,
    /// leader or followers.
    pub fn includes(&self, p: PopulationId) -> bool {
        self.members.contains(&p)
            || self.leader == Some(p)
            || self.followers.as_ref().is_some_and(|f| f.population == p)
    }

    /// Whether the agents of population `p` are the group's followers: of
    /// the group, and not its leader.
    pub fn follows(&self, p: PopulationId) -> bool {
        self.leader.is_some_and(|l| l != p) && self.includes(p)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Followers {
    pub population: PopulationId,
    pub within: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GroupMap {
    pub cells_x: u32,
    pub cells_y: u32,
    pub cell: f64,
    /// The global planner the map's centre follows.
    pub via: MapVia,
}

/// What leads a group map's centre (Silveira et al.: "any path planner").
#[derive(Clone, Debug, PartialEq)]
pub enum MapVia {
    /// The world's BVP potential, a straight line, or A* over a node grid.
    Planner(PlannerKind),
    /// A sketched path, walked corner by corner, then the goal.
    Sketch(Vec<Vec2>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Behaviour {
    pub name: String,
    pub body: BehaviourBody,
    /// State variables of each agent of the behaviour, indexed by their place here.
    pub vars: Vec<Var>,
}

/// A per-agent state variable (Durupınar's internal states such as fear):
/// each step `x ← clamp(x + dt·(Σ rate·[when holds] − decay), 0, max)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub rises: Vec<Rise>,
    /// Per second, ≥ 0.
    pub decay: f64,
    /// The value an agent starts with, in `[0, max]`.
    pub start: f64,
    /// > 0.
    pub max: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rise {
    /// Per second, ≥ 0.
    pub rate: f64,
    pub when: Condition,
}

#[derive(Clone, Debug, PartialEq)]
pub enum BehaviourBody {
    /// Prioritised rules: the applicable rule with the highest priority fires
    /// (ties: the first declared). Sorted by descending priority.
    Rules(Vec<Rule>),
    /// A state machine; the first state is the initial one.
    States(Vec<State>),
}

impl BehaviourBody {
    /// Every action of every rule or state, in declaration order.
    pub fn actions(&self) -> impl Iterator<Item = &Action> {
        let (rules, states) = match self {
            BehaviourBody::Rules(r) => (&r[..], &[][..]),
            BehaviourBody::States(s) => (&[][..], &s[..]),
        };
        rules.iter().flat_map(|r| r.actions.iter()).chain(states.iter().flat_map(|s| s.actions.iter()))
    }

    /// The actions of mode `mode` (a rule or state index; none for [`NONE`]).
    pub fn mode_actions(&self, mode: u32) -> &[Action] {
        if mode == NONE {
            return &[];
        }
        match self {
            BehaviourBody::Rules(r) => &r[mode as usize].actions,
            BehaviourBody::States(s) => &s[mode as usize].actions,
        }
    }

    /// How many modes (rules or states) it has.
    pub fn modes(&self) -> usize {
        match self {
            BehaviourBody::Rules(r) => r.len(),
            BehaviourBody::States(s) => s.len(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub name: String,
    pub priority: i32,
    pub when: Option<Condition>,
    pub actions: Vec<Action>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub name: String,
    pub actions: Vec<Action>,
    pub transitions: Vec<Transition>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    pub trigger: Trigger,
    /// Index into the behaviour's states.
    pub to: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Trigger {
    Arrival,
    /// The state's actions have finished (e.g. a dwell ended).
    Done,
    After(f64),
    Condition(Condition),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// An agent of `who` is within `radius` and, if `cone` is set, inside the
    /// view cone of that full angle around the heading.
    Sees {
        who: Subject,
        radius: f64,
        cone: Option<f64>,
    },
    /// Simulated time has passed `t`.
    TimeAfter(f64),
    /// Some point of the region is within `radius` and, with a cone, inside it.
    SeesRegion {
        region: RegionId,
        radius: f64,
        cone: Option<f64>,
    },
    /// Likewise for the obstacle, or for any obstacle (`None`).
    SeesObstacle {
        obstacle: Option<ObstacleId>,
        radius: f64,
        cone: Option<f64>,
    },
    /// The agent's var (an index into its behaviour's `vars`) compared with `value`.
    Var {
        var: u32,
        op: CompareOp,
        value: f64,
    },
    /// The agent's memory is not empty.
    RemembersGoal,
    Not(Box<Condition>),
    /// Every condition holds.
    All(Vec<Condition>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Less,
    AtMost,
    Greater,
    AtLeast,
}

impl CompareOp {
    pub fn holds(self, x: f64, value: f64) -> bool {
        match self {
            CompareOp::Less => x < value,
            CompareOp::AtMost => x <= value,
            CompareOp::Greater => x > value,
            CompareOp::AtLeast => x >= value,
        }
    }
}

/// What an expectation or a perception is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    Everyone,
    Population(PopulationId),
    /// Every agent of the group: its members, its leader and its followers.
    Group(GroupId),
    /// Every agent of the group but its leader (the group has one).
    Followers(GroupId),
}

impl Subject {
    /// Whether the agents of population `p` are of the subject.
    pub fn includes(self, program: &Program, p: PopulationId) -> bool {
        match self {
            Subject::Everyone => true,
            Subject::Population(q) => q == p,
            Subject::Group(g) => program.groups[g.index()].includes(p),
            Subject::Followers(g) => program.groups[g.index()].follows(p),
        }
    }

    /// The subject as a scenario writes it.
    pub fn name(self, program: &Program) -> String {
        match self {
            Subject::Everyone => "everyone".into(),
            Subject::Population(p) => program.populations[p.index()].name.clone(),
            Subject::Group(g) => program.groups[g.index()].name.clone(),
            Subject::Followers(g) => format!("followers of {}", program.groups[g.index()].name),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// The agent's own goal (population `goal`, or the one picked from `wants`).
    OwnGoal,
    Point(Vec2),
    Region(RegionId),
    Resource(ResourceId),
    Subject(Subject),
    /// An object by name (`push goal` only).
    Object(ObjectId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PlannerKind {
    Straight,
    TreePaths,
    AStar,
    Bvp,
    CtSpace,
    Continuum,
}

impl PlannerKind {
    pub fn keyword(self) -> &'static str {
        match self {
            PlannerKind::Straight => "straight",
            PlannerKind::TreePaths => "tree_paths",
            PlannerKind::AStar => "astar",
            PlannerKind::Bvp => "bvp",
            PlannerKind::CtSpace => "ct_space",
            PlannerKind::Continuum => "continuum",
        }
    }

    /// The model (a `parameters` block of the language) whose parameters
    /// the planner's per-action overrides set.
    pub fn param_model(self) -> &'static str {
        match self {
            PlannerKind::Straight | PlannerKind::TreePaths => "space_colonization",
            PlannerKind::AStar => "semantic_groups",
            PlannerKind::Bvp => "bvp",
            PlannerKind::CtSpace => "ct_space",
            PlannerKind::Continuum => "continuum",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Planner {
    pub kind: PlannerKind,
    /// Crowd extension of space colonization: marker reservation instead of `d_enf`.
    pub reserve_markers: bool,
    /// Surround: pursuers' trees use disjoint marker sets.
    pub disjoint_markers: bool,
    /// BVP bias vector `v` (Eq 1).
    pub bias: Option<Vec2>,
    /// Grid resolution for grid planners (A*, CT-space, continuum).
    pub grid: Option<(u32, u32)>,
    /// CT-space: plan around other crowds (extended CT-space).
    pub crowd_aware: bool,
    /// CT-space: check a configuration against the other leaders one by one
    /// (the paper's "straightforward" method) instead of looking it up in
    /// the extended CT-space; the same plans, slower (Table 1).
    pub pairwise_checks: bool,
    /// Per-action overrides of the planner model's parameters, `(name, SI value)`.
    pub params: Vec<(String, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Seek {
        target: Target,
        planner: Planner,
    },
    Wander,
    /// Stay; `None` uses the population's dwell distribution.
    Dwell(Option<Dist>),
    /// Pick a goal at random among the objects providing what the agent wants.
    PickGoal,
    Pursue {
        target: Subject,
        planner: Planner,
    },
    Surround {
        target: Subject,
    },
    Escape {
        from: Subject,
    },
    Form {
        shape: ShapeId,
    },
    Align {
        mask: MaskId,
    },
    Follow {
        leader: Option<Subject>,
    },
    Flock {
        separation: f64,
        cohesion: f64,
        alignment: f64,
    },
    Hunt {
        prey: Subject,
        catch_within: f64,
    },
    Flee {
        from: Subject,
    },
    Evacuate {
        via: Option<RegionId>,
    },
    SetFormation(Formation),
    /// On entering the mode: the agent's goal goes on top of its memory and
    /// the target becomes its goal.
    PushGoal(Target),
    /// On entering the mode: the goal on top of the memory becomes the
    /// agent's goal and leaves the memory (an empty memory changes nothing).
    PopGoal,
}

impl Action {
    /// The model a scenario needs implemented to run this action.
    pub fn model(&self) -> &'static str {
        match self {
            Action::Seek { planner, .. } | Action::Pursue { planner, .. } => planner.kind.keyword(),
            Action::Wander => "wander",
            Action::Dwell(_) => "dwell",
            Action::PickGoal => "pick goal",
            Action::Surround { .. } => "surround",
            Action::Escape { .. } => "escape",
            Action::Form { .. } => "shape formation",
            Action::Align { .. } => "alignment mask",
            Action::Follow { .. } => "follow leader",
            Action::Flock { .. } => "flock",
            Action::Hunt { .. } => "hunt",
            Action::Flee { .. } => "flee",
            Action::Evacuate { .. } => "evacuate",
            Action::SetFormation(_) => "group formation",
            Action::PushGoal(_) | Action::PopGoal => "goal memory",
        }
    }

    /// How the action reads in a scenario, for messages.
    pub fn keyword(&self) -> &'static str {
        match self {
            Action::Seek { .. } => "seek",
            Action::Wander => "wander",
            Action::Dwell(_) => "dwell",
            Action::PickGoal => "pick goal",
            Action::Pursue { .. } => "pursue",
            Action::Surround { .. } => "surround",
            Action::Escape { .. } => "escape",
            Action::Form { .. } => "form",
            Action::Align { .. } => "align",
            Action::Follow { .. } => "follow",
            Action::Flock { .. } => "flock",
            Action::Hunt { .. } => "hunt",
            Action::Flee { .. } => "flee",
            Action::Evacuate { .. } => "evacuate",
            Action::SetFormation(_) => "formation",
            Action::PushGoal(_) => "push goal",
            Action::PopGoal => "pop goal",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    AtLeast,
    AtMost,
}

/// A claim checked after a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// The expectation as written, for reports.
    pub text: String,
    pub kind: ExpectationKind,
}

/// When a timed claim is checked, over the recorded frames (times in s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum When {
    /// At the last recorded frame at or before the time.
    At(f64),
    /// At every recorded frame from the first time to the second, both included.
    During(f64, f64),
    /// In at least `share` (0–1) of the recorded frames from `from` to `to`.
    Share { share: f64, from: f64, to: f64 },
}

/// How many agents an `at least` / `at most` claim is about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// A fraction (0–1) of the agents it is about.
    Share(f64),
    /// A number of agents.
    Count(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExpectationKind {
    /// Every agent of `who` reaches its goal no later than `by` (s).
    ReachesGoal { who: Subject, by: Option<f64> },
    /// Minimum pairwise distance between agents of `among` stays ≥ `distance`:
    /// over the whole run, or at the frames `at` names.
    MinDistance { among: Subject, distance: f64, at: Option<When> },
    /// No agent of `who` is ever inside the obstacle (or any obstacle).
    NeverInside { who: Subject, obstacle: Option<ObstacleId> },
    /// The gap between the edge of every body of `who` and the obstacle (or
    /// every obstacle) stays ≥ `distance` (m): over the whole run, or at the
    /// frames `at` names.
    Clearance { who: Subject, obstacle: Option<ObstacleId>, distance: f64, at: Option<When> },
    /// At least (at most) `amount` of `who`'s live agents are inside the area.
    Inside { who: Subject, comparison: Comparison, amount: Amount, area: AreaRef, at: When },
    /// Lane order parameter among the subjects ≥ `threshold`.
    /// `width`: a neighbour within half of it across the flow shares the lane, m.
    Lanes { width: f64, among: Subject, threshold: f64, at: When },
    /// The angular spread of `who`'s bearings around `target` ≥ `spread` (rad).
    Surrounds { who: Subject, target: Subject, spread: f64, at: When },
    /// `who` is farther than `distance` from every agent of `from`.
    AwayFrom { who: Subject, from: Subject, distance: f64, at: When },
    /// The group's formation is `formation`.
    FormationIs { group: Subject, formation: FormationKind, at: When },
    /// The formation error of `group` (the mean distance of its members to
    /// its declared formation's slots in their walking frame, as `crowd
    /// metrics` measures it) is at most / at least `bound` (m). Frames where
    /// it has fewer than two members alive or does not walk have none.
    FormationError { group: GroupId, comparison: Comparison, bound: f64, at: When },
    /// The largest distance of a member of `group` to its centroid is at
    /// most / at least `bound` (m). Frames where it has fewer than two members
    /// alive have none.
    Spread { group: GroupId, comparison: Comparison, bound: f64, at: When },
    /// The number of live agents of `who` is `count ± tolerance`.
    CountIs { who: Subject, count: u32, tolerance: u32, at: When },
    /// The number of live agents of `who` is at most / at least `bound`.
    CountBound { who: Subject, comparison: Comparison, bound: u32, at: When },
    /// The mean over the live agents of `who` of each one's distance to its
    /// nearest other live agent of `who` is at most / at least `bound` (m).
    /// Frames with fewer than two such agents have none.
    NearestDistance { who: Subject, comparison: Comparison, bound: f64, at: When },
    /// The mean over the live agents of `who` of their speed is at most / at
    /// least `bound` (m/s). Frames without such agents have none.
    MeanSpeed { who: Subject, comparison: Comparison, bound: f64, at: When },
    /// Every live agent of `who` is within `distance` of the nearest other
    /// live agent of `of`.
    Near { who: Subject, of: Subject, distance: f64, at: When },
    /// Every point of the area is within `distance` of a live agent of `who`.
    Covers { who: Subject, area: AreaRef, distance: f64, at: When },
    /// Collision events among the agents of `among` over the run ≤ `max`.
    Collisions { among: Subject, max: u32 },
    /// The deepest overlap of two bodies of `among` over the run ≤ `max` (m).
    Overlap { among: Subject, max: f64 },
    /// Every path of `who` is at most `max` times the straight line between
    /// its ends (`crowd metrics`' `path_ratio_max`, for `who` alone).
    PathRatio { who: Subject, max: f64 },
    /// At most `max` of `who` are stuck at the end of their tracks.
    Stuck { who: Subject, max: Amount },
    /// At least `share` of `who`'s trips complete with a travel time ≤ `within` (s).
    TripsWithin { who: Subject, share: f64, within: f64 },
    /// Every agent of `who` is, at some time up to `by`, at least `distance`
    /// from its first recorded position.
    Moves { who: Subject, distance: f64, by: f64 },
    /// At most `max` of `who` stay within `distance` of their first recorded
    /// position up to `by`.
    MoveLess { who: Subject, max: Amount, distance: f64, by: f64 },
    /// Every agent of `who` picks at least `count` goals up to `by`.
    PicksGoals { who: Subject, count: u32, by: f64 },
    /// No agent of `who` picks more than `count` goals up to `by`.
    PicksAtMost { who: Subject, count: u32, by: f64 },
    /// No agent of `who` is ever inside the reserved core of the group space
    /// of a group with members of `groups`, unless it is a member of that group.
    NeverInCore { who: Subject, groups: Subject },
    /// Every goal an agent of `who` heads for is an object providing
    /// something its population wants.
    GoalsProvideWants { who: Subject },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormationKind {
    SideBySide,
    V,
    River,
}

impl FormationKind {
    /// Every formation, in the order of the trace's `formation` index.
    pub const ALL: [FormationKind; 3] = [FormationKind::SideBySide, FormationKind::V, FormationKind::River];

    /// As written in scenarios and in the trace's `formation` column.
    pub fn name(self) -> &'static str {
        match self {
            FormationKind::SideBySide => "side_by_side",
            FormationKind::V => "v",
            FormationKind::River => "river",
        }
    }

    /// The index the executor records (into [`FormationKind::ALL`]).
    pub fn index(self) -> u32 {
        FormationKind::ALL.iter().position(|&k| k == self).map_or(0, |i| i as u32)
    }

    pub fn from_index(i: u32) -> Option<FormationKind> {
        FormationKind::ALL.get(i as usize).copied()
    }

    pub fn from_name(name: &[u8]) -> Option<FormationKind> {
        FormationKind::ALL.into_iter().find(|k| k.name().as_bytes() == name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AreaRef {
    Region(RegionId),
    Shape(ShapeId),
    Mask(MaskId),
    Space(SpaceId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    Speed,
    Goal,
    Formation,
    Radius,
    /// The value of the var of this name, for the agents whose behaviour has
    /// one: `slots` holds, by population, the var's index in its behaviour's
    /// `vars`, or [`NONE`] (the cell stays empty).
    Var {
        name: String,
        slots: Vec<u32>,
    },
}

impl Column {
    pub fn header(&self) -> &str {
        match self {
            Column::Speed => "speed",
            Column::Goal => "goal",
            Column::Formation => "formation",
            Column::Radius => "radius",
            Column::Var { name, .. } => name,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Optional trace columns, in the order they are written.
    pub columns: Vec<Column>,
}

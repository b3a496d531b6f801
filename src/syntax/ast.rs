//! The typed syntax tree: what the file says, with a byte span on every node.
//! No meaning yet: names are unresolved, quantities keep the unit as written.

use std::ops::Range;

pub type Span = Range<usize>;

#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Int {
    /// `None` when the digits do not fit in 64 bits.
    pub value: Option<u64>,
    pub span: Span,
}

/// A number and the unit written after it, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    pub value: f64,
    pub unit: Option<String>,
    pub span: Span,
}

/// What leads a group map: a planner's name, or a sketched path.
#[derive(Clone, Debug, PartialEq)]
pub enum MapVia {
    Planner(Name),
    Sketch(Vec<Point>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub x: Quantity,
    pub y: Quantity,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ShapeKind {
    Rect(Point, Point),
    Circle(Point, Quantity),
    Polygon(Vec<Point>),
    Polyline(Vec<Point>, Quantity),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    pub kind: ShapeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub items: Vec<Item>,
    /// Byte ranges of the top-level pieces that did not parse: their items are
    /// missing from `items`, so the checker stays quiet about what they may hold.
    pub broken: Vec<Span>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Scenario(Scenario),
    World(World),
    Space(Space),
    Population(Entity),
    Agent(Entity),
    Group(Entity),
    Behaviour(Behaviour),
    Parameters(Parameters),
    Expect(Vec<Expectation>),
    Output(Output),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: Name,
    pub stmts: Vec<HeaderStmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum HeaderStmt {
    Seed(Int),
    Duration(Quantity),
    Step(Quantity),
    RecordEvery(Int),
}

#[derive(Clone, Debug, PartialEq)]
pub struct World {
    pub stmts: Vec<WorldStmt>,
    pub span: Span,
}

/// `slope S toward (X, Y)` of a region.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionSlope {
    pub rise: Quantity,
    pub toward: (Quantity, Quantity),
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum WorldStmt {
    Bounds {
        min: Point,
        max: Point,
        span: Span,
    },
    Obstacle {
        name: Name,
        shape: Shape,
    },
    /// `discomfort G`: continuum crowds' discomfort inside the region;
    /// `slope S toward (X, Y)`: the ground's rise per metre and its direction.
    Region {
        name: Name,
        shape: Shape,
        discomfort: Option<Quantity>,
        slope: Option<RegionSlope>,
    },
    Markers(MarkersStmt),
    MarkerEvent(MarkerEventStmt),
    Shape {
        name: Name,
        shape: Shape,
    },
    Mask(MaskStmt),
}

#[derive(Clone, Debug, PartialEq)]
pub struct MarkersStmt {
    pub method: Option<Name>,
    pub area: Option<Name>,
    pub density: Option<Quantity>,
    pub weight: Option<Quantity>,
    pub span: Span,
}

/// `at T spray markers in NAME [[density] D] [weight W]`, `at T erase markers in NAME`,
/// `at T erase all markers`.
#[derive(Clone, Debug, PartialEq)]
pub struct MarkerEventStmt {
    pub at: Quantity,
    pub action: MarkerEventKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MarkerEventKind {
    Spray {
        area: Name,
        density: Option<Quantity>,
        weight: Option<Quantity>,
    },
    /// `None`: every marker.
    Erase {
        area: Option<Name>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct MaskStmt {
    pub name: Name,
    pub kind: Name,
    pub min: Point,
    pub max: Point,
    pub every: Quantity,
    pub width: Option<Quantity>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    pub name: Name,
    pub shape: Shape,
    pub doors: Vec<Door>,
    pub objects: Vec<Object>,
    pub children: Vec<Space>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Door {
    pub name: Name,
    pub a: Point,
    pub b: Point,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    pub name: Name,
    pub at: Point,
    pub provides: Vec<Name>,
    pub capacity: Option<Int>,
    pub span: Span,
}

/// A population, a single agent or a group: they share their statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    pub name: Name,
    /// `agent NAME at (x, y)`.
    pub at: Option<Point>,
    pub stmts: Vec<EntityStmt>,
    pub span: Span,
}

// `SpawnIn` is `spawn in REGION [chaotic [r R]]`: `chaotic` holds `r` if
// written and the span of the whole `chaotic ...` phrase.
#[derive(Clone, Debug, PartialEq)]
pub enum EntityStmt {
    Count(Int),
    Peak { count: Int, at: Quantity },
    LeaveAfter(Quantity),
    LeaveVia { region: Name, from: Option<Quantity> },
    SpawnAt(Point),
    SpawnIn { region: Name, chaotic: Option<(Option<Quantity>, Span)> },
    Groups(Vec<(Int, Quantity)>),
    Attribute { name: Name, dist: Dist },
    Goal(GoalSpec),
    Wants(Vec<Name>),
    Dwell(Dist),
    Uses(Name),
    Formation(Formation),
    GroupAgentsIn { count: Int, region: Name },
    GroupAgentsAt { count: Int, at: Point },
    Members(Vec<Name>),
    Leader(Name),
    Followers { count: Int, around: Name, within: Quantity },
    GroupMap { x: Int, y: Int, cell: Quantity, via: Option<MapVia> },
}

#[derive(Clone, Debug, PartialEq)]
pub enum GoalSpec {
    Point(Point),
    Region(Name),
    Resource(Name),
    Object(Name),
    Agent(Name),
}

#[derive(Clone, Debug, PartialEq)]
pub enum DistKind {
    Constant(Quantity),
    Uniform(Quantity, Quantity),
    Normal(Quantity, Quantity),
    Choice(Vec<(Quantity, Quantity)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Dist {
    pub kind: DistKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FormationKind {
    Named(Name),
    Sketch(Vec<Point>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Formation {
    pub kind: FormationKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Behaviour {
    pub name: Name,
    pub stmts: Vec<BehaviourStmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum BehaviourStmt {
    Var(Var),
    Rule(Rule),
    State(State),
    Action(Action),
}

/// `var NAME { rise R per s when CONDITION; decay R per s; start X; max X }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: Name,
    pub stmts: Vec<VarStmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum VarStmt {
    Rise { rate: Quantity, when: Condition, span: Span },
    Decay(Quantity),
    Start(Quantity),
    Max(Quantity),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub name: Name,
    pub priority: Option<Quantity>,
    pub when: Option<Condition>,
    pub actions: Vec<Action>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub name: Name,
    pub actions: Vec<Action>,
    pub transitions: Vec<Transition>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    pub trigger: Trigger,
    pub to: Name,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Trigger {
    Arrival,
    Done,
    After(Quantity),
    Condition(Condition),
}

/// Atoms joined by `and`: every one holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub atoms: Vec<Atom>,
    pub span: Span,
}

/// `[not] BASIC`.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    pub negated: bool,
    pub basic: Basic,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Less,
    AtMost,
    Greater,
    AtLeast,
}

impl CompareOp {
    pub fn text(self) -> &'static str {
        match self {
            CompareOp::Less => "<",
            CompareOp::AtMost => "<=",
            CompareOp::Greater => ">",
            CompareOp::AtLeast => ">=",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Basic {
    Sees {
        who: Subject,
        radius: Quantity,
        cone: Option<Quantity>,
        span: Span,
    },
    /// `sees region NAME within R [cone A]`.
    SeesRegion {
        region: Name,
        radius: Quantity,
        cone: Option<Quantity>,
    },
    /// `sees obstacle [NAME] within R [cone A]`.
    SeesObstacle {
        obstacle: Option<Name>,
        radius: Quantity,
        cone: Option<Quantity>,
    },
    TimeAfter(Quantity),
    /// `remembers goal`.
    Remembers,
    /// `VAR < X` and the like.
    Compare {
        var: Name,
        op: CompareOp,
        value: Quantity,
    },
}

/// `everyone`, the name of a population, agent or group, or `followers of
/// GROUP`.
#[derive(Clone, Debug, PartialEq)]
pub enum Subject {
    Everyone(Span),
    Named(Name),
    /// `followers of GROUP`: `span` is the whole phrase.
    Followers {
        group: Name,
        span: Span,
    },
}

impl Subject {
    pub fn span(&self) -> Span {
        match self {
            Subject::Everyone(span) => span.clone(),
            Subject::Named(name) => name.span.clone(),
            Subject::Followers { span, .. } => span.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    OwnGoal(Span),
    Point(Point),
    Region(Name),
    Resource(Name),
    Named(Name),
    /// `followers of GROUP` (a bare name is [`Target::Named`]).
    Subject(Subject),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Using {
    pub planner: Name,
    pub options: Vec<PlannerOption>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PlannerOption {
    Reserve(Span),
    Disjoint(Span),
    Bias(Quantity, Quantity, Span),
    Grid(Int, Int, Span),
    CrowdAware(Span),
    PairwiseChecks(Span),
    Param(Name, Quantity),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ActionKind {
    Seek {
        target: Target,
        using: Option<Using>,
    },
    Wander,
    Dwell(Option<Dist>),
    PickGoal,
    Pursue {
        target: Subject,
        using: Option<Using>,
    },
    Surround(Subject),
    Escape(Subject),
    Form(Name),
    Align(Name),
    Follow(Option<Subject>),
    Flock(Vec<(Name, Quantity)>),
    Hunt {
        prey: Subject,
        catch_within: Option<Quantity>,
    },
    Flee(Subject),
    Evacuate(Option<Name>),
    Formation(Formation),
    /// `push goal TARGET`.
    PushGoal(Target),
    /// `pop goal`.
    PopGoal,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    pub kind: ActionKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Parameters {
    pub model: Name,
    pub values: Vec<(Name, Quantity)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    pub kind: ExpectationKind,
    pub span: Span,
}

/// When a timed claim is checked.
#[derive(Clone, Debug, PartialEq)]
pub enum When {
    /// `at T`
    At(Quantity),
    /// `during T1 to T2`
    During(Quantity, Quantity),
    /// `for at least SHARE of T1 to T2`
    Share { share: Quantity, from: Quantity, to: Quantity },
}

// `NobodyInCore` is `nobody (of WHO)? inside group space of GROUPS`;
// `GoalsProvideWants` is `goals of WHO provide wants`; `Fraction` is
// `at least|at most AMOUNT of WHO inside AREA WHEN` (`at_most` tells which);
// `FormationError` and `Spread` are `formation error of GROUP <=|>= BOUND WHEN`
// and `spread of GROUP <=|>= BOUND WHEN` (`at_most` is `<=`); `CountBound`
// is `count of WHO <=|>= N WHEN`, `NearestDistance` is `nearest distance of
// WHO <=|>= BOUND WHEN`; `Picks` is `each of WHO picks at least|at most N
// goals by T`.
#[derive(Clone, Debug, PartialEq)]
pub enum ExpectationKind {
    Reaches {
        who: Subject,
        by: Option<Quantity>,
    },
    MinDistance {
        among: Option<Subject>,
        distance: Quantity,
        /// Over the whole run when left out.
        at: Option<When>,
    },
    Nobody {
        who: Option<Subject>,
        inside: Option<Name>,
    },
    /// `clearance [of WHO] [from OBSTACLE] >= DISTANCE [WHEN]`.
    Clearance {
        who: Option<Subject>,
        from: Option<Name>,
        distance: Quantity,
        at: Option<When>,
    },
    NobodyInCore {
        who: Option<Subject>,
        groups: Subject,
    },
    GoalsProvideWants {
        who: Subject,
    },
    Fraction {
        at_most: bool,
        amount: Quantity,
        who: Subject,
        inside: Name,
        at: When,
    },
    /// `width W`: lanes at least W wide (default: single file).
    Lanes {
        width: Option<Quantity>,
        among: Option<Subject>,
        threshold: Quantity,
        at: When,
    },
    Surrounds {
        who: Subject,
        target: Subject,
        at: When,
        spread: Quantity,
    },
    Farther {
        who: Subject,
        distance: Quantity,
        from: Subject,
        at: When,
    },
    Formation {
        group: Subject,
        formation: Name,
        at: When,
    },
    FormationError {
        group: Subject,
        at_most: bool,
        bound: Quantity,
        at: When,
    },
    Spread {
        group: Subject,
        at_most: bool,
        bound: Quantity,
        at: When,
    },
    Count {
        who: Subject,
        count: Int,
        tolerance: Option<Int>,
        at: When,
    },
    CountBound {
        who: Subject,
        at_most: bool,
        bound: Int,
        at: When,
    },
    NearestDistance {
        who: Subject,
        at_most: bool,
        bound: Quantity,
        at: When,
    },
    MeanSpeed {
        who: Subject,
        at_most: bool,
        bound: Quantity,
        at: When,
    },
    Near {
        who: Subject,
        distance: Quantity,
        of: Subject,
        at: When,
    },
    Collisions {
        among: Option<Subject>,
        max: Int,
    },
    Overlap {
        among: Option<Subject>,
        max: Quantity,
    },
    PathRatio {
        who: Subject,
        max: Quantity,
    },
    Stuck {
        max: Quantity,
        who: Subject,
    },
    TripsWithin {
        share: Quantity,
        who: Subject,
        within: Quantity,
    },
    Moves {
        who: Subject,
        distance: Quantity,
        by: Quantity,
    },
    MoveLess {
        max: Quantity,
        who: Subject,
        distance: Quantity,
        by: Quantity,
    },
    Picks {
        who: Subject,
        at_most: bool,
        count: Int,
        by: Quantity,
    },
    Covers {
        who: Subject,
        area: Name,
        distance: Quantity,
        at: When,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub columns: Vec<Name>,
    pub span: Span,
}

//! The language's words (every keyword of `grammar/crowd.pest`, and the
//! fixed words of its closed sets: marker methods, mask kinds, attributes,
//! formations, planners, flock terms), each with what it means: the hover an
//! editor shows and the words completion offers.

/// A word of the language and what it says.
pub struct Keyword {
    pub word: &'static str,
    /// One or two sentences in Markdown: what the word does, with its form
    /// in backticks as written in a file, e.g. "`population NAME { … }`: agents
    /// spawned together, sharing attributes, a goal and a behaviour."
    pub doc: &'static str,
    /// The section of docs/language.md that describes it, as its heading reads, e.g. "4. Populations and single agents".
    pub section: &'static str,
}

/// Every word, sorted by `word`.
pub const KEYWORDS: &[Keyword] = &[
    Keyword {
        word: "after",
        doc: "`after` — the trigger `after T go STATE` (the agent has been in the state for T), and `leave after T` in a population (removed T after creation).",
        section: "6. Behaviours",
    },
    Keyword {
        word: "agent",
        doc: "`agent NAME at (x, y) { … }`: a single agent, a population of one starting at the point. Also `goal agent NAME`: head for that agent (or a population's first agent).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "agents",
        doc: "`agents N in REGION` / `agents N at (x, y)`: a group's own N agents; also the optional word in `peak N agents at T`.",
        section: "5. Groups",
    },
    Keyword {
        word: "align",
        doc: "`align to MASK`: move by the mask's marker weights onto its lines (Rodrigues et al. Fig 7). Needs markers.",
        section: "Actions",
    },
    Keyword {
        word: "alignment",
        doc: "`flock … alignment N`: weight of the boids alignment force matching the flockmates' mean velocity (Durupınar Eq 3.6; default 1).",
        section: "Actions",
    },
    Keyword {
        word: "all",
        doc: "`at T erase all markers`: removes every marker at time T.",
        section: "Markers",
    },
    Keyword {
        word: "among",
        doc: "`among X`: limits an expectation to the agents of X (left out: everyone) — `min distance among X`, `lanes among X`, `collisions among X`, `overlap among X`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "and",
        doc: "`ATOM and ATOM …`: joins condition atoms; the condition holds when every atom does. Not a var name (E096).",
        section: "6. Behaviours",
    },
    Keyword {
        word: "around",
        doc: "`followers N around AGENT within D`: names the leader agent the followers spawn around.",
        section: "5. Groups",
    },
    Keyword {
        word: "arrival",
        doc: "`on arrival go STATE`: fires when the agent has arrived at its goal, within `motion.arrival_radius` (0.3 m).",
        section: "6. Behaviours",
    },
    Keyword {
        word: "astar",
        doc: "Planner `astar [grid X x Y]`: A* over a grid of nodes laid over the markers (Hocevar et al.; parameters of `semantic_groups`). Also `group_map … via astar`.",
        section: "Planners",
    },
    Keyword {
        word: "at",
        doc: "`at`: a point or time — `agent NAME at (x, y)`, `object NAME at (x, y)`, `spawn at (x, y)`, `agents N at (x, y)`, `peak N at T`, `at 12 s spray markers …`, and in expectations `at T`, `at least`/`at most`.",
        section: "Lexical rules",
    },
    Keyword {
        word: "auto",
        doc: "Formation `auto`: chosen each step by the free space ahead: side by side, else V, else river (Hocevar et al.).",
        section: "5. Groups",
    },
    Keyword {
        word: "behavior",
        doc: "American spelling of `behaviour`, accepted everywhere: `behavior NAME { … }` and `behavior NAME`.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "behaviour",
        doc: "`behaviour NAME { … }`: what agents do each step (Durupınar's behaviour layer), as rules and bare actions or as states, not both (E091). `behaviour NAME` in a population, agent or group names the one they run.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "bias",
        doc: "`using bvp bias (X, Y)`: the direction of the bias vector v of Eq 1 (made a unit vector), plain numbers, not both 0 (Silveira et al. 2008).",
        section: "Planners",
    },
    Keyword {
        word: "bounds",
        doc: "`bounds [rect] (X0, Y0) to (X1, Y1)`: the rectangle agents live in. Required, once, in `world`; obstacles and regions must lie inside it (E045).",
        section: "Bounds",
    },
    Keyword {
        word: "bvp",
        doc: "Planner `bvp [bias (X, Y)] [grid X x Y]`: a biased-Laplace boundary value problem over the world, relaxed by red-black SOR (Silveira et al. 2008); the default `group_map` planner.",
        section: "Planners",
    },
    Keyword {
        word: "by",
        doc: "`by T`: a time limit in expectations — `X reaches goal by T` (same as `within T`), `X moves at least D by T`, `… move less than D by T`, `each of X picks … goals by T`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "capacity",
        doc: "`object … provides R capacity N`: at most N agents (N ≥ 1) use the object at once; without it there is no limit.",
        section: "3. Semantic spaces",
    },
    Keyword {
        word: "catch",
        doc: "`hunt SUBJECT catch within D`: the predator catches prey whose centre comes within D (D > 0, default `boids.catch_distance`, 0.5 m); the prey leaves the run.",
        section: "Actions",
    },
    Keyword {
        word: "cells",
        doc: "`group_map X x Y cells [of] C`: the cell size C of a group map.",
        section: "5. Groups",
    },
    Keyword {
        word: "chaotic",
        doc: "`spawn in REGION chaotic [r R]`: places the agents along logistic-map orbits `x ← r x (1 − x)` (Durupınar 2007), one for x, one for y, instead of uniformly.",
        section: "Chaotic placement",
    },
    Keyword {
        word: "choice",
        doc: "`choice(V1: P1%, V2: P2%, …)`: a distribution taking V1 with probability P1, …; the Ps add up to 100% (E031).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "circle",
        doc: "`circle (X, Y) radius R`: a disc shape, R > 0; for obstacles, regions, target shapes and spaces.",
        section: "Lexical rules",
    },
    Keyword {
        word: "clearance",
        doc: "`clearance [of X] [from OBSTACLE] >= D [WHEN]`: the gap between the edge of every body of X and the obstacle (left out: every obstacle) stays at least D — bodies never overlap a wall with D = 0 (`min_clearance`).",
        section: "8. Expectations",
    },
    Keyword {
        word: "cohesion",
        doc: "`flock … cohesion N`: weight of the boids cohesion force towards the flockmates' centroid (Durupınar Eq 3.5; default 1).",
        section: "Actions",
    },
    Keyword {
        word: "collisions",
        doc: "`collisions [among X] <= N`: collision events among X's agents over the whole run, as `crowd metrics` counts `collision_events`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "column",
        doc: "Formation `column`: the same as `river`, single file (Silveira).",
        section: "5. Groups",
    },
    Keyword {
        word: "columns",
        doc: "`output { columns NAME, … }`: `speed`, `goal`, `formation`, `radius` or a var's name. Also mask kind `mask NAME columns …`: vertical lines at `X0`, `X0 + S`, ….",
        section: "9. Output columns",
    },
    Keyword {
        word: "complete",
        doc: "`at least P of trips of X complete within T`: a trip completed with a travel time of at most T.",
        section: "8. Expectations",
    },
    Keyword {
        word: "cone",
        doc: "`sees … within R cone A`: only inside the view cone of full angle A around the agent's heading (0 < A ≤ 360°); without it the agent sees all around.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "continuum",
        doc: "Planner `continuum [grid X x Y]`: continuum crowds, a density field, unit cost and eikonal potential by fast marching (Treuille et al. 2006 via Durupınar).",
        section: "Planners",
    },
    Keyword {
        word: "count",
        doc: "`count N`: a population's N agents, created at the first step (1 to 2 000 000). In expectations: `count of X is N [± K] WHEN`, `count of X <=|>= N WHEN` (live agents of X).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "covers",
        doc: "`X covers AREA within D WHEN`: every point of a region, target shape or space (sampled on a grid) is within D of a live agent of X.",
        section: "8. Expectations",
    },
    Keyword {
        word: "crowd_aware",
        doc: "`using ct_space crowd_aware`: the extended CT-space that plans for the whole crowd, around other crowds (Li et al.).",
        section: "Planners",
    },
    Keyword {
        word: "ct_space",
        doc: "Planner `ct_space [grid X x Y] [crowd_aware] [pairwise_checks]`: best-first search in configuration-time space over an NF1 potential (Li et al.).",
        section: "Planners",
    },
    Keyword {
        word: "dart_throwing",
        doc: "`markers dart_throwing [density] D`: the base marker layer by Poisson-disk sampling, the space colonization paper's method.",
        section: "Markers",
    },
    Keyword {
        word: "decay",
        doc: "`decay RATE`: the var falls by RATE per second (default 0 per s), never below 0.",
        section: "State variables",
    },
    Keyword {
        word: "density",
        doc: "Marker density (per m²), optional word before the value: `markers METHOD [density] D`, `markers in NAME density D`, `at T spray markers in NAME [density] D`. Positive.",
        section: "Markers",
    },
    Keyword {
        word: "diamond",
        doc: "Formation `diamond`: the square lattice turned by 45°, a point in front and one behind (Silveira Fig 4a).",
        section: "5. Groups",
    },
    Keyword {
        word: "discomfort",
        doc: "`region NAME SHAPE discomfort G`: adds G (a plain number, 0 to 1000) to the continuum discomfort field `g` of the region's cells (Treuille et al. §4.2); other models ignore it.",
        section: "Regions",
    },
    Keyword {
        word: "disjoint",
        doc: "`using tree_paths disjoint [markers]`: each pursuer's tree takes markers no other pursuer's tree holds, so pursuers surround their target.",
        section: "Planners",
    },
    Keyword {
        word: "distance",
        doc: "`min distance [among X] >= D`: the smallest distance between two agents over the run; `nearest distance of X <=|>= D WHEN`: the mean distance of X's agents to their nearest other.",
        section: "8. Expectations",
    },
    Keyword {
        word: "done",
        doc: "`when done go STATE`: fires when the state's actions have finished (a dwell ended, a goal was picked). Not a var name (E096).",
        section: "6. Behaviours",
    },
    Keyword {
        word: "door",
        doc: "`door NAME [segment] A to B`: a door of a space, a segment between two different points (E040).",
        section: "3. Semantic spaces",
    },
    Keyword {
        word: "duration",
        doc: "`duration T`: the simulated time of the run, T > 0 (e.g. `duration 3 min`). Required in the header.",
        section: "1. Scenario header",
    },
    Keyword {
        word: "during",
        doc: "`during T1 to T2`: a claim holds at every recorded frame with T1 ≤ t ≤ T2.",
        section: "8. Expectations",
    },
    Keyword {
        word: "dwell",
        doc: "`dwell DIST`: how long an agent stays at a goal (a time, default 0 s). The action `dwell [DIST]` stays put, without a time for that dwell (Hocevar et al.).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "each",
        doc: "`each of X picks at least|at most N goals by T`: every agent of X picked that many goals (the trace needs `output { columns goal }`).",
        section: "8. Expectations",
    },
    Keyword {
        word: "erase",
        doc: "`at T erase markers in NAME`: removes the markers inside a region or target shape during the run; `at T erase all markers`: every marker. Tree paths through them are cut back and regrow.",
        section: "Markers",
    },
    Keyword {
        word: "error",
        doc: "`formation error of G <=|>= D WHEN`: the mean distance of G's members to the points of its declared formation, under the best assignment (`formation_error_mean`).",
        section: "8. Expectations",
    },
    Keyword {
        word: "escape",
        doc: "`escape from SUBJECT`: walk away from the subject, its centroid when several (Eq 13; Rodrigues et al. Fig 5).",
        section: "Actions",
    },
    Keyword {
        word: "evacuate",
        doc: "`evacuate [via REGION]`: flocking forces with their signs flipped, running away from the leader; with `via`, towards the region (Li et al. Fig 8).",
        section: "Actions",
    },
    Keyword {
        word: "every",
        doc: "A period — `record every N steps` in the header (a trace frame every N steps), and `mask NAME KIND … every S` in the world (the spacing S of the mask's lines).",
        section: "1. Scenario header",
    },
    Keyword {
        word: "everyone",
        doc: "The subject of every agent of the scenario, e.g. `lanes among everyone >= 0.5 at 25 s`, `count of everyone is 43 at 30 s`.",
        section: "Lexical rules",
    },
    Keyword {
        word: "expect",
        doc: "`expect { … }`: claims about the run, checked over the recorded trace frames after it; a file may have several blocks.",
        section: "8. Expectations",
    },
    Keyword {
        word: "farther",
        doc: "`X farther than D from Y WHEN`: every agent of X is farther than D from every agent of Y.",
        section: "8. Expectations",
    },
    Keyword {
        word: "flee",
        doc: "`flee SUBJECT`: boids prey avoidance of the subject's agents within `boids.view_radius` (Durupınar Eq 3.8).",
        section: "Actions",
    },
    Keyword {
        word: "flock",
        doc: "`flock [separation N] [cohesion N] [alignment N]`: boids with the agent's own population within `boids.view_radius` (Durupınar Eqs 3.4–3.6); weights 0 to 1000, defaults 1.5, 1, 1.",
        section: "Actions",
    },
    Keyword {
        word: "follow",
        doc: "`follow leader` / `follow SUBJECT`: follow the group's leader / the subject: flocking forces plus leader attraction (Li et al.).",
        section: "Actions",
    },
    Keyword {
        word: "followers",
        doc: "`followers N around AGENT within D`: N agents spawned within D of the leader agent (Li et al.). The subject `followers of GROUP`: the group's agents but its leader.",
        section: "5. Groups",
    },
    Keyword {
        word: "for",
        doc: "`for at least X% of T1 to T2`: a claim holds in at least X% of the recorded frames of that window.",
        section: "8. Expectations",
    },
    Keyword {
        word: "form",
        doc: "`form SHAPE`: fill a target shape: tree paths into its convex hull, then marker weights (Eq 14; Rodrigues et al. Fig 6). Needs markers.",
        section: "Actions",
    },
    Keyword {
        word: "formation",
        doc: "`formation F` (F a formation name or `sketch P1, …`): a population's or group's formation, or as an action, switch the group to F. In expectations: `formation of G is F`, `formation error of G …`.",
        section: "5. Groups",
    },
    Keyword {
        word: "from",
        doc: "`from` — `leave via REGION from T`, `pick goal from wants`, `escape from SUBJECT`, and in expectations `X farther than D from Y`.",
        section: "Actions",
    },
    Keyword {
        word: "go",
        doc: "`TRIGGER go STATE`: a transition to another state of the behaviour, e.g. `on arrival go stay`.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "goal",
        doc: "`goal (x, y) | region R | resource R | object O | agent A`: where agents head for. Also `seek goal`, `pick goal`, `push goal T`, `pop goal`, `remembers goal`, and `X reaches goal` in expectations.",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "goals",
        doc: "`goals of X provide wants`; also `each of X picks … N goals by T`. Both read the trace's `goal` column.",
        section: "8. Expectations",
    },
    Keyword {
        word: "grid",
        doc: "`grid X x Y`: a planner option of `astar`, `bvp`, `ct_space` and `continuum`, the cells of the planner's grid (at least 2 x 2); and mask kind `mask NAME grid …`: both rows and columns.",
        section: "Planners",
    },
    Keyword {
        word: "group",
        doc: "`group NAME { … }`: agents that move together: its own agents, declared `members`, or a leader with followers. In expectations: `inside group space of Y` (Hocevar et al.'s group space).",
        section: "5. Groups",
    },
    Keyword {
        word: "group_map",
        doc: "`group_map X x Y cells [of] C [via PLANNER | via sketch P1, …]`: a BVP group map of X by Y cells of size C, centred on the group (Silveira et al. 2008); `via` defaults to `bvp`.",
        section: "5. Groups",
    },
    Keyword {
        word: "groups",
        doc: "`groups SIZE: PERCENT, …`: the sizes (1 to 3) of the small groups a population walks in (Hocevar et al.); shares add up to 100%. Default `groups 1: 100%`.",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "hunt",
        doc: "`hunt SUBJECT [catch within D]`: a predator attacking the closest agent of the subject within `boids.predator_view_radius` (Durupınar Eqs 3.10–3.13).",
        section: "Actions",
    },
    Keyword {
        word: "in",
        doc: "`in`: an area — `spawn in REGION`, `agents N in REGION` (groups), `markers in NAME`, `spray markers in NAME`, `erase markers in NAME`.",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "inside",
        doc: "`inside` an area in expectations — `nobody [of X] inside obstacles|OBSTACLE`, `at least|at most P of X inside AREA WHEN`, `nobody … inside group space of Y`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "is",
        doc: "`is` — `formation of G is F WHEN` (F is `side_by_side`, `v` or `river`), `count of X is N [± K] WHEN`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "jittered_grid",
        doc: "`markers jittered_grid [density] D`: the base marker layer with one jittered sample per grid cell, the linear-time alternative to dart throwing.",
        section: "Markers",
    },
    Keyword {
        word: "lanes",
        doc: "`lanes [width W] [among X] >= L WHEN`: the lane order parameter of the moving agents (Rex and Löwen 2007) is at least L (1: perfect lanes, near 0: mixed).",
        section: "8. Expectations",
    },
    Keyword {
        word: "leader",
        doc: "`leader AGENT`: a declared agent that leads the group (Li et al.). The action `follow leader` follows the group's leader.",
        section: "5. Groups",
    },
    Keyword {
        word: "least",
        doc: "`at least`: a lower bound — `at least P|N of X inside AREA WHEN`, `at least P of trips of X complete …`, `for at least X% of T1 to T2`, `X moves at least D by T`, `picks at least N goals`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "leave",
        doc: "`leave after T`: each agent is removed T after it was created; `leave via REGION [from T]`: agents walk to the region from T on and are removed there. Without it, agents stay.",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "less",
        doc: "`at most N of X move less than D by T`: at most N (or P) of X's agents never got D from their first recorded position up to T.",
        section: "8. Expectations",
    },
    Keyword {
        word: "line",
        doc: "Formation `line`: the same as `side_by_side` (Silveira).",
        section: "5. Groups",
    },
    Keyword {
        word: "markers",
        doc: "Points discretising walkable space for space colonization and A*: `markers METHOD [density] D` (base layer), `markers in NAME …` (override), `at T spray|erase markers in NAME`, `erase all markers`; planner options `reserve markers`, `disjoint markers`.",
        section: "Markers",
    },
    Keyword {
        word: "mask",
        doc: "`mask NAME rows|columns|grid [rect] (X0, Y0) to (X1, Y1) every S [width W]`: lines inside a rectangle that `align to NAME` moves agents onto (space colonization Fig 7).",
        section: "Alignment masks",
    },
    Keyword {
        word: "max",
        doc: "`max X`: the var's upper bound, a plain number above 0 (default 1).",
        section: "State variables",
    },
    Keyword {
        word: "mean",
        doc: "`mean speed of X <=|>= V WHEN`: the mean over X's live agents of their speed (settled agents stand; jittering ones do not).",
        section: "8. Expectations",
    },
    Keyword {
        word: "members",
        doc: "`members AGENT, …`: a group of declared agents, which keep their own behaviours (a `behaviour` in such a group is E072).",
        section: "5. Groups",
    },
    Keyword {
        word: "min",
        doc: "`min distance [among X] >= D`: the smallest distance between two agents (of X), over all frames, is at least D.",
        section: "8. Expectations",
    },
    Keyword {
        word: "most",
        doc: "`at most`: an upper bound — `at most P|N of X inside AREA WHEN`, `at most N of X stuck`, `at most N of X move less than D by T`, `picks at most N goals`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "move",
        doc: "Accepted for `moves`: `at most N of X move less than D by T` (agents that never got D from their first recorded position), `X move at least D by T`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "moves",
        doc: "`X moves at least D by T`: every agent of X gets at least D from its first recorded position by T (displacement, not path length); `move` is accepted for it.",
        section: "8. Expectations",
    },
    Keyword {
        word: "nearest",
        doc: "`nearest distance of X <=|>= D WHEN`: the mean over X's live agents of each one's distance to its nearest other agent of X (a flock's spacing).",
        section: "8. Expectations",
    },
    Keyword {
        word: "nobody",
        doc: "`nobody [of X] inside obstacles | OBSTACLE`: no agent ever enters; `nobody [of X] inside group space of Y`: none enters the reserved core of another group's space.",
        section: "8. Expectations",
    },
    Keyword {
        word: "normal",
        doc: "`normal(M, SD)`: a normal distribution, resampled until the value lies in the attribute's valid range (SD ≥ 0).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "not",
        doc: "`not ATOM`: turns a condition atom round, e.g. `not sees wolf within 12 m`. Not a var name (E096).",
        section: "6. Behaviours",
    },
    Keyword {
        word: "object",
        doc: "`object NAME at (x, y) provides R, … [capacity N]`: an object inside its space that provides resources. Also `goal object NAME`.",
        section: "3. Semantic spaces",
    },
    Keyword {
        word: "obstacle",
        doc: "`obstacle NAME SHAPE`: space no agent may enter (walls are usually polylines with a width). In conditions: `sees obstacle [NAME] within R [cone A]`.",
        section: "Obstacles",
    },
    Keyword {
        word: "obstacles",
        doc: "`nobody [of X] inside obstacles`: no agent (of X) is ever inside any obstacle.",
        section: "8. Expectations",
    },
    Keyword {
        word: "of",
        doc: "`of` — `followers of GROUP`, `group_map … cells of C`, and in expectations: `count of X`, `nobody of X`, `formation of G`, `spread of G`, `trips of X`, `each of X`, `goals of X`, `within D of Y`, `X% of T1 to T2`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "on",
        doc: "`on arrival go STATE`: the trigger that fires once the agent has arrived at its goal.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "output",
        doc: "`output { columns NAME, … }`: optional columns appended to every trace row.",
        section: "9. Output columns",
    },
    Keyword {
        word: "overlap",
        doc: "`overlap [among X] <= D`: the deepest overlap of two bodies of X over the run (`max_overlap`), in metres.",
        section: "8. Expectations",
    },
    Keyword {
        word: "pairwise_checks",
        doc: "`using ct_space pairwise_checks`: checks each configuration against the other leaders one by one instead of in the extended CT-space (the same plans, slower).",
        section: "Planners",
    },
    Keyword {
        word: "parameters",
        doc: "`parameters MODEL { NAME VALUE; … }`: sets model parameters for the whole scenario; MODEL is `bvp`, `boids`, `continuum`, `ct_space`, `motion`, `semantic_groups` or `space_colonization`.",
        section: "7. Model parameters",
    },
    Keyword {
        word: "path",
        doc: "`path ratio of X <= R`: every path of X (per completed trip, else per agent) is at most R times the straight line between its ends (`path_ratio_max`).",
        section: "8. Expectations",
    },
    Keyword {
        word: "peak",
        doc: "`peak N [agents] at T`: agents created linearly from t = 0 so that there are N at time T; instead of `count` (E072 with both).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "personal_space",
        doc: "The attribute `personal_space DIST`: the personal-space radius `R` of space colonization (> 0, at most 20 m, default 1.2 m).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "pick",
        doc: "`pick goal [from wants]`: draw a goal at random among the objects that provide what the agent wants (Hocevar et al.).",
        section: "Actions",
    },
    Keyword {
        word: "picks",
        doc: "`each of X picks at least|at most N goals by T`: picks are frames whose `goal` cell is non-empty and differs from the previous frame's.",
        section: "8. Expectations",
    },
    Keyword {
        word: "polygon",
        doc: "`polygon P1, P2, P3, …`: a shape of at least 3 points in order around the outline, clockwise or not, convex or not, edges not crossing (E041).",
        section: "Lexical rules",
    },
    Keyword {
        word: "polyline",
        doc: "`polyline P1, P2, … width W`: a thick line, every point within W/2 of the path; the usual shape of walls.",
        section: "Lexical rules",
    },
    Keyword {
        word: "pop",
        doc: "`pop goal`: on entering its rule or state, the goal last pushed becomes the agent's goal again and is forgotten; with none the goal is unchanged.",
        section: "Memory",
    },
    Keyword {
        word: "population",
        doc: "`population NAME { … }`: agents spawned together, sharing attributes, a goal and a behaviour (Hocevar et al.'s population class).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "priority",
        doc: "`rule NAME priority N`: a whole number within ±1 000 000 (default 0); the applicable rule with the highest fires, ties to the first written.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "provide",
        doc: "`goals of X provide wants`: every goal an agent of X heads for is an object providing a resource its population wants (needs `output { columns goal }`).",
        section: "8. Expectations",
    },
    Keyword {
        word: "provides",
        doc: "`object NAME at (x, y) provides R1, R2, …`: the resources the object provides; naming a resource here creates it.",
        section: "3. Semantic spaces",
    },
    Keyword {
        word: "pursue",
        doc: "`pursue SUBJECT [using PLANNER …]`: chase a moving agent; the path is regrown when the target crosses it (Rodrigues et al. Fig 3).",
        section: "Actions",
    },
    Keyword {
        word: "push",
        doc: "`push goal TARGET`: on entering its rule or state, puts the agent's goal on its memory (16 deep) and makes TARGET its goal (Durupınar's goal queue).",
        section: "Memory",
    },
    Keyword {
        word: "r",
        doc: "`chaotic r R`: the logistic map's r, a plain number with 0 < r ≤ 4 (default 3.9); chaotic only above about 3.57, else warning W003.",
        section: "Chaotic placement",
    },
    Keyword {
        word: "radius",
        doc: "`circle (X, Y) radius R`; the attribute `radius DIST`: body radius (> 0, at most 2 m, default 0.25 m); also an output column.",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "ratio",
        doc: "`path ratio of X <= R`: every path of X (per completed trip, else per agent) is at most R times the straight line between its ends (`path_ratio_max`).",
        section: "8. Expectations",
    },
    Keyword {
        word: "reach",
        doc: "Accepted for `reaches`: `X reach goal [within T | by T]`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "reaches",
        doc: "`X reaches goal [within T | by T]`: every agent of X arrived at its goal (the end of its first completed trip), no later than T if given.",
        section: "8. Expectations",
    },
    Keyword {
        word: "record",
        doc: "`record every N steps`: a trace frame is written every N steps (N ≥ 1, default 1); expectations are checked over these frames.",
        section: "1. Scenario header",
    },
    Keyword {
        word: "rect",
        doc: "`rect (X0, Y0) to (X1, Y1)`: a rectangle shape, X0 < X1 and Y0 < Y1 (E042). The word is optional after `bounds` and in `mask`.",
        section: "Lexical rules",
    },
    Keyword {
        word: "region",
        doc: "`region NAME SHAPE [discomfort G] [slope S toward (X, Y)]`: a named area for spawning, goals, exits and tests. Also `goal region NAME`, `seek region NAME`, `sees region NAME within R`.",
        section: "Regions",
    },
    Keyword {
        word: "remembers",
        doc: "`remembers goal`: a condition atom that holds when the agent's memory holds a goal `push goal` put there. Not a var name (E096).",
        section: "Memory",
    },
    Keyword {
        word: "reserve",
        doc: "`using tree_paths reserve [markers]`: the crowd extension: an agent moves to its next path node only when no other agent holds that node's markers.",
        section: "Planners",
    },
    Keyword {
        word: "resource",
        doc: "`goal resource NAME`, `seek resource NAME`: an object that provides the resource, picked for each agent (with its group); the agent waits while none has room. Resources come from `provides`.",
        section: "3. Semantic spaces",
    },
    Keyword {
        word: "rise",
        doc: "`rise RATE when CONDITION`: the var grows by RATE per second while the condition holds; any number of them.",
        section: "State variables",
    },
    Keyword {
        word: "river",
        doc: "Formation `river`: single file (Hocevar et al.).",
        section: "5. Groups",
    },
    Keyword {
        word: "rows",
        doc: "Mask kind `mask NAME rows …`: horizontal lines at `Y0`, `Y0 + S`, ….",
        section: "Alignment masks",
    },
    Keyword {
        word: "rule",
        doc: "`rule NAME [priority N] [when CONDITION] { ACTION … }`: each step the applicable rule of highest priority fires; bare actions form the fallback rule.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "scenario",
        doc: "`scenario NAME { seed N; duration T; step T [; record every N steps] }`: the scenario header, exactly one per file (a missing one is E070, a second E071).",
        section: "1. Scenario header",
    },
    Keyword {
        word: "seed",
        doc: "`seed N`: the seed of every random draw, a whole number from 0 to 2⁶⁴−1; the same file and seed give the same run. Required in the header.",
        section: "1. Scenario header",
    },
    Keyword {
        word: "seek",
        doc: "`seek TARGET [using PLANNER …]`: walk to `goal`, a point, `region R`, `resource R`, a name or `followers of G`; the default planner is `straight`.",
        section: "Actions",
    },
    Keyword {
        word: "sees",
        doc: "`sees SUBJECT | region NAME | obstacle [NAME] within R [cone A]`: a condition atom, holds when the thing is within R (and in the cone): Durupınar's zonal perception.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "segment",
        doc: "`door NAME segment A to B`: the optional word before a door's two ends.",
        section: "3. Semantic spaces",
    },
    Keyword {
        word: "separation",
        doc: "`flock … separation N`: weight of the boids separation force, pushing flockmates apart, stronger the closer they are (Durupınar Eq 3.4; default 1.5).",
        section: "Actions",
    },
    Keyword {
        word: "shape",
        doc: "`shape NAME SHAPE`: a target shape agents fill with `form` (space colonization Fig 6); not an obstacle nor a region. Give it a weighted marker override.",
        section: "Target shapes",
    },
    Keyword {
        word: "side_by_side",
        doc: "Formation `side_by_side`: members abreast, perpendicular to the direction of the next goal (Hocevar et al.).",
        section: "5. Groups",
    },
    Keyword {
        word: "sketch",
        doc: "`formation sketch P1, P2, …`: the sketched formation points (at least two, Silveira Fig 3); `group_map … via sketch P1, …`: the drawn path a group map follows, then the goal.",
        section: "5. Groups",
    },
    Keyword {
        word: "slope",
        doc: "`region NAME SHAPE slope S toward (X, Y)`: the ground rises S (a percentage, 0% to 100%: metres up per 100 m) in direction (X, Y); continuum crowds walk slower up it, other models ignore it.",
        section: "Regions",
    },
    Keyword {
        word: "space",
        doc: "`space NAME SHAPE [{ door …; object …; space … }]`: a semantic space (Hocevar et al.), nesting to any depth; it does not block movement. In expectations: `inside group space of Y`.",
        section: "3. Semantic spaces",
    },
    Keyword {
        word: "spawn",
        doc: "`spawn at (x, y)` or `spawn in REGION [chaotic [r R]]`: where a population's agents start (uniformly over the region's walkable part). Required.",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "speed",
        doc: "The attribute `speed DIST`: preferred walking speed (> 0, at most 15 m/s; default 1.2 m/s, or `space_colonization.beta` per step when set). Also an output column, and in expectations `mean speed of X <=|>= V WHEN`.",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "spray",
        doc: "`at T spray markers in NAME [[density] D] [weight W]`: adds markers over a region or target shape during the run, on top of those there (the paper's marker spray).",
        section: "Markers",
    },
    Keyword {
        word: "spread",
        doc: "`X surround Y WHEN with spread >= A`: X's bearings from Y's centroid cover at least A; `spread of G <=|>= D WHEN`: the largest distance of a member of G to its centroid.",
        section: "8. Expectations",
    },
    Keyword {
        word: "square",
        doc: "Formation `square`: rows of ⌈√n⌉ abreast, front row first, the last row centred (Silveira Fig 4b).",
        section: "5. Groups",
    },
    Keyword {
        word: "start",
        doc: "`start X`: the var's value when an agent appears, from 0 to max (default 0).",
        section: "State variables",
    },
    Keyword {
        word: "state",
        doc: "`state NAME { ACTION …; TRIGGER go STATE … }`: a state of the behaviour's state machine; the first is the initial one. Not mixed with rules (E091).",
        section: "6. Behaviours",
    },
    Keyword {
        word: "step",
        doc: "`step T`: the simulation time step, 0 < T ≤ 1 s; fractions such as `step 1/24 s` are exact. Required in the header. Also accepted for `steps` in `record every N step`.",
        section: "1. Scenario header",
    },
    Keyword {
        word: "steps",
        doc: "`record every N steps`: the word ending the record rate; `step` is accepted for it.",
        section: "1. Scenario header",
    },
    Keyword {
        word: "straight",
        doc: "Planner `straight`: a straight line at the target, no path planning (the default; parameters of `space_colonization`). Also `group_map … via straight`.",
        section: "Planners",
    },
    Keyword {
        word: "stuck",
        doc: "`at most N of X stuck`: agents whose last trip is unfinished and who moved less than 0.5 m over their last 5 s (`stuck_agents`). X needs goals (E093).",
        section: "8. Expectations",
    },
    Keyword {
        word: "surround",
        doc: "`surround SUBJECT`: pursue with the pursuers' trees taking disjoint marker sets (Rodrigues et al. Fig 4). In expectations: `X surround Y WHEN with spread >= A`.",
        section: "Actions",
    },
    Keyword {
        word: "than",
        doc: "`than` — `X farther than D from Y WHEN`, `at most N of X move less than D by T`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "time",
        doc: "`time >= T`: a condition atom that holds from simulated time T on (T within the run). Not a var name (E096).",
        section: "6. Behaviours",
    },
    Keyword {
        word: "to",
        doc: "`to`: joins two ends — `rect A to B`, `bounds A to B`, `door NAME A to B`, `mask … A to B`, the action `align to MASK`, and time windows `during T1 to T2`, `X% of T1 to T2`.",
        section: "Lexical rules",
    },
    Keyword {
        word: "toward",
        doc: "`slope S toward (X, Y)`: the direction in which a region's ground rises, two plain numbers, not both 0.",
        section: "Regions",
    },
    Keyword {
        word: "tree_paths",
        doc: "Planner `tree_paths`: space colonization tree paths over the markers (Rodrigues et al. 2010); options `reserve [markers]`, `disjoint [markers]`. Needs markers.",
        section: "Planners",
    },
    Keyword {
        word: "trips",
        doc: "`at least P of trips of X complete within T`: of X's trips (as `crowd metrics` counts them), at least P finished within a travel time of T.",
        section: "8. Expectations",
    },
    Keyword {
        word: "uniform",
        doc: "`uniform(A, B)`: a distribution uniform between A and B (A ≤ B, both in the attribute's valid range).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "using",
        doc: "`seek|pursue … using PLANNER [OPTION …] [NAME VALUE …]`: how the action finds its way; `NAME VALUE` overrides a parameter of the planner's model for this action only.",
        section: "Planners",
    },
    Keyword {
        word: "v",
        doc: "Formation `v`: a V opening forward, wings at `semantic_groups.v_angle` (45°) (Hocevar et al.; Silveira Fig 4c).",
        section: "5. Groups",
    },
    Keyword {
        word: "var",
        doc: "`var NAME { rise …; decay …; start …; max … }`: a number each agent carries (Durupınar's internal states such as fear), clamped to 0…max; compared in conditions and written as an output column.",
        section: "State variables",
    },
    Keyword {
        word: "via",
        doc: "`via` — `leave via REGION [from T]`, `evacuate via REGION`, and `group_map … via PLANNER|sketch P1, …` (the planner the group map's centre follows).",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "wander",
        doc: "`wander`: walk with no goal (Durupınar).",
        section: "Actions",
    },
    Keyword {
        word: "wants",
        doc: "`wants R1, R2, …`: the resources agents want; `pick goal from wants` draws among objects providing one. In expectations: `goals of X provide wants`.",
        section: "4. Populations and single agents",
    },
    Keyword {
        word: "weight",
        doc: "`markers in NAME … weight W`, `at T spray markers in NAME … weight W`: multiplies the importance of the markers there (`w_k` of Eq 14; 1 elsewhere), W > 0. The base layer takes none (E072).",
        section: "Markers",
    },
    Keyword {
        word: "when",
        doc: "`when CONDITION` — a rule's guard `rule … when C`, the triggers `when done go S` and `when C go S`, and a var's `rise RATE when C`.",
        section: "6. Behaviours",
    },
    Keyword {
        word: "width",
        doc: "A width — `polyline P1, … width W` (thickness), `mask … every S width W` (line width, default min(S/4, 0.5 m)), and in expectations `lanes width W` (lanes at least W wide).",
        section: "Lexical rules",
    },
    Keyword {
        word: "with",
        doc: "`X surround Y WHEN with spread >= A`: introduces the angular spread the surrounders must cover.",
        section: "8. Expectations",
    },
    Keyword {
        word: "within",
        doc: "`within` — a distance or time limit: `followers N around A within D`, `sees … within R`, `hunt … catch within D`; in expectations `reaches goal within T`, `complete within T`, `X within D of Y`, `covers AREA within D`.",
        section: "8. Expectations",
    },
    Keyword {
        word: "world",
        doc: "`world { … }`: the world, exactly one per file: `bounds`, obstacles, regions, markers and marker events, target shapes and masks.",
        section: "2. World",
    },
];

/// The entry for a word.
pub fn keyword(word: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.word == word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const GRAMMAR: &str = include_str!("../../grammar/crowd.pest");
    const LANGUAGE: &str = include_str!("../../docs/language.md");

    /// The closed sets whose words are keywords too (besides the `k_*` rules).
    const CLOSED_SETS: &[&str] =
        &["marker_method", "mask_kind", "attribute_name", "formation_name", "planner_kind", "flock_term"];

    /// The name of the rule whose `=` ends just before `before` (the text up
    /// to its `@{`), if it is one.
    fn rule_name(before: &str) -> Option<&str> {
        let before = before.trim_end().strip_suffix('=')?.trim_end();
        let start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        let name = &before[start..];
        (!name.is_empty()).then_some(name)
    }

    /// The body of the `@{ … }` starting at `text` (just after `@{`): the text
    /// up to the matching `}`, skipping string literals.
    fn body(text: &str) -> &str {
        let mut depth = 1usize;
        let mut in_literal = false;
        let mut escaped = false;
        for (i, c) in text.char_indices() {
            if in_literal {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_literal = false;
                }
                continue;
            }
            match c {
                '"' => in_literal = true,
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return &text[..i];
                    }
                }
                _ => {}
            }
        }
        text
    }

    /// The contents of the `"…"` literals of a rule body that are words of
    /// `[a-z_]`.
    fn literal_words(body: &str, words: &mut BTreeSet<String>) {
        let mut rest = body;
        while let Some(open) = rest.find('"') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('"') else { break };
            let content = &after[..close];
            if !content.is_empty() && content.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                words.insert(content.to_string());
            }
            rest = &after[close + 1..];
        }
    }

    /// The words of the grammar's keyword rules and closed sets.
    fn grammar_words() -> BTreeSet<String> {
        // Comment lines out, so that a `@{` in a comment is not taken for a rule.
        let text: String =
            GRAMMAR.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        let mut words = BTreeSet::new();
        let mut from = 0;
        while let Some(at) = text[from..].find("@{") {
            let at = from + at;
            let open = at + "@{".len();
            if let Some(name) = rule_name(&text[..at]) {
                if name.starts_with("k_") || CLOSED_SETS.contains(&name) {
                    literal_words(body(&text[open..]), &mut words);
                }
            }
            from = open;
        }
        words
    }

    #[test]
    fn words_are_the_grammars_keywords() {
        let grammar = grammar_words();
        let table: BTreeSet<String> = KEYWORDS.iter().map(|k| k.word.to_string()).collect();
        let missing: Vec<&String> = grammar.difference(&table).collect();
        let extra: Vec<&String> = table.difference(&grammar).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "words of the grammar missing from KEYWORDS: {missing:?}; words in KEYWORDS not in the grammar: {extra:?}"
        );
        // The parse found the keyword rules at all.
        assert!(grammar.len() > 100, "only {} words found in the grammar", grammar.len());
    }

    #[test]
    fn entries_are_sorted_unique_and_documented() {
        for pair in KEYWORDS.windows(2) {
            assert!(
                pair[0].word < pair[1].word,
                "KEYWORDS out of order or repeated: {:?} before {:?}",
                pair[0].word,
                pair[1].word
            );
        }
        for k in KEYWORDS {
            assert!(!k.word.is_empty(), "an entry without a word");
            assert!(!k.doc.trim().is_empty(), "{:?} has no doc", k.word);
            let chars = k.doc.chars().count();
            assert!(chars <= 400, "{:?}: doc of {chars} characters (at most 400)", k.word);
        }
    }

    #[test]
    fn sections_are_headings_of_the_language_reference() {
        let headings: BTreeSet<&str> = LANGUAGE
            .lines()
            .filter(|line| line.starts_with('#'))
            .filter_map(|line| line.trim_start_matches('#').strip_prefix(' '))
            .map(str::trim_end)
            .collect();
        for k in KEYWORDS {
            assert!(
                headings.contains(k.section),
                "{:?}: section {:?} is not a heading of docs/language.md",
                k.word,
                k.section
            );
        }
    }

    #[test]
    fn lookup_finds_every_word_and_nothing_else() {
        for k in KEYWORDS {
            assert_eq!(keyword(k.word).map(|found| found.word), Some(k.word));
        }
        assert!(keyword("behaviours").is_none());
        assert!(keyword("").is_none());
        assert_eq!(keyword("behavior").map(|k| k.section), keyword("behaviour").map(|k| k.section));
    }
}

//! What happened to each agent over a run: the record the executor hands
//! over with the frames, read by the expectation verdicts and batch summaries.

/// What happened to one agent over a run.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentLog {
    pub id: u32,
    /// Population index.
    pub population: u32,
    /// Simulated time of creation, s.
    pub born: f64,
    /// Simulated time of removal, s.
    pub removed: Option<f64>,
    /// First time the agent reached what it sought (its goal, a target, or its exit), s.
    pub arrived: Option<f64>,
    /// Whether the agent ever had something to seek.
    pub sought: bool,
}

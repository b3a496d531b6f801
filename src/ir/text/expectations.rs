//! Expectations: the text as written, and the claim it was lowered to, in
//! the words of the language with every name resolved.

use super::{counted, number, quantity, quoted, Out, M, RAD, S};
use crate::ir::{Amount, AreaRef, Comparison, ExpectationKind as K, Subject, When};

pub(super) fn expectations(o: &mut Out) {
    let p = o.p;
    for (i, e) in p.expectations.iter().enumerate() {
        let path = format!("expect[{i}]");
        o.line(&path, quoted(&e.text));
        o.line(format_args!("{path}.claim"), o.claim(&e.kind));
    }
}

/// `at least` / `at most` before an amount; `>=` / `<=` before a bound.
fn bound(c: Comparison) -> &'static str {
    match c {
        Comparison::AtLeast => "at least",
        Comparison::AtMost => "at most",
    }
}

fn compare(c: Comparison) -> &'static str {
    match c {
        Comparison::AtLeast => ">=",
        Comparison::AtMost => "<=",
    }
}

/// A share (a fraction of the agents) or a number of agents, told apart by
/// a word: `share 1` and `1 agent` are not the same claim.
fn amount(a: Amount) -> String {
    match a {
        Amount::Share(x) => format!("share {}", number(x)),
        Amount::Count(n) => counted(n, "agent"),
    }
}

fn when(w: When) -> String {
    match w {
        When::At(t) => format!("at {}", quantity(t, S)),
        When::During(a, b) => format!("during {} to {}", quantity(a, S), quantity(b, S)),
        When::Share { share, from, to } => {
            format!("for at least share {} of {} to {}", number(share), quantity(from, S), quantity(to, S))
        }
    }
}

impl Out<'_> {
    fn area(&self, a: AreaRef) -> String {
        match a {
            AreaRef::Region(r) => self.region(r),
            AreaRef::Shape(s) => self.shape(s),
            AreaRef::Mask(m) => self.mask(m),
            AreaRef::Space(s) => self.space(s),
        }
    }

    fn claim(&self, k: &K) -> String {
        let s = |x| self.subject(x);
        // `nobody of everyone` is `nobody`, as the language writes it.
        let nobody = |who| match who {
            Subject::Everyone => "nobody".to_string(),
            who => format!("nobody of {}", s(who)),
        };
        let m = |x| quantity(x, M);
        match k {
            K::ReachesGoal { who, by: None } => format!("{} reaches goal", s(*who)),
            K::ReachesGoal { who, by: Some(t) } => format!("{} reaches goal by {}", s(*who), quantity(*t, S)),
            K::MinDistance { among, distance, at: None } => {
                format!("min distance among {} >= {}", s(*among), m(*distance))
            }
            K::MinDistance { among, distance, at: Some(at) } => {
                format!("min distance among {} >= {} {}", s(*among), m(*distance), when(*at))
            }
            K::Clearance { who, obstacle, distance, at } => {
                let from = obstacle.map_or(String::new(), |x| format!(" from {}", self.obstacle(x)));
                let at = at.map_or(String::new(), |w| format!(" {}", when(w)));
                format!("clearance of {}{from} >= {}{at}", s(*who), m(*distance))
            }
            K::NeverInside { who, obstacle } => {
                let what = obstacle.map_or("obstacles".into(), |x| self.obstacle(x));
                format!("{} inside {what}", nobody(*who))
            }
            K::Inside { who, comparison, amount: a, area, at } => format!(
                "{} {} of {} inside {} {}",
                bound(*comparison),
                amount(*a),
                s(*who),
                self.area(*area),
                when(*at)
            ),
            K::Lanes { width, among, threshold, at } => {
                format!("lanes width {} among {} >= {} {}", m(*width), s(*among), number(*threshold), when(*at))
            }
            K::Surrounds { who, target, spread, at } => {
                format!("{} surround {} {} with spread >= {}", s(*who), s(*target), when(*at), quantity(*spread, RAD))
            }
            K::AwayFrom { who, from, distance, at } => {
                format!("{} farther than {} from {} {}", s(*who), m(*distance), s(*from), when(*at))
            }
            K::FormationIs { group, formation, at } => {
                format!("formation of {} is {} {}", s(*group), formation.name(), when(*at))
            }
            K::FormationError { group, comparison, bound, at } => format!(
                "formation error of {} {} {} {}",
                self.group(*group),
                compare(*comparison),
                m(*bound),
                when(*at)
            ),
            K::Spread { group, comparison, bound, at } => {
                format!("spread of {} {} {} {}", self.group(*group), compare(*comparison), m(*bound), when(*at))
            }
            K::CountIs { who, count, tolerance, at } => {
                format!("count of {} is {count} +- {tolerance} {}", s(*who), when(*at))
            }
            K::CountBound { who, comparison, bound, at } => {
                format!("count of {} {} {bound} {}", s(*who), compare(*comparison), when(*at))
            }
            K::NearestDistance { who, comparison, bound, at } => {
                format!("nearest distance of {} {} {} {}", s(*who), compare(*comparison), m(*bound), when(*at))
            }
            K::MeanSpeed { who, comparison, bound, at } => {
                format!("mean speed of {} {} {} m/s {}", s(*who), compare(*comparison), number(*bound), when(*at))
            }
            K::Near { who, of, distance, at } => {
                format!("{} within {} of {} {}", s(*who), m(*distance), s(*of), when(*at))
            }
            K::Covers { who, area, distance, at } => {
                format!("{} covers {} within {} {}", s(*who), self.area(*area), m(*distance), when(*at))
            }
            K::Collisions { among, max } => format!("collisions among {} <= {max}", s(*among)),
            K::Overlap { among, max } => format!("overlap among {} <= {}", s(*among), m(*max)),
            K::PathRatio { who, max } => format!("path ratio of {} <= {}", s(*who), number(*max)),
            K::Stuck { who, max } => format!("at most {} of {} stuck", amount(*max), s(*who)),
            K::TripsWithin { who, share, within } => format!(
                "at least share {} of trips of {} complete within {}",
                number(*share),
                s(*who),
                quantity(*within, S)
            ),
            K::Moves { who, distance, by } => {
                format!("{} moves at least {} by {}", s(*who), m(*distance), quantity(*by, S))
            }
            K::MoveLess { who, max, distance, by } => format!(
                "at most {} of {} move less than {} by {}",
                amount(*max),
                s(*who),
                m(*distance),
                quantity(*by, S)
            ),
            K::PicksGoals { who, count, by } => {
                format!("each of {} picks at least {} by {}", s(*who), counted(*count, "goal"), quantity(*by, S))
            }
            K::PicksAtMost { who, count, by } => {
                format!("each of {} picks at most {} by {}", s(*who), counted(*count, "goal"), quantity(*by, S))
            }
            K::NeverInCore { who, groups } => format!("{} inside group space of {}", nobody(*who), s(*groups)),
            K::GoalsProvideWants { who } => format!("goals of {} provide wants", s(*who)),
        }
    }
}

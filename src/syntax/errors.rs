//! pest's parse errors, told in the language's own words.

use std::sync::Mutex;

use pest::error::{Error, ErrorVariant, InputLocation};
use pest::Parser;

use super::{CrowdParser, Rule};
use crate::diag::{did_you_mean, levenshtein, Diagnostic};

/// The keywords that begin a top-level item.
const ITEM_KEYWORDS: [&str; 10] =
    ["scenario", "world", "space", "population", "agent", "group", "behaviour", "parameters", "expect", "output"];

/// Every unit, as the grammar spells it.
const UNITS: &str = "m, cm, mm, km, s, ms, min, h, m/s, km/h, cm/s, deg, rad, °, %, per m2, per s";

/// How a grammar rule is named to a person ("a unit", "`{`").
fn describe(r: Rule) -> String {
    let name = format!("{r:?}");
    if let Some(keyword) = name.strip_prefix("k_") {
        return format!("`{keyword}`");
    }
    match r {
        Rule::EOI => "the end of the file".into(),
        Rule::ident => "a name".into(),
        Rule::integer => "a whole number".into(),
        Rule::number => "a number".into(),
        Rule::unit => "a unit (m, s, m/s, deg, %, per m2, ...)".into(),
        Rule::quantity => "a number with a unit".into(),
        Rule::point => "a point such as `(3 m, 4 m)`".into(),
        Rule::shape => "a shape (`rect`, `circle`, `polygon`, `polyline`)".into(),
        Rule::dist => "a value or a distribution (`uniform(..)`, `normal(..)`, `choice(..)`)".into(),
        Rule::marker_method => "a marker method (`dart_throwing`, `jittered_grid`)".into(),
        Rule::mask_kind => "a mask kind (`rows`, `columns`, `grid`)".into(),
        Rule::attribute_name => "an attribute (`speed`, `radius`, `personal_space`)".into(),
        Rule::planner_kind => "a planner (`straight`, `tree_paths`, `astar`, `bvp`, `ct_space`, `continuum`)".into(),
        Rule::formation_name => "a formation (`auto`, `side_by_side`, `v`, `river`, `diamond`, `square`, ...)".into(),
        Rule::flock_term => "a flocking term (`separation`, `cohesion`, `alignment`)".into(),
        Rule::item => "a top-level item (`scenario`, `world`, `space`, `population`, `agent`, ...)".into(),
        Rule::action => "an action (`seek`, `wander`, `dwell`, `pursue`, ...)".into(),
        Rule::expectation => "an expectation".into(),
        Rule::subject => "`everyone`, a name or `followers of GROUP`".into(),
        Rule::followers_of => "`followers of GROUP`".into(),
        Rule::target => "a target (`goal`, a point, `region NAME`, a name, `followers of GROUP`)".into(),
        Rule::condition | Rule::atom => {
            "a condition (`sees NAME within ..`, `time >= ..`, `VAR > ..`, `remembers goal`)".into()
        }
        Rule::var_op => "`<`, `<=`, `>` or `>=`".into(),
        Rule::trigger => "a trigger (`on arrival`, `when done`, `after ..`, `when ..`)".into(),
        Rule::param => "a parameter such as `alpha 2 m`".into(),
        Rule::compare => "`<=` or `>=`".into(),
        _ => name.replace('_', " "),
    }
}

/// The words a rule accepts, for "did you mean".
fn words(r: Rule) -> Vec<&'static str> {
    match r {
        Rule::item => ITEM_KEYWORDS.to_vec(),
        Rule::marker_method => vec!["dart_throwing", "jittered_grid"],
        Rule::mask_kind => vec!["rows", "columns", "grid"],
        Rule::attribute_name => vec!["speed", "radius", "personal_space"],
        Rule::planner_kind => vec!["straight", "tree_paths", "astar", "bvp", "ct_space", "continuum"],
        Rule::formation_name => vec!["auto", "side_by_side", "river", "v", "diamond", "square", "line", "column"],
        Rule::flock_term => vec!["separation", "cohesion", "alignment"],
        Rule::action => vec![
            "seek",
            "wander",
            "dwell",
            "pick",
            "pursue",
            "surround",
            "escape",
            "form",
            "align",
            "follow",
            "flock",
            "hunt",
            "flee",
            "evacuate",
            "formation",
            "push",
            "pop",
        ],
        _ => Vec::new(),
    }
}

fn keyword(r: Rule) -> Option<&'static str> {
    // `Debug` of a keyword rule is `k_` and the keyword; map it to a static string.
    let name = format!("{r:?}");
    let kw = name.strip_prefix("k_")?;
    KEYWORDS.iter().copied().find(|k| *k == kw)
}

/// Every keyword rule's word (the `k_` rules of the grammar).
const KEYWORDS: &[&str] = &[
    "scenario",
    "seed",
    "duration",
    "step",
    "record",
    "every",
    "steps",
    "world",
    "bounds",
    "obstacle",
    "region",
    "markers",
    "spray",
    "erase",
    "all",
    "shape",
    "mask",
    "rect",
    "circle",
    "polygon",
    "polyline",
    "segment",
    "to",
    "radius",
    "width",
    "in",
    "density",
    "weight",
    "discomfort",
    "slope",
    "toward",
    "space",
    "door",
    "object",
    "at",
    "provides",
    "capacity",
    "population",
    "count",
    "peak",
    "agents",
    "leave",
    "after",
    "via",
    "from",
    "spawn",
    "groups",
    "goal",
    "resource",
    "agent",
    "wants",
    "dwell",
    "behaviour",
    "formation",
    "uniform",
    "normal",
    "choice",
    "group",
    "members",
    "leader",
    "followers",
    "around",
    "within",
    "group_map",
    "cells",
    "of",
    "sketch",
    "rule",
    "priority",
    "when",
    "state",
    "on",
    "arrival",
    "done",
    "go",
    "sees",
    "cone",
    "time",
    "seek",
    "using",
    "wander",
    "pick",
    "pursue",
    "surround",
    "escape",
    "form",
    "align",
    "follow",
    "flock",
    "hunt",
    "catch",
    "flee",
    "evacuate",
    "reserve",
    "disjoint",
    "bias",
    "grid",
    "crowd_aware",
    "pairwise_checks",
    "parameters",
    "expect",
    "reaches",
    "by",
    "min",
    "distance",
    "among",
    "nobody",
    "inside",
    "obstacles",
    "least",
    "lanes",
    "with",
    "spread",
    "farther",
    "than",
    "is",
    "everyone",
    "output",
    "columns",
    "goals",
    "provide",
    "during",
    "for",
    "most",
    "clearance",
    "collisions",
    "overlap",
    "stuck",
    "trips",
    "complete",
    "moves",
    "less",
    "each",
    "picks",
    "covers",
    "path",
    "ratio",
    "error",
    "chaotic",
    "r",
    "nearest",
    "var",
    "rise",
    "decay",
    "start",
    "max",
    "and",
    "not",
    "remembers",
    "push",
    "pop",
    "mean",
    "speed",
];

fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// pest keeps its detailed attempts (which include literal tokens such as
/// `}` and `,`) behind a process-wide switch; one detailed re-parse at a time
/// keeps the messages deterministic when files are checked on several threads.
static DETAIL: Mutex<()> = Mutex::new(());

/// The furthest position pest reached, and the literal tokens it expected there.
fn attempts(chunk: &str) -> Option<(usize, Vec<String>)> {
    let _guard = DETAIL.lock().unwrap_or_else(|e| e.into_inner());
    pest::set_error_detail(true);
    let result = CrowdParser::parse(Rule::file, chunk);
    pest::set_error_detail(false);
    let attempts = result.err()?.parse_attempts()?;
    let tokens = attempts
        .expected_tokens()
        .into_iter()
        .map(|t| t.to_string())
        .filter_map(|t| match t.as_str() {
            // A range of characters prints as `a..z`; only digits are worth naming.
            "0..9" => Some("0".to_string()),
            "BUILTIN_RULE" => None,
            _ if t.len() > 3 && t.contains("..") => None,
            _ => Some(t),
        })
        .filter(|t| !matches!(t.as_str(), " " | "\t" | "\r" | "\n" | "//" | "/*" | ";"))
        .collect();
    Some((attempts.max_position, tokens))
}

fn token(t: &str) -> String {
    match t {
        "0" => "a digit".into(),
        // Spelled out: a line may wrap between `}` and a closing backtick.
        "}" => "a closing brace".into(),
        _ => format!("`{t}`"),
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Converts a pest error in a chunk starting at `offset` into a diagnostic.
/// `unclosed` is the offset of a `{` that the chunk never closes.
pub fn to_diagnostic(e: &Error<Rule>, chunk: &str, offset: usize, unclosed: Option<usize>) -> Diagnostic {
    let mut pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    }
    .min(chunk.len());
    let (positives, negatives) = match &e.variant {
        ErrorVariant::ParsingError { positives, negatives } => (positives.clone(), negatives.clone()),
        ErrorVariant::CustomError { message } => {
            let span = offset + pos..offset + pos;
            return Diagnostic::error("E001", span, format!("the parser gave up here: {message}"))
                .label("here")
                .help("simplify the nesting of this item");
        }
    };

    // The expected things: pest's rules at the error position, and the
    // literal tokens (`}`, `,`, `)`) it tried at the furthest position.
    let mut expected: Vec<String> = Vec::new();
    let mut candidates: Vec<&'static str> = Vec::new();
    let detail = attempts(chunk).filter(|(max, _)| *max <= chunk.len() && chunk.is_char_boundary(*max));
    if let Some((max, tokens)) = detail.as_ref().filter(|(max, tokens)| *max > pos && !tokens.is_empty()) {
        pos = *max;
        expected.extend(tokens.iter().map(|t| token(t)));
        candidates.extend(tokens.iter().filter_map(|t| KEYWORDS.iter().copied().find(|k| k == t)));
    } else {
        let mut rules = positives.clone();
        let items = [
            Rule::k_scenario,
            Rule::k_world,
            Rule::k_space,
            Rule::k_population,
            Rule::k_agent,
            Rule::k_group,
            Rule::k_behaviour,
            Rule::k_parameters,
            Rule::k_expect,
            Rule::k_output,
        ];
        // At the start of a chunk pest names the whole `file` rule: it wants an item.
        if items.iter().all(|k| rules.contains(k)) || rules.contains(&Rule::file) {
            rules.retain(|r| !items.contains(r) && !matches!(r, Rule::EOI | Rule::file));
            rules.insert(0, Rule::item);
        }
        for r in &rules {
            let d = describe(*r);
            if !expected.contains(&d) {
                expected.push(d);
            }
            candidates.extend(keyword(*r));
            candidates.extend(words(*r));
        }
        if let Some((_, tokens)) = detail.as_ref().filter(|(max, _)| *max == pos) {
            // Punctuation only: keywords are named by their rules, `-` and digits by `number`.
            for t in tokens.iter().filter(|t| matches!(t.as_str(), "}" | ")" | "(" | "{" | "," | ":" | ">=" | "<=")) {
                let d = token(t);
                // Already named, alone or in a rule's description (`<=` or `>=`).
                if !expected.iter().any(|e| e.contains(&d)) {
                    expected.push(d);
                }
            }
        }
    }

    // The span covers the word found there (or one character), so the label points at it.
    let rest = &chunk[pos..];
    let word_len = rest.char_indices().find(|(_, c)| !(is_word_char(*c) || *c == '.')).map_or(rest.len(), |(i, _)| i);
    let len = if word_len == 0 { rest.chars().next().map_or(0, char::len_utf8) } else { word_len };
    let word = &rest[..len];
    let span = offset + pos..offset + pos + len;
    let found = match word {
        _ if rest.is_empty() => "the end of the file".to_string(),
        "}" => "a closing brace".to_string(),
        _ => format!("`{word}`"),
    };
    let before = &chunk[..pos];

    // A block comment that never ends.
    if expected.iter().any(|x| x == "`*/`") {
        let start = if rest.starts_with("/*") { pos } else { before.rfind("/*").unwrap_or(pos) };
        return Diagnostic::error("E001", offset + start..offset + start + 2, "this block comment is never closed")
            .label("the comment starts here and runs to the end of the file")
            .help("end the comment with `*/`");
    }

    // A name with a letter outside ASCII, such as `café`.
    let first = rest.chars().next();
    if first.is_some_and(|c| !c.is_ascii() && c.is_alphabetic()) && before.ends_with(is_word_char) {
        let start = before.trim_end_matches(is_word_char).len();
        let name = &chunk[start..pos + len];
        return Diagnostic::error("E001", offset + start..offset + pos + len, format!("`{name}` is not a valid name"))
            .label("a letter outside ASCII")
            .help("names and keywords use the ASCII letters, digits and `_` (any text is fine in comments)");
    }

    // A number followed on the same line by a word that is not a unit.
    let after_number = before.trim_end_matches([' ', '\t']).ends_with(|c: char| c.is_ascii_digit());
    if positives.contains(&Rule::unit) && after_number && first.is_some_and(char::is_alphabetic) {
        let help = match unit_alias(word) {
            Some(u) => format!("write `{u}`; the units are {UNITS}"),
            None => format!("the units are {UNITS}"),
        };
        return Diagnostic::error("E001", span, format!("unknown unit `{word}`")).label("not a unit").help(help);
    }

    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {}, found {found}", list(&expected))
    };
    let mut d = Diagnostic::error("E001", span, message).label("unexpected here");
    let at_line_start = before.trim_end_matches([' ', '\t']).ends_with('\n') || before.trim().is_empty();
    let starts_item = ITEM_KEYWORDS.contains(&word) && at_line_start;
    // Keywords are short: only a near miss is worth a suggestion.
    let suggestion = (first.is_some_and(char::is_alphabetic) && !candidates.contains(&word))
        .then(|| did_you_mean(word, candidates.iter().copied()))
        .flatten()
        .filter(|s| levenshtein(word, s) <= (word.chars().count() / 4).max(1));
    let help = if let (Some(brace), true) = (unclosed, starts_item || rest.is_empty()) {
        d = d.related(brace..brace + 1, "this `{` is never closed");
        "a block is not closed: add its `}` before this point".to_string()
    } else if let Some(s) = suggestion {
        format!("did you mean `{s}`?")
    } else if word == "}" || rest.is_empty() {
        "a block is not finished: check the statement before this point".to_string()
    } else if expected.iter().any(|x| x.starts_with("a unit")) {
        "write a unit after the number, e.g. `2 m`, `1.3 m/s`, `30 s`".to_string()
    } else if !negatives.is_empty() {
        format!("{} is not allowed here", list(&negatives.iter().map(|r| describe(*r)).collect::<Vec<_>>()))
    } else {
        "see docs/language.md for the syntax of this statement".to_string()
    };
    d.help(help)
}

/// The unit meant by a common spelled-out or foreign unit name.
fn unit_alias(word: &str) -> Option<&'static str> {
    Some(match word {
        "meter" | "meters" | "metre" | "metres" => "m",
        "sec" | "secs" | "second" | "seconds" => "s",
        "mins" | "minute" | "minutes" => "min",
        "hr" | "hrs" | "hour" | "hours" => "h",
        "degree" | "degrees" | "degs" => "deg",
        "radian" | "radians" => "rad",
        "kmh" | "kph" => "km/h",
        "mps" => "m/s",
        "m2" | "sqm" => "per m2",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse;

    fn message(text: &str) -> (String, String) {
        let (_, diags) = parse(text);
        assert_eq!(diags.len(), 1, "{diags:#?}");
        (diags[0].message.clone(), diags[0].help.clone())
    }

    #[test]
    fn literal_tokens_are_named() {
        let (m, _) = message("world { bounds (0 m, 0 m) to (30 m 20 m) }");
        assert_eq!(m, "expected `,`, found `20`");
    }

    #[test]
    fn misspelled_keywords_get_a_suggestion() {
        let (m, h) = message("behavour go { wander }");
        assert!(m.starts_with("expected a top-level item"), "{m}");
        assert_eq!(h, "did you mean `behaviour`?");
    }

    #[test]
    fn unknown_units_are_named() {
        let (m, h) = message("agent a at (1 m, 1 m) { speed 3 meters }");
        assert_eq!(m, "unknown unit `meters`");
        assert!(h.starts_with("write `m`"), "{h}");
    }

    #[test]
    fn an_unclosed_block_points_at_its_brace() {
        let (_, diags) = parse("world {\n  bounds (0 m, 0 m) to (1 m, 1 m)\nagent a at (0 m, 0 m) { }\n");
        assert_eq!(diags.len(), 1, "{diags:#?}");
        assert_eq!(diags[0].related[0].0, 6..7);
    }

    #[test]
    fn every_keyword_rule_is_listed() {
        use super::super::Rule;
        let missing: Vec<String> = Rule::all_rules()
            .iter()
            .filter_map(|r| format!("{r:?}").strip_prefix("k_").map(str::to_string))
            .filter(|k| !super::KEYWORDS.contains(&k.as_str()))
            .collect();
        assert!(missing.is_empty(), "keyword rules missing from KEYWORDS: {missing:?}");
    }

    #[test]
    fn an_unterminated_comment_is_named() {
        let (m, _) = message("world { }\n/* never closed\nagent");
        assert_eq!(m, "this block comment is never closed");
    }
}

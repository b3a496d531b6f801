//! The canonical layout of a `.crowd` file (`crowd fmt`): two spaces of
//! indentation per open brace or parenthesis, one space between tokens,
//! none inside parentheses or before `,` and `;`, one after them, one between
//! a number and its unit (`2m` → `2 m`; `%` and `°` stay attached), one
//! around comparisons and `±`; no trailing blanks, at most one blank line in
//! a row, one line break at the end.
//!
//! It works on tokens, line by line, and keeps what the author decided: the
//! line breaks (statements stay on the lines they were on), comments where
//! they were (a block comment's inner lines verbatim), and whether two
//! tokens touched where no rule above decides (`normal(…)`, `at (…)`). It
//! gives no meaning to anything; `crowd fmt` checks that the lowered program
//! is the same before and after.

/// One token of a line.
#[derive(Clone, Debug, PartialEq)]
enum Tok<'a> {
    /// A number, `-0.5` or `1/24`.
    Number(&'a str),
    /// A word: a name, keyword or unit, with any `/` or digits a unit holds (`m/s`, `m2`).
    Word(&'a str),
    /// One punctuation mark or operator.
    Punct(&'a str),
    /// A comment to the end of the line, or a block comment closed on it.
    Comment(&'a str),
    /// A block comment left open at the end of the line.
    OpenComment(&'a str),
}

impl<'a> Tok<'a> {
    fn text(&self) -> &'a str {
        match self {
            Tok::Number(s) | Tok::Word(s) | Tok::Punct(s) | Tok::Comment(s) | Tok::OpenComment(s) => s,
        }
    }
}

/// Splits a line (outside any block comment) into tokens, each with whether
/// blanks came before it.
fn tokens(line: &str) -> Vec<(bool, Tok<'_>)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut spaced = false;
    while i < b.len() {
        let c = b[i];
        if c == b' ' || c == b'\t' {
            spaced = true;
            i += 1;
            continue;
        }
        let start = i;
        let tok = if line[i..].starts_with("//") {
            i = b.len();
            Tok::Comment(&line[start..])
        } else if line[i..].starts_with("/*") {
            match line[i + 2..].find("*/") {
                Some(end) => {
                    i += end + 4;
                    Tok::Comment(&line[start..i])
                }
                None => {
                    i = b.len();
                    Tok::OpenComment(&line[start..])
                }
            }
        } else if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || b[i] == b'.'
                    || (b[i] == b'/' && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            Tok::Number(&line[start..i])
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'/' && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic)
        {
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'_'
                    || (b[i] == b'/' && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic)))
            {
                i += 1;
            }
            // `m²` and `/m²`: the square belongs to the unit.
            if line[i..].starts_with('²') {
                i += '²'.len_utf8();
            }
            Tok::Word(&line[start..i])
        } else {
            let two = line.get(i..i + 2).unwrap_or("");
            let width = if ["<=", ">=", "+-", ".."].contains(&two) {
                2
            } else {
                line[i..].chars().next().map_or(1, char::len_utf8)
            };
            i += width;
            Tok::Punct(&line[start..i])
        };
        out.push((spaced, tok));
        spaced = false;
    }
    out
}

/// Whether a unit that follows a number: `%` and `°` attach, words are spaced.
fn attached_unit(t: &Tok<'_>) -> bool {
    matches!(t, Tok::Punct("%") | Tok::Punct("°"))
}

/// The unit words a number can carry (`grammar/crowd.pest`, `unit`).
const UNITS: [&str; 15] =
    ["m/s", "km/h", "cm/s", "min", "ms", "mm", "cm", "km", "deg", "rad", "m", "s", "h", "per", "m²"];

fn comparison(t: &Tok<'_>) -> bool {
    matches!(t, Tok::Punct("<=" | ">=" | "<" | ">" | "±" | "+-"))
}

/// Whether one space goes between `a` and `b`, which had blanks between them if `spaced`.
fn space_between(a: &Tok<'_>, b: &Tok<'_>, spaced: bool) -> bool {
    match (a, b) {
        (_, Tok::Comment(_) | Tok::OpenComment(_)) => true,
        (_, Tok::Punct("," | ";" | ")")) => false,
        (Tok::Punct("("), _) => false,
        (Tok::Punct("," | ";"), _) => true,
        (Tok::Number(_), b) if attached_unit(b) => false,
        (Tok::Number(_), Tok::Word(w)) if w.starts_with('/') => false,
        (Tok::Number(_), Tok::Word(w)) if UNITS.contains(w) => true,
        (a, _) if comparison(a) => true,
        (_, b) if comparison(b) => true,
        (_, Tok::Punct("{" | "}")) | (Tok::Punct("{" | "}"), _) => true,
        _ => spaced,
    }
}

/// The file in the canonical layout.
pub fn format(text: &str) -> String {
    // Lone CRs end lines as line feeds do; a byte-order mark is blank.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text).replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(text.len());
    let mut depth: usize = 0;
    let mut in_block = false;
    let mut blank_run = 0;
    for raw in text.lines() {
        let line = raw.trim_end();
        if in_block {
            // A block comment's inner lines are the author's, as written.
            out.push_str(line);
            out.push('\n');
            in_block = !line.contains("*/");
            continue;
        }
        if line.trim().is_empty() {
            blank_run += 1;
            continue;
        }
        if blank_run > 0 && !out.is_empty() {
            out.push('\n');
        }
        blank_run = 0;
        let toks = tokens(line);
        // A line that opens with closers sits at the depth they close to.
        let leading_closers = toks.iter().take_while(|(_, t)| matches!(t, Tok::Punct("}" | ")"))).count();
        let indent = depth.saturating_sub(leading_closers);
        out.push_str(&"  ".repeat(indent));
        for (k, (spaced, t)) in toks.iter().enumerate() {
            if k > 0 && space_between(&toks[k - 1].1, t, *spaced) {
                out.push(' ');
            }
            out.push_str(t.text());
            match t {
                Tok::Punct("{" | "(") => depth += 1,
                Tok::Punct("}" | ")") => depth = depth.saturating_sub(1),
                Tok::OpenComment(_) => in_block = true,
                _ => {}
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_canonical_and_comments_stay() {
        let text = "scenario  s {seed 1;duration 60s ; step 1/24 s}\n\n\n\
                    world {\n\
                    \t  bounds (0 m,0 m) to ( 30 m , 20 m )   // the hall\n\
                    region r rect (1m, 1m) to (2m, 2m)\n\
                    /* a long\n   note */\n\
                    }\n\
                    expect {\n  min distance among walkers>=0.45 m\n count of a is 3 +- 1 at 5 s\n}\n";
        let want = "scenario s { seed 1; duration 60 s; step 1/24 s }\n\n\
                    world {\n  \
                    bounds (0 m, 0 m) to (30 m, 20 m) // the hall\n  \
                    region r rect (1 m, 1 m) to (2 m, 2 m)\n  \
                    /* a long\n   note */\n\
                    }\n\
                    expect {\n  min distance among walkers >= 0.45 m\n  count of a is 3 +- 1 at 5 s\n}\n";
        assert_eq!(format(text), want);
        assert_eq!(format(want), want, "formatting twice changes nothing");
    }

    #[test]
    fn units_and_numbers() {
        assert_eq!(
            format("a 40% b 40 % c 2m/s d -0.5m e 3 per m2 f 90°\n"),
            "a 40% b 40% c 2 m/s d -0.5 m e 3 per m2 f 90°\n"
        );
        assert_eq!(format("speed normal(1.3 m/s,0.15 m/s)\n"), "speed normal(1.3 m/s, 0.15 m/s)\n");
        assert_eq!(format("grid 64x64 rate 3/s\r\nx 1\ry 2\n"), "grid 64x64 rate 3/s\nx 1\ny 2\n");
    }
}

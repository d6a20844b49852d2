//! The one `--format` vocabulary of every command ([`Format`]): `text` for people, `json` for
//! machines, `csv` and `md` where the output is a table, `html` where it is a report page. Each
//! command accepts the subset that fits it.
//!
//! One default rule (issue 19.3): a command whose output is data prints `text` when stdout is a
//! terminal and `json` when it is not ([`Format::or_default`]), so a person reads a summary and
//! a script or `jq` gets the document. Commands that keep a fixed default (a verdict for a CI log,
//! a report document) declare it and say why in their help.

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    Text,
    Json,
    Csv,
    Md,
    Html,
}

/// The two shapes of a command that prints lines or one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOrJson {
    Text,
    Json,
}

/// What a command prints on stdout in the format asked for: one JSON document or text.
#[derive(Debug, Clone, PartialEq)]
pub enum Printed {
    /// One document, printed as `JSON.stringify(doc, null, 2)` and a newline.
    Json(serde_json::Value),
    /// Text, printed as it is.
    Text(String),
}

impl Printed {
    /// Text that ends with a newline (one is added when it does not).
    pub fn lines(mut text: String) -> Printed {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Printed::Text(text)
    }
}

/// The formats of a command whose output is lines or one document.
pub const TEXT_JSON: &[Format] = &[Format::Text, Format::Json];
/// The formats of a command whose output is a table.
pub const TABULAR: &[Format] = &[Format::Text, Format::Json, Format::Csv, Format::Md];

/// The help sentence of every `--format` that follows the default rule.
pub const FORMAT_RULE: &str = "default: text on a terminal, json when stdout is not one";

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 5] = [
        Format::Text,
        Format::Json,
        Format::Csv,
        Format::Md,
        Format::Html,
    ];

    /// The value `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Md => "md",
            Format::Html => "html",
        }
    }

    /// What the format is, as `--help` lists it.
    pub fn help(self) -> &'static str {
        match self {
            Format::Text => "lines and plain tables for people (box-drawn on a terminal)",
            Format::Json => "one JSON document for machines",
            Format::Csv => "comma-separated values (numbers unformatted)",
            Format::Md => "Markdown",
            Format::Html => "one self-contained HTML page",
        }
    }

    /// The format of a command that follows the default rule: the one asked for, else `text`
    /// on a terminal and `json` when stdout is not one.
    pub fn or_default(given: Option<Format>) -> Format {
        use std::io::IsTerminal as _;
        given.unwrap_or_else(|| Format::default_for(std::io::stdout().is_terminal()))
    }

    /// The default rule itself: `text` for a terminal, `json` otherwise.
    pub fn default_for(terminal: bool) -> Format {
        if terminal {
            Format::Text
        } else {
            Format::Json
        }
    }

    /// `text`, or `json` for every structured format.
    pub fn text_or_json(self) -> TextOrJson {
        match self {
            Format::Text => TextOrJson::Text,
            _ => TextOrJson::Json,
        }
    }
}

/// `--format`'s values; `table` is an old name of `text`, still accepted.
impl forge_replay_model::choice::Choice for Format {
    const ALL: &'static [Format] = &Format::ALL;

    fn name(self) -> &'static str {
        Format::name(self)
    }

    fn help(self) -> Option<&'static str> {
        Some(Format::help(self))
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Format::Text => &["table"],
            _ => &[],
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_rule_and_the_two_shapes() {
        assert_eq!(Format::default_for(true), Format::Text);
        assert_eq!(Format::default_for(false), Format::Json);
        assert_eq!(Format::or_default(Some(Format::Md)), Format::Md);
        assert_eq!(Format::Csv.text_or_json(), TextOrJson::Json);
        assert_eq!(Format::Text.text_or_json(), TextOrJson::Text);
        let names: Vec<String> = Format::ALL.iter().map(Format::to_string).collect();
        assert_eq!(names, ["text", "json", "csv", "md", "html"]);
    }

    #[test]
    fn lines_end_with_one_newline() {
        assert_eq!(Printed::lines("a".into()), Printed::Text("a\n".into()));
        assert_eq!(Printed::lines("a\n".into()), Printed::Text("a\n".into()));
    }

    #[test]
    fn table_is_an_old_name_of_text() {
        use forge_replay_model::choice::Choice;
        assert_eq!(Format::named("table", &[Format::Text]), Some(Format::Text));
        assert_eq!(Format::named("csv", &[Format::Text, Format::Json]), None);
        assert_eq!(Choice::help(Format::Md), Some("Markdown"));
    }
}

//! Text tables (tabled): terminal tables, Markdown and CSV from rows of cells.

use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style};

/// How a table is laid out for people: box-drawn ([`Table::to_text`]) on a terminal, plain
/// columns ([`Table::to_plain`]) when the output is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableStyle {
    Boxed,
    Plain,
}

impl TableStyle {
    /// Box-drawn on a terminal, plain columns when `stdout` is not one.
    pub fn for_stdout() -> TableStyle {
        use std::io::IsTerminal as _;
        if std::io::stdout().is_terminal() {
            TableStyle::Boxed
        } else {
            TableStyle::Plain
        }
    }
}

/// A table: headers, rows of cells, and which columns hold numbers (right-aligned).
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Column indices aligned right.
    pub numeric: Vec<usize>,
}

impl Table {
    /// A table with these headers and no rows.
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Table {
        Table {
            headers: headers.into_iter().map(Into::into).collect(),
            ..Table::default()
        }
    }

    /// Marks columns as numeric (right-aligned).
    pub fn numeric(mut self, cols: impl IntoIterator<Item = usize>) -> Table {
        self.numeric.extend(cols);
        self
    }

    /// Appends a row.
    pub fn push<S: Into<String>>(&mut self, row: impl IntoIterator<Item = S>) {
        self.rows.push(row.into_iter().map(Into::into).collect());
    }

    fn builder(&self) -> Builder {
        let mut b = Builder::default();
        b.push_record(self.headers.iter().cloned());
        for r in &self.rows {
            b.push_record(r.iter().cloned());
        }
        b
    }

    /// The table in `style`.
    pub fn render(&self, style: TableStyle) -> String {
        match style {
            TableStyle::Boxed => self.to_text(),
            TableStyle::Plain => self.to_plain(),
        }
    }

    /// A rounded terminal table.
    pub fn to_text(&self) -> String {
        let mut t = self.builder().build();
        t.with(Style::rounded());
        for &c in &self.numeric {
            t.modify(Columns::one(c), Alignment::right());
        }
        t.to_string()
    }

    /// The same table without box drawing (columns separated by two spaces), for output that
    /// is not a terminal.
    pub fn to_plain(&self) -> String {
        let mut t = self.builder().build();
        t.with(Style::blank());
        for &c in &self.numeric {
            t.modify(Columns::one(c), Alignment::right());
        }
        // `blank` pads every cell by one space on each side: trim the line ends.
        t.to_string()
            .lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A GitHub Markdown table (cells with `|` escaped).
    pub fn to_markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let mut out = String::new();
        out.push_str(&format!(
            "| {} |\n",
            self.headers
                .iter()
                .map(|h| esc(h))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        let sep: Vec<&str> = (0..self.headers.len())
            .map(|i| {
                if self.numeric.contains(&i) {
                    "---:"
                } else {
                    "---"
                }
            })
            .collect();
        out.push_str(&format!("| {} |\n", sep.join(" | ")));
        for r in &self.rows {
            out.push_str(&format!(
                "| {} |\n",
                r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
            ));
        }
        out
    }

    /// RFC 4180 CSV (fields quoted when needed).
    pub fn to_csv(&self) -> String {
        let field = |s: &str| {
            if s.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_owned()
            }
        };
        let line = |r: &[String]| r.iter().map(|c| field(c)).collect::<Vec<_>>().join(",") + "\n";
        let mut out = line(&self.headers);
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let mut t = Table::new(["key", "n"]).numeric([1]);
        t.push(["a|b", "1"]);
        t.push(["c,\"d\"", "22"]);
        assert_eq!(
            t.to_markdown(),
            "| key | n |\n| --- | ---: |\n| a\\|b | 1 |\n| c,\"d\" | 22 |\n"
        );
        assert_eq!(t.to_csv(), "key,n\na|b,1\n\"c,\"\"d\"\"\",22\n");
        let text = t.to_text();
        assert!(text.contains("│ a|b   │  1 │"), "{text}");
        let plain = t.to_plain();
        assert!(!plain.contains('│') && !plain.contains('─'), "{plain}");
        assert_eq!(plain.lines().nth(1), Some("a|b      1"), "{plain}");
    }
}

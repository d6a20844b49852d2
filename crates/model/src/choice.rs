//! Named choices: a closed set of values a person picks by name (`--format text`,
//! `--retention long`, `--by day`), each with the sentence that says what it means. The crate
//! that owns a vocabulary implements [`Choice`] for it, and the command line lists and parses
//! every vocabulary the same way, so a value's name and meaning live beside the value.

/// A value picked by its name.
pub trait Choice: Copy + PartialEq + Send + Sync + 'static {
    /// Every value, in the order they are listed.
    const ALL: &'static [Self];

    /// The name a person gives.
    fn name(self) -> &'static str;

    /// What the value means, when its name does not say it all.
    fn help(self) -> Option<&'static str> {
        None
    }

    /// Older names still accepted for the value.
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }

    /// The value of `name` (or of one of its aliases) among `among`.
    fn named(name: &str, among: &[Self]) -> Option<Self> {
        among
            .iter()
            .copied()
            .find(|c| c.name() == name || c.aliases().contains(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Size {
        Small,
        Large,
    }

    impl Choice for Size {
        const ALL: &'static [Size] = &[Size::Small, Size::Large];
        fn name(self) -> &'static str {
            match self {
                Size::Small => "small",
                Size::Large => "large",
            }
        }
        fn aliases(self) -> &'static [&'static str] {
            match self {
                Size::Small => &["s"],
                Size::Large => &[],
            }
        }
    }

    #[test]
    fn a_value_is_found_by_its_name_or_an_alias_among_the_allowed() {
        assert_eq!(Size::named("large", Size::ALL), Some(Size::Large));
        assert_eq!(Size::named("s", Size::ALL), Some(Size::Small));
        assert_eq!(Size::named("small", &[Size::Large]), None);
        assert_eq!(Size::named("medium", Size::ALL), None);
        assert_eq!(Size::Small.help(), None);
    }
}

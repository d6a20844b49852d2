//! The session tree of the report: every entry, straight runs kept flat, each branch point opening
//! one group per child, the active path marked.

use std::collections::HashMap;

use forge_replay_session::describe::{describe, id_text, labels};
use forge_replay_session::{EntryType, Session};

use super::owned;

/// What an entry is, for its badge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeKind {
    User,
    Assistant,
    ToolResult,
    System,
    ModelChange,
    Thinking,
    Compaction,
    BranchSummary,
    Label,
    Custom,
    Other,
}

impl TreeKind {
    /// The badge text.
    pub fn name(self) -> &'static str {
        match self {
            TreeKind::User => "user",
            TreeKind::Assistant => "assistant",
            TreeKind::ToolResult => "tool",
            TreeKind::System => "system",
            TreeKind::ModelChange => "model",
            TreeKind::Thinking => "thinking",
            TreeKind::Compaction => "compaction",
            TreeKind::BranchSummary => "branch summary",
            TreeKind::Label => "label",
            TreeKind::Custom => "custom",
            TreeKind::Other => "entry",
        }
    }

    /// The CSS class suffix.
    pub fn class(self) -> &'static str {
        match self {
            TreeKind::BranchSummary => "branch-summary",
            TreeKind::ToolResult => "tool",
            TreeKind::ModelChange => "model",
            other => other.name(),
        }
    }
}

/// One entry of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeRow {
    pub id: String,
    pub line: u64,
    pub kind: TreeKind,
    /// The entry as `forge-replay tree` describes it (without the role the badge shows).
    pub text: String,
    /// The label Pi shows next to the entry.
    pub label: Option<String>,
    pub on_path: bool,
    /// The leaf the report's active path ends at.
    pub active_leaf: bool,
    pub leaf: bool,
    /// The last entry of the file (the leaf Pi selects on load).
    pub default_leaf: bool,
    /// The request number of an assistant entry on the active path.
    pub request: Option<usize>,
    /// Children when the entry is a branch point (more than one), else 0.
    pub branches: usize,
}

/// A row, or a group of rows below a branch point (or one root of several).
#[derive(Debug, Clone, PartialEq)]
pub enum TreeItem {
    Row(TreeRow),
    Branch {
        /// The active path runs through this group.
        on_path: bool,
        /// Entries in the group, nested groups included.
        entries: usize,
        items: Vec<TreeItem>,
    },
}

struct Ctx<'s> {
    session: &'s Session,
    labels: HashMap<usize, String>,
    on_path: Vec<bool>,
    request_of: HashMap<usize, usize>,
    leaf: Option<usize>,
}

/// The tree of `session` with `path` (root → `leaf`) marked.
pub(super) fn build(session: &Session, path: &[usize], leaf: Option<usize>) -> Vec<TreeItem> {
    let mut on_path = vec![false; session.entries().len()];
    let mut request_of = HashMap::new();
    for &i in path {
        on_path[i] = true;
        if session.entry(i).is_assistant_message() {
            let n = request_of.len();
            request_of.insert(i, n);
        }
    }
    let ctx = Ctx {
        session,
        labels: labels(session),
        on_path,
        request_of,
        leaf,
    };
    let roots: Vec<usize> = session.tree().roots().collect();
    if roots.len() == 1 {
        let mut items = Vec::new();
        run(&ctx, roots[0], &mut items);
        items
    } else {
        roots.into_iter().map(|r| group(&ctx, r)).collect()
    }
}

fn group(ctx: &Ctx<'_>, start: usize) -> TreeItem {
    let mut items = Vec::new();
    let entries = run(ctx, start, &mut items);
    TreeItem::Branch {
        on_path: ctx.on_path[start],
        entries,
        items,
    }
}

/// Appends the straight run from `start` and the groups of its last entry's children; returns
/// how many entries it appended.
fn run(ctx: &Ctx<'_>, start: usize, items: &mut Vec<TreeItem>) -> usize {
    let tree = ctx.session.tree();
    let mut count = 0;
    let mut at = start;
    loop {
        let children: Vec<usize> = tree.children(at).collect();
        items.push(TreeItem::Row(row(ctx, at, children.len())));
        count += 1;
        match children.len() {
            0 => return count,
            1 => at = children[0],
            _ => {
                for c in children {
                    let g = group(ctx, c);
                    if let TreeItem::Branch { entries, .. } = &g {
                        count += entries;
                    }
                    items.push(g);
                }
                return count;
            }
        }
    }
}

fn row(ctx: &Ctx<'_>, i: usize, children: usize) -> TreeRow {
    let e = ctx.session.entry(i);
    let kind = match e.entry_type() {
        EntryType::Message => match e.role() {
            Some("user") => TreeKind::User,
            Some("assistant") => TreeKind::Assistant,
            Some("toolResult") => TreeKind::ToolResult,
            Some("system") => TreeKind::System,
            _ => TreeKind::Other,
        },
        EntryType::ModelChange => TreeKind::ModelChange,
        EntryType::ThinkingLevelChange => TreeKind::Thinking,
        EntryType::Compaction => TreeKind::Compaction,
        EntryType::BranchSummary => TreeKind::BranchSummary,
        EntryType::Label => TreeKind::Label,
        EntryType::Custom | EntryType::CustomMessage => TreeKind::Custom,
        _ => TreeKind::Other,
    };
    let text = describe(&e);
    // The badge names the role: `user "…"` reads `"…"`.
    let text = match (kind, e.role()) {
        (
            TreeKind::User | TreeKind::Assistant | TreeKind::ToolResult | TreeKind::System,
            Some(role),
        ) => text
            .strip_prefix(role)
            .map_or(text.as_str(), str::trim_start)
            .to_string(),
        _ => text,
    };
    TreeRow {
        id: owned(&id_text(&e)),
        line: e.line(),
        kind,
        text: owned(&text),
        label: ctx.labels.get(&i).map(|l| owned(l)),
        on_path: ctx.on_path[i],
        active_leaf: Some(i) == ctx.leaf,
        leaf: children == 0,
        default_leaf: Some(i) == ctx.session.default_leaf(),
        request: ctx.request_of.get(&i).copied(),
        branches: if children > 1 { children } else { 0 },
    }
}

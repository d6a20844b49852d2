//! forge-replay-engine: where the session, capability and wire crates meet.
//!
//! * [`batch`]: `forge-replay check` over many files: paths expanded to `*.jsonl` session
//!   files, each checked on a rayon task, the reports in input order.
//! * [`case`]: `forge-replay assemble`: a case file read, parsed and every request in it
//!   assembled, each error naming the file and the request.
//! * [`catalog`]: the model catalog a command follows (built-in, plus a `--catalog` file).
//! * [`capabilities`]: pi-forge's capability projection with the catalog's presentation flag
//!   (`forge-replay capabilities`, `context --capabilities`).
//! * [`diff`]: structural JSON diff ([`diff::Diff`], [`diff::Change`]) named by JSON path, with
//!   unified text diffs for long strings.
//! * [`payload`]: reading payload files to diff (plain JSON, goldens, oracle captures, pi-forge
//!   `/forge payload next save=…` files with their redaction).
//! * [`golden`]: the golden store ([`golden::GoldenStore`], [`golden::Golden`]): versioned
//!   documents under `fixtures/golden/<scenario>/<model-slug>/<NNN>.json`, atomic writes.
//! * [`golden_tree`]: which golden tree `verify` reads and may bless into.
//! * [`recovery`]: recovery checks on every leaf and request (`forge-replay check`).
//! * [`replay`]: every request of a session rebuilt as the agent sent it ([`replay::replay`]),
//!   incrementally along the path, optionally re-targeted to other models.
//! * [`scenario`]: the versioned TOML scenario format and its compiler to Pi session JSONL.
//! * [`sink`]: where replayed requests go one at a time ([`sink::RequestSink`]): the JSON
//!   stream, the `--out` directory, the text summary; one serializer for a request.
//! * [`upgrade`]: every request rebuilt under two Pi releases and compared (`forge-replay upgrade`).
//! * [`verify`]: scenarios × models compared with their goldens; text, JSON and JUnit reports.

pub mod batch;
pub mod capabilities;
pub mod case;
pub mod catalog;
pub mod diff;
pub mod golden;
pub mod golden_tree;
pub mod payload;
pub mod recovery;
pub mod replay;
pub mod scenario;
pub mod sink;
pub mod upgrade;
pub mod verify;

//! Capability library discovery (spec §1.1): `<cwd>/.pi/forge/capabilities/*.json` (project)
//! and `<globalForgeDir>/capabilities/*.json` (global), `sourceRevision`, duplicate ids.

use std::path::{Path, PathBuf};

use forge_replay_model::js;
use serde::Serialize;

use crate::event::{ResourceKey, Scope};
use crate::fingerprint::sha256_hex;
use crate::resource::{parse_capability, Capability, Diagnostic};
use crate::valid;

/// `MAX_CAPABILITY_SOURCE_SIZE`.
pub const MAX_CAPABILITY_SOURCE_SIZE: u64 = 1024 * 1024;

/// A loaded (or faulted) capability file.
#[derive(Debug, Clone)]
pub struct LoadedCapability {
    /// `{scope, id}`: the id inside the JSON (the file basename for faults).
    pub key: ResourceKey,
    pub capability: Capability,
    pub diagnostics: Vec<Diagnostic>,
    pub path: PathBuf,
    /// Lowercase hex SHA-256 of the raw bytes (absent when the file could not be read).
    pub source_revision: Option<String>,
}

impl LoadedCapability {
    /// No error diagnostic.
    pub fn is_usable(&self) -> bool {
        !self
            .diagnostics
            .iter()
            .any(|d| d.level == crate::resource::Level::Error)
    }
}

/// A directory that could not be listed (anything but "not found": Forge fails closed).
#[derive(Debug, thiserror::Error)]
#[error("{path}: cannot read capability directory")]
pub struct DiscoveryError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Where Forge keeps its files.
#[derive(Debug, Clone)]
pub struct Roots {
    /// The project directory (Pi's cwd); capabilities live in `.pi/forge/capabilities/`.
    pub project: Option<PathBuf>,
    /// `globalForgeDir()`; capabilities live in `capabilities/` under it.
    ///
    /// UNKNOWN (§9): `globalForgeDir()` was not read; Forge's docs say `~/.pi/forge`, which
    /// [`Roots::default_global`] returns.
    pub global: Option<PathBuf>,
}

impl Roots {
    /// The library of the project at `dir` and the global one ([`Roots::default_global`]).
    pub fn of_project(dir: &Path) -> Roots {
        Roots {
            project: Some(dir.to_path_buf()),
            global: Roots::default_global(),
        }
    }

    /// `$HOME/.pi/forge` (Forge's documented global directory).
    pub fn default_global() -> Option<PathBuf> {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pi").join("forge"))
    }
}

/// Loads one capability file as `scope`, without symlink or directory checks.
pub fn load_file(path: &Path, scope: Scope) -> LoadedCapability {
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = base.strip_suffix(".json").unwrap_or(&base).to_string();
    let fault = |message: String, rev: Option<String>| LoadedCapability {
        key: ResourceKey {
            scope,
            id: stem.clone(),
        },
        capability: Capability::fallback(&stem),
        diagnostics: vec![Diagnostic::error(None, message)],
        path: path.to_path_buf(),
        source_revision: rev,
    };
    let oversize =
        |n: u64| format!("Capability capability file size ({n} bytes) exceeds 1MiB limit.");
    match std::fs::metadata(path) {
        // A FIFO, socket or device would block or never end: refused before it is opened.
        Ok(m) if forge_replay_session::input::special_kind(&m.file_type()).is_some() => {
            let e = forge_replay_session::input::check(path)
                .err()
                .map_or_else(|| "is not a regular file".to_string(), |e| e.to_string());
            return fault(
                format!("Failed to read capability: {}: {e}", path.display()),
                None,
            );
        }
        Ok(m) if m.len() > MAX_CAPABILITY_SOURCE_SIZE => return fault(oversize(m.len()), None),
        Ok(_) => {}
        Err(e) => {
            return fault(
                format!("Failed to read capability: {}", node_error(&e, path)),
                None,
            )
        }
    }
    let bytes = match forge_replay_session::input::read(path) {
        Ok(b) => b,
        Err(e) => {
            return fault(
                format!("Failed to read capability: {}", node_error(&e, path)),
                None,
            )
        }
    };
    if bytes.len() as u64 > MAX_CAPABILITY_SOURCE_SIZE {
        return fault(oversize(bytes.len() as u64), None);
    }
    let rev = sha256_hex(&bytes);
    let text = String::from_utf8_lossy(&bytes);
    let decoded = parse_capability(&text, &stem);
    let parse_failed = decoded
        .diagnostics
        .first()
        .is_some_and(|d| d.message.starts_with("Failed to parse JSON: "));
    LoadedCapability {
        key: ResourceKey {
            scope,
            id: if parse_failed {
                stem.clone()
            } else {
                decoded.capability.id.clone()
            },
        },
        capability: decoded.capability,
        diagnostics: decoded.diagnostics,
        path: path.to_path_buf(),
        source_revision: Some(rev),
    }
}

/// Node-style error text (`ENOENT: no such file or directory, open '<path>'`) for common cases.
fn node_error(e: &std::io::Error, path: &Path) -> String {
    let (code, text) = match e.kind() {
        std::io::ErrorKind::NotFound => ("ENOENT", "no such file or directory"),
        std::io::ErrorKind::PermissionDenied => ("EACCES", "permission denied"),
        std::io::ErrorKind::IsADirectory => ("EISDIR", "illegal operation on a directory"),
        _ => return e.to_string(),
    };
    format!("{code}: {text}, open '{}'", path.display())
}

/// Lists and loads one scope directory (names sorted with JS default sort).
pub fn read_scope_dir(dir: &Path, scope: Scope) -> Result<Vec<LoadedCapability>, DiscoveryError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(DiscoveryError {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    let mut names = Vec::new();
    for ent in rd {
        let ent = ent.map_err(|source| DiscoveryError {
            path: dir.to_path_buf(),
            source,
        })?;
        let name = ent.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") || name.starts_with('.') {
            continue;
        }
        let Ok(ft) = ent.file_type() else { continue };
        let keep = if ft.is_symlink() {
            // Kept if the target is a file; a broken link is kept so that it faults.
            match std::fs::metadata(ent.path()) {
                Ok(m) => m.is_file(),
                Err(_) => true,
            }
        } else {
            ft.is_file()
        };
        if keep {
            names.push(name);
        }
    }
    names.sort_by(|a, b| js::cmp_utf16(a, b));
    let mut out: Vec<LoadedCapability> = names
        .iter()
        .map(|n| load_file(&dir.join(n), scope))
        .collect();
    mark_duplicates(&mut out, scope);
    Ok(out)
}

fn mark_duplicates(items: &mut [LoadedCapability], scope: Scope) {
    let ids: Vec<String> = items.iter().map(|c| c.capability.id.clone()).collect();
    for i in 0..items.len() {
        let same: Vec<usize> = (0..items.len()).filter(|&j| ids[j] == ids[i]).collect();
        if same.len() > 1 {
            let files: Vec<String> = same
                .iter()
                .map(|&j| {
                    items[j]
                        .path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                })
                .collect();
            items[i].diagnostics.push(Diagnostic::error(
                None,
                format!(
                    "Duplicate {} capability id: \"{}\" appears in multiple files ({}).",
                    scope.as_str(),
                    ids[i],
                    files.join(", ")
                ),
            ));
        }
    }
}

/// The capability catalog: global entries first, then project entries.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub entries: Vec<LoadedCapability>,
}

impl Catalog {
    /// `readCapabilitiesScoped(cwd)`.
    pub fn discover(roots: &Roots) -> Result<Self, DiscoveryError> {
        let mut entries = Vec::new();
        if let Some(g) = &roots.global {
            entries.extend(read_scope_dir(&g.join("capabilities"), Scope::Global)?);
        }
        if let Some(p) = &roots.project {
            entries.extend(read_scope_dir(
                &p.join(".pi").join("forge").join("capabilities"),
                Scope::Project,
            )?);
        }
        Ok(Self { entries })
    }

    /// Entries with this key.
    pub fn find(&self, key: &ResourceKey) -> Vec<&LoadedCapability> {
        self.entries.iter().filter(|c| c.key == *key).collect()
    }

    /// `resolveCapability(catalog, selector)`: project over global for bare ids, fail closed on
    /// an unusable or ambiguous project match.
    pub fn resolve(&self, selector: &str) -> Result<&LoadedCapability, String> {
        let sel = parse_selector(selector)?;
        let scopes: Vec<Scope> = match sel.scope {
            Some(s) => vec![s],
            None => vec![Scope::Project, Scope::Global],
        };
        for scope in scopes {
            let key = ResourceKey {
                scope,
                id: sel.id.clone(),
            };
            let found = self.find(&key);
            if found.len() > 1 {
                return Err(format!(
                    "Ambiguous capability \"{key}\": multiple definitions found."
                ));
            }
            if let Some(c) = found.first() {
                if let Some(e) = c.diagnostics.first() {
                    return Err(format!(
                        "Capability capability \"{key}\" has errors: {}",
                        e.message
                    ));
                }
                return Ok(c);
            }
        }
        Err(match sel.scope {
            Some(s) => format!(
                "Capability capability \"{}:{}\" not found.",
                s.as_str(),
                sel.id
            ),
            None => format!("Capability capability \"{}\" not found.", sel.id),
        })
    }
}

/// A parsed resource selector `[scope:]id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selector {
    pub scope: Option<Scope>,
    pub id: String,
}

/// The selector grammar (§1.5) with its exact messages.
pub fn parse_selector(raw: &str) -> Result<Selector, String> {
    let s = js::trim(raw);
    if s.is_empty() {
        return Err("Resource selector must not be empty.".into());
    }
    let bad_id = |x: &str| {
        format!("Invalid resource id: {x}. Ids must start with a letter or number and contain only letters, numbers, dots, underscores, and hyphens.")
    };
    let Some((prefix, rest)) = s.split_once(':') else {
        if !valid::is_resource_id(s) {
            return Err(bad_id(s));
        }
        return Ok(Selector {
            scope: None,
            id: s.to_string(),
        });
    };
    let scope = Scope::parse(prefix).ok_or_else(|| {
        format!("Unknown scope prefix: {prefix}. Expected \"project\" or \"global\".")
    })?;
    if !valid::is_resource_id(rest) {
        return Err(bad_id(rest));
    }
    Ok(Selector {
        scope: Some(scope),
        id: rest.to_string(),
    })
}

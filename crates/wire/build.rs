//! Embeds the model catalog of every supported Pi release: for each release in
//! `forge_replay_model::release::PiRelease::ALL`, the data files under `data/pi-ai-<version>/`
//! (pi-ai's own `dist/providers/data/*.json` and `.manifest.json`, byte for byte) become
//! `include_str!`s in `$OUT_DIR/catalog_data.rs`, in file-name order. Adding a release is adding
//! its folder and its `PiRelease` variant; folders of releases the model crate does not list are
//! not embedded.

use std::fmt::Write as _;
use std::path::Path;

use forge_replay_model::release::PiRelease;

fn main() {
    // Read when the script runs, not when it is compiled: a target directory shared by two
    // checkouts (a fresh clone in CI beside the working one) runs one compiled script for both.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("data");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut out = String::from(
        "/// `(version, manifest, [(provider, data file text)])` of one release.\n\
         pub(crate) type ReleaseFiles = (&'static str, &'static str, &'static [(&'static str, &'static str)]);\n\
         /// Every supported release's catalog data.\n\
         pub(crate) const RELEASE_DATA: &[ReleaseFiles] = &[\n",
    );
    for release in PiRelease::ALL {
        let dir = root.join(format!("pi-ai-{}", release.version()));
        println!("cargo:rerun-if-changed={}", dir.display());
        let manifest = dir.join(".manifest.json");
        assert!(
            manifest.is_file(),
            "no catalog for Pi {release}: {} is missing (copy pi-ai's dist/providers/data/)",
            manifest.display()
        );
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
            .collect();
        files.sort();
        let _ = writeln!(
            out,
            "    ({:?}, include_str!({:?}), &[",
            release.version(),
            manifest.display().to_string()
        );
        for f in files {
            let provider = f.trim_end_matches(".json");
            let path = dir.join(&f);
            let _ = writeln!(
                out,
                "        ({provider:?}, include_str!({:?})),",
                path.display().to_string()
            );
        }
        out.push_str("    ]),\n");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("catalog_data.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

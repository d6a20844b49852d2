//! Cache-usage plots with plotters, as PNG or SVG (chosen by the file extension).
//!
//! A font is embedded ([`FONT`], a DejaVu Sans subset under `assets/`) and registered as
//! `sans-serif`, so rendering needs no system font. The inputs are plain data so callers in other
//! crates can feed them: [`SessionPlot`] (main and nested hit rates per request with labelled
//! break markers, and cumulative tokens by kind) and [`CorpusPlot`] (main vs nested hit-rate
//! bars per group).

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

/// The embedded font (DejaVu Sans subset; license in `assets/LICENSE-DejaVu.txt`).
pub static FONT: &[u8] = include_bytes!("../assets/DejaVuSans-subset.ttf");

const FAMILY: &str = "sans-serif";

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font (checked by the tests), so this cannot fail.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// One request along a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestPoint {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

impl RequestPoint {
    /// `cacheRead / (input + cacheRead + cacheWrite)`, `None` when nothing was sent.
    pub fn hit_rate(&self) -> Option<f64> {
        let d = self.input + self.cache_read + self.cache_write;
        (d > 0.0).then(|| self.cache_read / d)
    }
}

/// A labelled marker at a request (0-based index), e.g. a confirmed cache break and its cause.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakMarker {
    pub request: usize,
    pub label: String,
}

/// One nested report (`forgeNestedUsage` with cache counts) along a session.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedPoint {
    /// How many main requests came before the report (it is drawn between request `after` and
    /// `after + 1`).
    pub after: usize,
    pub requests: f64,
    pub input: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

/// Data for [`plot_session`].
#[derive(Debug, Clone, Default)]
pub struct SessionPlot {
    pub title: String,
    pub requests: Vec<RequestPoint>,
    /// Nested reports with cache counts, in path order (drawn as their own hit-rate series).
    pub nested: Vec<NestedPoint>,
    /// Also draw the cumulative main hit rate and a legend.
    pub cumulative: bool,
    /// Markers drawn as labelled vertical lines on the hit-rate panel.
    pub breaks: Vec<BreakMarker>,
}

/// One group of [`plot_corpus`]: its main and nested hit rates side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelBar {
    pub label: String,
    /// `None` when the provider reported no cache data.
    pub hit_rate: Option<f64>,
    pub requests: f64,
    /// Hit rate of the group's nested reports with cache counts (`None`: none, or no data).
    pub nested_hit_rate: Option<f64>,
    /// Nested reports with cache counts.
    pub nested_calls: f64,
}

/// Data for [`plot_corpus`].
#[derive(Debug, Clone, Default)]
pub struct CorpusPlot {
    pub title: String,
    pub bars: Vec<ModelBar>,
}

/// Errors of plotting.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("unsupported plot file extension for {path} (use .png or .svg)")]
    Extension { path: PathBuf },
    #[error("cannot draw {path}: {message}")]
    Draw { path: PathBuf, message: String },
    #[error(transparent)]
    Write(#[from] forge_replay_io::WriteError),
}

type DrawResult = Result<(), String>;

const KINDS: [(&str, RGBColor); 4] = [
    ("cache read", RGBColor(46, 139, 87)),
    ("cache write", RGBColor(230, 140, 30)),
    ("input (uncached)", RGBColor(60, 110, 200)),
    ("output", RGBColor(140, 140, 140)),
];

#[derive(Clone, Copy)]
enum Format {
    Png,
    Svg,
}

fn format_of(path: &Path) -> Result<Format, PlotError> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => Ok(Format::Png),
        Some("svg") => Ok(Format::Svg),
        _ => Err(PlotError::Extension {
            path: path.to_owned(),
        }),
    }
}

/// Whether `path` can take a plot, checked before the work that draws it, so a bad `--plot`
/// never comes after printed or written output: a `.png` or `.svg` name, and a place a file can
/// be written ([`forge_replay_io::check_file_target`]).
pub fn check_path(path: &Path) -> Result<(), PlotError> {
    format_of(path)?;
    Ok(forge_replay_io::check_file_target(path)?)
}

/// Draws SVG into a string.
macro_rules! svg {
    ($size:expr, $draw:ident, $data:expr) => {{
        register_font();
        let mut text = String::new();
        let result = {
            let root = SVGBackend::with_string(&mut text, $size).into_drawing_area();
            $draw(&root, $data).and_then(|()| root.present().map_err(|e| e.to_string()))
        };
        result.map(|()| text)
    }};
}

/// Draws into `path` (PNG or SVG by its extension) through the one atomic writer.
macro_rules! render {
    ($path:expr, $size:expr, $draw:ident, $data:expr) => {{
        let path: &Path = $path;
        register_font();
        let format = format_of(path)?;
        let draw_err = |message: String| PlotError::Draw {
            path: path.to_owned(),
            message,
        };
        match format {
            Format::Png => forge_replay_io::write_atomic_via(path, |tmp: &Path| {
                let root = BitMapBackend::new(tmp, $size).into_drawing_area();
                $draw(&root, $data)
                    .and_then(|()| root.present().map_err(|e| e.to_string()))
                    .map_err(draw_err)
            }),
            Format::Svg => {
                let text = svg!($size, $draw, $data).map_err(draw_err)?;
                Ok(forge_replay_io::write_atomic(path, text.as_bytes())?)
            }
        }
    }};
}

/// Hit rate per request (top) and cumulative tokens by kind (bottom).
pub fn plot_session(data: &SessionPlot, path: &Path) -> Result<(), PlotError> {
    render!(path, (1200, 900), draw_session, data)
}

/// Hit-rate bars per model.
pub fn plot_corpus(data: &CorpusPlot, path: &Path) -> Result<(), PlotError> {
    render!(path, corpus_size(data), draw_corpus, data)
}

fn corpus_size(data: &CorpusPlot) -> (u32, u32) {
    let per = if data.bars.iter().any(|b| b.nested_calls > 0.0) {
        240
    } else {
        170
    };
    ((per * data.bars.len() as u32).clamp(900, 3200), 620)
}

/// [`plot_session`] as SVG text (`name` is used in errors only).
pub fn session_svg(data: &SessionPlot, name: &str) -> Result<String, PlotError> {
    svg!((1200, 900), draw_session, data).map_err(|message| PlotError::Draw {
        path: PathBuf::from(name),
        message,
    })
}

/// [`plot_corpus`] as SVG text (`name` is used in errors only).
pub fn corpus_svg(data: &CorpusPlot, name: &str) -> Result<String, PlotError> {
    svg!(corpus_size(data), draw_corpus, data).map_err(|message| PlotError::Draw {
        path: PathBuf::from(name),
        message,
    })
}

fn e<E: std::fmt::Display>(err: E) -> String {
    err.to_string()
}

fn font(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&BLACK)
}

fn draw_session<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &SessionPlot,
) -> DrawResult {
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(&data.title, font(24)).map_err(e)?;
    let (top, bottom) = root.split_vertically((root.dim_in_pixel().1 as f64 * 0.5) as u32);
    let n = data.requests.len().max(1);
    let xmax = n as f64 + 0.5;

    // Hit rate per request.
    let mut chart = ChartBuilder::on(&top)
        .caption("Cache hit rate per request", font(18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.5f64..xmax, 0f64..105f64)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("request #")
        .y_desc("hit rate %")
        .x_label_formatter(&integer_label)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style(font(14))
        .axis_desc_style(font(15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    let blue = RGBColor(60, 110, 200);
    // Undefined rates (nothing sent) break the line.
    let mut segment: Vec<(f64, f64)> = Vec::new();
    let mut segments = Vec::new();
    for (i, r) in data.requests.iter().enumerate() {
        match r.hit_rate() {
            Some(rate) => segment.push((i as f64 + 1.0, rate * 100.0)),
            None => segments.push(std::mem::take(&mut segment)),
        }
    }
    segments.push(segment);
    for s in &segments {
        chart
            .draw_series(LineSeries::new(s.iter().copied(), blue.stroke_width(2)))
            .map_err(e)?;
    }
    let point_size = if n > 150 { 1 } else { 3 };
    chart
        .draw_series(
            segments
                .iter()
                .flatten()
                .map(|&p| Circle::new(p, point_size, blue.filled())),
        )
        .map_err(e)?;
    let legend = data.cumulative || !data.nested.is_empty();
    // Cumulative main hit rate (tokens summed first, never rates averaged).
    let mut sums = [0f64; 3];
    let cumulative: Vec<(f64, f64)> = data
        .requests
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            sums[0] += r.input;
            sums[1] += r.cache_read;
            sums[2] += r.cache_write;
            let d = sums[0] + sums[1] + sums[2];
            (d > 0.0).then(|| (i as f64 + 1.0, sums[1] / d * 100.0))
        })
        .collect();
    if legend {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
            .map_err(e)?
            .label("main request")
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, blue.filled()));
    }
    if data.cumulative {
        chart
            .draw_series(LineSeries::new(
                cumulative,
                RGBColor(20, 40, 110).stroke_width(1),
            ))
            .map_err(e)?
            .label("main, cumulative")
            .legend(|(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + 20, y)],
                    RGBColor(20, 40, 110).stroke_width(2),
                )
            });
    }
    let orange = RGBColor(230, 120, 20);
    if !data.nested.is_empty() {
        let mut nsum = [0f64; 3];
        let mut points = Vec::new();
        let mut cumulative = Vec::new();
        for p in &data.nested {
            let x = p.after as f64 + 0.5;
            let d = p.input + p.cache_read + p.cache_write;
            if d > 0.0 {
                points.push((x, p.cache_read / d * 100.0));
            }
            nsum[0] += p.input;
            nsum[1] += p.cache_read;
            nsum[2] += p.cache_write;
            let nd = nsum[0] + nsum[1] + nsum[2];
            if nd > 0.0 {
                cumulative.push((x, nsum[1] / nd * 100.0));
            }
        }
        chart
            .draw_series(LineSeries::new(cumulative, orange.stroke_width(2)))
            .map_err(e)?
            .label("nested, cumulative")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], orange.stroke_width(2))
            });
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&p| TriangleMarker::new(p, point_size + 3, orange.filled())),
            )
            .map_err(e)?
            .label("nested report")
            .legend(move |(x, y)| TriangleMarker::new((x + 10, y), 5, orange.filled()));
    }
    let red = RGBColor(200, 40, 40);
    if legend {
        if !data.breaks.is_empty() {
            chart
                .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
                .map_err(e)?
                .label("confirmed break (cause)")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x + 10, y - 6), (x + 10, y + 6)], red.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerLeft)
            .label_font(font(13))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .draw()
            .map_err(e)?;
    }
    for (k, b) in data.breaks.iter().enumerate() {
        let x = b.request as f64 + 1.0;
        chart
            .draw_series(DashedLineSeries::new(
                vec![(x, 0.0), (x, 100.0)],
                6,
                4,
                red.stroke_width(1),
            ))
            .map_err(e)?;
        // Stagger labels so neighbours do not overlap.
        let y = 100.0 - (k % 4) as f64 * 7.0;
        chart
            .plotting_area()
            .draw(&Text::new(
                format!(" {}", b.label),
                (x, y),
                (FAMILY, 13).into_font().color(&red),
            ))
            .map_err(e)?;
    }

    // Cumulative tokens by kind.
    let mut cum = [0f64; 4];
    let mut series: [Vec<(f64, f64)>; 4] = Default::default();
    for (i, r) in data.requests.iter().enumerate() {
        for (k, v) in [r.cache_read, r.cache_write, r.input, r.output]
            .into_iter()
            .enumerate()
        {
            cum[k] += v;
            series[k].push((i as f64 + 1.0, cum[k]));
        }
    }
    let ymax = cum.iter().cloned().fold(1.0, f64::max) * 1.05;
    let mut chart = ChartBuilder::on(&bottom)
        .caption("Cumulative tokens by kind", font(18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.5f64..xmax, 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("request #")
        .y_desc("tokens")
        .x_label_formatter(&integer_label)
        .y_label_formatter(&|v| human(*v))
        .label_style(font(14))
        .axis_desc_style(font(15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    for (k, (name, color)) in KINDS.iter().enumerate() {
        let color = *color;
        chart
            .draw_series(LineSeries::new(
                series[k].iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(e)?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(font(14))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .draw()
        .map_err(e)?;
    Ok(())
}

fn draw_corpus<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, data: &CorpusPlot) -> DrawResult {
    root.fill(&WHITE).map_err(e)?;
    let n = data.bars.len().max(1);
    // Group `i` is centred on x = i; its bars are drawn in data units, so they never overlap
    // whatever the width.
    let mut chart = ChartBuilder::on(root)
        .caption(&data.title, font(22))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..115f64)
        .map_err(e)?;
    let labels: Vec<String> = data.bars.iter().map(|b| b.label.clone()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_desc("cache hit rate %")
        .y_label_formatter(&|v| {
            if *v <= 100.0 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        })
        .x_labels(n + 1)
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .label_style(font(14))
        .axis_desc_style(font(15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    let green = RGBColor(46, 139, 87);
    let orange = RGBColor(230, 120, 20);
    let any_nested = data.bars.iter().any(|b| b.nested_calls > 0.0);
    // With nested data each group holds the main bar (left) and the nested bar (right).
    let span = |i: usize, left: bool| -> (f64, f64) {
        let c = i as f64;
        match (any_nested, left) {
            (false, _) => (c - 0.38, c + 0.38),
            (true, true) => (c - 0.42, c - 0.02),
            (true, false) => (c + 0.02, c + 0.42),
        }
    };
    let bar = |i: usize, rate: f64, left: bool, color: RGBColor| {
        let (x0, x1) = span(i, left);
        Rectangle::new([(x0, 0.0), (x1, rate)], color.filled())
    };
    chart
        .draw_series(data.bars.iter().enumerate().filter_map(|(i, b)| {
            (b.requests > 0.0).then_some(())?;
            Some(bar(i, b.hit_rate? * 100.0, true, green))
        }))
        .map_err(e)?
        .label("main requests")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], green.filled()));
    if any_nested {
        chart
            .draw_series(data.bars.iter().enumerate().filter_map(|(i, b)| {
                (b.nested_calls > 0.0).then_some(())?;
                Some(bar(i, b.nested_hit_rate? * 100.0, false, orange))
            }))
            .map_err(e)?
            .label("nested reports (forgeNestedUsage)")
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], orange.filled()));
    }
    let centred = font(12).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Bottom,
    ));
    let label_y = |rate: Option<f64>| match rate {
        Some(r) => (format!("{:.1}%", r * 100.0), r * 100.0 + 2.0),
        None => ("no cache data".to_owned(), 4.0),
    };
    for (i, b) in data.bars.iter().enumerate() {
        if b.requests > 0.0 {
            let (text, y) = label_y(b.hit_rate);
            let (x0, x1) = span(i, true);
            chart
                .plotting_area()
                .draw(&Text::new(
                    format!("{text} ({} req)", human(b.requests)),
                    ((x0 + x1) / 2.0, y + 3.5),
                    centred.clone(),
                ))
                .map_err(e)?;
        }
        if any_nested && b.nested_calls > 0.0 {
            let (text, y) = label_y(b.nested_hit_rate);
            let (x0, x1) = span(i, false);
            chart
                .plotting_area()
                .draw(&Text::new(
                    format!("{text} ({} calls)", human(b.nested_calls)),
                    ((x0 + x1) / 2.0, y + 3.5),
                    centred.clone(),
                ))
                .map_err(e)?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(font(13))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .draw()
        .map_err(e)?;
    Ok(())
}

/// Request numbers: integers only (fractional mesh positions stay unlabelled).
fn integer_label(v: &f64) -> String {
    if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

/// `1234567` → `1.2M`.
fn human(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SessionPlot {
        SessionPlot {
            title: "test — session".into(),
            requests: (0..20)
                .map(|i| RequestPoint {
                    input: 10.0,
                    output: 50.0,
                    cache_read: if i % 7 == 0 { 0.0 } else { 1000.0 * i as f64 },
                    cache_write: 200.0,
                })
                .collect(),
            cumulative: true,
            nested: vec![NestedPoint {
                after: 3,
                requests: 2.0,
                input: 100.0,
                cache_read: 900.0,
                cache_write: 50.0,
            }],
            breaks: vec![BreakMarker {
                request: 7,
                label: "tool list change".into(),
            }],
        }
    }

    #[test]
    fn font_parses_and_plots_render_without_system_fonts() {
        assert!(ab_glyph_font_ok());
        let dir = tempfile::tempdir().unwrap();
        for ext in ["png", "svg"] {
            let p = dir.path().join(format!("s.{ext}"));
            plot_session(&sample(), &p).unwrap();
            assert!(std::fs::metadata(&p).unwrap().len() > 1000);
            let c = dir.path().join(format!("c.{ext}"));
            let bars = vec![
                ModelBar {
                    label: "a".into(),
                    hit_rate: Some(0.9),
                    requests: 10.0,
                    nested_hit_rate: Some(0.5),
                    nested_calls: 2.0,
                },
                ModelBar {
                    label: "b".into(),
                    hit_rate: None,
                    requests: 3.0,
                    nested_hit_rate: None,
                    nested_calls: 0.0,
                },
            ];
            plot_corpus(
                &CorpusPlot {
                    title: "t".into(),
                    bars,
                },
                &c,
            )
            .unwrap();
            assert!(std::fs::metadata(&c).unwrap().len() > 500);
        }
        assert!(matches!(
            plot_session(&sample(), &dir.path().join("x.gif")),
            Err(PlotError::Extension { .. })
        ));
    }

    fn ab_glyph_font_ok() -> bool {
        plotters::style::register_font("probe", FontStyle::Normal, FONT).is_ok()
    }
}

//! The comparison charts (issue 4, "Comparisons"), drawn with plotters on
//! any backend: the page draws on a canvas (plotters-canvas, in
//! `src/wasm.rs`), the tests on SVG. The page sends a [`ChartSpec`] with the
//! data already in display units (hours); this module only draws.
//!
//! Kinds: `cdf` (JCT CDF, log x), `bars` (one panel per metric, one bar per
//! policy, each panel with its own y scale), `lines` (a quantity over time),
//! `scatter` (one point per job on log-log axes with the diagonal y = x:
//! PCS's predicted against actual completion time), `stack` (one bar per
//! policy made of its `groups` parts, the first solid, the others paler:
//! STS's energy and tardiness cost, Fig. 4b), `front` (points on linear
//! axes, the last series joined as a Pareto front, one of its points
//! ringed: PCS's preference search, where the page needs to know where each
//! point landed, so [`draw_located`] returns their pixel positions).

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;

/// What to draw.
#[derive(Debug, Clone, Deserialize)]
pub struct ChartSpec {
    /// `cdf`, `bars` or `lines`.
    pub kind: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub x_label: String,
    #[serde(default)]
    pub y_label: String,
    /// Panel captions of a `bars` chart (series[i].y[g] is policy i's value in panel g).
    #[serde(default)]
    pub groups: Vec<String>,
    pub series: Vec<SeriesSpec>,
    /// Device pixels per CSS pixel (fonts and strokes are scaled by it).
    #[serde(default = "one")]
    pub scale: f64,
    /// Upper end of the y axis (default: from the data).
    #[serde(default)]
    pub y_max: Option<f64>,
    /// `lines`: logarithmic y axis (non-positive values are not drawn),
    /// as the AFS paper draws the blocking index.
    #[serde(default)]
    pub y_log: bool,
    /// `cdf`: values below this are drawn at it (a log axis has no 0; the
    /// x label should say so), e.g. exact predictions at 0.01%.
    #[serde(default)]
    pub x_floor: Option<f64>,
    /// `front`: the index of the last series' point to ring (the chosen one).
    #[serde(default)]
    pub selected: Option<usize>,
}

fn one() -> f64 {
    1.0
}

/// One policy's data.
#[derive(Debug, Clone, Deserialize)]
pub struct SeriesSpec {
    pub name: String,
    /// `#rrggbb`.
    pub color: String,
    #[serde(default, deserialize_with = "numbers_or_null")]
    pub x: Vec<f64>,
    #[serde(deserialize_with = "numbers_or_null")]
    pub y: Vec<f64>,
}

/// Reads a list of numbers in which `null` stands for NaN: the page's spec reaches
/// the drawing code as JSON text, and JSON writes NaN and the infinities as `null`
/// (a missing value is not drawn either way).
fn numbers_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    let values: Vec<Option<f64>> = Deserialize::deserialize(d)?;
    Ok(values.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
}

fn rgb(hex: &str) -> RGBColor {
    let h = hex.trim_start_matches('#');
    let c = |i: usize| {
        h.get(i..i + 2)
            .and_then(|s| u8::from_str_radix(s, 16).ok())
            .unwrap_or(0)
    };
    RGBColor(c(0), c(2), c(4))
}

type Res = std::result::Result<(), String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Draws `spec` on `root` (cleared first).
pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, spec: &ChartSpec) -> Res {
    draw_located(root, spec).map(|_| ())
}

/// Pixel positions of drawn points, per series (NaN-free points only, in
/// the series' order) for a `front` chart; for a `lines` chart one entry,
/// the plot area's corners `[(x0, y_top, px_left, py_top), (x1, y_bottom,
/// px_right, py_bottom)]`, so the page can draw a time cursor and turn a
/// click into a time; none for the other kinds.
pub type Located = Vec<Vec<(f64, f64, i32, i32)>>;

/// Approximate width of a title character (14 px bold sans-serif), CSS px.
const TITLE_CHAR_W: f64 = 7.6;
/// Room the page keeps free right of a chart's title (its PNG button), CSS px.
const TITLE_RIGHT: f64 = 44.0;

/// `text` broken at spaces into lines of at most `width` characters (a
/// longer word gets a line of its own, whole).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width.max(1) {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// How many x-axis labels fit in `width` device pixels at scale `s` (a
/// label of up to six characters with room around it), between 2 and 10.
fn x_label_count(width: u32, s: f64) -> usize {
    ((width as f64 / (70.0 * s)) as usize).clamp(2, 10)
}

/// Draws `spec` like [`draw`] and says where each point of a `front` chart
/// landed, as (x, y, pixel x, pixel y), so the page can tell which one a
/// click hit.
pub fn draw_located<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
) -> std::result::Result<Located, String> {
    root.fill(&WHITE).map_err(err)?;
    let s = spec.scale.clamp(0.5, 4.0);
    let px = |v: f64| (v * s).round() as i32;
    let (w, _) = root.dim_in_pixel();
    // Title and legend (policy colour chips), shared by every kind.
    let font = |size: f64| ("sans-serif", size * s).into_font();
    let mut y0 = px(4.0);
    // The title wraps at word boundaries (never cut), clear of the page's
    // PNG button in the top right corner (`TITLE_RIGHT` CSS px).
    let title_w = (w as f64 / s - 16.0 - TITLE_RIGHT).max(80.0);
    for line in wrap(&spec.title, (title_w / TITLE_CHAR_W) as usize) {
        root.draw(&Text::new(
            line,
            (px(8.0), y0),
            font(14.0).style(FontStyle::Bold).color(&BLACK),
        ))
        .map_err(err)?;
        y0 += px(18.0);
    }
    if !spec.title.is_empty() {
        y0 += px(2.0);
    }
    let mut x = px(8.0);
    for sr in &spec.series {
        let text_w = (sr.name.chars().count() as f64 * 6.6 * s) as i32;
        if x + px(20.0) + text_w > w as i32 && x > px(8.0) {
            x = px(8.0);
            y0 += px(16.0);
        }
        let c = rgb(&sr.color);
        root.draw(&Rectangle::new(
            [(x, y0 + px(2.0)), (x + px(10.0), y0 + px(12.0))],
            c.filled(),
        ))
        .map_err(err)?;
        root.draw(&Text::new(
            sr.name.clone(),
            (x + px(14.0), y0),
            font(12.0).color(&BLACK),
        ))
        .map_err(err)?;
        x += px(26.0) + text_w;
    }
    y0 += px(18.0);
    let area = root.split_vertically(y0).1;
    match spec.kind.as_str() {
        "cdf" => draw_cdf(&area, spec, s),
        "bars" => draw_bars(&area, spec, s),
        "lines" => return draw_lines(&area, spec, s),
        "scatter" => draw_scatter(&area, spec, s),
        "stack" => draw_stack(&area, spec, s),
        "front" => return draw_front(&area, spec, s),
        other => Err(format!("unknown chart kind '{other}'")),
    }
    .map(|_| Vec::new())
}

fn draw_front<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    s: f64,
) -> std::result::Result<Located, String> {
    let padded = |r: Option<(f64, f64)>| {
        r.map(|(lo, hi)| {
            let pad = if hi > lo {
                (hi - lo) * 0.06
            } else {
                lo.abs().max(1.0) * 0.1
            };
            (lo - pad, hi + pad)
        })
    };
    let xs = padded(finite_range(
        spec.series.iter().flat_map(|r| r.x.iter().copied()),
    ));
    let ys = padded(finite_range(
        spec.series.iter().flat_map(|r| r.y.iter().copied()),
    ));
    let (Some((x0, x1)), Some((y0, y1))) = (xs, ys) else {
        no_data(area, s)?;
        return Ok(Vec::new());
    };
    let mut chart = ChartBuilder::on(area)
        .margin((8.0 * s) as i32)
        .x_label_area_size((34.0 * s) as i32)
        .y_label_area_size((48.0 * s) as i32)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label.clone())
        .y_desc(spec.y_label.clone())
        .label_style(("sans-serif", 11.0 * s))
        .axis_desc_style(("sans-serif", 12.0 * s))
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(err)?;
    let last = spec.series.len().saturating_sub(1);
    let mut located = Vec::with_capacity(spec.series.len());
    for (i, sr) in spec.series.iter().enumerate() {
        let c = rgb(&sr.color);
        let pts: Vec<(f64, f64)> =
            sr.x.iter()
                .zip(&sr.y)
                .map(|(x, y)| (*x, *y))
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
        let (r, alpha) = if i == last { (4.5, 0.9) } else { (2.5, 0.35) };
        if i == last && pts.len() > 1 {
            let mut line = pts.clone();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(line, c.stroke_width((1.5 * s) as u32)))
                .map_err(err)?;
        }
        let radius = (r * s).max(1.0) as i32;
        chart
            .draw_series(
                pts.iter()
                    .map(|&p| Circle::new(p, radius, c.mix(alpha).filled())),
            )
            .map_err(err)?;
        if i == last {
            if let Some(&p) = spec.selected.and_then(|k| pts.get(k)) {
                chart
                    .draw_series([Circle::new(
                        p,
                        (8.0 * s) as i32,
                        BLACK.stroke_width((2.0 * s) as u32),
                    )])
                    .map_err(err)?;
            }
        }
        located.push(
            pts.iter()
                .map(|&(x, y)| {
                    let (px, py) = chart.backend_coord(&(x, y));
                    (x, y, px, py)
                })
                .collect(),
        );
    }
    Ok(located)
}

fn finite_range(vals: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (lo <= hi).then_some((lo, hi))
}

fn no_data<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, s: f64) -> Res {
    area.draw(&Text::new(
        "no data",
        ((20.0 * s) as i32, (20.0 * s) as i32),
        ("sans-serif", 12.0 * s).into_font().color(&BLACK),
    ))
    .map_err(err)
}

fn draw_cdf<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, spec: &ChartSpec, s: f64) -> Res {
    let floor = spec.x_floor.unwrap_or(0.0);
    let at = |x: f64| if floor > 0.0 { x.max(floor) } else { x };
    let xs = spec.series.iter().flat_map(|r| r.x.iter().map(|x| at(*x)));
    let Some((lo, hi)) = finite_range(xs.filter(|v| *v > 0.0)) else {
        return no_data(area, s);
    };
    let (lo, hi) = (lo * 0.9, (hi * 1.1).max(lo * 1.01));
    let mut chart = ChartBuilder::on(area)
        .margin((8.0 * s) as i32)
        .x_label_area_size((34.0 * s) as i32)
        .y_label_area_size((44.0 * s) as i32)
        .build_cartesian_2d((lo..hi).log_scale(), 0.0..1.0)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label.clone())
        .y_desc(spec.y_label.clone())
        .label_style(("sans-serif", 11.0 * s))
        .axis_desc_style(("sans-serif", 12.0 * s))
        .x_label_formatter(&|v| short(*v))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(err)?;
    for sr in &spec.series {
        let c = rgb(&sr.color);
        // A step function: each JCT raises the curve at its x.
        let mut pts = Vec::with_capacity(sr.x.len() * 2 + 1);
        let mut prev = 0.0;
        for (x, y) in sr.x.iter().zip(&sr.y) {
            let x = at(*x);
            if x > 0.0 && x.is_finite() {
                pts.push((x, prev));
                pts.push((x, *y));
                prev = *y;
            }
        }
        if let Some(&(x, y)) = pts.last() {
            pts.push((x.max(hi), y));
        }
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width((2.0 * s) as u32)))
            .map_err(err)?;
    }
    Ok(())
}

fn draw_scatter<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    s: f64,
) -> Res {
    let positive = |v: &f64| *v > 0.0 && v.is_finite();
    let all = spec
        .series
        .iter()
        .flat_map(|r| r.x.iter().chain(&r.y).copied())
        .filter(positive);
    let Some((lo, hi)) = finite_range(all) else {
        return no_data(area, s);
    };
    let (lo, hi) = (lo * 0.8, (hi * 1.25).max(lo * 1.01));
    let mut chart = ChartBuilder::on(area)
        .margin((8.0 * s) as i32)
        .x_label_area_size((34.0 * s) as i32)
        .y_label_area_size((44.0 * s) as i32)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label.clone())
        .y_desc(spec.y_label.clone())
        .label_style(("sans-serif", 11.0 * s))
        .axis_desc_style(("sans-serif", 12.0 * s))
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(
            [(lo, lo), (hi, hi)],
            RGBColor(120, 120, 120).stroke_width((1.0 * s).max(1.0) as u32),
        ))
        .map_err(err)?;
    let r = (2.5 * s).max(1.0) as i32;
    for sr in &spec.series {
        let c = rgb(&sr.color);
        let pts =
            sr.x.iter()
                .zip(&sr.y)
                .filter(|(x, y)| positive(x) && positive(y))
                .map(|(x, y)| Circle::new((*x, *y), r, c.mix(0.6).filled()));
        chart.draw_series(pts).map_err(err)?;
    }
    Ok(())
}

fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    s: f64,
) -> std::result::Result<Located, String> {
    let Some((x0, x1)) = finite_range(spec.series.iter().flat_map(|r| r.x.iter().copied())) else {
        return no_data(area, s).map(|_| Vec::new());
    };
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    // With a log axis the data are drawn as log10 values, labelled 10^v.
    let ty = |y: f64| {
        if !spec.y_log {
            y
        } else if y > 0.0 {
            schedlab_core::num::log10(y)
        } else {
            f64::NAN
        }
    };
    let (bottom, top) = if spec.y_log {
        let r = finite_range(spec.series.iter().flat_map(|r| r.y.iter().map(|y| ty(*y))));
        match r {
            Some((lo, hi)) if hi > lo => (lo.floor(), hi.ceil()),
            Some((lo, _)) => (lo.floor() - 1.0, lo.floor() + 1.0),
            None => return no_data(area, s).map(|_| Vec::new()),
        }
    } else {
        let top = spec.y_max.unwrap_or_else(|| {
            finite_range(spec.series.iter().flat_map(|r| r.y.iter().copied()))
                .map_or(1.0, |(_, h)| h * 1.05)
        });
        (0.0, if top > 0.0 { top } else { 1.0 })
    };
    let log = spec.y_log;
    let y_fmt = move |v: &f64| {
        if log {
            power_of_ten_label(*v)
        } else {
            short(*v)
        }
    };
    // A log axis gets one tick per decade (at most ten), so its labels are
    // whole powers of ten and never crowd each other.
    let y_ticks = if log {
        ((top - bottom).round() as usize + 1).min(10)
    } else {
        10
    };
    let mut chart = ChartBuilder::on(area)
        .margin((8.0 * s) as i32)
        .x_label_area_size((34.0 * s) as i32)
        .y_label_area_size(((if log { 54.0 } else { 44.0 }) * s) as i32)
        .build_cartesian_2d(x0..x1, bottom..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label.clone())
        .y_desc(spec.y_label.clone())
        .label_style(("sans-serif", 11.0 * s))
        .axis_desc_style(("sans-serif", 12.0 * s))
        .x_label_formatter(&|v| short(*v))
        .x_labels(x_label_count(area.dim_in_pixel().0, s))
        .y_labels(y_ticks)
        .y_label_formatter(&y_fmt)
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(err)?;
    for sr in &spec.series {
        let c = rgb(&sr.color);
        let pts =
            sr.x.iter()
                .zip(sr.y.iter().map(|y| ty(*y)))
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|(x, y)| (*x, y));
        chart
            .draw_series(LineSeries::new(
                pts,
                c.stroke_width((2.0 * s).max(1.0) as u32),
            ))
            .map_err(err)?;
    }
    let corner = |x: f64, y: f64| {
        let (px, py) = chart.backend_coord(&(x, y));
        (x, y, px, py)
    };
    Ok(vec![vec![corner(x0, top), corner(x1, bottom)]])
}

/// The label of log10 value `v` on a log axis: the power of ten written out
/// between 0.001 and 10,000, else as `1e-7`; nothing between decades.
fn power_of_ten_label(v: f64) -> String {
    let e = v.round();
    if (v - e).abs() > 1e-6 {
        return String::new();
    }
    if (-3.0..=4.0).contains(&e) {
        short(schedlab_core::num::pow(10.0, e))
    } else {
        format!("1e{}", e as i64)
    }
}

fn draw_bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, spec: &ChartSpec, s: f64) -> Res {
    let g = spec.groups.len();
    if g == 0 || spec.series.is_empty() {
        return no_data(area, s);
    }
    let n = spec.series.len();
    let panels = area.split_evenly((1, g));
    for (gi, panel) in panels.iter().enumerate() {
        let vals: Vec<f64> = spec
            .series
            .iter()
            .map(|sr| sr.y.get(gi).copied().unwrap_or(f64::NAN))
            .collect();
        let top = finite_range(vals.iter().copied()).map_or(1.0, |(_, h)| h * 1.18);
        let top = if top > 0.0 { top } else { 1.0 };
        let mut chart = ChartBuilder::on(panel)
            .margin((6.0 * s) as i32)
            .caption(spec.groups[gi].clone(), ("sans-serif", 12.0 * s))
            .y_label_area_size((40.0 * s) as i32)
            .x_label_area_size((4.0 * s) as i32)
            .build_cartesian_2d(0.0..n as f64, 0.0..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .label_style(("sans-serif", 11.0 * s))
            .y_label_formatter(&|v| short(*v))
            .light_line_style(RGBColor(238, 238, 238))
            .draw()
            .map_err(err)?;
        for (i, v) in vals.iter().enumerate() {
            if !v.is_finite() {
                continue;
            }
            let c = rgb(&spec.series[i].color);
            let (l, r) = (i as f64 + 0.12, i as f64 + 0.88);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(l, 0.0), (r, *v)],
                    c.filled(),
                )))
                .map_err(err)?;
            let label = short(*v);
            let (bx, by) = chart.backend_coord(&(i as f64 + 0.5, *v));
            let (base_x, base_y) = panel.get_base_pixel();
            // A label as wide as its bar's slot at most, else none: values that
            // would run into each other are left to the table (and the chart's
            // text alternative on the page).
            let slot = chart.backend_coord(&(1.0, 0.0)).0 - chart.backend_coord(&(0.0, 0.0)).0;
            let tw = (label.len() as f64 * 6.0 * s) as i32;
            if tw + (4.0 * s) as i32 > slot {
                continue;
            }
            panel
                .draw(&Text::new(
                    label,
                    (bx - tw / 2 - base_x, by - (14.0 * s) as i32 - base_y),
                    ("sans-serif", 10.0 * s).into_font().color(&BLACK),
                ))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// One bar per policy, stacked from its values `y[0..groups]`: the first
/// part in the policy's colour, each later one paler; the total on top and
/// the parts named under the axis.
fn draw_stack<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, spec: &ChartSpec, s: f64) -> Res {
    let n = spec.series.len();
    if n == 0 || spec.groups.is_empty() {
        return no_data(area, s);
    }
    let total = |sr: &SeriesSpec| sr.y.iter().filter(|v| v.is_finite()).sum::<f64>();
    let top = spec.series.iter().map(total).fold(0.0, f64::max) * 1.15;
    let top = if top > 0.0 { top } else { 1.0 };
    let parts = spec
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| format!("{g} ({})", if i == 0 { "solid" } else { "pale" }))
        .collect::<Vec<_>>()
        .join(", ");
    let mut chart = ChartBuilder::on(area)
        .margin((8.0 * s) as i32)
        .y_label_area_size((48.0 * s) as i32)
        .x_label_area_size((22.0 * s) as i32)
        .build_cartesian_2d(0.0..n as f64, 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .x_desc(parts)
        .y_desc(spec.y_label.clone())
        .label_style(("sans-serif", 11.0 * s))
        .axis_desc_style(("sans-serif", 11.0 * s))
        .y_label_formatter(&|v| short(*v))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(err)?;
    for (i, sr) in spec.series.iter().enumerate() {
        let c = rgb(&sr.color);
        let (l, r) = (i as f64 + 0.15, i as f64 + 0.85);
        let mut base = 0.0;
        for (k, v) in sr.y.iter().enumerate() {
            if !(v.is_finite() && *v > 0.0) {
                continue;
            }
            let style = if k == 0 {
                c.filled()
            } else {
                c.mix(0.35).filled()
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(l, base), (r, base + v)],
                    style,
                )))
                .map_err(err)?;
            base += v;
        }
        chart
            .draw_series(std::iter::once(Text::new(
                short(base),
                (i as f64 + 0.3, base + top * 0.06),
                ("sans-serif", 10.0 * s).into_font().color(&BLACK),
            )))
            .map_err(err)?;
    }
    Ok(())
}

/// A compact axis label: at most 3 significant digits, no trailing zeros.
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let a = v.abs();
    let text = if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        // Three significant digits: count the leading zeros without logarithms.
        let mut digits = 2;
        let mut x = a;
        while x < 1.0 && digits < 14 {
            x *= 10.0;
            digits += 1;
        }
        format!("{v:.digits$}")
    };
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(spec: &ChartSpec) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (640, 300)).into_drawing_area();
            draw(&root, spec).unwrap();
            root.present().unwrap();
        }
        out
    }

    fn series(name: &str, color: &str, x: Vec<f64>, y: Vec<f64>) -> SeriesSpec {
        SeriesSpec {
            name: name.into(),
            color: color.into(),
            x,
            y,
        }
    }

    fn spec(kind: &str, series: Vec<SeriesSpec>, groups: Vec<String>) -> ChartSpec {
        ChartSpec {
            kind: kind.into(),
            title: "T".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            groups,
            series,
            scale: 1.0,
            y_max: None,
            y_log: false,
            x_floor: None,
            selected: None,
        }
    }

    #[test]
    fn stack_draws_each_part_of_each_policy() {
        let a = series("sts", "#009e73", vec![], vec![200.0, 0.0]);
        let b = series("edf", "#d55e00", vec![], vec![250.0, 100.0]);
        let out = svg(&spec(
            "stack",
            vec![a, b],
            vec!["GPU cost".into(), "tardiness".into()],
        ));
        // Bars: sts's GPU part, edf's two parts (plus the two legend chips).
        // edf's colour: its legend chip and its two parts.
        assert!(out.to_lowercase().matches("#d55e00").count() >= 3, "{out}");
        assert!(
            out.contains("350") && out.contains("GPU cost (solid)"),
            "{out}"
        );
        assert!(out.contains("opacity=\"0.35\""), "{out}");
    }

    #[test]
    fn front_says_where_each_point_landed_and_rings_the_chosen_one() {
        let cloud = series(
            "evaluated",
            "#bbbbbb",
            vec![1.0, 3.0, f64::NAN],
            vec![5.0, 6.0, 1.0],
        );
        let front = series("front", "#e15759", vec![1.0, 2.0, 4.0], vec![4.0, 2.0, 1.0]);
        let mut sp = spec("front", vec![cloud, front], vec![]);
        sp.selected = Some(1);
        let mut out = String::new();
        let located = {
            let root = SVGBackend::with_string(&mut out, (640, 300)).into_drawing_area();
            let l = draw_located(&root, &sp).unwrap();
            root.present().unwrap();
            l
        };
        // The NaN point is skipped; 2 + 3 points, the ring, the front's line.
        assert_eq!(located.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(out.matches("<circle").count(), 6, "{out}");
        assert!(out.contains("polyline"));
        // Pixels follow the data: larger x to the right, larger y higher up.
        let f = &located[1];
        assert!(f[0].2 < f[1].2 && f[1].2 < f[2].2);
        assert!(f[0].3 < f[1].3 && f[1].3 < f[2].3);
        assert_eq!((f[1].0, f[1].1), (2.0, 2.0));
        // Inside the canvas.
        assert!(f
            .iter()
            .all(|p| (0..640).contains(&p.2) && (0..300).contains(&p.3)));
        // Other kinds but `lines` (its plot area) locate nothing.
        sp.kind = "cdf".into();
        let mut o = String::new();
        let root = SVGBackend::with_string(&mut o, (640, 300)).into_drawing_area();
        assert!(draw_located(&root, &sp).unwrap().is_empty());
    }

    #[test]
    fn scatter_draws_a_point_per_job_and_the_diagonal() {
        let a = series("pcs", "#009e73", vec![1.0, 2.0, 4.0], vec![1.0, 2.5, 0.0]);
        let out = svg(&spec("scatter", vec![a], vec![]));
        // Two drawable points (a zero cannot sit on a log axis), the y = x line.
        assert_eq!(out.matches("<circle").count(), 2, "{out}");
        assert!(out.contains("polyline") && out.contains("#009E73"));
        // Exact predictions (0%) appear in an error CDF at its floor.
        let mut cdf = spec(
            "cdf",
            vec![series("fifo", "#e69f00", vec![0.0, 0.0], vec![0.5, 1.0])],
            vec![],
        );
        assert!(svg(&cdf).contains("no data"));
        cdf.x_floor = Some(0.01);
        assert!(svg(&cdf).contains("polyline"));
    }

    #[test]
    fn each_kind_draws_every_policy_in_its_colour() {
        let a = series("fifo", "#e69f00", vec![0.1, 1.0, 10.0], vec![0.3, 0.6, 1.0]);
        let b = series("srtf", "#56b4e9", vec![0.2, 2.0, 20.0], vec![0.3, 0.6, 1.0]);
        for kind in ["cdf", "lines"] {
            let out = svg(&spec(kind, vec![a.clone(), b.clone()], vec![]));
            for needle in ["fifo", "srtf", "#E69F00", "#56B4E9", "polyline"] {
                assert!(out.contains(needle), "{kind}: no {needle}");
            }
        }
        let bars = spec(
            "bars",
            vec![
                series("fifo", "#e69f00", vec![], vec![2.04, 16.6, 22.5]),
                series("maxmin", "#009e73", vec![], vec![0.52, 6.75, 17.4]),
            ],
            vec!["avg JCT h".into(), "p99 JCT h".into(), "makespan h".into()],
        );
        let out = svg(&bars);
        for needle in ["avg JCT h", "makespan h", "2.04", "0.52", "#009E73"] {
            assert!(out.contains(needle), "bars: no {needle}");
        }
        assert!(draw(
            &SVGBackend::with_string(&mut String::new(), (100, 100)).into_drawing_area(),
            &spec("pie", vec![], vec![])
        )
        .is_err());
    }

    /// The blocking index is drawn on a log axis labelled in powers of ten;
    /// zeros (no pending job) are left out.
    #[test]
    fn log_axis_lines() {
        let mut sp = spec(
            "lines",
            vec![series(
                "afs-p",
                "#cc79a7",
                vec![0.0, 1.0, 2.0, 3.0],
                vec![0.0, 0.01, 1.0, 100.0],
            )],
            vec![],
        );
        sp.y_log = true;
        let out = svg(&sp);
        assert!(out.contains("#CC79A7") && out.contains("polyline"));
        let texts: Vec<&str> = out.lines().filter(|l| !l.starts_with('<')).collect();
        for label in ["0.01", "1", "100"] {
            assert!(texts.contains(&label), "no tick {label}: {texts:?}");
        }
        // Eight decades: labelled 1e-8 ... 1 in short forms, none between decades.
        sp.series[0].y = vec![0.0, 2e-8, 1e-3, 0.9];
        let out = svg(&sp);
        let texts: Vec<&str> = out.lines().filter(|l| !l.starts_with('<')).collect();
        assert!(
            texts.contains(&"1e-8") && texts.contains(&"0.001") && texts.contains(&"1"),
            "{texts:?}"
        );
        assert!(
            texts.iter().all(|t| t.len() <= 6),
            "long tick labels: {texts:?}"
        );
        sp.series[0].y = vec![0.0; 4];
        assert!(svg(&sp).contains("no data"));
    }

    #[test]
    fn empty_data_says_so() {
        let out = svg(&spec(
            "cdf",
            vec![series("a", "#000000", vec![], vec![])],
            vec![],
        ));
        assert!(out.contains("no data"));
    }

    #[test]
    fn a_spec_read_from_json_takes_null_for_a_missing_value() {
        // What the page sends: JSON.stringify writes NaN as null.
        let text = r##"{"kind":"bars","series":[{"name":"a","color":"#102030","y":[1.5,null]}]}"##;
        let sp: ChartSpec = serde_json::from_str(text).unwrap();
        let y = &sp.series[0].y;
        assert_eq!(y[0], 1.5);
        assert!(y[1].is_nan());
        assert!(sp.series[0].x.is_empty());
        assert_eq!(sp.scale, 1.0);
    }

    #[test]
    fn titles_wrap_at_words_and_never_lose_one() {
        let t = "Solver time per round (wall-clock, this browser; POP: slowest part)";
        let lines = wrap(t, 30);
        assert!(lines.len() >= 3, "{lines:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= 30), "{lines:?}");
        assert_eq!(lines.join(" "), t);
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            vec!["averyveryverylongword", "x"]
        );
        assert!(wrap("", 10).is_empty());
        // A narrow chart draws every word of its title.
        let mut sp = spec(
            "lines",
            vec![series("a", "#000000", vec![0.0, 1.0], vec![1.0, 2.0])],
            vec![],
        );
        sp.title = t.into();
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (260, 240)).into_drawing_area();
            draw(&root, &sp).unwrap();
            root.present().unwrap();
        }
        for w in t.split_whitespace() {
            assert!(out.contains(w), "title word {w} missing");
        }
    }

    #[test]
    fn a_lines_chart_says_where_its_plot_area_is() {
        let sp = spec(
            "lines",
            vec![series("a", "#000000", vec![2.0, 6.0], vec![1.0, 3.0])],
            vec![],
        );
        let mut out = String::new();
        let located = {
            let root = SVGBackend::with_string(&mut out, (640, 300)).into_drawing_area();
            draw_located(&root, &sp).unwrap()
        };
        assert_eq!(located.len(), 1);
        let [(x0, _, l, t), (x1, _, r, b)] = [located[0][0], located[0][1]];
        assert_eq!((x0, x1), (2.0, 6.0));
        assert!(
            0 < l && l < r && r <= 640 && 0 < t && t < b && b <= 300,
            "{located:?}"
        );
    }

    #[test]
    fn bar_labels_that_would_overlap_are_left_out() {
        let bars = |n: usize, width: u32| {
            let ss = (0..n)
                .map(|i| {
                    series(
                        &format!("p{i}"),
                        "#0072b2",
                        vec![],
                        vec![1.0 + i as f64 * 0.01],
                    )
                })
                .collect();
            let sp = spec("bars", ss, vec!["avg JCT".into()]);
            let mut out = String::new();
            {
                let root = SVGBackend::with_string(&mut out, (width, 300)).into_drawing_area();
                draw(&root, &sp).unwrap();
                root.present().unwrap();
            }
            out
        };
        // Room for each: every value is written.
        let wide = bars(3, 640);
        let texts: Vec<&str> = wide
            .split("<text")
            .skip(1)
            .map(|t| t.split("</text>").next().unwrap_or(""))
            .collect();
        assert!(
            wide.contains(">\n1.01\n") && wide.contains(">\n1.02\n"),
            "labels missing: {texts:?}"
        );
        // Twelve bars in 200 px: no room, so no value labels at all.
        let narrow = bars(12, 200);
        assert!(!narrow.contains(">\n1.01\n"), "overlapping labels drawn");
    }

    #[test]
    fn short_labels() {
        assert_eq!(short(0.5), "0.5");
        assert_eq!(short(12.34), "12.3");
        assert_eq!(short(1234.5), "1234");
        assert_eq!(short(2.0), "2");
        assert_eq!(short(0.001234), "0.00123");
        assert_eq!(short(0.001), "0.001");
        assert_eq!(short(0.05), "0.05");
    }
}

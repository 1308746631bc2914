#include "report/html_report_assets.h"

namespace pypto_golden {

const char* const kReportStyle = R"CSS(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px; color: #1d1d1f; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 18px; margin: 0 0 8px; } h3 { font-size: 15px; margin: 18px 0 6px; }
h4 { font-size: 14px; margin: 12px 0 4px; }
.summary { color: #555; margin-top: 0; }
section.run { border: 1px solid #ddd; border-left: 6px solid #2e7d32; border-radius: 6px; padding: 12px 16px; margin: 18px 0; }
section.run.fail { border-left-color: #c62828; }
.verdict { font-weight: 700; } .PASS { color: #2e7d32; } .FAIL, .ERROR { color: #c62828; }
table { border-collapse: collapse; margin: 4px 0; } td, th { border-bottom: 1px solid #eee; padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
th { color: #555; font-weight: 600; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { height: 10px; background: #5c6bc0; border-radius: 2px; min-width: 1px; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 12px; white-space: pre-wrap; }
figure { display: inline-block; margin: 6px 18px 6px 0; vertical-align: top; } figcaption { font-size: 12px; color: #555; max-width: 480px; }
canvas { border: 1px solid #ccc; background: #fff; }
.path { font-family: monospace; font-size: 12px; color: #555; }
)CSS";

// Draws every canvas from the embedded data, then counts the pixels each picture painted:
// <body data-pictures="N" data-drawn="M"> (M canvases with painted pixels) and each canvas's
// data-pixels let a headless browser check that the pictures drew.
const char* const kReportScript = R"JS(
(function () {
  const data = JSON.parse(document.getElementById("pypto-golden-data").textContent);
  const inf = (v) => (v === null ? Infinity : v);
  function ramp(t) {  // 0..1 -> pale yellow .. dark red
    const stops = [[255, 245, 180], [253, 174, 97], [215, 48, 39], [103, 0, 13]];
    const x = Math.max(0, Math.min(1, t)) * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(x)), f = x - i;
    const c = stops[i].map((v, k) => Math.round(v + (stops[i + 1][k] - v) * f));
    return "rgb(" + c.join(",") + ")";
  }
  function heatmap(canvas, p) {
    const scale = Math.max(2, Math.floor(480 / Math.max(p.grid_rows, p.grid_cols)));
    canvas.width = p.grid_cols * scale; canvas.height = p.grid_rows * scale;
    const g = canvas.getContext("2d");
    let lo = Infinity, hi = -Infinity;
    for (const v of p.max_diff) { const d = inf(v); if (d > 0 && d < Infinity) { lo = Math.min(lo, d); hi = Math.max(hi, d); } }
    const llo = Math.log10(lo), lhi = Math.log10(hi);
    for (let r = 0; r < p.grid_rows; ++r) for (let c = 0; c < p.grid_cols; ++c) {
      const k = r * p.grid_cols + c, d = inf(p.max_diff[k]);
      if (p.unwritten.length && p.unwritten[k]) g.fillStyle = "#9e9e9e";
      else if (d === 0) g.fillStyle = "#f3f6fb";
      else if (d === Infinity) g.fillStyle = "#000";
      else g.fillStyle = ramp(lhi > llo ? (Math.log10(d) - llo) / (lhi - llo) : 1);
      g.fillRect(c * scale, r * scale, scale, scale);
    }
    if (p.worst_cell.length) {  // the worst element's cell, outlined
      const r = Math.floor(p.worst_cell[0] / p.cell_rows), c = Math.floor(p.worst_cell[1] / p.cell_cols);
      g.strokeStyle = "#1e88e5"; g.lineWidth = 2;
      g.strokeRect(c * scale - 3, r * scale - 3, scale + 6, scale + 6);
    }
  }
  function bars(canvas, values, labels, colour, log) {
    const w = 40 + values.length * 26, h = 190;
    canvas.width = w; canvas.height = h;
    const g = canvas.getContext("2d"), top = values.reduce((a, b) => Math.max(a, b), 1);
    g.font = "10px sans-serif"; g.fillStyle = "#555";
    g.fillText(String(top), 2, 10);
    values.forEach((v, i) => {
      const f = log ? Math.log10(1 + v) / Math.log10(1 + top) : v / top;
      const bh = v > 0 ? Math.max(2, Math.round((h - 40) * f)) : 0;
      g.fillStyle = colour(i); g.fillRect(30 + i * 26, h - 28 - bh, 20, bh);
      g.save(); g.translate(40 + i * 26, h - 2); g.rotate(-Math.PI / 4); g.fillStyle = "#555";
      g.fillText(labels[i], 0, 0); g.restore();
    });
    g.strokeStyle = "#999"; g.beginPath(); g.moveTo(28, h - 28); g.lineTo(w, h - 28); g.stroke();
  }
  function histogram(canvas, p) {
    const values = [p.exact].concat(p.decades, [p.nonfinite]);
    const labels = ["0"].concat(p.decades.map((_, i) => "1e" + (p.low_decade + i)), ["nan/inf"]);
    bars(canvas, values, labels, (i) => (i === 0 ? "#8bc34a" : i === values.length - 1 ? "#000" : ramp(i / values.length)),
         true);
  }
  function bench(canvas, samples) {
    const lo = samples.reduce((a, b) => Math.min(a, b)), hi = samples.reduce((a, b) => Math.max(a, b));
    const n = 20, counts = new Array(n).fill(0);
    for (const s of samples) counts[hi > lo ? Math.min(n - 1, Math.floor((s - lo) / (hi - lo) * n)) : 0]++;
    const labels = counts.map((_, i) => (lo + (hi - lo) * i / n).toPrecision(3));
    bars(canvas, counts, labels, () => "#5c6bc0", false);
  }
  function swimlane(canvas, tasks) {
    const lanes = [...new Set(tasks.map((t) => t.device + "/" + t.lane))].sort();
    const end = tasks.reduce((a, t) => Math.max(a, t.end_us), 1e-3), w = 900, lh = 18;
    canvas.width = w + 90; canvas.height = lanes.length * lh + 24;
    const g = canvas.getContext("2d"), names = [...new Set(tasks.map((t) => t.name))];
    g.font = "11px sans-serif";
    lanes.forEach((l, i) => { g.fillStyle = "#555"; g.fillText("dev " + l.replace("/", " w"), 2, i * lh + 13); });
    for (const t of tasks) {
      const y = lanes.indexOf(t.device + "/" + t.lane) * lh + 2;
      g.fillStyle = "hsl(" + (names.indexOf(t.name) * 67 % 360) + ",60%,55%)";
      g.fillRect(90 + t.start_us / end * w, y, Math.max(1, (t.end_us - t.start_us) / end * w), lh - 4);
    }
    g.fillStyle = "#555"; g.fillText(end.toFixed(1) + " us", w + 40, lanes.length * lh + 18);
  }
  const draw = { heatmap: (c, run) => heatmap(c, run.outputs[c.dataset.output].picture),
                 histogram: (c, run) => histogram(c, run.outputs[c.dataset.output].picture),
                 bench: (c, run) => bench(c, run.bench_us), swimlane: (c, run) => swimlane(c, run.swimlane) };
  const canvases = document.querySelectorAll("canvas[data-kind]");
  let drawn = 0;
  canvases.forEach((c) => {
    draw[c.dataset.kind](c, data.runs[c.dataset.run]);
    const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i]) ++n;
    c.dataset.pixels = n;
    if (n > 0) ++drawn;
  });
  document.body.dataset.pictures = canvases.length;
  document.body.dataset.drawn = drawn;
})();
)JS";

}  // namespace pypto_golden

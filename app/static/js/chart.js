// Line charts drawn by hand as inline SVG, so the client needs no chart library: the match
// page's score chart (both teams' running totals over the deals, with the target line) and
// a profile's rating history.

const NS = "http://www.w3.org/2000/svg";
const PAD = { left: 50, right: 14, top: 18, bottom: 44 };

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A round step for the value axis: about five gridlines up to `max`. */
function gridStep(max) {
  const rough = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough);
}

/** The chart's <svg> with its title, description, gridlines from `yMin` to `yMax` every
 *  `step`, the points' numbers along the bottom (from point `first` on, numbered from 1)
 *  and both axes' names. */
function chartFrame({ id, width, height, labels, className, yMin, yMax, step, count, x, y, first = 1 }) {
  const plotW = width - PAD.left - PAD.right, plotH = height - PAD.top - PAD.bottom;
  const root = svg("svg", {
    id, viewBox: `0 0 ${width} ${height}`, role: "img", class: className,
    "aria-labelledby": `${id}-title ${id}-desc`, preserveAspectRatio: "xMidYMid meet",
  });
  root.append(svg("title", { id: `${id}-title` }, labels.title),
              svg("desc", { id: `${id}-desc` }, labels.desc));
  const grid = svg("g", { class: "chart-grid" });
  for (let v = yMin; v <= yMax; v += step) {
    grid.append(svg("line", { x1: PAD.left, x2: width - PAD.right, y1: y(v), y2: y(v) }),
                svg("text", { x: PAD.left - 8, y: y(v) + 4, "text-anchor": "end" }, v));
  }
  const every = Math.ceil((count - 1) / Math.floor(plotW / 40)) || 1; // no crowding
  for (let i = first; i < count; i += every) {
    grid.append(svg("text", { x: x(i), y: height - PAD.bottom + 18, "text-anchor": "middle" }, i - first + 1));
  }
  grid.append(
    svg("text", { class: "chart-axis", x: PAD.left + plotW / 2, y: height - 6,
                  "text-anchor": "middle" }, labels.x),
    svg("text", { class: "chart-axis", x: 14, y: PAD.top + plotH / 2, "text-anchor": "middle",
                  transform: `rotate(-90 14 ${PAD.top + plotH / 2})` }, labels.y),
  );
  root.append(grid);
  return root;
}

/**
 * The chart of `totals` (one `[team0, team1]` pair per deal, the score after it) with a
 * dashed line at the target: `targets` holds the target before the first deal, then the
 * one after each deal (a valat may raise it), drawn as steps where it rose. `labels` holds
 * the translated texts: `title`, `desc`, `x`, `y`, `teams` (two names) and `target` (of the
 * last target). `width` and `height` are in text pixels: a narrow chart for a phone keeps
 * its labels readable.
 */
export function scoreChart({ totals, targets, labels, id = "score-chart", width = 640, height = 300 }) {
  const points = [[0, 0], ...totals];
  const top = Math.max(...targets, ...points.flat()) * 1.08;
  const step = gridStep(top);
  const yMax = Math.ceil(top / step) * step;
  const plotW = width - PAD.left - PAD.right, plotH = height - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (points.length > 1 ? (i / (points.length - 1)) * plotW : 0);
  const y = (v) => PAD.top + plotH - (v / yMax) * plotH;

  const root = chartFrame({ id, width, height, labels, className: "score-chart", yMin: 0, yMax, step,
    count: points.length, x, y });

  // The target in force during deal i is targets[i - 1]: a flat step per deal, a rise
  // drawn where the deal that raised it ends; a single deal's chart still spans the width.
  const last = targets[targets.length - 1];
  const steps = targets.slice(1).map((v, i) => `H${x(i + 1).toFixed(1)}V${y(v).toFixed(1)}`);
  root.append(
    svg("path", { class: "chart-target", d: `M${PAD.left},${y(targets[0]).toFixed(1)}${steps.join("")}`
                  + `H${width - PAD.right}` }),
    targetLabel(labels.target, points, targets, { width, x, y }),
  );

  for (const team of [0, 1]) {
    const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p[team]).toFixed(1)}`).join(" ");
    const series = svg("g", { class: `chart-team chart-team-${team}` });
    series.append(svg("polyline", { points: line }));
    points.forEach((p, i) => {
      if (i === 0) return;
      const dot = svg("circle", { cx: x(i), cy: y(p[team]), r: 3.5 });
      dot.append(svg("title", {}, `${labels.teams[team]}: ${p[team]}`));
      series.append(dot);
    });
    root.append(series);
  }
  return root;
}

const LABEL_H = 13; // px of a label's text above its baseline, at the chart's text size
const CHAR_W = 7; // px a character of it takes, at most: its box before it is drawn

/** The target's label where neither team's line crosses it: above the line at the end,
 *  below it, then (if the target never rose, so that the line's start is the last
 *  target's) above or below it at the start; above at the end if none is clear. */
function targetLabel(text, points, targets, { width, x, y }) {
  const last = targets[targets.length - 1];
  const textW = text.length * CHAR_W;
  const right = width - PAD.right - 4, left = PAD.left + 4;
  const places = [[right, y(last) - 6], [right, y(last) + 6 + LABEL_H]];
  if (targets.every((v) => v === last)) places.push([left, y(last) - 6], [left, y(last) + 6 + LABEL_H]);
  const lines = [0, 1].map((team) => points.map((p, i) => [x(i), y(p[team])]));
  const [px, py] = places.find(([lx, baseline]) => {
    const x0 = lx === right ? right - textW : left;
    return !lines.some((line) => crosses(line, [x0, baseline - LABEL_H, x0 + textW, baseline + 2]));
  }) || places[0];
  return svg("text", { class: "chart-target-label", x: px, y: py, "text-anchor": px === right ? "end" : "start" }, text);
}

/** Whether a polyline (pixel points) passes through a box [x0, y0, x1, y1]. */
function crosses(line, [x0, y0, x1, y1]) {
  return line.slice(1).some(([bx, by], i) => {
    const [ax, ay] = line[i];
    for (let t = 0; t <= 1; t += 1 / 64) {
      const px = ax + (bx - ax) * t, py = ay + (by - ay) * t;
      if (px >= x0 && px <= x1 && py >= y0 && py <= y1) return true;
    }
    return false;
  });
}

/**
 * A rating's history: `values` (the rating after each rated match, oldest first) as one
 * line, each point titled by `pointLabel(i)`. `labels` as for scoreChart, without teams or
 * target.
 */
export function ratingChart({ values, labels, pointLabel, id = "rating-chart", width = 640, height = 260 }) {
  const low = Math.min(...values), high = Math.max(...values);
  const step = gridStep(Math.max(high - low, 50) * 1.2);
  const yMin = Math.floor(low / step) * step, yMax = Math.max(Math.ceil(high / step) * step, yMin + step);
  const plotW = width - PAD.left - PAD.right, plotH = height - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (values.length > 1 ? (i / (values.length - 1)) * plotW : plotW / 2);
  const y = (v) => PAD.top + plotH - ((v - yMin) / (yMax - yMin)) * plotH;
  const root = chartFrame({ id, width, height, labels, className: "score-chart rating-chart", yMin, yMax, step,
    count: values.length, x, y, first: 0 });
  const series = svg("g", { class: "chart-team chart-rating" });
  series.append(svg("polyline", { points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }));
  values.forEach((v, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(v), r: 3.5 });
    dot.append(svg("title", {}, pointLabel(i)));
    series.append(dot);
  });
  root.append(series);
  return root;
}

// The pictures an answer carries: the chart data of a tool_call's complete event drawn as plain SVG (or, for
// the matchup grid, a table), node by node, so no text from the data is ever read as markup. Loaded before
// chat.js, which calls addChart; both are classic scripts sharing the page's global names.

const SVG = "http://www.w3.org/2000/svg";

function svgNode(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = visible(text);
  return node;
}

// Colour by the model estimate (a 1-0 cell reads near even, a 30-10 one clearly green), faded by the decided
// matches behind it (full colour from SOLID matches up); HEAT_RANGE points off 50% is the full colour.
const HEAT_RANGE = 15, SOLID = 20;

function heat(estimate, matches = SOLID) {  // red (lost) through pale (even) to green (won)
  if (estimate === null || estimate === undefined) return "#eee";
  const t = Math.max(-1, Math.min(1, (estimate - 50) / HEAT_RANGE));
  const from = [240, 240, 235], to = t < 0 ? [225, 95, 85] : [80, 175, 95], k = Math.abs(t);
  const [r, g, b] = from.map((v, i) => Math.round(v + (to[i] - v) * k));
  const alpha = 0.3 + 0.7 * Math.min(1, matches / SOLID);
  return `rgba(${r},${g},${b},${alpha.toFixed(2)})`;
}

function rateText(rate) {
  if (rate[0] === null) return "no decided matches";
  const estimate = rate[4] === null || rate[4] === undefined ? "" : `; estimate ${rate[4].toFixed(1)}%`;
  return `${rate[0].toFixed(1)}% (95% CI ${Math.round(rate[1])}-${Math.round(rate[2])}%, ${rate[3]} matches${estimate})`;
}

// The pixel width a chart is drawn at: the answer's width (less padding), 300 to 720 px.
function chartWidth() {
  return Math.max(300, Math.min(720, log.clientWidth - 40));
}

// A label that fits ``room`` pixels at 12 px (about 6.8 px a character), shortened with "…" when it does not.
const CHAR_PX = 6.8;
function fit(name, room) {
  const most = Math.floor(room / CHAR_PX);
  return name.length <= most ? name : `${name.slice(0, Math.max(1, most - 1))}…`;
}

// The label column: as wide as the longest name, at most ``share`` of the chart.
function labelWidth(names, total, share) {
  return Math.min(Math.round(total * share), Math.ceil(Math.max(...names.map((n) => n.length)) * CHAR_PX) + 8);
}

function legend() {
  const div = document.createElement("div");
  div.className = "legend";
  const swatch = (colour, words) => {
    const span = document.createElement("span");
    const box = document.createElement("span");
    box.className = "swatch";
    box.style.background = colour;
    span.append(box, ` ${words}`);
    return span;
  };
  div.append(
    "Colour: model estimate",
    swatch(heat(50 - HEAT_RANGE), `≤${50 - HEAT_RANGE}%`),
    swatch(heat(50), "50%"),
    swatch(heat(50 + HEAT_RANGE), `≥${50 + HEAT_RANGE}%`),
    swatch(heat(50 + HEAT_RANGE, 2), `faded: under ${SOLID} decided matches`),
  );
  return div;
}

function figure(caption, ...parts) {
  const fig = document.createElement("figure");
  fig.className = "chart";
  const cap = document.createElement("figcaption");
  cap.textContent = visible(caption);
  fig.append(cap, ...parts);
  return fig;
}

function sizedSvg(width, height, label) {
  return svgNode("svg", {viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": label});
}

function metaShareChart(data) {
  const rows = data.rows, height = 22 * rows.length + 10, max = Math.max(...rows.map((r) => r.share), 1);
  const total = chartWidth(), labels = labelWidth(rows.map((r) => r.name), total, 0.42), room = total - labels - 90;
  const svg = sizedSvg(total, height, `Meta share in ${data.format}`);
  rows.forEach((row, i) => {
    const y = 5 + 22 * i, width = room * row.share / max;
    svg.append(svgNode("text", {x: labels, y: y + 14, "text-anchor": "end"}, fit(row.name, labels - 4)));
    const bar = svgNode("rect", {x: labels + 8, y, width, height: 16, fill: "#6b5bb5", class: "bar", "data-name": row.name});
    bar.append(svgNode("title", {}, `${row.name}: ${row.share.toFixed(1)}% of decks; win rate ${rateText(row.rate)}`));
    svg.append(bar);
    const trend = row.trend === null ? "" : row.trend > 0 ? ` ▲${row.trend.toFixed(1)}` : row.trend < 0 ? ` ▼${(-row.trend).toFixed(1)}` : " ▶0.0";
    svg.append(svgNode("text", {x: labels + 14 + width, y: y + 13}, `${row.share.toFixed(1)}%${trend}`));
  });
  return figure(`Meta share in ${data.format}, ${data.period.start} to ${data.period.end} (arrows: change in points against the window before)`, svg);
}

// The top archetypes against each other as a table (real text at 12 px, the row names held while it scrolls
// sideways on a phone), each cell coloured by its model estimate and faded by its sample size.
function gridChart(data) {
  const table = document.createElement("table");
  table.className = "heatmap";
  table.tabIndex = 0;
  table.setAttribute("aria-label", `Matchup grid of ${data.format}`);
  const head = table.createTHead().insertRow();
  const corner = document.createElement("th");
  corner.textContent = "vs";
  head.append(corner);
  for (const name of data.archetypes) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = visible(name);
    head.append(th);
  }
  const body = table.createTBody();
  data.archetypes.forEach((name, i) => {
    const row = body.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = visible(name);
    row.append(th);
    data.cells[i].forEach((cell, j) => {
      const td = row.insertCell();
      td.className = "cell";
      if (!cell) {
        td.style.background = "#ddd";
        td.textContent = "mirror";
        td.title = `${name} mirror: ${data.mirrors[i]} matches`;
        return;
      }
      td.style.background = heat(cell[4], cell[3]);
      td.title = `${name} vs ${data.archetypes[j]}: ${rateText(cell)}`;
      const small = document.createElement("small");
      small.textContent = `n=${cell[3]}`;
      td.append(cell[0] === null ? "–" : `${Math.round(cell[0])}%`, document.createElement("br"), small);
    });
  });
  return figure(`Matchups in ${data.format}: row against column, win rate and decided matches (hover or tap for the interval)`, table, legend());
}

// On a narrow screen each name goes above its row, so the plot keeps most of the width.
const NARROW_CHART = 480;

function spreadChart(data) {
  const total = chartWidth(), rows = data.rows, narrow = total < NARROW_CHART, rowHeight = narrow ? 30 : 22;
  const height = rowHeight * rows.length + 30;
  const x0 = narrow ? 10 : labelWidth(rows.map((r) => r.name), total, 0.4) + 8, w = total - x0 - (narrow ? 82 : 100);
  const svg = sizedSvg(total, height, `Matchup spread of ${data.archetype}`);
  const at = (rate) => x0 + w * rate / 100;
  svg.append(svgNode("line", {x1: at(50), x2: at(50), y1: 0, y2: height - 20, stroke: "#999", "stroke-dasharray": "3 3"}));
  for (const [tick, anchor] of [[0, "start"], [50, "middle"], [100, "end"]]) {
    svg.append(svgNode("text", {x: at(tick), y: height - 6, "text-anchor": anchor, class: "tick"}, `${tick}%`));
  }
  rows.forEach((row, i) => {
    const y = 6 + rowHeight * i + (narrow ? 12 : 0), [rate, low, high, n] = row.rate;
    const name = narrow
      ? svgNode("text", {x: x0, y: y - 1}, fit(row.name, total - x0))
      : svgNode("text", {x: x0 - 8, y: y + 13, "text-anchor": "end"}, fit(row.name, x0 - 12));
    svg.append(name);
    const estimate = row.rate[4] ?? rate;  // the bar is the model's estimate (the order), the dot what was measured
    svg.append(svgNode("rect", {x: at(Math.min(estimate, 50)), y: y + 3, width: Math.abs(at(estimate) - at(50)), height: 12, fill: heat(estimate, n), class: "bar", "data-estimate": estimate}));
    svg.append(svgNode("line", {x1: at(low), x2: at(high), y1: y + 9, y2: y + 9, stroke: "#333", class: "whisker"}));
    const dot = svgNode("circle", {cx: at(rate), cy: y + 9, r: 3.5, fill: "#333"});
    dot.append(svgNode("title", {}, `vs ${row.name}: ${rateText(row.rate)}, ${row.verdict}`));
    svg.append(dot);
    svg.append(svgNode("text", {x: x0 + w + 8, y: y + 13}, `${Math.round(rate)}% (n=${n})`));
  });
  return figure(`${data.archetype} in ${data.format} against the opponents met most: bars are the model's estimate (best first), dots the measured win rate with its 95% interval`, svg, legend());
}

const COLOURS = {W: "#f4eecb", U: "#9cc3e6", B: "#a29a95", R: "#e79a85", G: "#9bc99b", C: "#cfcfd6"};

// One bar per colour identity, as wide as the answer allows (26 to 46 px); a name wider than its bar is slanted,
// and a pool of more identities than fit scrolls sideways, said in the caption.
function poolChart(data) {
  const cols = data.columns, max = Math.max(...cols.map((c) => c[1]), 1);
  const w = Math.max(26, Math.min(46, Math.floor((chartWidth() - 46) / cols.length)));
  const slanted = cols.some(([identity]) => (identity || "C").length * CHAR_PX > w - 4), height = slanted ? 215 : 190;
  const pad = slanted ? 36 : 10, width = cols.length * w + pad + 10;  // a slanted name reaches left of its bar
  const svg = sizedSvg(width, height, `Cards by colour in ${data.draft}`);
  cols.forEach(([identity, count], i) => {
    const h = 140 * count / max, x = pad + i * w, middle = x + (w - 8) / 2;
    const colour = identity.length === 1 ? COLOURS[identity] || "#ccc" : "#e6c96b";
    svg.append(svgNode("rect", {x, y: 160 - h, width: w - 8, height: h, fill: colour, stroke: "#777", class: "bar"}));
    svg.append(svgNode("text", {x: middle, y: 155 - h, "text-anchor": "middle"}, String(count)));
    const label = slanted
      ? svgNode("text", {x: middle + 4, y: 174, "text-anchor": "end", transform: `rotate(-40 ${middle + 4} 174)`}, identity || "C")
      : svgNode("text", {x: middle, y: 176, "text-anchor": "middle"}, identity || "C");
    svg.append(label);
  });
  const more = width > chartWidth() ? ` (${cols.length} identities: scroll sideways for the rest)` : "";
  return figure(`${data.draft}: cards by colour identity${more}`, svg);
}

const CHARTS = {meta_share: metaShareChart, matchup_grid: gridChart, spread: spreadChart, pool: poolChart};

function addChart(data, answer) {
  const draw = CHARTS[data.kind];
  if (!draw) return;
  const stick = nearBottom();
  const chart = draw(data);
  log.appendChild(chart);
  markWideTables(chart);
  if (chart.scrollWidth > chart.clientWidth + 1) {  // it scrolls sideways: it takes the focus, so arrow keys scroll it
    chart.tabIndex = 0;
    chart.setAttribute("aria-label", chart.querySelector("figcaption").textContent);
  }
  answer.chart = answer.chart || chart;
  if (stick) log.scrollTop = log.scrollHeight;
}

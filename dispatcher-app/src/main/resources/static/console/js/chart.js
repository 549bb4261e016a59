// A small SVG line chart of one series over time: no library, no inline styles (the CSP forbids them).

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 400;
const HEIGHT = 130;
const LEFT = 42;
const BOTTOM = 16;

function svg(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    element.setAttribute(name, String(value));
  }
  return element;
}

/**
 * Draws {@code points} ({t: epoch ms, v: number}) into a new SVG element with a y axis from 0 to the maximum and
 * the time span on the x axis; {@code format} renders the y labels.
 */
export function lineChart(points, { id, format = String, emptyText = 'No samples yet' } = {}) {
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: 'none', role: 'img' });
  if (id) {
    root.setAttribute('id', id);
  }
  const plotWidth = WIDTH - LEFT - 4;
  const plotHeight = HEIGHT - BOTTOM - 6;
  root.append(svg('line', { class: 'axis', x1: LEFT, y1: 6 + plotHeight, x2: WIDTH - 4, y2: 6 + plotHeight }));
  root.append(svg('line', { class: 'axis', x1: LEFT, y1: 6, x2: LEFT, y2: 6 + plotHeight }));
  if (points.length === 0) {
    const text = svg('text', { x: LEFT + 8, y: HEIGHT / 2 });
    text.textContent = emptyText;
    root.append(text);
    return root;
  }
  const max = Math.max(1e-9, ...points.map((p) => p.v));
  const t0 = points[0].t;
  const span = Math.max(1, points[points.length - 1].t - t0);
  const x = (t) => LEFT + (points.length === 1 ? plotWidth : ((t - t0) / span) * plotWidth);
  const y = (v) => 6 + plotHeight - (v / max) * plotHeight;
  const line = points.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ');
  root.append(svg('polygon', {
    class: 'area',
    points: `${x(points[0].t).toFixed(1)},${6 + plotHeight} ${line} ${x(points[points.length - 1].t).toFixed(1)},${6 + plotHeight}`,
  }));
  root.append(svg('polyline', { class: 'series', points: line }));
  for (const [value, yPos] of [[max, 12], [0, 6 + plotHeight]]) {
    const label = svg('text', { x: 2, y: yPos });
    label.textContent = format(value);
    root.append(label);
  }
  const minutes = Math.round(span / 60000);
  const label = svg('text', { x: LEFT, y: HEIGHT - 2 });
  label.textContent = minutes >= 1 ? `last ${minutes} min` : `last ${Math.round(span / 1000)} s`;
  root.append(label);
  return root;
}

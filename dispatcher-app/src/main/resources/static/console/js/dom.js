// Tiny DOM helpers: elements are built with h(), never from HTML strings, so text from the API is never markup.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) {
      continue;
    }
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      element.className = value;
    } else if (value === true) {
      element.setAttribute(name, '');
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) {
      continue;
    }
    if (Array.isArray(child)) {
      append(element, child);
    } else {
      element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
}

/** Replaces the children of {@code element}. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

export function number(value) {
  return value === undefined || value === null ? '–' : Number(value).toLocaleString('en-US');
}

export function rate(value) {
  return value === undefined || value === null ? '–' : Number(value).toLocaleString('en-US',
    { maximumFractionDigits: 1 });
}

/** A duration in milliseconds, shortly: 850 ms, 12.3 s, 4 min 5 s, 2 h 10 min. */
export function age(ms) {
  if (ms === undefined || ms === null) {
    return '–';
  }
  if (ms < 1000) {
    return `${Math.round(ms)} ms`;
  }
  const s = ms / 1000;
  if (s < 60) {
    return `${s.toFixed(1)} s`;
  }
  if (s < 3600) {
    return `${Math.floor(s / 60)} min ${Math.floor(s % 60)} s`;
  }
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function time(iso) {
  if (!iso) {
    return '–';
  }
  const date = new Date(iso);
  return date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function statusBadge(status) {
  return h('span', { class: `status ${status}` }, status);
}

/** A key/value table; rows with an undefined value are left out. */
export function kvTable(rows, attributes = {}) {
  return h('table', { class: 'kv', ...attributes },
    h('tbody', {}, rows.filter(([, value]) => value !== undefined).map(([key, value]) =>
      h('tr', {}, h('th', {}, key), h('td', {}, value === null ? '–' : value)))));
}

/** A problem (ApiError) as a notice. */
export function problemNotice(error, title) {
  const problem = error.problem || {};
  return h('div', { class: 'notice bad', id: 'problem' },
    h('h3', {}, title || `${error.status || ''} ${problem.title || 'Request failed'}`),
    h('div', {}, problem.detail || error.message));
}

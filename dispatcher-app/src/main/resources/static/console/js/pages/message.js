// One message: its fields, headers, payload (as JSON or as bytes), last error, audit rows, and the operator's
// replay / dead-letter with If-Match set to the version this page shows. If the message changed meanwhile, the
// API answers 409 with the current row, shown here instead of overwriting anything.

import { call, canOperate, get } from '../api.js';
import { fill, h, kvTable, number, problemNotice, statusBadge, time } from '../dom.js';

export function renderMessage(main, id) {
  const notice = h('div', { id: 'action-result' });
  const content = h('div', {});
  fill(main, h('div', { class: 'toolbar' }, h('h1', {}, 'Message'), h('span', { class: 'spacer' }),
    h('a', { href: '#/messages' }, 'All messages')), notice, content);
  load(content, notice, id);
  return () => {};
}

async function load(content, notice, id) {
  let response;
  try {
    response = await call('GET', `/v1/messages/${id}`);
  } catch (e) {
    fill(content, problemNotice(e, e.status === 404 ? 'No such message' : 'Could not read the message'));
    return;
  }
  const m = response.body;
  const etag = response.etag;
  let audit = [];
  try {
    audit = (await get(`/v1/messages/${id}/audit`)).items;
  } catch (e) {
    audit = null;
  }
  fill(content,
    h('div', { class: 'row' },
      h('div', {},
        kvTable([
          ['Id', h('span', { class: 'mono', id: 'message-id' }, m.id)],
          ['Status', h('span', { id: 'message-status' }, statusBadge(m.status))],
          ['Version (ETag)', h('span', { id: 'message-version' }, `${m.version} (${etag})`)],
          ['Topic', m.topic], ['Key', m.key], ['Type', m.type], ['Content type', m.contentType],
          ['Attempts', h('span', { id: 'message-attempts' }, m.attempts)],
          ['Seq', m.seq], ['Created', time(m.createdAt)], ['Visible after', time(m.visibleAfter)],
          ['Last attempt', time(m.lastAttemptAt)], ['Delivered', time(m.deliveredAt)],
          ['Dead-lettered', time(m.deadLetteredAt)], ['Lease', m.leaseOwner ? `${m.leaseOwner} until ${time(m.leaseUntil)}` : null],
          ['Correlation id', m.correlationId], ['Causation id', m.causationId],
        ], { id: 'message-fields' }),
        actions(m, etag, notice, () => load(content, notice, id))),
      h('div', {},
        h('h2', {}, 'Last error'),
        m.lastError ? h('pre', { id: 'message-error' }, m.lastError) : h('p', { class: 'muted' }, 'None.'),
        h('h2', {}, 'Headers'),
        headersTable(m.headers),
        h('h2', {}, `Payload (${number(m.payloadSize)} bytes)`),
        payloadView(m))),
    h('h2', {}, 'Audit'),
    auditTable(audit));
}

function actions(m, etag, notice, reload) {
  if (!canOperate()) {
    return h('p', { class: 'muted', id: 'read-only' }, 'Read-only: replaying and dead-lettering need OPERATOR.');
  }
  const finished = m.status === 'DELIVERED' || m.status === 'DEAD_LETTERED';
  const reason = h('input', { id: 'dead-letter-reason', placeholder: 'reason (optional)' });
  const run = async (button, method, path) => {
    button.disabled = true;
    try {
      const result = await call(method, path, { ifMatch: etag });
      fill(notice, h('div', { class: 'notice ok', id: 'action-ok' },
        `Done: the message is now ${result.body.status} at version ${result.body.version}.`));
      reload();
    } catch (e) {
      fill(notice, conflictView(e, reload));
      button.disabled = false;
    }
  };
  if (finished) {
    const replay = h('button', { id: 'replay', type: 'button' }, `Replay (If-Match ${etag})`);
    replay.addEventListener('click', () => run(replay, 'POST', `/v1/messages/${m.id}/replay`));
    return h('div', { class: 'toolbar' }, replay);
  }
  const deadLetter = h('button', { id: 'dead-letter', type: 'button', class: 'danger' }, `Dead-letter (If-Match ${etag})`);
  deadLetter.addEventListener('click', () => run(deadLetter, 'POST', `/v1/messages/${m.id}/dead-letter`
    + (reason.value.trim() ? `?reason=${encodeURIComponent(reason.value.trim())}` : '')));
  return h('div', { class: 'toolbar' }, reason, deadLetter);
}

/** A refused mutation: for a 409, what the API says and the current row it returned. */
export function conflictView(error, reload) {
  const problem = error.problem || {};
  const current = problem.current;
  return h('div', { class: 'notice bad', id: 'conflict' },
    h('h3', {}, `${error.status} ${problem.title || 'Refused'}: nothing was changed`),
    h('div', { id: 'conflict-detail' }, problem.detail || error.message),
    current ? h('div', {}, h('p', {}, 'The message as it is now:'),
      kvTable([
        ['Status', h('span', { id: 'conflict-status' }, statusBadge(current.status))],
        ['Version', h('span', { id: 'conflict-version' }, current.version)],
        ['Attempts', current.attempts], ['Last error', current.lastError],
        ['Delivered', time(current.deliveredAt)], ['Dead-lettered', time(current.deadLetteredAt)],
      ], { id: 'conflict-current' })) : null,
    reload ? h('button', { type: 'button', id: 'conflict-reload', class: 'secondary', onclick: reload },
      'Show the current version') : null);
}

function headersTable(headers) {
  const entries = Object.entries(headers || {});
  if (entries.length === 0) {
    return h('p', { class: 'muted' }, 'None.');
  }
  return h('table', { id: 'message-headers' }, h('tbody', {}, entries.map(([name, value]) =>
    h('tr', {}, h('th', {}, name), h('td', { class: 'mono' }, value)))));
}

function payloadView(m) {
  const bytes = m.payloadBase64 !== undefined
    ? Uint8Array.from(atob(m.payloadBase64), (c) => c.charCodeAt(0))
    : new TextEncoder().encode(JSON.stringify(m.payload));
  const asJson = m.payload !== undefined ? JSON.stringify(m.payload, null, 2) : null;
  const view = h('pre', { id: 'payload' });
  const show = (mode) => {
    fill(view, mode === 'json' ? asJson : hexDump(bytes));
    jsonButton.className = mode === 'json' ? '' : 'secondary';
    bytesButton.className = mode === 'json' ? 'secondary' : '';
  };
  const jsonButton = h('button', { type: 'button', id: 'payload-json', disabled: asJson === null }, 'JSON');
  const bytesButton = h('button', { type: 'button', id: 'payload-bytes' }, 'Bytes');
  jsonButton.addEventListener('click', () => show('json'));
  bytesButton.addEventListener('click', () => show('bytes'));
  show(asJson === null ? 'bytes' : 'json');
  return h('div', {}, h('div', { class: 'toolbar' }, jsonButton, bytesButton), view);
}

function hexDump(bytes) {
  const lines = [];
  const shown = Math.min(bytes.length, 4096);
  for (let offset = 0; offset < shown; offset += 16) {
    const chunk = bytes.slice(offset, Math.min(offset + 16, shown));
    const hex = Array.from(chunk, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const text = Array.from(chunk, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${text}`);
  }
  if (bytes.length > shown) {
    lines.push(`… ${bytes.length - shown} more bytes`);
  }
  return lines.join('\n');
}

function auditTable(rows) {
  if (rows === null) {
    return h('p', { class: 'muted' }, 'The audit rows could not be read.');
  }
  if (rows.length === 0) {
    return h('p', { class: 'muted', id: 'audit-empty' }, 'No operator has changed this message.');
  }
  const state = (s) => (s ? `${s.status ?? '–'} v${s.version ?? '–'}` : '–');
  return h('table', { id: 'audit' },
    h('thead', {}, h('tr', {}, ['When', 'Who', 'Action', 'Before', 'After', 'Detail'].map((t) => h('th', {}, t)))),
    h('tbody', {}, rows.map((a) => h('tr', {},
      h('td', {}, time(a.occurredAt)), h('td', {}, a.actor), h('td', {}, a.action),
      h('td', {}, state(a.before)), h('td', {}, state(a.after)),
      h('td', { class: 'mono' }, a.detail && Object.keys(a.detail).length ? JSON.stringify(a.detail) : '')))));
}


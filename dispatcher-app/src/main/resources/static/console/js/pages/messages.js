// Messages: filter by status, topic and key; one page of 50 at a time with the API's opaque cursor, so the console
// never loads more than a page whatever the size of the outbox. Filters and cursor live in the URL hash.

import { get, query } from '../api.js';
import { fill, h, problemNotice, statusBadge, time } from '../dom.js';

export const PAGE_SIZE = 50;
const STATUSES = ['', 'PENDING', 'RETRY_SCHEDULED', 'DELIVERED', 'DEAD_LETTERED'];

export function renderMessages(main, params) {
  const filter = { status: params.get('status') || '', topic: params.get('topic') || '', key: params.get('key') || '' };
  const cursor = params.get('cursor') || '';
  const status = h('select', { id: 'filter-status', name: 'status' },
    STATUSES.map((s) => h('option', { value: s, selected: s === filter.status }, s || 'any status')));
  const topic = h('input', { id: 'filter-topic', name: 'topic', value: filter.topic, placeholder: 'topic' });
  const key = h('input', { id: 'filter-key', name: 'key', value: filter.key, placeholder: 'key' });
  const body = h('div', { id: 'messages-body' }, h('p', { class: 'muted' }, 'Loading…'));
  fill(main,
    h('h1', {}, 'Messages'),
    h('form', {
      class: 'filters', id: 'filters',
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = '#/messages' + query({ status: status.value, topic: topic.value.trim(), key: key.value.trim() });
      },
    }, h('label', {}, 'Status', status), h('label', {}, 'Topic', topic), h('label', {}, 'Key', key),
    h('button', { type: 'submit', id: 'filter-apply' }, 'Apply')),
    body);
  load(body, filter, cursor);
  return () => {};
}

async function load(body, filter, cursor) {
  try {
    const page = await get('/v1/messages' + query({ ...filter, limit: PAGE_SIZE, cursor }));
    fill(body, messageTable(page.items, 'messages-table'),
      h('div', { class: 'pager' },
        cursor ? h('a', { href: '#/messages' + query(filter), id: 'page-first' }, 'First page') : null,
        page.nextCursor
          ? h('a', { href: '#/messages' + query({ ...filter, cursor: page.nextCursor }), id: 'page-next' }, 'Next page')
          : h('span', { class: 'muted', id: 'page-end' }, 'End of the list'),
        h('span', { class: 'muted' }, `${page.items.length} shown, oldest first`)));
  } catch (e) {
    fill(body, problemNotice(e, 'Could not list messages'));
  }
}

/** Rows of messages linking to their detail pages; {@code extra} adds a last cell per row. */
export function messageTable(items, id, extra) {
  if (items.length === 0) {
    return h('p', { class: 'muted', id: `${id}-empty` }, 'No messages match.');
  }
  return h('table', { id },
    h('thead', {}, h('tr', {}, ['Seq', 'Id', 'Topic', 'Key', 'Type', 'Status', 'Attempts', 'Created', 'Last error']
      .map((title) => h('th', {}, title)), extra ? h('th', {}, '') : null)),
    h('tbody', {}, items.map((m) => h('tr', { 'data-id': m.id },
      h('td', { class: 'num' }, m.seq),
      h('td', { class: 'mono' }, h('a', { href: `#/messages/${m.id}` }, m.id)),
      h('td', {}, m.topic), h('td', {}, m.key ?? '–'), h('td', {}, m.type),
      h('td', {}, statusBadge(m.status)), h('td', { class: 'num' }, m.attempts),
      h('td', {}, time(m.createdAt)), h('td', { class: 'error', title: m.lastError || '' }, m.lastError || ''),
      extra ? h('td', {}, extra(m)) : null))));
}

// Inbox consumers: each configured consumer with its backlog, oldest live age and dead letters; choosing one lists
// its dead letters a page at a time (GET /v1/inbox/consumers/{name}/dead-letters).

import { get, query } from '../api.js';
import { age, fill, h, number, problemNotice, time } from '../dom.js';

export function renderInbox(main, params) {
  const chosen = params.get('consumer');
  const cursor = params.get('cursor') || '';
  const consumers = h('div', { id: 'consumers-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const deadLetters = h('div', { id: 'inbox-dead-letters' });
  fill(main, h('h1', {}, 'Inbox consumers'), consumers, deadLetters);
  loadConsumers(consumers);
  if (chosen) {
    loadDeadLetters(deadLetters, chosen, cursor);
  }
  return () => {};
}

async function loadConsumers(body) {
  try {
    const { items } = await get('/v1/inbox/consumers');
    if (items.length === 0) {
      fill(body, h('p', { class: 'muted', id: 'consumers-empty' },
        'No inbox consumers are configured (dispatcher.inbox.consumers).'));
      return;
    }
    fill(body, h('table', { id: 'consumers-table' },
      h('thead', {}, h('tr', {}, ['Consumer', 'Topics', 'Group', 'Handler', 'Pending', 'Retry scheduled',
        'Oldest live', 'Dead letters'].map((t) => h('th', {}, t)))),
      h('tbody', {}, items.map((c) => h('tr', { 'data-consumer': c.name },
        h('td', {}, h('a', { href: '#/inbox' + query({ consumer: c.name }) }, c.name)),
        h('td', {}, c.topics.join(', ')), h('td', { class: 'mono' }, c.groupId), h('td', {}, c.handler),
        h('td', { class: 'num' }, number(c.pending)), h('td', { class: 'num' }, number(c.retryScheduled)),
        h('td', { class: 'num' }, age(c.oldestLiveAgeMs)),
        h('td', { class: 'num dead-count' }, number(c.deadLettered)))))));
  } catch (e) {
    fill(body, problemNotice(e, 'Could not read the inbox consumers'));
  }
}

async function loadDeadLetters(body, consumer, cursor) {
  try {
    const page = await get(`/v1/inbox/consumers/${encodeURIComponent(consumer)}/dead-letters`
      + query({ limit: 50, cursor }));
    fill(body, h('h2', {}, `Dead letters of ${consumer}`),
      page.items.length === 0 ? h('p', { class: 'muted' }, 'None.') : h('table', { id: 'inbox-dead-letters-table' },
        h('thead', {}, h('tr', {}, ['Message id', 'From', 'Key', 'Type', 'Attempts', 'Dead-lettered', 'Last error']
          .map((t) => h('th', {}, t)))),
        h('tbody', {}, page.items.map((d) => h('tr', {},
          h('td', { class: 'mono' }, d.messageId),
          h('td', { class: 'mono' }, `${d.sourceTopic}/${d.partition}@${d.offset}`),
          h('td', {}, d.key ?? '–'), h('td', {}, d.eventType ?? '–'), h('td', { class: 'num' }, d.attempts),
          h('td', {}, time(d.deadLetteredAt)), h('td', { class: 'error', title: d.lastError || '' }, d.lastError || ''))))),
      h('div', { class: 'pager' }, page.nextCursor
        ? h('a', { href: '#/inbox' + query({ consumer, cursor: page.nextCursor }) }, 'Next page')
        : h('span', { class: 'muted' }, 'End of the list')));
  } catch (e) {
    fill(body, problemNotice(e, `Could not list the dead letters of ${consumer}`));
  }
}

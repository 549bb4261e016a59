// Inbox consumers: each configured consumer with its options (ordering: per-key or none; the dead-letter topic, or
// off), its backlog, oldest live age and dead letters. Choosing one lists its dead letters a page at a time
// (GET /v1/inbox/{consumer}/dead-letters) with the reason and the raw key (text, or the bytes in hex for a key that
// is not text, such as an Avro key), each replayable with If-Match set to the
// version listed (a row that changed since shows the API's 409 and its current row), and bulk replay by filter.
// A VIEWER sees the lists only. A dead letter whose value was not stored (over the consumer's limit, or refused by the database) cannot be
// replayed: its record is re-published from the topic, partition and offset shown.

import { call, canOperate, get, query } from '../api.js';
import { age, fill, h, number, problemNotice, time } from '../dom.js';
import { conflictView } from './message.js';
import { bulkReplayForm } from '../bulk-replay.js';

const PAGE_SIZE = 50;

export function renderInbox(main, params) {
  const chosen = params.get('consumer');
  const cursor = params.get('cursor') || '';
  const consumers = h('div', { id: 'consumers-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const deadLetters = h('div', { id: 'inbox-dead-letters' });
  fill(main, h('h1', {}, 'Inbox consumers'), consumers, deadLetters);
  loadConsumers(consumers);
  if (chosen) {
    renderDeadLetters(deadLetters, chosen, cursor);
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
      h('thead', {}, h('tr', {}, ['Consumer', 'Topics', 'Group', 'Handler', 'Ordering', 'Dead-letter topic',
        'Pending', 'Retry scheduled', 'Oldest live', 'Dead letters'].map((t) => h('th', {}, t)))),
      h('tbody', {}, items.map((c) => h('tr', { 'data-consumer': c.name },
        h('td', {}, h('a', { href: '#/inbox' + query({ consumer: c.name }) }, c.name)),
        h('td', {}, c.topics.join(', ')), h('td', { class: 'mono' }, c.groupId), h('td', {}, c.handler),
        h('td', { class: 'ordering' }, c.ordering),
        h('td', { class: 'mono dead-letter-topic' }, c.deadLetterTopic ?? 'off'),
        h('td', { class: 'num' }, number(c.pending)), h('td', { class: 'num' }, number(c.retryScheduled)),
        h('td', { class: 'num' }, age(c.oldestLiveAgeMs)),
        h('td', { class: 'num dead-count' }, number(c.deadLettered)))))));
  } catch (e) {
    fill(body, problemNotice(e, 'Could not read the inbox consumers'));
  }
}

function renderDeadLetters(body, consumer, cursor) {
  const base = `/v1/inbox/${encodeURIComponent(consumer)}`;
  const notice = h('div', { id: 'inbox-result' });
  const list = h('div', { id: 'inbox-dead-letters-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const reload = () => loadDeadLetters(list, notice, base, consumer, cursor);
  const { form: bulk } = bulkReplayForm({
    prefix: 'inbox-bulk', path: `${base}/dead-letters/replay`, what: ` of ${consumer}`, topicLabel: 'Source topic',
    notice, onDone: reload,
  });
  fill(body, h('h2', {}, `Dead letters of ${consumer}`), canOperate() ? h('h3', {}, 'Bulk replay') : null,
    canOperate() ? bulk : null, notice, list);
  reload();
}

async function loadDeadLetters(list, notice, base, consumer, cursor) {
  try {
    const page = await get(`${base}/dead-letters` + query({ limit: PAGE_SIZE, cursor }));
    fill(list,
      page.items.length === 0 ? h('p', { class: 'muted' }, 'None.') : h('table', { id: 'inbox-dead-letters-table' },
        h('thead', {}, h('tr', {}, ['Message id', 'From', 'Key', 'Type', 'Value', 'Attempts', 'Dead-lettered',
          'Reason (last error)', ''].map((t) => h('th', {}, t)))),
        h('tbody', {}, page.items.map((d) => h('tr', { 'data-message-id': d.messageId },
          h('td', { class: 'mono' }, d.messageId),
          h('td', { class: 'mono' }, `${d.sourceTopic}/${d.partition}@${d.offset}`),
          h('td', { class: 'mono key' }, keyText(d)),
          h('td', {}, d.eventType ?? '–'),
          h('td', { class: 'num' }, d.payloadStored ? `${number(d.payloadSize)} B` : 'not stored'),
          h('td', { class: 'num' }, d.attempts),
          h('td', {}, time(d.deadLetteredAt)),
          h('td', { class: 'error', title: d.lastError || '' }, d.lastError || ''),
          h('td', {}, replayButton(d, base, notice, () => loadDeadLetters(list, notice, base, consumer, cursor))))))),
      h('div', { class: 'pager' },
        cursor ? h('a', { href: '#/inbox' + query({ consumer }) }, 'First page') : null,
        page.nextCursor ? h('a', { href: '#/inbox' + query({ consumer, cursor: page.nextCursor }) }, 'Next page')
          : h('span', { class: 'muted' }, 'End of the list')));
  } catch (e) {
    fill(list, problemNotice(e, `Could not list the dead letters of ${consumer}`));
  }
}

function replayButton(d, base, notice, reload) {
  if (!canOperate()) {
    return null; // a VIEWER lists dead letters only
  }
  if (!d.payloadStored) {
    return h('span', { class: 'muted', title: 'The value was not stored: re-publish the record from its topic,'
      + ' partition and offset' }, 'not replayable');
  }
  const button = h('button', { type: 'button', class: 'inbox-replay-one', 'data-message-id': d.messageId },
    'Replay');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const result = (await call('POST', `${base}/messages/${encodeURIComponent(d.messageId)}/replay`,
        { ifMatch: `"${d.version}"` })).body;
      fill(notice, h('div', { class: 'notice ok', id: 'inbox-replay-ok' },
        `Replayed ${d.messageId}: now ${result.status} at version ${result.version}.`));
      reload();
    } catch (e) {
      fill(notice, conflictView(e, reload));
    }
  });
  return button;
}

/** The key as text, or for a key that is not text its bytes in hex (from keyBase64), marked as such. */
function keyText(d) {
  if (d.key !== null && d.key !== undefined) {
    return d.key;
  }
  if (!d.keyBase64) {
    return '–';
  }
  const bytes = Array.from(atob(d.keyBase64), (c) => c.charCodeAt(0).toString(16).padStart(2, '0'));
  return `bytes ${bytes.slice(0, 24).join(' ')}${bytes.length > 24 ? ' …' : ''}`;
}

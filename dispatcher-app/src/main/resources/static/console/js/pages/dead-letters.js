// Dead letters: the outbox's DEAD_LETTERED messages a page at a time, each replayable with If-Match set to the
// version listed (a message that changed since shows the API's 409 and its current row), and bulk replay by filter
// (topic, key, text in the last error; bounded per call, audited per message). A VIEWER sees the list only.

import { call, canOperate, get, query } from '../api.js';
import { fill, h, number, problemNotice } from '../dom.js';
import { bulkReplayForm } from '../bulk-replay.js';
import { messageTable, PAGE_SIZE } from './messages.js';
import { conflictView } from './message.js';

export function renderDeadLetters(main, params) {
  const filter = { topic: params.get('topic') || '', key: params.get('key') || '' };
  const cursor = params.get('cursor') || '';
  const notice = h('div', { id: 'dead-letters-result' });
  const list = h('div', { id: 'dead-letters-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const count = h('span', { id: 'dead-letter-count', class: 'muted' }, '');
  const reload = () => load(list, notice, filter, cursor);
  const { form: bulk, topicInput: topic, keyInput: key } = bulkReplayForm({
    prefix: 'bulk', path: '/v1/dead-letters/replay', what: '', topic: filter.topic, key: filter.key, notice,
    onDone: reload,
  });

  fill(main, h('div', { class: 'toolbar' }, h('h1', {}, 'Dead letters'), count),
    canOperate() ? h('h2', {}, 'Bulk replay') : null, canOperate() ? bulk : null, notice,
    h('h2', {}, 'Dead-lettered messages'),
    h('form', {
      class: 'filters',
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = '#/dead-letters' + query({ topic: topic.value.trim(), key: key.value.trim() });
      },
    },
    // a VIEWER has no bulk form: the topic and key fields move here (an element lives in one place only)
    canOperate() ? null : [h('label', {}, 'Topic', topic), h('label', {}, 'Key', key)],
    h('button', { type: 'submit', class: 'secondary', id: 'dead-letters-filter' }, 'List with this topic and key')),
    list);
  get('/v1/stats').then((stats) => fill(count, `${number(stats.deadLettered)} in the outbox`)).catch(() => {});
  reload();
  return () => {};
}

async function load(list, notice, filter, cursor) {
  try {
    const page = await get('/v1/messages' + query({ status: 'DEAD_LETTERED', ...filter, limit: PAGE_SIZE, cursor }));
    fill(list, messageTable(page.items, 'dead-letters-table', canOperate() && ((m) => {
      const button = h('button', { type: 'button', class: 'replay-one', 'data-id': m.id }, 'Replay');
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          const result = (await call('POST', `/v1/messages/${m.id}/replay`, { ifMatch: `"${m.version}"` })).body;
          fill(notice, h('div', { class: 'notice ok', id: 'replay-ok' },
            `Replayed ${m.id}: now ${result.status} at version ${result.version}.`));
          load(list, notice, filter, cursor);
        } catch (e) {
          fill(notice, conflictView(e, () => load(list, notice, filter, cursor)));
        }
      });
      return button;
    })),
    h('div', { class: 'pager' },
      cursor ? h('a', { href: '#/dead-letters' + query(filter) }, 'First page') : null,
      page.nextCursor ? h('a', { href: '#/dead-letters' + query({ ...filter, cursor: page.nextCursor }) }, 'Next page')
        : h('span', { class: 'muted' }, 'End of the list')));
  } catch (e) {
    fill(list, problemNotice(e, 'Could not list dead letters'));
  }
}

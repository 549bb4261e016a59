// The bulk replay form both dead-letter lists share (the outbox's and an inbox consumer's): topic, key, text in the
// last error and a bound, POSTed as the JSON filter of `path`; the result or the refusal goes to `notice`, then
// `onDone` runs (to reload the list). Element ids start with `prefix` (`bulk-error`, `inbox-bulk-replay`, ...).

import { call } from './api.js';
import { fill, h, number, problemNotice } from './dom.js';

export function bulkReplayForm({ prefix, path, what, topicLabel = 'Topic', topic = '', key = '', notice, onDone }) {
  const topicInput = h('input', { id: `${prefix}-topic`, value: topic, placeholder: `any ${topicLabel.toLowerCase()}` });
  const keyInput = h('input', { id: `${prefix}-key`, value: key, placeholder: 'any key' });
  const errorContains = h('input', { id: `${prefix}-error`, placeholder: 'any error' });
  const limit = h('input', { id: `${prefix}-limit`, type: 'number', min: 1, max: 1000, value: 100 });
  const form = h('form', {
    class: 'filters', id: `${prefix}-form`,
    onsubmit: async (event) => {
      event.preventDefault();
      const body = { limit: Number(limit.value) || 100 };
      for (const [name, input] of [['topic', topicInput], ['key', keyInput], ['errorContains', errorContains]]) {
        if (input.value.trim()) {
          body[name] = input.value.trim();
        }
      }
      try {
        const result = (await call('POST', path, { body })).body;
        fill(notice, h('div', { class: 'notice ok', id: `${prefix}-ok` },
          `Replayed ${number(result.replayed)} message(s)${what}, oldest first.`
          + (result.replayed === body.limit ? ' More may match: replay again for the next batch.' : '')));
      } catch (e) {
        fill(notice, problemNotice(e, 'Bulk replay refused'));
      }
      onDone();
    },
  }, h('label', {}, topicLabel, topicInput), h('label', {}, 'Key', keyInput),
  h('label', {}, 'Last error contains', errorContains), h('label', {}, 'At most', limit),
  h('button', { type: 'submit', id: `${prefix}-replay` }, 'Replay matching'));
  return { form, topicInput, keyInput };
}

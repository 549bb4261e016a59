// The overview: backlog by status, oldest pending age, this instance's publish rate, dead letters, the relay switch
// and the Kafka circuit breaker, refreshed every 2 s, with charts of the last minutes (GET /v1/rates samples); with
// several sources, a line per source (GET /v1/stats's sources) below the default source's cards.

import { call, canOperate, get } from '../api.js';
import { age, fill, h, number, problemNotice, rate } from '../dom.js';
import { lineChart } from '../chart.js';

const REFRESH_MS = 2000;

function card(id, label, sub) {
  return h('div', { class: 'card' }, h('div', { class: 'label' }, label),
    h('div', { class: 'value', id }, '–'), h('div', { class: 'sub', id: `${id}-sub` }, sub || ''));
}

export function renderOverview(main) {
  const banners = h('div', { id: 'banners' });
  const toggle = h('button', { id: 'relay-toggle', type: 'button', disabled: true, hidden: !canOperate() },
    'Pause relay');
  const error = h('div', { id: 'overview-error' });
  const charts = h('div', { class: 'charts' });
  const sources = h('div', { id: 'sources' });
  const updated = h('span', { id: 'updated', class: 'muted' }, '');
  let paused = null;
  let timer = null;
  let stopped = false;

  toggle.addEventListener('click', async () => {
    toggle.disabled = true;
    try {
      await call('POST', paused ? '/v1/relay/resume' : '/v1/relay/pause');
    } catch (e) {
      fill(error, problemNotice(e, 'Could not switch the relay'));
    }
    await refresh();
  });

  fill(main,
    h('div', { class: 'toolbar' }, h('h1', {}, 'Overview'), h('span', { class: 'spacer' }), updated),
    banners,
    error,
    h('div', { class: 'cards' },
      card('backlog-total', 'Backlog', ''),
      card('oldest-age', 'Oldest pending', 'age of the oldest live message'),
      card('publish-rate', 'Published / s', 'this instance, last interval'),
      card('published-total', 'Published', 'this instance, since start'),
      h('a', { href: '#/dead-letters', class: 'card-link' }, card('dead-letters', 'Dead letters', 'need an operator')),
      h('div', { class: 'card' }, h('div', { class: 'label' }, 'Relay'),
        h('div', { class: 'value', id: 'relay-state' }, '–'),
        h('div', { class: 'sub' }, 'cluster-wide switch'), toggle),
      card('breaker-state', 'Kafka breaker', 'this instance')),
    sources,
    h('h2', {}, 'Last minutes'),
    charts);

  async function refresh() {
    try {
      const [stats, rates] = await Promise.all([get('/v1/stats'), get('/v1/rates')]);
      if (stopped) {
        return;
      }
      fill(error);
      paused = stats.relayPaused;
      fill(document.getElementById('backlog-total'), number(stats.backlogTotal));
      fill(document.getElementById('backlog-total-sub'),
        `pending ${number(stats.backlog.PENDING)} · retry scheduled ${number(stats.backlog.RETRY_SCHEDULED)}`);
      fill(document.getElementById('oldest-age'), age(stats.oldestLiveAgeMs));
      fill(document.getElementById('dead-letters'), number(stats.deadLettered));
      const last = rates.samples[rates.samples.length - 1];
      fill(document.getElementById('publish-rate'), rate(last ? last.publishedPerSecond : 0));
      fill(document.getElementById('published-total'), number(rates.publishedTotal));
      fill(document.getElementById('relay-state'), paused ? 'PAUSED' : 'RUNNING');
      fill(document.getElementById('breaker-state'), rates.breaker);
      toggle.textContent = paused ? 'Resume relay' : 'Pause relay';
      toggle.className = paused ? '' : 'secondary';
      toggle.disabled = false;
      fill(banners, ...bannersFor(stats, rates));
      fill(sources, ...sourcesTable(stats.sources || []));
      const points = (field) => rates.samples.map((s) => ({ t: Date.parse(s.at), v: s[field] }));
      fill(charts,
        h('div', { class: 'chart' }, h('div', { class: 'label' }, 'Published / s'),
          lineChart(points('publishedPerSecond'), { id: 'chart-rate', format: rate })),
        h('div', { class: 'chart' }, h('div', { class: 'label' }, 'Backlog'),
          lineChart(points('backlog'), { id: 'chart-backlog', format: number })),
        h('div', { class: 'chart' }, h('div', { class: 'label' }, 'Oldest pending age'),
          lineChart(points('oldestLiveAgeMs'), { id: 'chart-age', format: age })));
      fill(updated, `${rates.instance} · updated ${new Date().toLocaleTimeString('en-GB')}`);
    } catch (e) {
      if (!stopped) {
        fill(error, problemNotice(e, 'Could not refresh'));
      }
    }
  }

  async function loop() {
    await refresh();
    if (!stopped) {
      timer = setTimeout(loop, REFRESH_MS);
    }
  }
  loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * One line per database the relay drains (dispatcher.sources), when there is more than the default one; the cards
 * above are the default source's.
 */
function sourcesTable(lines) {
  if (lines.length < 2) {
    return [];
  }
  const value = (line, v, format) => (line.available ? format(v) : '–');
  return [h('h2', {}, 'Sources'), h('table', { id: 'sources-table' },
    h('thead', {}, h('tr', {}, ['Source', 'Relay', 'Backlog', 'Oldest pending', 'Dead letters']
      .map((t) => h('th', {}, t)))),
    h('tbody', {}, lines.map((line) => h('tr', { 'data-source': line.name },
      h('td', { class: 'mono' }, line.name),
      h('td', { class: 'relay' }, !line.available ? 'UNAVAILABLE' : line.relayPaused ? 'PAUSED' : 'RUNNING'),
      h('td', { class: 'num' }, value(line, line.backlogTotal, number)),
      h('td', { class: 'num' }, value(line, line.oldestLiveAgeMs, age)),
      h('td', { class: 'num' }, value(line, line.deadLettered, number))))))];
}

/** What needs attention, plainly; "all is well" only when nothing does. */
function bannersFor(stats, rates) {
  const banners = [];
  if (stats.relayPaused) {
    banners.push(h('div', { class: 'banner bad', id: 'banner-paused' },
      'Relay PAUSED cluster-wide: nothing is being published. Resume it when maintenance is over.'));
  }
  if (rates.breaker === 'OPEN' || rates.breaker === 'FORCED_OPEN') {
    banners.push(h('div', { class: 'banner bad', id: 'banner-breaker' },
      `Kafka circuit breaker ${rates.breaker} on ${rates.instance}: Kafka is unavailable, the relay is probing it and`
      + ' claims nothing.'));
  } else if (rates.breaker === 'HALF_OPEN') {
    banners.push(h('div', { class: 'banner warn', id: 'banner-breaker' },
      `Kafka circuit breaker HALF_OPEN on ${rates.instance}: trying Kafka again.`));
  }
  if (stats.deadLettered > 0) {
    banners.push(h('div', { class: 'banner warn', id: 'banner-dead' },
      `${number(stats.deadLettered)} dead-lettered message(s) wait for an operator.`));
  }
  if (banners.length === 0) {
    banners.push(h('div', { class: 'banner ok', id: 'banner-ok' },
      'All is well: the relay runs, the Kafka breaker is closed and there are no dead letters.'));
  }
  return banners;
}

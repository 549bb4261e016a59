// The console's shell: sign-in, navigation and a hash router (#/, #/messages, #/messages/<id>, #/dead-letters,
// #/inbox). Each page renders into <main> and returns a function that stops its timers when the page is left.

import { canOperate, forget, signedIn, who } from './api.js';
import { fill, h } from './dom.js';
import { renderLogin } from './pages/login.js';
import { renderOverview } from './pages/overview.js';
import { renderMessages } from './pages/messages.js';
import { renderMessage } from './pages/message.js';
import { renderDeadLetters } from './pages/dead-letters.js';
import { renderInbox } from './pages/inbox.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const whoLabel = document.getElementById('who');
const signOut = document.getElementById('sign-out');
let leave = () => {};

function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, queryText] = hash.split('?');
  const params = new URLSearchParams(queryText || '');
  if (path === '/messages') {
    return ['messages', () => renderMessages(main, params)];
  }
  const message = path.match(/^\/messages\/([0-9a-fA-F-]{36})$/);
  if (message) {
    return ['messages', () => renderMessage(main, message[1])];
  }
  if (path === '/dead-letters') {
    return ['dead-letters', () => renderDeadLetters(main, params)];
  }
  if (path === '/inbox') {
    return ['inbox', () => renderInbox(main, params)];
  }
  return ['overview', () => renderOverview(main)];
}

function show(message) {
  leave();
  leave = () => {};
  if (!signedIn()) {
    nav.hidden = true;
    signOut.hidden = true;
    whoLabel.textContent = '';
    leave = renderLogin(main, message, () => show());
    return;
  }
  nav.hidden = false;
  signOut.hidden = false;
  whoLabel.textContent = canOperate() ? who() : `${who()} (read-only)`;
  const [page, render] = route();
  for (const link of nav.querySelectorAll('a')) {
    link.classList.toggle('active', link.dataset.page === page);
  }
  fill(main, h('p', { class: 'muted' }, 'Loading…'));
  leave = render() || (() => {});
}

signOut.addEventListener('click', () => {
  forget();
  show('Signed out.');
});
window.addEventListener('hashchange', () => show());
window.addEventListener('dispatcher:unauthorized', () => {
  forget();
  show('Your credentials were refused (401). Sign in again.');
});
show();

// Sign-in: HTTP Basic user and password, or a Bearer token (an API token or JWT). The credentials are checked with
// GET /v1/stats before they are kept (a 403 means they are valid but lack VIEWER and OPERATOR), then GET /v1/me says
// their roles: a VIEWER gets the console read-only.

import { ApiError, call, forget, remember, rememberRoles } from '../api.js';
import { fill, h } from '../dom.js';

export function renderLogin(main, message, signedIn) {
  let mode = 'basic';
  const user = h('input', { id: 'login-user', name: 'user', autocomplete: 'username', required: true });
  const password = h('input', { id: 'login-password', name: 'password', type: 'password',
    autocomplete: 'current-password', required: true });
  const token = h('input', { id: 'login-token', name: 'token', type: 'password', autocomplete: 'off' });
  const basicFields = h('div', { class: 'fields' }, h('label', {}, 'User', user), h('label', {}, 'Password', password));
  const tokenFields = h('div', { class: 'fields', hidden: true }, h('label', {}, 'API token or JWT', token));
  const status = h('div', { id: 'login-message', class: message ? 'notice bad' : '' }, message || '');
  const submit = h('button', { id: 'login-submit', type: 'submit' }, 'Sign in');

  const tab = (name, label) => h('button', {
    type: 'button', class: name === mode ? '' : 'secondary', id: `login-mode-${name}`,
    onclick: (event) => {
      mode = name;
      basicFields.hidden = mode !== 'basic';
      tokenFields.hidden = mode !== 'token';
      user.required = password.required = mode === 'basic';
      token.required = mode === 'token';
      for (const b of event.target.parentElement.children) {
        b.className = b === event.target ? '' : 'secondary';
      }
    },
  }, label);

  const form = h('form', {
    class: 'login', id: 'login-form',
    onsubmit: async (event) => {
      event.preventDefault();
      submit.disabled = true;
      remember(mode === 'basic' ? { user: user.value, password: password.value } : { token: token.value });
      try {
        await call('GET', '/v1/stats');
        rememberRoles((await call('GET', '/v1/me')).body.roles);
        signedIn();
      } catch (error) {
        forget();
        fill(status, error instanceof ApiError && error.status === 403
          ? 'Signed in, but these credentials lack the VIEWER or OPERATOR role the console needs (403).'
          : error instanceof ApiError && error.status === 401
            ? 'Wrong user, password or token (401).'
            : `Cannot reach Dispatcher: ${error.message}`);
        status.className = 'notice bad';
        submit.disabled = false;
      }
    },
  },
  h('h1', {}, 'Dispatcher console'),
  h('p', { class: 'muted' }, 'Sign in with the same credentials as the HTTP API: OPERATOR, or VIEWER to look only.'),
  h('div', { class: 'tabs' }, tab('basic', 'User and password'), tab('token', 'Token')),
  basicFields, tokenFields, status, submit);
  fill(main, form);
  user.focus();
  return () => {};
}

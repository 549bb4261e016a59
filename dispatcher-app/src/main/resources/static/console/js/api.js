// Calls to Dispatcher's /v1 API with the operator's credentials. The Authorization value lives in this tab's
// sessionStorage only (gone when the tab closes); requests never carry cookies or browser-cached credentials
// (credentials: 'omit'), and X-Requested-With tells the API not to answer 401 with a Basic challenge, which would
// make the browser show its own login dialog and remember what was typed into it. Every call but a GET declares
// Content-Type: application/json, body or not: the API refuses mutations without it (its CSRF rule).

const KEY = 'dispatcher.console.authorization';
const WHO = 'dispatcher.console.who';
const ROLES = 'dispatcher.console.roles';

/** An HTTP error with the API's problem details (RFC 9457), if it sent any. */
export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

export function signedIn() {
  return sessionStorage.getItem(KEY) !== null;
}

export function who() {
  return sessionStorage.getItem(WHO) || '';
}

/** Remembers credentials: a user and password (HTTP Basic) or a Bearer token (API token or JWT). */
export function remember({ user, password, token }) {
  if (token) {
    sessionStorage.setItem(KEY, 'Bearer ' + token.trim());
    sessionStorage.setItem(WHO, 'token');
  } else {
    const bytes = new TextEncoder().encode(`${user}:${password}`);
    sessionStorage.setItem(KEY, 'Basic ' + btoa(String.fromCharCode(...bytes)));
    sessionStorage.setItem(WHO, user);
  }
}

/** Remembers the roles GET /v1/me answered for the credentials. */
export function rememberRoles(roles) {
  sessionStorage.setItem(ROLES, JSON.stringify(roles || []));
}

/**
 * Whether the signed-in credentials may change anything (OPERATOR). A VIEWER gets a read-only console: no pause,
 * replay or dead-letter buttons (the API would refuse them with 403 anyway).
 */
export function canOperate() {
  try {
    return JSON.parse(sessionStorage.getItem(ROLES) || '[]').includes('OPERATOR');
  } catch (e) {
    return false;
  }
}

export function forget() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(WHO);
  sessionStorage.removeItem(ROLES);
}

/**
 * One API call. Resolves to {status, etag, body}; rejects with ApiError for any non-2xx answer. A 401 also fires
 * the 'dispatcher:unauthorized' event, so the console goes back to its sign-in page.
 */
export async function call(method, path, { body, ifMatch } = {}) {
  const headers = { Accept: 'application/json, application/problem+json', 'X-Requested-With': 'XMLHttpRequest' };
  const authorization = sessionStorage.getItem(KEY);
  if (authorization) {
    headers.Authorization = authorization;
  }
  if (ifMatch) {
    headers['If-Match'] = ifMatch;
  }
  if (body !== undefined || method !== 'GET') {
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(path, {
    method, headers, credentials: 'omit', cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch (e) {
      json = { detail: text };
    }
  }
  if (!response.ok) {
    const error = new ApiError(response.status, json);
    if (response.status === 401) {
      window.dispatchEvent(new CustomEvent('dispatcher:unauthorized', { detail: error }));
    }
    throw error;
  }
  return { status: response.status, etag: response.headers.get('ETag'), body: json };
}

export async function get(path) {
  return (await call('GET', path)).body;
}

/** A query string from the non-empty entries of {@code params}. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') {
      q.set(name, value);
    }
  }
  const text = q.toString();
  return text ? '?' + text : '';
}

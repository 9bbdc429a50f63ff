// The staff page's only way to the server: same-origin fetches carrying the staff key as
// `Authorization: Bearer` (API.md §7). Answers are {status, body, text, headers}: `body` the
// parsed JSON (or an error in the API's shape when the answer is not JSON), `text` the raw
// text for CSV answers. A network failure is status 0.

let bearer = null;

// The key every later call sends; null for none.
export function useKey(key) {
  bearer = key;
}

export async function call(path, options = {}) {
  const headers = { Accept: options.accept || 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  let response;
  try {
    response = await fetch(path, {
      method: options.method || 'GET',
      headers,
      body: options.body,
      credentials: 'same-origin',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    });
  } catch (failure) {
    const error = {
      code: 'network',
      message: 'the server could not be reached; check the connection and try again',
      field: null,
    };
    return { status: 0, body: { error }, text: '', headers: new Headers() };
  }
  const text = await response.text();
  let body = null;
  const type = response.headers.get('Content-Type') || '';
  if (type.startsWith('application/json')) {
    try {
      body = JSON.parse(text);
    } catch (broken) {
      body = null;
    }
  }
  if (body === null && !response.ok) {
    body = {
      error: { code: 'bad_answer', message: `the server answered ${response.status}`, field: null },
    };
  }
  return { status: response.status, body, text, headers: response.headers };
}

const problemPath = (id) => `/v1/problems/${encodeURIComponent(id)}`;

export const status = () => call('/v1/problems/status');
export const listProblems = () => call('/v1/problems');
export const getProblem = (id) => call(problemPath(id));
// `student`, when given: the answer's problem is that student's variant (API.md §15).
export const validate = (text, student = '') =>
  call(`/v1/problems/validate${student ? `?student=${encodeURIComponent(student)}` : ''}`,
    { method: 'POST', body: text });
export const solve = (text, seconds) =>
  call(`/v1/problems/solve?seconds=${seconds}`, { method: 'POST', body: text });
export const putProblem = (id, text) => call(problemPath(id), { method: 'PUT', body: text });
export const stats = (id) => call(`${problemPath(id)}/stats`);
export const problemOf = (id, student) => call(`${problemPath(id)}?student=${encodeURIComponent(student)}`);
export const integrity = (id) => call(`${problemPath(id)}/integrity`);
// One page of a problem's records, newest first; `cursor` the previous page's next_cursor.
export const submissions = (id, limit, cursor = null) =>
  call(`/v1/submissions?problem=${encodeURIComponent(id)}&limit=${limit}`
    + `${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
export const submission = (id) => call(`/v1/submissions/${encodeURIComponent(id)}`);
export const csv = (path) => call(path, { accept: 'text/csv' });
export const regrade = (id, dryRun) =>
  call(`${problemPath(id)}/regrade${dryRun ? '?dry_run=true' : ''}`, { method: 'POST', body: '{}' });
export const openapi = () => call('/v1/openapi.json');

// The page's only way to the server: same-origin fetches of the JSON API (API.md §5, §10).
// A page launched from an LMS carries a student token (API.md §11) in
// <meta name="headgrader-token">; it goes with every grading and step check, and with the
// problem itself, which the server then shows as this student's variant (API.md §15).

import { metaContent } from './dom.js';

function token() {
  return metaContent('headgrader-token') || null;
}

// {status, body (parsed JSON or null), retryAfter (seconds or null)}; a network failure is
// status 0 with a message in the shape of the API's errors.
async function call(path, options = {}) {
  const headers = { Accept: 'application/json', ...(options.headers || {}) };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const bearer = token();
  if (bearer && options.authorize) headers.Authorization = `Bearer ${bearer}`;
  let response;
  try {
    response = await fetch(path, {
      method: options.method || 'GET', headers, body: options.body, credentials: 'same-origin',
    });
  } catch (failure) {
    return {
      status: 0,
      body: {
        error: {
          code: 'network',
          message: 'the server could not be reached; check the connection and try again',
          field: null,
        },
      },
      retryAfter: null,
    };
  }
  let body = null;
  try {
    body = await response.json();
  } catch (notJson) {
    body = {
      error: {
        code: 'bad_answer',
        message: `the server answered ${response.status} without JSON`,
        field: null,
      },
    };
  }
  const retry = Number(response.headers.get('Retry-After'));
  return {
    status: response.status,
    body,
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
  };
}

export const listProblems = () => call('/v1/problems');
export const getProblem = (id) =>
  call(`/v1/problems/${encodeURIComponent(id)}`, { authorize: true });

// `bodyText`: the JSON text as built by the page (numbers as typed).
export const grade = (id, bodyText) =>
  call(`/v1/problems/${encodeURIComponent(id)}/grade`,
    { method: 'POST', body: bodyText, authorize: true });
export const checkSteps = (id, bodyText) =>
  call(`/v1/problems/${encodeURIComponent(id)}/check-steps`,
    { method: 'POST', body: bodyText, authorize: true });

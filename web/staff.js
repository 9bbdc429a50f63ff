// The staff's page (API.md §16): sign in with a staff key, then the folder's status and
// defects and the problems served, the editor (staff_editor.js) and the class
// (staff_class.js). Each part of the page is a module of its own; this one wires them and
// holds the key for the tab.

import * as api from './staff_api.js';
import { byId as $, element } from './dom.js';
import { setupClass } from './staff_class.js';
import { setupEditor } from './staff_editor.js';
import { forgetKey, storedKey, storeKey } from './staff_key.js';

const state = { problems: [] };
// Parts that want to hear of the problems served (the editor, the class view).
const listeners = [];

export function onProblems(listener) {
  listeners.push(listener);
}

function say(id, text) {
  $(id).textContent = text;
}

function errorText(answer) {
  const error = answer.body && answer.body.error;
  return error ? error.message : `the server answered ${answer.status}`;
}

// The folder's status (GET /v1/problems/status) and the problems (GET /v1/problems).
export async function refreshFolder() {
  const [folder, list] = await Promise.all([api.status(), api.listProblems()]);
  if (folder.status !== 200) {
    say('folder-status', `The folder's status could not be read: ${errorText(folder)}.`);
    return false;
  }
  const { loaded_at: loadedAt, problems, defects } = folder.body;
  say('folder-status', `${problems} ${problems === 1 ? 'problem' : 'problems'} served, `
    + `loaded at ${loadedAt}. ${defects.length === 0 ? 'The folder has no defects.'
      : `The folder has ${defects.length} ${defects.length === 1 ? 'defect' : 'defects'}: `
      + 'the problems as last loaded are still served.'}`);
  const box = $('folder-defects');
  box.replaceChildren();
  if (defects.length > 0) {
    box.append(element('h3', { text: 'Defects of the folder' }),
      element('ul', { class: 'defects' },
        ...defects.map((text) => element('li', {}, element('pre', { text })))));
  }
  state.problems = list.status === 200 ? list.body.problems : [];
  const rows = state.problems.map((p) => element('tr', {},
    element('th', { scope: 'row' }, element('code', { text: p.id })),
    element('td', { text: p.title }),
    element('td', { text: p.submit.join(', ') }),
    element('td', {}, element('a', { href: `/?problem=${encodeURIComponent(p.id)}`, text: 'student page', 'aria-label': `The student page of ${p.id}` }))));
  $('problem-list').replaceChildren(element('table', { id: 'problems-table' },
    element('caption', { text: 'The problems served' }),
    element('thead', {}, element('tr', {},
      ...['id', 'title', 'submit', 'open'].map((h) => element('th', { scope: 'col', text: h })))),
    element('tbody', {}, ...rows)));
  for (const listener of listeners) listener(state.problems);
  document.body.dataset.folder = String(Date.now());
  return true;
}

function signedOut(message) {
  api.useKey(null);
  forgetKey();
  for (const section of document.querySelectorAll('[data-needs-key]')) section.hidden = true;
  $('folder-section').hidden = true;
  $('forget-key').hidden = true;
  $('key-form').hidden = false;
  say('key-status', message);
  document.body.dataset.signedIn = 'false';
}

// A key is tried on the folder's status: 200 signs in; anything else says why, in the
// server's words (a server without --keys answers staff_disabled, an unknown key 401).
async function signIn(key) {
  api.useKey(key);
  say('key-status', 'Checking the key…');
  const answer = await api.status();
  if (answer.status !== 200) {
    const code = answer.body && answer.body.error ? answer.body.error.code : '';
    if (answer.status === 401) {
      signedOut('This server does not know that key as a staff key; check it and try again.');
    } else if (code === 'forbidden') {
      signedOut('That key is not a staff key: its role may grade, not use this page.');
    } else {
      signedOut(`Not signed in: ${errorText(answer)}.`);
    }
    return;
  }
  storeKey(key);
  $('key-form').hidden = true;
  $('forget-key').hidden = false;
  $('folder-section').hidden = false;
  for (const section of document.querySelectorAll('[data-needs-key]')) section.hidden = false;
  say('key-status', 'Signed in with a staff key (kept in this tab only).');
  document.body.dataset.signedIn = 'true';
  await refreshFolder();
}

async function start() {
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $('staff-key');
    const key = input.value.trim();
    input.value = '';
    if (key === '') {
      say('key-status', 'Type or paste a staff key first.');
      return;
    }
    signIn(key);
  });
  $('forget-key').addEventListener('click', () => {
    signedOut('The key is forgotten; type it again to sign in.');
    $('staff-key').focus();
  });
  $('folder-refresh').addEventListener('click', refreshFolder);
  setupEditor({ refreshFolder, onProblems });
  setupClass({ onProblems });
  const kept = storedKey();
  if (kept) await signIn(kept);
  document.body.dataset.ready = 'true';
}

start();

// The page's DOM helpers: building an element in one call, finding one by id, and reading
// the <meta> tags the server fills in for a launched page (the student token, the problem).

export const byId = (id) => document.getElementById(id);

// element('p', { class: 'help', text: '…' }, child, …): attributes that are undefined, null
// or false are left out; true is the empty attribute; `class` and `text` set className and
// textContent.
export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// The content of <meta name="NAME">, or undefined when the page has none.
export const metaContent = (name) =>
  (document.querySelector(`meta[name="${name}"]`) || {}).content;

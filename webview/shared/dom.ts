/**
 * DOM helpers for data from files: every string becomes a text node or an attribute value set
 * through the DOM API, never HTML (no innerHTML anywhere in the bundles).
 */

type Child = Node | string | number | null | undefined | false;

export interface ElementProps {
  class?: string;
  id?: string;
  title?: string;
  role?: string;
  tabIndex?: number;
  /** Other attributes (aria-*, data-*, type…), set with setAttribute. */
  attrs?: Record<string, string | number | boolean | null | undefined>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (ev: HTMLElementEventMap[K]) => void }>;
}

/** An element with text children; `props.on` adds listeners (no inline handlers: CSP forbids them). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: ElementProps | null, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, props?: ElementProps | null, ...children: Child[]): HTMLElement;
export function h(tag: string, props: ElementProps | null = null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (props) {
    if (props.class) el.className = props.class;
    if (props.id) el.id = props.id;
    if (props.title !== undefined) el.title = props.title;
    if (props.role) el.setAttribute('role', props.role);
    if (props.tabIndex !== undefined) el.tabIndex = props.tabIndex;
    for (const [k, v] of Object.entries(props.attrs ?? {})) {
      if (v === null || v === undefined || v === false) continue;
      el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const [k, fn] of Object.entries(props.on ?? {})) el.addEventListener(k, fn as EventListener);
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Removes every child. */
export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** Replaces the children of `el`. */
export function replaceChildren(el: Node, ...children: Child[]): void {
  clear(el);
  append(el, ...children);
}

/** A custom element from @vscode-elements with properties set (they are properties, not attributes). */
export function vs<T extends HTMLElement>(tag: string, props: Record<string, unknown> = {}, attrs: ElementProps | null = null, ...children: Child[]): T {
  const el = h(tag, attrs, ...children) as T;
  Object.assign(el, props);
  return el;
}

/** Adopts a stylesheet (constructable: no <style> element, so a strict style-src CSP is enough). */
export function adoptStyles(...css: string[]): void {
  const sheets = css.map((text) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    return sheet;
  });
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, ...sheets];
}

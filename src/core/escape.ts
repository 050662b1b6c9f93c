/**
 * Text from input files (a bad line, a span name, a file's first line, a contract value) is shown to
 * the user in terminals, CI logs and PR comments. Control characters in it must never reach them raw:
 * an ESC starts a terminal escape sequence (retitle the window, clear the screen, fake a PASS line),
 * a CR or a line separator rewrites what was printed before, a bidi override reorders what the reader
 * sees (the "Trojan Source" trick). Every text output goes through one of these two functions.
 *
 * The escapes are JSON string escapes (`\u001b`, `\n`, `\r`, `\t`), so applying them to JSON text
 * (whose strings can only hold these characters raw when they are C1 controls, DEL, separators or
 * bidi controls) leaves valid JSON that parses to the same value.
 */

/**
 * Characters that are escaped: C0 controls, DEL, C1 controls, the soft hyphen, the Arabic letter mark,
 * zero-width space and the LRM/RLM marks, the line and paragraph separators, the bidi embeddings,
 * overrides and isolates, the word joiner, the byte-order mark and lone surrogates (not text at all).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The same set without the line feed, for multi-line text this program composed itself. */
const UNSAFE_KEEP_NEWLINES = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
  return SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** One line of output: every unsafe character, the line feed included, becomes a visible escape. */
export function escapeLine(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** Text made of lines this program joined with `\n`: the line feeds stay, everything else unsafe is escaped. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE_KEEP_NEWLINES, escapeChar);
}

/** True when the text holds a character that escapeLine would change (validation rules use it). */
export function hasUnsafeCharacters(text: string): boolean {
  return UNSAFE_ONE.test(text);
}

const UNSAFE_ONE = new RegExp(UNSAFE.source);

/**
 * A piece of a file the user named, as an error quotes it: escaped (escapeLine) and cut to `max`
 * characters with an ellipsis, in single quotes. Content of a file the user did not name (one found
 * in a folder) is never quoted at all.
 */
export function quoteFileText(text: string, max: number): string {
  return `'${escapeLine(text.slice(0, max))}${text.length > max ? '…' : ''}'`;
}

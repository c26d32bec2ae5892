/**
 * Text that came from a record (an id, a level or skill name, a message, a model's words) on its way to a
 * terminal: every character a terminal acts on is shown as a visible escape, so that a record cannot move the
 * cursor, recolour or erase what hexa printed, or reorder it (docs/security.md). Shown as `\x1b` (C0 and DEL) or
 * `\u009b` (C1 and the bidirectional controls, U+061C, U+200E/F, U+202A–E, U+2066–9).
 */

const BIDI = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";
/** Every control but tab and newline, which multi-line text may hold. */
const ACTING_IN_TEXT = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI}]`, "g");
/** Every control, tab and newline included: a one-line field that ends its line could forge the next. */
const ACTING_IN_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI}]`, "g");

const visible = (c: string): string => {
  const code = c.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

/** Multi-line text for a terminal: tabs and newlines kept, every other control shown as an escape. */
export const terminalText = (text: string): string => text.replace(ACTING_IN_TEXT, visible);

/** A one-line field (an id, a name, a value) for a terminal: every control shown as an escape, tab and newline too. */
export const terminalLine = (text: string): string => text.replace(ACTING_IN_LINE, visible);

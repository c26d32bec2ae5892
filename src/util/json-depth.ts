/**
 * How deep JSON nests, measured without recursion, so that a model's answer nested thousands deep is measured
 * without overflowing the stack that `JSON.stringify` or a recursive walk would.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const OPENERS = new Set([123, 91]); // { [
const CLOSERS = new Set([125, 93]); // } ]

/** The deepest nesting of JSON text (brackets outside strings); stops counting once past `limit`. */
export const jsonTextDepth = (text: string, limit: number): number => {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      deepest = Math.max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (CLOSERS.has(c)) depth--;
  }
  return deepest;
};

/** The deepest nesting of a value (an object or array counts one level), walked with an explicit stack; stops once past `limit`. */
export const valueDepth = (value: unknown, limit: number): number => {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let deepest = 0;
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.value === null || typeof next.value !== "object") continue;
    const depth = next.depth + 1;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(next.value)) stack.push({ value: child, depth });
  }
  return deepest;
};
